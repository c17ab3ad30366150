package jcs

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/fastvalidate/internal/tape"
)

// RFC 8785 appendix B: IEEE 754 bit patterns and their canonical text.
var rfc8785Numbers = []struct {
	bits uint64
	want string
}{
	{0x0000000000000000, "0"},
	{0x8000000000000000, "0"},
	{0x0000000000000001, "5e-324"},
	{0x8000000000000001, "-5e-324"},
	{0x7fefffffffffffff, "1.7976931348623157e+308"},
	{0xffefffffffffffff, "-1.7976931348623157e+308"},
	{0x4340000000000000, "9007199254740992"},
	{0xc340000000000000, "-9007199254740992"},
	{0x4430000000000000, "295147905179352830000"},
	{0x44b52d02c7e14af5, "9.999999999999997e+22"},
	{0x44b52d02c7e14af6, "1e+23"},
	{0x44b52d02c7e14af7, "1.0000000000000001e+23"},
	{0x444b1ae4d6e2ef4e, "999999999999999700000"},
	{0x444b1ae4d6e2ef4f, "999999999999999900000"},
	{0x444b1ae4d6e2ef50, "1e+21"},
	{0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"},
	{0x3eb0c6f7a0b5ed8d, "0.000001"},
	{0x41b3de4355555553, "333333333.3333332"},
	{0x41b3de4355555554, "333333333.33333325"},
	{0x41b3de4355555555, "333333333.3333333"},
	{0x41b3de4355555556, "333333333.3333334"},
	{0x41b3de4355555557, "333333333.33333343"},
	{0xbecbf647612f3696, "-0.0000033333333333333333"},
	{0x43143ff3c1cb0959, "1424953923781206.2"},
}

func TestAppendFloat_RFC8785Vectors(t *testing.T) {
	for _, tc := range rfc8785Numbers {
		f := math.Float64frombits(tc.bits)
		if got := string(AppendFloat(nil, f)); got != tc.want {
			t.Errorf("%016x: got %s, want %s", tc.bits, got, tc.want)
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
