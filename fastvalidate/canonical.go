package fastvalidate

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/cardscan/cardscan/fastvalidate/internal/tape"
)

// Canonicalization by RFC 8785 (JCS), for signatures: A2A signs a card's
// canonical form with the top-level signatures member left out (A2A 1.0
// section 8.4). It reads the strict scanner's tape, so a card two JSON
// parsers could read differently (a duplicate name, a lone surrogate,
// invalid UTF-8) has no canonical form: it is rejected, never "fixed".

// CanonicalMode says which members of a card take part in its canonical
// form.
type CanonicalMode uint8

const (
	// CanonicalAsIs keeps every member as served: a member present was set
	// by the signer, so it was signed.
	CanonicalAsIs CanonicalMode = iota
	// CanonicalDropEmpty first removes, at every depth, members and array
	// elements whose value is an empty string, array or object, counting
	// arrays and objects that hold nothing else once cleaned as empty, as
	// the A2A Python and JS SDKs do before signing.
	CanonicalDropEmpty
)

// CanonicalOptions configures AppendCanonical.
type CanonicalOptions struct {
	Mode CanonicalMode
	// DropTopLevel names a member of the root object to leave out
	// ("signatures" for A2A cards); "" leaves out nothing.
	DropTopLevel string
	// MaxDepth bounds nesting; 0 means DefaultMaxDepth.
	MaxDepth int
}

// ErrNotCanonicalizable is wrapped by every error AppendCanonical returns.
var ErrNotCanonicalizable = errors.New("fastvalidate: no RFC 8785 canonical form")

// CanonicalError says why a document has no canonical form: the rule it
// breaks (json.syntax, json.utf8, json.duplicate-key, json.depth,
// json.number-range, card.type) and the byte offset where.
type CanonicalError struct {
	Code   Code
	Offset int
}

func (e *CanonicalError) Error() string {
	return "fastvalidate: no RFC 8785 canonical form: " + e.Code.String() + " at offset " + strconv.Itoa(e.Offset)
}

// Unwrap makes errors.Is(err, ErrNotCanonicalizable) hold.
func (e *CanonicalError) Unwrap() error { return ErrNotCanonicalizable }

// Canonicalizer writes RFC 8785 canonical forms. It may be reused and keeps
// its buffers between calls; it cannot be used from concurrent goroutines.
type Canonicalizer struct {
	sc      tape.Scanner
	vw      tape.View // of sc's tape
	members []member  // the open objects' members, innermost last
	names   []byte    // their decoded names
	empty   []bool    // drop-empty: a node is empty once cleaned
	num     []byte    // scratch for a decoded string
}

// member is one object member as the canonical form orders it: its key
// node and its decoded name in Canonicalizer.names.
type member struct {
	key        uint32
	start, end uint32
}

// AppendCanonical appends the canonical form of the JSON object card to dst.
// It allocates; a Canonicalizer reused for many cards allocates less.
func AppendCanonical(dst, card []byte, opts CanonicalOptions) ([]byte, error) {
	var c Canonicalizer
	return c.Append(dst, card, opts)
}

// Append appends the canonical form of the JSON object card to dst. On
// error dst is returned as it was given.
func (c *Canonicalizer) Append(dst, card []byte, opts CanonicalOptions) ([]byte, error) {
	c.sc.MaxDepth = opts.MaxDepth
	if c.sc.MaxDepth <= 0 {
		c.sc.MaxDepth = DefaultMaxDepth
	}
	ok := c.sc.Scan(card)
	c.vw = c.sc.View()
	if !ok {
		return dst, &CanonicalError{Code: scanCode(&c.sc), Offset: c.sc.ErrOffset()}
	}
	if c.vw.Kind(0) != tape.KindObject {
		start, _ := c.vw.Bounds(0)
		return dst, &CanonicalError{Code: CodeCardType, Offset: int(start)}
	}
	if opts.Mode == CanonicalDropEmpty {
		c.markEmpty()
	}
	c.members, c.names = c.members[:0], c.names[:0]
	out, err := c.value(dst, 0, opts.Mode == CanonicalDropEmpty, opts.DropTopLevel)
	if err != nil {
		return dst, err
	}
	return out, nil
}

// markEmpty fills c.empty for every node, children before parents: the tape
// lists a container before its contents, so a walk from the end sees them
// first.
func (c *Canonicalizer) markEmpty() {
	vw := c.vw
	c.empty = slices.Grow(c.empty[:0], vw.Len())[:vw.Len()]
	for i := vw.Len() - 1; i >= 0; i-- {
		n := uint32(i)
		switch vw.Kind(n) {
		case tape.KindString:
			c.empty[i] = len(vw.Raw(n)) == 0
		case tape.KindArray:
			e := true
			for v := vw.First(n); v < vw.End(n) && e; v = vw.Next(v) {
				e = c.empty[v]
			}
			c.empty[i] = e
		case tape.KindObject:
			e := true
			for k := vw.First(n); k < vw.End(n) && e; k = vw.NextMember(k) {
				e = c.empty[k+1]
			}
			c.empty[i] = e
		default:
			c.empty[i] = false
		}
	}
}

