package pipeline

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
	"slices"

	"github.com/cardscan/cardscan/fastvalidate"
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

// expectation is what the grammar allows next: a set of the tokens below,
// so that the scanner tests each with one AND, and whether the innermost
// container is an array, so that the scanner need not look at its stack
// for each comma or closing bracket.
type expectation uint8

const (
	allowValue expectation = 1 << iota
	allowKey
	allowComma
	allowColon
	allowClose
	outside // no value open: only at the top level
	inArray // the innermost container is an array
)

const (
	expTop          = outside | allowValue              // outside any value: a value or nothing
	expValue        = allowValue                        // after ':'
	expElement      = inArray | allowValue              // after ',' in an array
	expValueOrClose = inArray | allowValue | allowClose // after '['
	expKey          = allowKey                          // after ',' in an object
	expKeyOrClose   = allowKey | allowClose             // after '{'
	expColon        = allowColon                        // after a member name
	expCommaOrClose = allowComma | allowClose           // after a value in a container (| inArray in an array)
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

	// blocks marks the quotes and the bytes that need care in the piece
	// being scanned, from its index org on (see classify), so that a
	// string's end is found a 64-byte block at a time.
	blocks []fastvalidate.CharBlock
	org    int
}

func (s *splitter) reset(start int64, bom bool) {
	*s = splitter{stack: s.stack[:0], blocks: s.blocks[:0], pos: start, exp: expTop, rec: -1, bom: bom}
}

// classify fills s.blocks for b[org:]. The bytes past the end of b need
// care, so that a search for a string's end stops at len(b) at the
// latest.
func (s *splitter) classify(b []byte, org int) {
	b = b[org:]
	n := len(b)/64 + 1
	if cap(s.blocks) < n {
		s.blocks = make([]fastvalidate.CharBlock, n, n+n/4)
	}
	s.blocks, s.org = s.blocks[:n], org
	full := len(b) &^ 63
	fastvalidate.Classify(b[:full], s.blocks)
	// Zero bytes past the end are control characters: they need care.
	var block [64]byte
	copy(block[:], b[full:])
	fastvalidate.Classify(block[:], s.blocks[n-1:])
}

// pending returns the first byte of the record in progress, or -1. Until
// the first value after a byte order mark starts, that is the mark: the
// value's record will start there, however much space comes between.
func (s *splitter) pending() int64 {
	switch {
	case s.resync:
		return s.brokenStart
	case s.bom:
		return 0
	}
	return s.rec
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
	s.classify(b, i)
	for i < len(b) {
		switch {
		case s.resync:
			i = s.seek(b, base, i)
			if s.resync {
				s.pos = base + int64(i)
				return out
			}
			out = append(out, span{s.brokenStart, base + int64(i), true})
		case s.inString:
			// A string that ran past the end of the last piece.
			var fault bool
			i, fault = s.skipString(b, i)
			if fault {
				i = s.fail(base, i)
				continue
			}
			if s.inString {
				s.pos = base + int64(len(b))
				return out
			}
			i++ // the closing quote
			if s.key {
				s.exp = expColon
			} else {
				s.valueDone(base+int64(i), &out)
			}
		case s.inScalar:
			for i < len(b) && classes[b[i]] == clScalar {
				i++
			}
			if i == len(b) {
				s.pos = base + int64(i)
				return out
			}
			s.inScalar = false
			s.valueDone(base+int64(i), &out)
		default:
			var stop tokensStop
			switch i, stop = s.tokens(b, base, i); stop {
			case stopRecord:
				out = append(out, span{s.rec, base + int64(i), false})
				s.rec = -1
			case stopDeep:
				s.stack = slices.Grow(s.stack, 1)
			}
		}
	}
	s.pos = base + int64(i)
	return out
}

// noRecord stands for s.rec's -1 in tokens, where offsets are relative.
const noRecord = math.MinInt

// Why tokens returned.
type tokensStop uint8

const (
	stopOther  tokensStop = iota // for scan to look at s
	stopRecord                   // a record ends at the index returned, from s.rec
	stopDeep                     // a bracket opens at the index returned when s.stack is full
)

