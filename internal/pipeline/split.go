package pipeline

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// Framing says how an input is cut into records.
type Framing uint8

const (
	// FramingAuto chooses NDJSON or JSON for each input from its first
	// bytes; see detectFraming.
	FramingAuto Framing = iota
	// FramingNDJSON takes each non-blank line as a record.
	FramingNDJSON
	// FramingJSON reads a sequence of JSON texts separated by white
	// space, as jq does: each top-level value is a record, except that
	// each element of a top-level array is one.
	FramingJSON
)

func (f Framing) String() string {
	switch f {
	case FramingNDJSON:
		return "ndjson"
	case FramingJSON:
		return "json"
	}
	return "auto"
}

// ParseFraming maps "auto", "ndjson" or "json" to its Framing.
func ParseFraming(s string) (Framing, bool) {
	for _, f := range []Framing{FramingAuto, FramingNDJSON, FramingJSON} {
		if s == f.String() {
			return f, true
		}
	}
	return 0, false
}

var utf8BOM = []byte{0xef, 0xbb, 0xbf}

// span is one record of a JSON-framed input, at offsets in the input.
type span struct {
	start, end int64
	// broken marks bytes that are no complete value: the record is
	// invalid whatever the validator makes of them.
	broken bool
}

// expectation is what the grammar allows next.
type expectation uint8

const (
	expTop          expectation = iota // outside any value: a value or nothing
	expValue                           // after ':', or after ',' in an array
	expValueOrClose                    // after '['
	expKey                             // after ',' in an object
	expKeyOrClose                      // after '{'
	expColon                           // after a member name
	expCommaOrClose                    // after a value in a container
)

// maxSplitDepth bounds the splitter's stack, so that a stream of
// brackets cannot take memory without end (a record over --max-record is
// streamed, never held, but its nesting is tracked). Deeper is broken;
// the validator rejects far less deep cards anyway.
const maxSplitDepth = 1 << 20

// splitter finds the records of a JSON-framed input as it is read. It
// follows the grammar only as far as framing needs: brackets, strings,
// commas and colons; scalars are runs of other bytes. Whatever it lets
// through, the validator judges.
//
// A '{' or '[' in column 1 starts a document: inside a record it is a
// fault, so that a document cut short inside an array does not take the
// next one in as an element.
//
// At a fault the record in progress (or, between records, the bytes from
// the fault on) becomes one broken record that runs to the next line
// starting with '{' or '[' in column 1, at or after the line of the fault
// and after the record's first byte. Reading resumes there, outside any
// value, so one broken document cannot swallow a dump of others.
//
// Offsets are absolute in the decompressed input; scan may be given the
// input in any pieces, each starting at or before the first byte not yet
// scanned and holding every byte from the start of the record in
// progress.
type splitter struct {
	pos   int64 // next byte to scan
	line0 int64 // start of the line pos is on
	stack []byte
	exp   expectation

	inString, key, escaped, inScalar bool
	// cards marks stack[0] as a top-level array whose elements are the
	// records.
	cards bool
	// bom holds while the first value is still to come after a byte
	// order mark: that value, BOM included, is one record, never split,
	// so that the BOM is judged (the validator rejects it, as Python
	// does) rather than dropped.
	bom bool
	rec int64 // start of the record in progress, or -1

	resync      bool  // after a fault: looking for where to resume
	brokenStart int64 // the broken record's first byte
}

func (s *splitter) reset(start int64, bom bool) {
	*s = splitter{stack: s.stack[:0], pos: start, rec: -1, bom: bom}
}

// pending returns the first byte of the record in progress, or -1.
func (s *splitter) pending() int64 {
	if s.resync {
		return s.brokenStart
	}
	return s.rec
}

// recordLevel reports whether a value starting now is a record.
func (s *splitter) recordLevel() bool {
	return len(s.stack) == 0 || len(s.stack) == 1 && s.cards
}

type byteClass uint8

const (
	clScalar byteClass = iota
	clSpace
	clNewline
	clQuote
	clOpen
	clClose
	clComma
	clColon
)

var classes = func() (t [256]byteClass) {
	t[' '], t['\t'], t['\r'] = clSpace, clSpace, clSpace
	t['\n'] = clNewline
	t['"'] = clQuote
	t['{'], t['['] = clOpen, clOpen
	t['}'], t[']'] = clClose, clClose
	t[','] = clComma
	t[':'] = clColon
	return t
}()

