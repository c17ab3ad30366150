package htmlreport

import (
	"html/template"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cardscan/cardscan/internal/visible"
)

// maxText bounds, in characters, every name the page shows from a summary
// or a diff (a key, a file name, a pointer, a message): a card of
// megabytes made a page of tens of megabytes.
const maxText = 200

// cut shortens s to n characters as the page shows them, saying how long
// s was: "… (8.4 MB, cut)". A hidden character counts as the characters
// of its mark, <U+200B>, so that a name of them is bounded on the page as
// one of letters is. It reads only as far as it keeps.
func cut(s string, n int) string {
	i, kept := 0, 0
	for i < len(s) {
		r, w := utf8.DecodeRuneInString(s[i:])
		if kept += shownWidth(r); kept > n {
			break
		}
		i += w
	}
	if i >= len(s) {
		return s
	}
	return s[:i] + "… (" + size(len(s)) + ", cut)"
}

// shownWidth is how many characters r takes on the page: 1, or for a
// hidden character those of its mark, "<U+" and ">" around four to six
// hexadecimal digits.
func shownWidth(r rune) int {
	if !visible.Hidden(r) {
		return 1
	}
	digits := 4
	for r>>(4*digits) != 0 {
		digits++
	}
	return digits + 4
}

// shorten cuts s to n characters with an ellipsis alone, for a chart
// label whose full text is its tooltip.
func shorten(s string, n int) string {
	i, kept := 0, 0
	for i < len(s) && kept < n-1 {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
		kept++
	}
	if utf8.RuneCountInString(s[i:]) <= 1 {
		return s
	}
	return s[:i] + "…"
}

// size writes a length in bytes as people read it: 812 B, 4.1 kB, 8.4 MB
// (powers of ten, as the summary's MB).
func size(n int) string {
	switch {
	case n < 1000:
		return strconv.Itoa(n) + " B"
	case n < 1e6:
		return strconv.FormatFloat(float64(n)/1e3, 'f', 1, 64) + " kB"
	case n < 1e9:
		return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + " MB"
	}
	return strconv.FormatFloat(float64(n)/1e9, 'f', 1, 64) + " GB"
}

// mark writes s escaped, each hidden character as a visible <U+XXXX> in
// an element made by open and closed by close.
func mark(b *strings.Builder, s, open, close string) {
	start := 0
	for i, r := range s {
		if !visible.Hidden(r) {
			continue
		}
		b.WriteString(template.HTMLEscapeString(s[start:i]))
		b.WriteString(open)
		b.WriteString(template.HTMLEscapeString(visible.CodePoint(r)))
		b.WriteString(close)
		start = i + utf8.RuneLen(r)
	}
	b.WriteString(template.HTMLEscapeString(s[start:]))
}

// hiddenOpen marks a hidden character with its style alone: a tooltip on
// each, repeated for every one of a name's, tripled the bytes of a name
// of them.
const hiddenOpen = `<span class="hidden-char">`

// text is a name from a summary or a diff as the page shows it in HTML:
// cut to maxText characters, its hidden characters shown, and isolated in
// a <bdi> so that right-to-left text in it cannot reorder what is around
// it.
func text(s string) template.HTML {
	var b strings.Builder
	b.WriteString("<bdi>")
	mark(&b, cut(s, maxText), hiddenOpen, "</span>")
	b.WriteString("</bdi>")
	return template.HTML(b.String())
}

// optionalText is text(s), or nothing for an empty s.
func optionalText(s string) template.HTML {
	if s == "" {
		return ""
	}
	return text(s)
}

// svgText is text for a chart's <text> element, where HTML elements do
// not belong: hidden characters in a <tspan>; the style sheet isolates
// chart text.
func svgText(s string) template.HTML {
	var b strings.Builder
	mark(&b, s, `<tspan class="hidden-char">`, "</tspan>")
	return template.HTML(b.String())
}

// plain is a name for a tooltip (an SVG <title>), which shows text only:
// cut, with its hidden characters spelled out.
func plain(s string) string {
	s = cut(s, maxText)
	if strings.IndexFunc(s, visible.Hidden) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if visible.Hidden(r) {
			b.WriteString(visible.CodePoint(r))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}
