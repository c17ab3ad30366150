// Package visible shows the characters of untrusted text that a reader
// would not see: every output of cardscan that repeats a card's text
// (the text format, GitHub annotations, SARIF messages, MCP tool results,
// the HTML report) writes each of them as its code point, <U+202E>, and
// every JSON record as a \u escape, \u202e, so that a name cannot pass
// for another nor reorder the line it is on.
package visible

import (
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Hidden tells the characters a reader would not see, or would see act
// on the text around them rather than as themselves: controls, bidi
// embeddings, overrides and isolates, zero-width characters, tag
// characters, variation selectors and other default-ignorable code
// points, line and paragraph separators. A name holding one could pass
// for another (a U+202E RIGHT-TO-LEFT OVERRIDE shows "evil\u202etxt.exe"
// as "evilexe.txt").
func Hidden(r rune) bool {
	if r < utf8.RuneSelf {
		return r < ' ' || r == 0x7f
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp,
		unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)
}

// AppendCodePoint appends r as "<U+202E>": four hexadecimal digits at
// least, upper case.
func AppendCodePoint(dst []byte, r rune) []byte {
	const hex = "0123456789ABCDEF"
	dst = append(dst, "<U+"...)
	digits := 4
	for r>>(4*digits) != 0 {
		digits++
	}
	for i := digits - 1; i >= 0; i-- {
		dst = append(dst, hex[r>>(4*i)&0xF])
	}
	return append(dst, '>')
}

// CodePoint returns r as AppendCodePoint writes it.
func CodePoint(r rune) string { return string(AppendCodePoint(nil, r)) }

// Append appends s with each hidden character beyond ASCII written as its
// code point. ASCII controls and invalid UTF-8 are copied as they are:
// how to escape them is each format's own rule (a JSON string's, a
// workflow command's), which the caller applies to the result.
func Append[T string | []byte](dst []byte, s T) []byte {
	start := 0
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
		if size > 1 && Hidden(r) {
			dst = append(dst, s[start:i]...)
			dst = AppendCodePoint(dst, r)
			start = i + size
		}
		i += size
	}
	return append(dst, s[start:]...)
}

// Has reports whether s holds a hidden character beyond ASCII, which
// Append would rewrite.
func Has[T string | []byte](s T) bool {
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
		if size > 1 && Hidden(r) {
			return true
		}
		i += size
	}
	return false
}

// AppendJSONEscape appends r as a JSON \u escape, a UTF-16 surrogate pair
// beyond the Basic Multilingual Plane (a tag character, U+E0041, is
// \udb40\udc41).
func AppendJSONEscape(dst []byte, r rune) []byte {
	if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
		dst = AppendJSONEscape(dst, r1)
		r = r2
	}
	const hex = "0123456789abcdef"
	return append(dst, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
}

// EscapeJSON returns the JSON text js, as encoding/json writes it, with
// each hidden character and C1 control written as a \u escape: a JSON
// reader decodes the same text, a person reading it sees what it holds.
// Outside its strings such JSON holds only ASCII, so every one of them is
// inside a string, where an escape means the character itself. js itself
// is returned when it holds none.
func EscapeJSON(js []byte) []byte {
	var out []byte
	start := 0
	for i := 0; i < len(js); {
		if js[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(js[i:])
		if size > 1 && (r < 0xa0 || Hidden(r)) {
			out = append(out, js[start:i]...)
			out = AppendJSONEscape(out, r)
			start = i + size
		}
		i += size
	}
	if out == nil {
		return js
	}
	return append(out, js[start:]...)
}

// QuoteCut quotes s for a message, as strconv.Quote does, but only its
// first limit bytes (cut where a character starts) and its size when it
// is longer: a key, kid or value of a hostile file can be megabytes, and
// a message is a line a person reads.
func QuoteCut(s string, limit int) string {
	if len(s) <= limit {
		return strconv.Quote(s)
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "… (" + strconv.Itoa(len(s)) + " bytes)"
}
