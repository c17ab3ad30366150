package jcs

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/fastvalidate/internal/jcs/jcstest"

	"github.com/cardscan/cardscan/fastvalidate/internal/tape"
)

func TestAppendFloat_RFC8785Vectors(t *testing.T) {
	for _, tc := range jcstest.RFC8785Numbers(t) {
		f := math.Float64frombits(tc.Bits)
		if got := string(AppendFloat(nil, f)); got != tc.Want {
			t.Errorf("%016x: got %s, want %s", tc.Bits, got, tc.Want)
		}
	}
}

func TestCompareUTF16(t *testing.T) {
	for _, tc := range []struct {
		x, y string
		sign int
	}{
		{"a", "b", -1},
		{"a", "a", 0},
		{"a", "ab", -1},
		{"\uffff", "😀", 1},  // U+FFFF is above the surrogates
		{"\ue000", "😀", 1},  // so is the private use area
		{"\ud7ff", "😀", -1}, // below them
		{"😀", "😁", -1},      // same high surrogate: code point order
		{"\U00010000", "\U0010ffff", -1},
		{"é", "z", 1},
	} {
		got := CompareUTF16([]byte(tc.x), []byte(tc.y))
		if (got < 0) != (tc.sign < 0) || (got == 0) != (tc.sign == 0) {
			t.Errorf("CompareUTF16(%q, %q) = %d, want sign %d", tc.x, tc.y, got, tc.sign)
		}
	}
}

// TestCanonicalNumberPlainDecimal: the numbers plainDecimal passes as they
// are written are written so by ECMAScript's rules, and it passes the
// common ones.
func TestCanonicalNumberPlainDecimal(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 3))
	passed := 0
	check := func(s string) {
		var sc tape.Scanner
		sc.MaxDepth = 1
		if !sc.Scan([]byte(s)) || sc.View().Kind(0) != tape.KindNumber {
			t.Fatalf("%s: not a number", s)
		}
		flags := sc.View().Flags(0)
		got := AppendNumber(nil, []byte(s), flags)
		f, _ := strconv.ParseFloat(s, 64)
		if want := AppendFloat(nil, f); string(got) != string(want) {
			t.Errorf("%s: canonical %s, want %s", s, got, want)
		}
		if NumberAsIs([]byte(s), flags) && flags&(tape.FlagFrac|tape.FlagExp) != 0 {
			passed++
		}
	}
	for _, s := range []string{"0.5", "-0.5", "0.1", "0.000001", "0.0000001", "0.0000010", "123.456", "1.5",
		"123456789012.345", "1234567890123.456", "0.123456789012345", "0.1234567890123456", "9.999999999999999",
		"99999999999999.9", "999999999999999.9", "0.30000000000000004", "-0.000001", "-0.0000001", "1.0", "0.0",
		"9.6e-14", "2.9e-20", "1e-7", "1e-6", "1e+21", "1e+20", "1e21", "1E-7", "1.0e-7", "1.5e+300", "-1.5e-300",
		"1.23456789012345e-10", "1.234567890123456e-10", "1e-07", "1e+021", "10e-8", "1.7976931348623157e+308", "4.9e-324", "5e-324"} {
		check(s)
	}
	for range 20000 {
		var b strings.Builder
		if r.IntN(4) == 0 {
			b.WriteByte('-')
		}
		if r.IntN(2) == 0 {
			b.WriteByte('0')
		} else {
			b.WriteByte(byte('1' + r.IntN(9)))
			for range r.IntN(12) {
				b.WriteByte(byte('0' + r.IntN(10)))
			}
		}
		b.WriteByte('.')
		for range r.IntN(8) {
			b.WriteByte('0')
		}
		for range 1 + r.IntN(16) {
			b.WriteByte(byte('0' + r.IntN(10)))
		}
		check(b.String())
		// And in exponent form.
		b.Reset()
		b.WriteByte(byte('1' + r.IntN(9)))
		if r.IntN(2) == 0 {
			b.WriteByte('.')
			for range 1 + r.IntN(16) {
				b.WriteByte(byte('0' + r.IntN(10)))
			}
		}
		b.WriteString([]string{"e", "E", "e+", "e-", "E-"}[r.IntN(5)])
		b.WriteString(strconv.Itoa(r.IntN(308)))
		check(b.String())
	}
	if passed < 5000 {
		t.Errorf("only %d numbers taken as written", passed)
	}
}
