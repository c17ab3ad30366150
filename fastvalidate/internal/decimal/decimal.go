// Package decimal compares JSON number text exactly, digit by digit, for the
// scanner's range check and the rules that bound a number.
package decimal

// Exact comparison of JSON number text with a decimal constant. A float64
// would round 2.8539999999999999999999e-21 up to the Landauer floor and
// 1.00000000000000000001 down to a maximum of 1; comparing the digits as
// written cannot, and costs less than parsing them into a float64.

// Decimal is JSON number text (already checked by the scanner) read as
// ±0.DDD × 10^point, where DDD are the significant digits: int followed by
// frac, from the first non-zero one.
type Decimal struct {
	neg, zero bool
	int, frac []byte // the digits as written
	first     int    // index into int+frac of the first non-zero digit
	point     int
}

// Parse reads t, JSON number text the scanner has accepted.
func Parse(t []byte) Decimal {
	var d Decimal
	i := 0
	if i < len(t) && t[i] == '-' {
		d.neg = true
		i++
	}
	start := i
	for i < len(t) && t[i]-'0' <= 9 {
		i++
	}
	d.int = t[start:i]
	if i < len(t) && t[i] == '.' {
		i++
		start = i
		for i < len(t) && t[i]-'0' <= 9 {
			i++
		}
		d.frac = t[start:i]
	}
	exp := 0
	if i < len(t) && t[i]|0x20 == 'e' {
		i++
		neg := false
		if t[i] == '+' || t[i] == '-' {
			neg = t[i] == '-'
			i++
		}
		for ; i < len(t); i++ {
			// Clamp: beyond a billion the magnitude decides on its own.
			if exp < 1e9 {
				exp = exp*10 + int(t[i]-'0')
			}
		}
		if neg {
			exp = -exp
		}
	}
	n := len(d.int) + len(d.frac)
	for d.first < n && d.digit(d.first) == '0' {
		d.first++
	}
	d.zero = d.first == n
	d.point = len(d.int) - d.first + exp
	return d
}

// digit returns the k-th digit of int followed by frac, or '0' past the end.
func (d *Decimal) digit(k int) byte {
	if k < len(d.int) {
		return d.int[k]
	}
	k -= len(d.int)
	if k < len(d.frac) {
		return d.frac[k]
	}
	return '0'
}

func (d *Decimal) sign() int {
	switch {
	case d.zero:
		return 0
	case d.neg:
		return -1
	}
	return 1
}

// Zero reports whether d is zero, of either sign.
func (d *Decimal) Zero() bool { return d.zero }

// Cmp returns -1, 0 or +1 as d is below, equal to or above e.
func (d *Decimal) Cmp(e *Decimal) int {
	sd, se := d.sign(), e.sign()
	if sd != se {
		if sd < se {
			return -1
		}
		return 1
	}
	if sd == 0 {
		return 0
	}
	mag := 0
	switch {
	case d.point < e.point:
		mag = -1
	case d.point > e.point:
		mag = 1
	default:
		nd := len(d.int) + len(d.frac) - d.first
		ne := len(e.int) + len(e.frac) - e.first
		for k := range max(nd, ne) {
			x, y := d.digit(d.first+k), e.digit(e.first+k)
			if x != y {
				mag = 1
				if x < y {
					mag = -1
				}
				break
			}
		}
	}
	return mag * sd
}

// isInteger reports whether d is a mathematical integer, as JSON Schema's
// "integer" type means it: 1.0 and 1e2 are.
func (d *Decimal) isInteger() bool {
	if d.zero {
		return true
	}
	last := len(d.int) + len(d.frac) - 1
	for last > d.first && d.digit(last) == '0' {
		last--
	}
	return last-d.first+1 <= d.point
}

// fits reports whether d, parsed from t, lies within float64's range
// (magnitude at most math.MaxFloat64, about 1.8e308). A number too small
// for a float64 fits: it rounds to zero or a subnormal, not to infinity.
// One of 309 integer digits fits when it is below overflowAt: compared
// digit by digit, as strconv.ParseFloat's slow path for such long text
// took tens of thousands of instructions.
func (d *Decimal) fits() bool {
	switch {
	case d.zero || d.point <= 308:
		return true
	case d.point > 309:
		return false
	}
	magnitude := *d
	magnitude.neg = false
	return magnitude.Cmp(&overflowAt) < 0
}

// overflowAt is the least magnitude a float64 rounds to infinity:
// 2^1024 - 2^970, halfway between math.MaxFloat64 and 2^1024, which
// rounding to even takes up, MaxFloat64's last significand bit being 1.
// TestOverflowAt holds it to that value.
var overflowAt = Parse([]byte(overflowAtText))

const overflowAtText = "179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497792"

// Must parses s, which the caller knows to be JSON number text.
func Must(s string) *Decimal {
	d := Parse([]byte(s))
	return &d
}

// The forms below decide the common numbers from their text alone: a card's
// numbers are short, and most rules ask only whether one is zero or fits.

// IsZero reports whether JSON number text is exactly zero ("-0.0e5" is).
func IsZero(t []byte) bool {
	for _, c := range t {
		switch {
		case c|0x20 == 'e':
			return true
		case c-'1' <= 8:
			return false
		}
	}
	return true
}

// FitsFloat64 reports whether JSON number text lies within float64's range.
func FitsFloat64(t []byte) bool {
	// Fewer than 200 characters with an exponent of at most two digits
	// stay below 1e300.
	if len(t) < 200 {
		j := len(t) - 1
		for j >= 0 && t[j]-'0' <= 9 {
			j--
		}
		if j < 0 || t[j] == '.' || j == 0 && t[j] == '-' || len(t)-1-j <= 2 {
			return true
		}
	}
	d := Parse(t)
	return d.fits()
}

// IsInteger reports whether JSON number text is a mathematical integer.
func IsInteger(t []byte) bool {
	d := Parse(t)
	return d.isInteger()
}

// Compare returns -1, 0 or +1 as JSON number text a is below, equal to
// or above the constant b.
func Compare(a []byte, b *Decimal) int {
	d := Parse(a)
	return d.Cmp(b)
}
