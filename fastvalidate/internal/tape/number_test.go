package tape

import (
	"strings"
	"testing"
)

// The scanner reads a number a second time only when it is long or has an
// exponent of three digits or more (FlagLong); this holds the first read
// to that, on numbers on both sides of the prefilter.
func TestScanNumber_LongFlag(t *testing.T) {
	for _, c := range []struct {
		n     string
		flags uint8
	}{
		{"1e400", FlagExp | FlagLong},
		{"-1e400", FlagNeg | FlagExp | FlagLong},
		{"1.5e00400", FlagFrac | FlagExp | FlagLong},
		{"1e-400", FlagExp | FlagLong},
		{"1e100", FlagExp | FlagLong},
		{"1e99", FlagExp},
		{"-1.5e-07", FlagNeg | FlagFrac | FlagExp},
		{strings.Repeat("9", 199), 0},
		{strings.Repeat("9", 200), FlagLong},
		{"-0." + strings.Repeat("9", 197), FlagNeg | FlagFrac | FlagLong},
	} {
		b := []byte(c.n + ",")
		end, flags := scanNumber(b, 0)
		if end != len(c.n) || flags != c.flags {
			t.Errorf("scanNumber(%.20s…) = %d, %04b; want %d, %04b", c.n, end, flags, len(c.n), c.flags)
		}
	}
}
