package htmlreport

import (
	"html/template"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxText bounds, in characters, every name the page shows from a summary
// or a diff (a key, a file name, a pointer, a message): a card of
// megabytes made a page of tens of megabytes.
const maxText = 200

// cut shortens s to n characters, saying how long s was: "… (8.4 MB,
// cut)". It reads only as far as it keeps.
func cut(s string, n int) string {
	i, kept := 0, 0
	for i < len(s) && kept < n {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
		kept++
	}
	if i >= len(s) {
		return s
	}
	return s[:i] + "… (" + size(len(s)) + ", cut)"
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

// hidden tells the characters a reader would not see, or would see act on
// the text around them rather than as themselves: controls, bidi
// embeddings, overrides and isolates, zero-width characters, tag
// characters, variation selectors and other default-ignorable code
// points, line and paragraph separators. A name in a report holding one
// could pass for another (a U+202E RIGHT-TO-LEFT OVERRIDE shows
// "evil\u202etxt.exe" as "evilexe.txt").
func hidden(r rune) bool {
	if r < utf8.RuneSelf {
		return r < ' ' || r == 0x7f
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp,
		unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)
}

// mark writes s escaped, each hidden character as a visible <U+XXXX> in
// an element made by open and closed by close.
func mark(b *strings.Builder, s, open, close string) {
	start := 0
	for i, r := range s {
		if !hidden(r) {
			continue
		}
		b.WriteString(template.HTMLEscapeString(s[start:i]))
		b.WriteString(open)
		b.WriteString(template.HTMLEscapeString(codePoint(r)))
		b.WriteString(close)
		start = i + utf8.RuneLen(r)
	}
	b.WriteString(template.HTMLEscapeString(s[start:]))
}

// codePoint is "<U+202E>".
func codePoint(r rune) string {
	h := strings.ToUpper(strconv.FormatInt(int64(r), 16))
	return "<U+" + strings.Repeat("0", max(0, 4-len(h))) + h + ">"
}

const hiddenOpen = `<span class="hidden-char" title="a hidden character, shown by its code point">`

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
	if strings.IndexFunc(s, hidden) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if hidden(r) {
			b.WriteString(codePoint(r))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}
