package fastvalidate

import (
	"strconv"
	"unsafe"
)

// Exact comparison of JSON number text with a decimal constant. A float64
// would round 2.8539999999999999999999e-21 up to the Landauer floor and
// 1.00000000000000000001 down to a maximum of 1; comparing the digits as
// written cannot, and costs less than parsing them into a float64.

// decimalParts splits JSON number text (already checked by the scanner)
// into sign, integer digits, fraction digits and exponent.
type decimalParts struct {
	neg       bool
	int, frac []byte
	exp       int
}

func splitDecimal(t []byte) decimalParts {
	var d decimalParts
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
	if i < len(t) && t[i]|0x20 == 'e' {
		i++
		neg := false
		if t[i] == '+' || t[i] == '-' {
			neg = t[i] == '-'
			i++
		}
		for ; i < len(t); i++ {
			// Clamp: beyond a billion the magnitude decides on its own.
			if d.exp < 1e9 {
				d.exp = d.exp*10 + int(t[i]-'0')
			}
		}
		if neg {
			d.exp = -d.exp
		}
	}
	return d
}

// digit returns the k-th digit of int followed by frac, or '0' past the end.
func (d *decimalParts) digit(k int) byte {
	if k < len(d.int) {
		return d.int[k]
	}
	k -= len(d.int)
	if k < len(d.frac) {
		return d.frac[k]
	}
	return '0'
}

// normal returns the index of the first non-zero digit and the decimal
// exponent of the digit sequence that starts there (value = 0.DDD × 10^point),
// or zero=true.
func (d *decimalParts) normal() (first, point int, zero bool) {
	n := len(d.int) + len(d.frac)
	for first < n && d.digit(first) == '0' {
		first++
	}
	if first == n {
		return 0, 0, true
	}
	return first, len(d.int) - first + d.exp, false
}

// isZeroNumber reports whether JSON number text is exactly zero ("-0.0e5" is).
func isZeroNumber(t []byte) bool {
	d := splitDecimal(t)
	_, _, zero := d.normal()
	return zero
}

// isIntegerNumber reports whether JSON number text is a mathematical
// integer, as JSON Schema's "integer" type means it: 1.0 and 1e2 are.
func isIntegerNumber(t []byte) bool {
	d := splitDecimal(t)
	first, point, zero := d.normal()
	if zero {
		return true
	}
	last := len(d.int) + len(d.frac) - 1
	for last > first && d.digit(last) == '0' {
		last--
	}
	return last-first+1 <= point
}

// compareNumber returns -1, 0 or +1 as JSON number text a is below, equal to
// or above JSON number text b.
func compareNumber(a, b []byte) int {
	x, y := splitDecimal(a), splitDecimal(b)
	xf, xp, xz := x.normal()
	yf, yp, yz := y.normal()
	sign := func(neg, zero bool) int {
		switch {
		case zero:
			return 0
		case neg:
			return -1
		}
		return 1
	}
	sx, sy := sign(x.neg, xz), sign(y.neg, yz)
	if sx != sy {
		if sx < sy {
			return -1
		}
		return 1
	}
	if sx == 0 {
		return 0
	}
	mag := 0
	switch {
	case xp < yp:
		mag = -1
	case xp > yp:
		mag = 1
	default:
		nx := len(x.int) + len(x.frac) - xf
		ny := len(y.int) + len(y.frac) - yf
		for k := 0; k < max(nx, ny); k++ {
			dx, dy := x.digit(xf+k), y.digit(yf+k)
			if k >= nx {
				dx = '0'
			}
			if k >= ny {
				dy = '0'
			}
			if dx != dy {
				mag = 1
				if dx < dy {
					mag = -1
				}
				break
			}
		}
	}
	return mag * sx
}

// fitsFloat64 reports whether JSON number text lies within float64's range
// (magnitude at most math.MaxFloat64, about 1.8e308). A number too small
// for a float64 fits: it rounds to zero or a subnormal, not to infinity.
func fitsFloat64(t []byte) bool {
	d := splitDecimal(t)
	_, point, zero := d.normal()
	switch {
	case zero || point <= 308:
		return true
	case point > 309:
		return false
	}
	_, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(t), len(t)), 64)
	return err == nil
}
