// Package jcs writes the numbers and strings of RFC 8785 (JSON
// Canonicalization Scheme) canonical forms, and orders member names as it
// does: what the canonicaliser and the content digest, which must agree on
// every value, share.
package jcs

import (
	"bytes"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/cardscan/cardscan/fastvalidate/internal/tape"
)

// AppendNumber appends the canonical text of a number the scan
// accepted, as ECMAScript's Number::toString writes the float64 nearest
// to it (RFC 8785 section 3.2.2.3). The scan has refused every number
// beyond float64's range (json.number-range).
func AppendNumber(dst, text []byte, flags uint8) []byte {
	if NumberAsIs(text, flags) {
		return append(dst, text...)
	}
	if string(text) == "-0" {
		return append(dst, '0')
	}
	f, _ := strconv.ParseFloat(string(text), 64)
	return AppendFloat(dst, f)
}

// NumberAsIs reports whether a number is written in canonical form.
func NumberAsIs(text []byte, flags uint8) bool {
	switch flags & (tape.FlagFrac | tape.FlagExp) {
	case 0:
		// An integer of up to 15 digits is a float64 as written, and
		// ECMAScript writes it the same way, but for a minus zero.
		return len(text) <= 15 && string(text) != "-0"
	case tape.FlagFrac:
		return plainDecimal(text)
	}
	return plainExponent(text)
}

// plainExponent reports whether a number with an exponent is written as
// ECMAScript writes it: d[.ddd]e±x with at most 15 significant digits, no
// trailing zero among them, and an exponent outside -6 to 20 (and within
// ±300) written with its sign and no leading zero; for the digits, see
// plainDecimal.
func plainExponent(text []byte) bool {
	i := 0
	if text[0] == '-' {
		i = 1
	}
	if text[i] == '0' {
		return false
	}
	e := bytes.IndexByte(text, 'e')
	if e < 0 {
		return false // written with E
	}
	mant := text[i:e]
	if len(mant) > 1 && (mant[1] != '.' || mant[len(mant)-1] == '0' || len(mant) > 16) {
		return false
	}
	exp := text[e+1:]
	if len(exp) < 2 || (exp[0] != '+' && exp[0] != '-') || exp[1] == '0' || len(exp) > 4 {
		return false
	}
	x := 0
	for _, c := range exp[1:] {
		x = x*10 + int(c-'0')
	}
	// Subnormal numbers keep fewer digits than 15: stay well above them.
	if exp[0] == '-' {
		return x >= 7 && x <= 300
	}
	return x >= 21 && x <= 300
}

// plainDecimal reports whether a number with a fraction and no exponent is
// written as ECMAScript writes it, which parsing and formatting took about
// a thousand instructions a number to find out (BenchmarkValidateDigest
// under callgrind): at most 15 significant digits, none
// of them a trailing zero, and at least 1e-6. A float64 keeps any 15
// significant digits (DBL_DIG), so no other string of 15 digits or fewer
// reads as the same float64, and the shortest digits that read back as it
// are those; ECMAScript writes them without an exponent from 1e-6 up to
// 1e21 (TestCanonicalNumberPlainDecimal).
func plainDecimal(text []byte) bool {
	if text[len(text)-1] == '0' {
		return false
	}
	i := 0
	if text[0] == '-' {
		i = 1
	}
	if text[i] != '0' {
		return len(text)-i-1 <= 15 // the digits, less the point
	}
	// 0.000ddd: the zeros after the point are not significant. The last
	// digit is not a zero, so the loop stops before it.
	i += 2
	z := i
	for text[i] == '0' {
		i++
	}
	return i-z <= 5 && len(text)-i <= 15
}

// AppendFloat appends f as ECMAScript's Number::toString writes
// it (ECMA-262, 6.1.6.1.20): the shortest digits that read back as f, in
// plain notation from 1e-6 up to 1e21 and in exponent notation outside.
// NaN and the infinities have no JSON form; they are written as null.
func AppendFloat(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...)
	}
	if f == 0 {
		return append(dst, '0')
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	// strconv's shortest round-tripping digits, as d.ddde±x.
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, 64)
	mant, exp := e, 0
	for i, ch := range e {
		if ch == 'e' {
			mant = e[:i]
			exp, _ = strconv.Atoi(string(e[i+1:]))
			break
		}
	}
	var digits [20]byte
	k := 0
	for _, ch := range mant {
		if ch != '.' {
			digits[k] = ch
			k++
		}
	}
	n := exp + 1 // the decimal point's place after the first n digits
	switch {
	case k <= n && n <= 21:
		dst = append(dst, digits[:k]...)
		for range n - k {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21:
		dst = append(dst, digits[:n]...)
		dst = append(dst, '.')
		dst = append(dst, digits[n:k]...)
	case -6 < n && n <= 0:
		dst = append(dst, '0', '.')
		for range -n {
			dst = append(dst, '0')
		}
		dst = append(dst, digits[:k]...)
	default:
		dst = append(dst, digits[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:k]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst
}

const hexDigits = "0123456789abcdef"

// AppendEscaped appends s, decoded UTF-8 text, escaped as RFC 8785
// section 3.2.2.2 writes a string: quotes and backslashes escaped, the
// five control characters with short escapes as such, the other controls
// as \u00xx, and everything else as it is. Text without a control
// character, quote or backslash comes out unchanged, which is why a
// string the scanner found no escape in can be copied as written
// (TestCanonicalUnescapedStrings).
func AppendEscaped(dst, s []byte) []byte {
	last := 0
	for i, ch := range s {
		if ch >= 0x20 && ch != '"' && ch != '\\' {
			continue
		}
		dst = append(dst, s[last:i]...)
		last = i + 1
		switch ch {
		case '"', '\\':
			dst = append(dst, '\\', ch)
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\r':
			dst = append(dst, '\\', 'r')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[ch>>4], hexDigits[ch&15])
		}
	}
	return append(dst, s[last:]...)
}

// CompareUTF16 orders two UTF-8 strings by their UTF-16 code units, as
// RFC 8785 section 3.2.3 sorts member names. UTF-8 byte order is code
// point order, which differs only where a character above U+FFFF (a
// surrogate pair, D800-DBFF first) meets one of U+E000-U+FFFF.
func CompareUTF16(x, y []byte) int {
	for len(x) > 0 && len(y) > 0 {
		if x[0] < 0x80 && y[0] < 0x80 {
			if x[0] != y[0] {
				return int(x[0]) - int(y[0])
			}
			x, y = x[1:], y[1:]
			continue
		}
		rx, nx := utf8.DecodeRune(x)
		ry, ny := utf8.DecodeRune(y)
		if rx != ry {
			ux, uy := utf16First(rx), utf16First(ry)
			if ux == uy {
				return int(rx - ry)
			}
			return int(ux - uy)
		}
		x, y = x[nx:], y[ny:]
	}
	return len(x) - len(y)
}

// utf16First returns the first UTF-16 code unit of r. Two different runes
// with the same first unit are both above U+FFFF, where code point order
// is code unit order.
func utf16First(r rune) rune {
	if r < 0x10000 {
		return r
	}
	return 0xD800 + (r-0x10000)>>10
}
