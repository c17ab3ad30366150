// Package canon writes the RFC 8785 (JSON Canonicalization Scheme)
// canonical form of a JSON object, as A2A signs a card: its canonical form
// with the top-level signatures member left out (A2A 1.0 section 8.4).
//
// It reads the strict scanner that fastvalidate validates with, so a
// document two JSON parsers could read differently (a duplicate name, a
// lone surrogate, invalid UTF-8) has no canonical form: it is rejected,
// never "fixed".
package canon

import (
	"errors"
	"slices"
	"strconv"

	"github.com/cardscan/cardscan/fastvalidate/internal/jcs"
	"github.com/cardscan/cardscan/fastvalidate/internal/tape"
)

// Mode says which members of a card take part in its canonical form.
type Mode uint8

const (
	// AsIs keeps every member as served: a member present was set by the
	// signer, so it was signed.
	AsIs Mode = iota
	// DropEmpty first removes, at every depth, members and array elements
	// whose value is an empty string, array or object, counting arrays and
	// objects that hold nothing else once cleaned as empty, as the A2A
	// Python and JS SDKs do before signing.
	DropEmpty
)

// Options configures Append.
type Options struct {
	Mode Mode
	// DropTopLevel names a member of the root object to leave out
	// ("signatures" for A2A cards); "" leaves out nothing.
	DropTopLevel string
	// MaxDepth bounds nesting; 0 means DefaultMaxDepth.
	MaxDepth int
}

// DefaultMaxDepth is the nesting limit when Options.MaxDepth is 0: that of
// fastvalidate.DefaultMaxDepth, so that a card a default validator can
// read has a canonical form.
const DefaultMaxDepth = 512

// ErrNotCanonical is wrapped by every error Append returns.
var ErrNotCanonical = errors.New("canon: no RFC 8785 canonical form")

// Reason says why a document has no canonical form.
type Reason uint8

const (
	Syntax       Reason = iota + 1 // not exactly one RFC 8259 JSON value
	UTF8                           // invalid UTF-8, or an escaped lone surrogate
	DuplicateKey                   // an object has the same member name twice
	Depth                          // nesting deeper than Options.MaxDepth
	NumberRange                    // a number beyond float64's range
	TooLarge                       // a document too large for the scanner
	NotObject                      // a JSON value other than an object
)

// String returns the id of the fastvalidate rule that reports the same
// fault in a card ("json.duplicate-key", "card.type", ...), so that a
// message names it as validation does.
func (r Reason) String() string {
	if int(r) < len(reasonIDs) && reasonIDs[r] != "" {
		return reasonIDs[r]
	}
	return "canon.Reason(" + strconv.Itoa(int(r)) + ")"
}

var reasonIDs = [...]string{
	Syntax:       "json.syntax",
	UTF8:         "json.utf8",
	DuplicateKey: "json.duplicate-key",
	Depth:        "json.depth",
	NumberRange:  "json.number-range",
	TooLarge:     "input.too-large",
	NotObject:    "card.type",
}

// scanReasons maps why a scan stopped to the Reason.
var scanReasons = [...]Reason{
	tape.ErrSyntax:       Syntax,
	tape.ErrUTF8:         UTF8,
	tape.ErrDuplicateKey: DuplicateKey,
	tape.ErrDepth:        Depth,
	tape.ErrNumberRange:  NumberRange,
	tape.ErrTooLarge:     TooLarge,
}

// Error says why a document has no canonical form, and the byte offset
// where.
type Error struct {
	Reason Reason
	Offset int
}

func (e *Error) Error() string {
	return "canon: no RFC 8785 canonical form: " + e.Reason.String() + " at offset " + strconv.Itoa(e.Offset)
}

// Unwrap makes errors.Is(err, ErrNotCanonical) hold.
func (e *Error) Unwrap() error { return ErrNotCanonical }

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

// Append appends the canonical form of the JSON object card to dst.
// It allocates; a Canonicalizer reused for many cards allocates less.
func Append(dst, card []byte, opts Options) ([]byte, error) {
	var c Canonicalizer
	return c.Append(dst, card, opts)
}

// Append appends the canonical form of the JSON object card to dst. On
// error dst is returned as it was given.
func (c *Canonicalizer) Append(dst, card []byte, opts Options) ([]byte, error) {
	c.sc.MaxDepth = opts.MaxDepth
	if c.sc.MaxDepth <= 0 {
		c.sc.MaxDepth = DefaultMaxDepth
	}
	ok := c.sc.Scan(card)
	c.vw = c.sc.View()
	if !ok {
		return dst, &Error{Reason: scanReasons[c.sc.Err()], Offset: c.sc.ErrOffset()}
	}
	if c.vw.Kind(0) != tape.KindObject {
		start, _ := c.vw.Bounds(0)
		return dst, &Error{Reason: NotObject, Offset: int(start)}
	}
	if opts.Mode == DropEmpty {
		c.markEmpty()
	}
	c.members, c.names = c.members[:0], c.names[:0]
	out, err := c.value(dst, 0, opts.Mode == DropEmpty, opts.DropTopLevel)
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
		// nearest to it (see jcs.AppendNumber).
		return jcs.AppendNumber(dst, vw.Raw(n), vw.Flags(n)), nil
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
		return jcs.CompareUTF16(names[x.start:x.end], names[y.start:y.end])
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
			dst = append(jcs.AppendEscaped(append(dst, '"'), name), '"')
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

// str writes a string RFC 8785's way (section 3.2.2.2):
// quotes and backslashes escaped, the five control characters with short
// escapes as such, the other controls as \u00xx, and everything else as raw
// UTF-8. raw is the scanner-accepted text between the quotes, with escapes
// when flags says so, or already decoded text when flags is 0.
func (c *Canonicalizer) str(dst, raw []byte, flags uint8) []byte {
	dst = append(dst, '"')
	if flags&tape.FlagEscaped != 0 {
		c.num = tape.AppendUnescaped(c.num[:0], raw)
		dst = jcs.AppendEscaped(dst, c.num)
	} else {
		// Without a backslash the text is already as RFC 8785 writes it:
		// the scanner rejects raw control characters and ends the string
		// at its first quote, so there is nothing to escape and no need
		// to look (TestCanonicalUnescapedStrings).
		dst = append(dst, raw...)
	}
	return append(dst, '"')
}
