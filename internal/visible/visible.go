// Package visible shows the characters of untrusted text that a reader
// would not see: every output of cardscan that repeats a card's text
// (the text format, GitHub annotations, SARIF messages, MCP tool results,
// the HTML report) writes each of them as its code point, <U+202E>, so
// that a name cannot pass for another nor reorder the line it is on.
package visible

import (
	"unicode"
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