func (c *Canonicalizer) value(dst []byte, n uint32, dropEmpty bool, drop string) ([]byte, error) {
	vw := c.vw
	switch vw.Kind(n) {
	case tape.KindString:
		return c.str(dst, vw.Raw(n), vw.Flags(n)), nil
	case tape.KindNumber:
		// As ECMAScript's Number.prototype.toString writes the float64
		// nearest to it (see canonicalNumber).
		return canonicalNumber(dst, vw.Raw(n), vw.Flags(n)), nil
	case tape.KindTrue:
		return append(dst, "true"...), nil
	case tape.KindFalse:
		return append(dst, "false"...), nil
	case tape.KindNull:
		return append(dst, "null"...), nil
	case tape.KindArray:
		dst = append(dst, '[')
		first := true
		for v := vw.First(n); v < vw.End(n); v = vw.Next(v) {
			if dropEmpty && c.empty[v] {
				continue
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			var err error
			if dst, err = c.value(dst, v, dropEmpty, ""); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	}
	// An object: its members sorted by their decoded names' UTF-16 code
	// units (RFC 8785 section 3.2.3).
	base := len(c.members)
	for k := vw.First(n); k < vw.End(n); k = vw.NextMember(k) {
		if dropEmpty && c.empty[k+1] {
			continue
		}
		start := len(c.names)
		c.names = append(c.names, vw.Name(k)...)
		if drop != "" && string(c.names[start:]) == drop {
			c.names = c.names[:start]
			continue
		}
		c.members = append(c.members, member{key: k, start: uint32(start), end: uint32(len(c.names))})
	}
	names := c.names
	slices.SortFunc(c.members[base:], func(x, y member) int {
		return compareUTF16(names[x.start:x.end], names[y.start:y.end])
	})
	dst = append(dst, '{')
	for i := base; i < len(c.members); i++ {
		if i > base {
			dst = append(dst, ',')
		}
		m := c.members[i]
		name := c.names[m.start:m.end]
		if vw.Escaped(m.key) {
			// Decoded already: only escaping is left to do.
			dst = append(appendJCSEscaped(append(dst, '"'), name), '"')
		} else {
			dst = c.str(dst, name, 0)
		}
		dst = append(dst, ':')
		var err error
		if dst, err = c.value(dst, m.key+1, dropEmpty, ""); err != nil {
			return dst, err
		}
	}
	c.members = c.members[:base]
	return append(dst, '}'), nil
}

// AppendECMAScriptNumber appends f as ECMAScript's Number::toString writes
// it (ECMA-262, 6.1.6.1.20): the shortest digits that read back as f, in
// plain notation from 1e-6 up to 1e21 and in exponent notation outside.
// NaN and the infinities have no JSON form; they are written as null.
func AppendECMAScriptNumber(dst []byte, f float64) []byte {
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

// str writes a string RFC 8785's way (section 3.2.2.2):
// quotes and backslashes escaped, the five control characters with short
// escapes as such, the other controls as \u00xx, and everything else as raw
// UTF-8. raw is the scanner-accepted text between the quotes, with escapes
// when flags says so, or already decoded text when flags is 0.
func (c *Canonicalizer) str(dst, raw []byte, flags uint8) []byte {
	dst = append(dst, '"')
	if flags&tape.FlagEscaped != 0 {
		c.num = tape.AppendUnescaped(c.num[:0], raw)
		dst = appendJCSEscaped(dst, c.num)
	} else {
		// Without a backslash the text is already as RFC 8785 writes it:
		// the scanner rejects raw control characters and ends the string
		// at its first quote, so there is nothing to escape and no need
		// to look (TestCanonicalUnescapedStrings).
		dst = append(dst, raw...)
	}
	return append(dst, '"')
}

const hexDigits = "0123456789abcdef"

func appendJCSEscaped(dst, s []byte) []byte {
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

// compareUTF16 orders two UTF-8 strings by their UTF-16 code units, as
// RFC 8785 section 3.2.3 sorts member names. UTF-8 byte order is code
// point order, which differs only where a character above U+FFFF (a
// surrogate pair, D800-DBFF first) meets one of U+E000-U+FFFF.
func compareUTF16(x, y []byte) int {
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
