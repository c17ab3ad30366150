package fastvalidate

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
)

// fitsFloat64 decides most numbers by their decimal exponent alone; it must
// agree with strconv.ParseFloat's range error everywhere, above all near
// math.MaxFloat64 where it defers to it.
func TestFitsFloat64_AgreesWithParseFloat(t *testing.T) {
	cases := []string{"0", "-0", "0e999999", "1e308", "1.7976931348623157e308", "1.7976931348623158e308",
		"1.7976931348623159e308", "1.8e308", "-1.8e308", "1e309", "10e308", "0.1e310", "1e-400", "-1e-400",
		"179769313486231570000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
		"0.00001e313", "123456789e300", "2.854e-21", "1e99999999999999999999"}
	r := rand.New(rand.NewPCG(7, 7))
	for range 20000 {
		mant := strconv.FormatFloat(r.Float64()*10, 'f', r.IntN(20), 64)
		cases = append(cases, fmt.Sprintf("%s%se%d", []string{"", "-"}[r.IntN(2)], mant, 290+r.IntN(40)))
	}
	for _, c := range cases {
		_, err := strconv.ParseFloat(c, 64)
		if got, want := fitsFloat64([]byte(c)), err == nil; got != want {
			t.Errorf("fitsFloat64(%s) = %v, ParseFloat says %v", c, got, want)
		}
	}
}