// tokens is scan's loop between tokens. It keeps in locals the state it
// touches for every token (the depth, and in exp the kind of the innermost
// container, stand for s.stack, which is touched only at brackets), and
// calls nothing inside the loop, so that the compiler need not spill those
// locals around calls. Whatever is rare it leaves to scan, after writing
// the state back: a record's end, a full stack, a string that holds an
// escape or runs past b, a scalar cut at the end of b. After a fault it
// returns with s.resync set, where fail says to look on.
//
// Offsets in locals are relative to b.
func (s *splitter) tokens(b []byte, base int64, i int) (int, tokensStop) {
	exp, depth, stack := s.exp, len(s.stack), s.stack[:cap(s.stack)]
	blocks, org := s.blocks, s.org
	rec, line0 := noRecord, int(s.line0-base)
	if s.rec >= 0 {
		rec = int(s.rec - base)
	}
	// Records end where a value ends at recDepth: 0, or 1 inside the
	// array of cards.
	recDepth := 0
	if s.cards {
		recDepth = 1
	}
	stop := stopOther
	for i < len(b) {
		c := b[i]
		switch classes[c] {
		case clQuote:
			goto str
		case clSpace:
			i++
			continue
		case clNewline:
			i++
			line0 = i
			// Indentation follows a newline in pretty-printed input:
			// skip its spaces eight at a time.
			for i+8 <= len(b) {
				if x := binary.LittleEndian.Uint64(b[i:]) ^ (' ' * lsb); x != 0 {
					i += bits.TrailingZeros64(x) >> 3
					goto indented
				}
				i += 8
			}
			for i < len(b) && b[i] == ' ' {
				i++
			}
		indented:
			continue
		case clColon:
			if exp != expColon {
				goto fault
			}
			exp = expValue
			i++
			continue
		case clComma:
			if exp&allowComma == 0 {
				goto fault
			}
			if exp&inArray != 0 {
				exp = expElement
			} else {
				exp = expKey
			}
			i++
			continue
		case clOpen:
			if depth == len(stack) && depth < maxSplitDepth {
				stop = stopDeep
				goto out
			}
			if c == '[' && exp == expTop && !s.bom {
				recDepth = 1 // not a record: its elements are
			} else {
				if exp&allowValue == 0 {
					goto fault
				}
				if rec == noRecord && depth == recDepth {
					rec = i
					if s.bom {
						rec, s.bom = int(-base), false // the record starts at the BOM
					}
				}
				if depth == maxSplitDepth || i == line0 && depth != recDepth {
					goto fault
				}
			}
			stack[depth] = c
			depth++
			exp = expKeyOrClose
			if c == '[' {
				exp = expValueOrClose
			}
			i++
			continue
		case clClose:
			if exp&allowClose == 0 || (c == ']') != (exp&inArray != 0) {
				goto fault
			}
			depth--
			i++
			if depth == 0 && recDepth == 1 {
				// The array of cards.
				recDepth, exp = 0, expTop
				continue
			}
			if depth > 0 && stack[depth-1] == '[' {
				exp |= inArray
			} else {
				exp &^= inArray
			}
			goto valueEnd
		default: // clScalar
			if exp&allowValue == 0 {
				goto fault
			}
			if rec == noRecord && depth == recDepth {
				rec = i
				if s.bom {
					rec, s.bom = int(-base), false
				}
			}
			i++
			for i < len(b) && classes[b[i]] == clScalar {
				i++
			}
			if i == len(b) {
				s.inScalar = true
				goto out
			}
			goto valueEnd
		}
	str:
		if exp&allowKey == 0 {
			if exp&allowValue == 0 {
				goto fault
			}
			if rec == noRecord && depth == recDepth {
				rec = i
				if s.bom {
					rec, s.bom = int(-base), false
				}
			}
		}
		{
			// The string's bytes, a block at a time, to the first quote
			// or byte that needs care. That is the end of most strings;
			// past anything else (a byte of 0x80 and up, or a control
			// character) the rest goes eight at a time while no quote,
			// backslash or newline is among them.
			j := i + 1
			for {
				r := j - org
				if m := (blocks[r>>6].Quotes() | blocks[r>>6].Care()) >> (r & 63); m != 0 {
					j += bits.TrailingZeros64(m)
					break
				}
				j += 64 - r&63
			}
			if j >= len(b) || b[j] != '"' {
				if j < len(b) && b[j] != '\\' && b[j] != '\n' {
					j++
					for j+8 <= len(b) {
						x := binary.LittleEndian.Uint64(b[j:])
						q, bs, nl := x^('"'*lsb), x^('\\'*lsb), x^('\n'*lsb)
						if m := ((q - lsb) &^ q) | ((bs - lsb) &^ bs) | ((nl - lsb) &^ nl); m&msb != 0 {
							j += bits.TrailingZeros64(m&msb) >> 3
							break
						}
						j += 8
					}
				}
				if j >= len(b) || b[j] != '"' {
					// An escape, a fault or the end of b: scan's
					// skipString goes on from b[j].
					s.inString, s.key = true, exp&allowKey != 0
					i = j
					goto out
				}
			}
			i = j + 1
		}
		if exp&allowKey != 0 {
			exp = expColon
			if i+1 < len(b) && b[i] == ':' {
				exp = expValue
				i++
				if b[i] == ' ' && i+1 < len(b) {
					i++
				}
			}
			continue
		}
	valueEnd:
		if depth == recDepth {
			if depth == 0 {
				exp = expTop
			} else {
				exp = expCommaOrClose | exp&inArray
			}
			stop = stopRecord
			goto out
		}
		exp = expCommaOrClose | exp&inArray
		if i+1 < len(b) && b[i] == ',' {
			if exp&inArray != 0 {
				exp = expElement
			} else {
				exp = expKey
			}
			i++
		}
		continue
	fault:
		s.exp, s.stack, s.line0, s.cards, s.rec = exp, stack[:depth], base+int64(line0), recDepth == 1, -1
		if rec != noRecord {
			s.rec = base + int64(rec)
		}
		return s.fail(base, i), stopOther
	}
out:
	s.exp, s.stack, s.line0, s.cards, s.rec = exp, stack[:depth], base+int64(line0), recDepth == 1, -1
	if rec != noRecord {
		s.rec = base + int64(rec)
	}
	return i, stop
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

func (s *splitter) valueDone(end int64, out *[]span) {
	switch {
	case len(s.stack) == 0:
		s.exp = expTop
	case len(s.stack) == 1 && s.cards:
		s.exp = expCommaOrClose | s.exp&inArray
	default:
		s.exp = expCommaOrClose | s.exp&inArray
		return
	}
	*out = append(*out, span{s.rec, end, false})
	s.rec = -1
}

// fail turns the record in progress into a broken one at the fault at
// b[i] and returns where to look for the place to resume.
func (s *splitter) fail(base int64, i int) int {
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

// skipString scans on from b[i] in a string cut at the end of the last
// piece. It returns the index of its closing quote and clears
// s.inString, or returns len(b) when b ends first, or the index of a
// fault.
func (s *splitter) skipString(b []byte, i int) (int, bool) {
	if s.escaped {
		s.escaped = false
		if b[i] == '\n' {
			return i, true
		}
		i++
	}
	end, st := stringEnd(b, i)
	switch st {
	case strClosed:
		s.inString = false
	case strOpenEscaped:
		s.escaped = true
	}
	return end, st == strFault
}

// How a string's bytes end within a piece of input.
type stringStop uint8

const (
	strClosed      stringStop = iota // at its closing quote
	strFault                         // at a raw newline
	strOpen                          // at the end of the piece
	strOpenEscaped                   // at the end, right after a backslash
)

// stringEnd scans a string's bytes from b[i] and returns the index of its
// closing quote, of a fault, or len(b). A raw newline is a fault (JSON
// strings cannot hold one, nor can an escape), so that a line cut inside
// a string does not run into the next lines.
//
// Eight bytes are tested at a time for a quote, a backslash or a
// newline, since card text is mostly strings.
func stringEnd(b []byte, i int) (int, stringStop) {
	for {
		for i+8 <= len(b) {
			x := binary.LittleEndian.Uint64(b[i:])
			m := zeroBytes(x^('"'*lsb)) | zeroBytes(x^('\\'*lsb)) | zeroBytes(x^('\n'*lsb))
			if m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		for i < len(b) && b[i] != '"' && b[i] != '\\' && b[i] != '\n' {
			i++
		}
		if i == len(b) {
			return i, strOpen
		}
		switch b[i] {
		case '"':
			return i, strClosed
		case '\n':
			return i, strFault
		}
		// A backslash: the next byte is escaped, unless it is a newline.
		if i+1 == len(b) {
			return len(b), strOpenEscaped
		}
		if b[i+1] == '\n' {
			return i + 1, strFault
		}
		i += 2
	}
}