// scan reads b, which starts at offset base, and appends the records it
// completes to out.
func (s *splitter) scan(b []byte, base int64, out []span) []span {
	i := int(s.pos - base)
	for i < len(b) {
		if s.resync {
			i = s.seek(b, base, i)
			if s.resync {
				break
			}
			out = append(out, span{s.brokenStart, base + int64(i), true})
		}
		if s.inString {
			var fault bool
			i, fault = s.skipString(b, i)
			if fault {
				i = s.fail(b, base, i, &out)
				continue
			}
			if s.inString {
				break
			}
			i++ // the closing quote
			if s.key {
				s.exp = expColon
			} else {
				s.valueDone(base+int64(i), &out)
			}
			continue
		}
		c := b[i]
		cl := classes[c]
		if s.inScalar {
			if cl == clScalar {
				i++
				continue
			}
			s.inScalar = false
			s.valueDone(base+int64(i), &out)
		}
		switch cl {
		case clSpace:
			i++
		case clNewline:
			// Indentation follows a newline in pretty-printed input.
			i++
			s.line0 = base + int64(i)
			for i < len(b) && b[i] == ' ' {
				i++
			}
		case clQuote:
			if s.exp == expKey || s.exp == expKeyOrClose {
				s.key = true
			} else if s.valueStart(base + int64(i)) {
				s.key = false
			} else {
				i = s.fail(b, base, i, &out)
				continue
			}
			s.inString = true
			i++
		case clOpen:
			if c == '[' && s.exp == expTop && !s.bom {
				s.cards = true // not a record: its elements are
			} else if !s.valueStart(base+int64(i)) || len(s.stack) == maxSplitDepth ||
				base+int64(i) == s.line0 && !s.recordLevel() {
				i = s.fail(b, base, i, &out)
				continue
			}
			s.stack = append(s.stack, c)
			s.exp = expKeyOrClose
			if c == '[' {
				s.exp = expValueOrClose
			}
			i++
		case clClose:
			n := len(s.stack)
			if n == 0 || s.stack[n-1] != c-2 || // '}' - 2 == '{', ']' - 2 == '['
				s.exp != expCommaOrClose && s.exp != expKeyOrClose && s.exp != expValueOrClose {
				i = s.fail(b, base, i, &out)
				continue
			}
			s.stack = s.stack[:n-1]
			i++
			if n == 1 && s.cards {
				s.cards = false
				s.exp = expTop
			} else {
				s.valueDone(base+int64(i), &out)
			}
		case clComma:
			if s.exp != expCommaOrClose {
				i = s.fail(b, base, i, &out)
				continue
			}
			s.exp = expValue
			if s.stack[len(s.stack)-1] == '{' {
				s.exp = expKey
			}
			i++
		case clColon:
			if s.exp != expColon {
				i = s.fail(b, base, i, &out)
				continue
			}
			s.exp = expValue
			i++
		default:
			if !s.valueStart(base + int64(i)) {
				i = s.fail(b, base, i, &out)
				continue
			}
			s.inScalar = true
			i++
		}
	}
	s.pos = base + int64(i)
	return out
}

// finish ends the input at s.pos and appends the last records to out.
func (s *splitter) finish(out []span) []span {
	switch {
	case s.resync:
		out = append(out, span{s.brokenStart, s.pos, true})
	case s.inScalar && len(s.stack) == 0:
		s.inScalar = false
		s.valueDone(s.pos, &out)
	case s.rec >= 0 || len(s.stack) > 0:
		// The input ended inside a value, or inside the array of
		// cards, where an element or its ']' was due: a record, even
		// if it holds no byte, so that the cut is not missed.
		start := s.rec
		if start < 0 {
			start = s.pos
		}
		out = append(out, span{start, s.pos, true})
	}
	s.stack, s.rec, s.inScalar, s.inString, s.resync = s.stack[:0], -1, false, false, false
	return out
}

func (s *splitter) valueStart(at int64) bool {
	switch s.exp {
	case expTop, expValue, expValueOrClose:
	default:
		return false
	}
	if s.recordLevel() && s.rec < 0 {
		s.rec = at
		if s.bom {
			s.rec, s.bom = 0, false
		}
	}
	return true
}

func (s *splitter) valueDone(end int64, out *[]span) {
	switch {
	case len(s.stack) == 0:
		s.exp = expTop
	case len(s.stack) == 1 && s.cards:
		s.exp = expCommaOrClose
	default:
		s.exp = expCommaOrClose
		return
	}
	*out = append(*out, span{s.rec, end, false})
	s.rec = -1
}

// fail turns the record in progress into a broken one at the fault at
// b[i] and returns where to look for the place to resume.
func (s *splitter) fail(b []byte, base int64, i int, out *[]span) int {
	at := base + int64(i)
	start := s.rec
	if start < 0 {
		start = at
	}
	s.stack = s.stack[:0]
	s.exp, s.inString, s.inScalar, s.escaped, s.cards, s.bom = expTop, false, false, false, false, false
	s.rec, s.resync, s.brokenStart = -1, true, start
	// Resume at a line start after the record's first byte, and not
	// before the line of the fault; bytes before b[0] are gone.
	from := max(s.line0, start+1, base)
	return int(from - base)
}

// seek looks from b[i] for the line start where reading resumes; it
// clears s.resync when it finds one and returns its index.
func (s *splitter) seek(b []byte, base int64, i int) int {
	for i < len(b) {
		at := base + int64(i)
		if at == s.line0 && (b[i] == '{' || b[i] == '[') {
			s.resync = false
			return i
		}
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			return len(b)
		}
		i += j + 1
		s.line0 = base + int64(i)
	}
	return i
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// zeroBytes has the top bit of a byte set where x has a zero byte; the
// lowest set bit is exact (higher ones may be false).
func zeroBytes(x uint64) uint64 { return (x - lsb) &^ x & msb }

// skipString scans a string's bytes from b[i] to its closing quote. It
// returns the index of that quote and leaves s.inString set when b ends
// first. A raw newline is a fault (JSON strings cannot hold one), so
// that a line cut inside a string does not run into the next lines.
//
// Eight bytes are tested at a time for a quote, a backslash or a
// newline, since card text is mostly strings.
func (s *splitter) skipString(b []byte, i int) (int, bool) {
	if s.escaped {
		s.escaped = false
		if b[i] == '\n' {
			return i, true
		}
		i++
	}
	for i < len(b) {
		for i+8 <= len(b) {
			x := binary.LittleEndian.Uint64(b[i:])
			m := zeroBytes(x^('"'*lsb)) | zeroBytes(x^('\\'*lsb)) | zeroBytes(x^('\n'*lsb))
			if m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i == len(b) {
			break
		}
		switch b[i] {
		case '"':
			s.inString = false
			return i, false
		case '\\':
			if i+1 == len(b) {
				s.escaped = true
				return len(b), false
			}
			if b[i+1] == '\n' {
				return i + 1, true // no escape takes a raw newline either
			}
			i += 2
		case '\n':
			return i, true
		default:
			i++
		}
	}
	return min(i, len(b)), false
}
