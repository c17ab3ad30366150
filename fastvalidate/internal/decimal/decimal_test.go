package decimal

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strconv"
	"testing"
)

// FitsFloat64 decides most numbers by their decimal exponent alone; it must
// agree with strconv.ParseFloat's range error everywhere, above all near
// math.MaxFloat64 where it defers to it.
func TestFitsFloat64_AgreesWithParseFloat(t *testing.T) {
	cases := []string{"0", "-0", "0e999999", "1e308", "1.7976931348623157e308", "1.7976931348623158e308",
		"1.7976931348623159e308", "1.8e308", "-1.8e308", "1e309", "10e308", "0.1e310", "1e-400", "-1e-400",
		"179769313486231570000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
		"0.00001e313", "123456789e300", "2.854e-21", "1e99999999999999999999",
		// overflowAt itself, which rounds up to infinity, the integer
		// below it, and the same digits written other ways.
		overflowAtText, "-" + overflowAtText, overflowAtText[:308] + "1", overflowAtText + ".0000",
		overflowAtText[:308] + "1.99999999999999999999", "0." + overflowAtText + "e309", overflowAtText + "0e-1",
		overflowAtText[:1] + "." + overflowAtText[1:] + "e308", overflowAtText[:1] + "." + overflowAtText[1:308] + "1e308",
		overflowAtText[:1] + "." + overflowAtText[1:] + "000000001e308", "1.797693134862315807937289714053e308",
		"1.797693134862315807937289714052e308", "1.797693134862315807937289714054e308"}
	r := rand.New(rand.NewPCG(7, 7))
	for range 20000 {
		mant := strconv.FormatFloat(r.Float64()*10, 'f', r.IntN(20), 64)
		cases = append(cases, fmt.Sprintf("%s%se%d", []string{"", "-"}[r.IntN(2)], mant, 290+r.IntN(40)))
	}
	for _, c := range cases {
		_, err := strconv.ParseFloat(c, 64)
		if got, want := FitsFloat64([]byte(c)), err == nil; got != want {
			t.Errorf("FitsFloat64(%s) = %v, ParseFloat says %v", c, got, want)
		}
	}
}

// The digit comparisons must agree with exact rational arithmetic on every
// spelling of a number: signs, leading and trailing zeros, exponents.
func TestDecimal_AgreesWithBigRat(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	digits := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = "0000123456789"[r.IntN(13)]
		}
		return string(b)
	}
	number := func() string {
		s := ""
		if r.IntN(3) == 0 {
			s = "-"
		}
		if r.IntN(3) == 0 {
			s += "0"
		} else {
			s += string(rune('1'+r.IntN(9))) + digits(r.IntN(4))
		}
		if r.IntN(2) == 0 {
			s += "." + digits(1+r.IntN(25))
		}
		if r.IntN(2) == 0 {
			s += []string{"e", "E", "e+", "e-", "E-"}[r.IntN(5)] + strconv.Itoa(r.IntN(30))
		}
		return s
	}
	constants := []string{"0", "1", "2.854e-21", "-1", "0.5", "100"}
	cases := []string{"0", "-0", "0.0e5", "-0.000", "1", "1.0", "1.00000000000000000001", "0.99999999999999999999",
		"10e-1", "100e-2", "2.854e-21", "2.8539999999999999999999e-21", "28.54e-22", "0.0000000000000000000028540",
		"1e2", "1.5e1", "15e-1", "-2.854e-21"}
	for range 20000 {
		cases = append(cases, number())
	}
	for _, c := range cases {
		x, ok := new(big.Rat).SetString(c)
		if !ok {
			t.Fatalf("big.Rat cannot read %s", c)
		}
		if got, want := IsZero([]byte(c)), x.Sign() == 0; got != want {
			t.Errorf("IsZero(%s) = %v, want %v", c, got, want)
		}
		if got, want := IsInteger([]byte(c)), x.IsInt(); got != want {
			t.Errorf("IsInteger(%s) = %v, want %v", c, got, want)
		}
		for _, k := range constants {
			y, _ := new(big.Rat).SetString(k)
			if got, want := Compare([]byte(c), Must(k)), x.Cmp(y); got != want {
				t.Errorf("Compare(%s, %s) = %d, want %d", c, k, got, want)
			}
		}
	}
}

// overflowAt must be 2^1024 - 2^970: halfway between math.MaxFloat64 and
// 2^1024, the least magnitude strconv.ParseFloat rounds to infinity.
func TestOverflowAt(t *testing.T) {
	want := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 1024), new(big.Int).Lsh(big.NewInt(1), 970))
	if overflowAtText != want.String() {
		t.Fatalf("overflowAtText = %s; 2^1024 - 2^970 is %s", overflowAtText, want)
	}
	below := new(big.Int).Sub(want, big.NewInt(1)).String()
	if _, err := strconv.ParseFloat(below, 64); err != nil {
		t.Errorf("ParseFloat(2^1024 - 2^970 - 1): %v; want it within range", err)
	}
	if _, err := strconv.ParseFloat(overflowAtText, 64); err == nil {
		t.Errorf("ParseFloat(2^1024 - 2^970) is within range; want a range error")
	}
}

// FuzzFitsFloat64 holds FitsFloat64 to strconv.ParseFloat on numbers with
// any digits and an exponent around float64's largest.
func FuzzFitsFloat64(f *testing.F) {
	f.Add(false, uint64(17976931348623158), uint64(79372897140530341), uint8(16), int16(292))
	f.Add(true, uint64(1), uint64(0), uint8(0), int16(309))
	f.Fuzz(func(t *testing.T, neg bool, hi, lo uint64, point uint8, exp int16) {
		digits := strconv.FormatUint(hi, 10) + fmt.Sprintf("%017d", lo%1e17)
		p := 1 + int(point)%len(digits)
		text := digits[:p] + "." + digits[p:] + "e" + strconv.Itoa(int(exp%400))
		if neg {
			text = "-" + text
		}
		_, err := strconv.ParseFloat(text, 64)
		if got, want := FitsFloat64([]byte(text)), err == nil; got != want {
			t.Fatalf("FitsFloat64(%s) = %v, ParseFloat says %v", text, got, want)
		}
	})
}
