package pipeline

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strings"
)

// Framing says how an input is cut into records.
type Framing uint8

const (
	// FramingAuto chooses NDJSON or JSON for each input from its first
	// bytes; see cutter.detect.
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
// framings lists every framing, in the order help and errors name them.
var framings = [...]Framing{FramingAuto, FramingNDJSON, FramingJSON}

// framingCount bounds arrays indexed by Framing.
const framingCount = len(framings)

// FramingNames is the list of --input's values for help and usage errors:
// "auto, ndjson or json".
func FramingNames() string {
	var b strings.Builder
	for i, f := range framings {
		switch {
		case i == len(framings)-1:
			b.WriteString(" or ")
		case i > 0:
			b.WriteString(", ")
		}
		b.WriteString(f.String())
	}
	return b.String()
}

func ParseFraming(s string) (Framing, bool) {
	for _, f := range framings {
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

// expectation is what the grammar allows next between records: a set of
// the tokens below, so that the scanner tests each with one AND. Inside a
// record only strings and brackets are followed (see splitter).
type expectation uint8

const (
	allowValue expectation = 1 << iota
	allowComma
	allowClose
	// allowJunk: inside a broken element of the array of cards, whose
	// bytes run to the next comma or ']' outside its strings and
	// brackets.
	allowJunk
)

const (
	expTop          = allowValue              // outside any value: a value or nothing
	expElement      = allowValue              // after ',' in the array of cards
	expValueOrClose = allowValue | allowClose // after the array of cards' '['
	expCommaOrClose = allowComma | allowClose // after an element of the array of cards
	expJunk         = allowValue | allowComma | allowClose | allowJunk
)

// maxIndent bounds an element's indentation (splitter.indent), so that
// the block path tests a few bytes after each line start.
const maxIndent = 16

// maxPopSearch is how many open brackets a close that does not match the
// innermost one is matched against, so that each costs little however
// deep the record: past them it is a stray byte.
const maxPopSearch = 64

// maxSplitDepth bounds the splitter's stack, so that a stream of
// brackets cannot take memory without end (a record over --max-record is
// streamed, never held, but its nesting is tracked). Deeper is broken;
// the validator rejects far less deep cards anyway.
const maxSplitDepth = 1 << 20

// splitter finds the records of a JSON-framed input as it is read.
//
// Between records (at the top level, and between the elements of a
// top-level array of cards) it follows the grammar exactly: values, the
// commas and the ']' of the array of cards. Inside a record that opens
// with '{' or '[' it follows only what framing needs: strings (their
// quotes and escapes; a raw newline in a string is a fault, so that an
// unterminated string cannot run into the lines after it) and brackets
// (their nesting and matching, and the depth limit). Commas, colons and
// scalars inside a record are left to the validator, which judges every
// record's bytes strictly and names the fault with its line and column: a
// record such as {"a" 1} whose brackets balance is one invalid record, and
// the next one is read normally.
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
// Inside a record the bytes are read a 64-byte block at a time from bit
// masks (see fastRecord); recordExact is the byte loop that takes over
// where the blocks cannot decide, and the definition they both follow.
//
// Offsets are absolute in the decompressed input; scan may be given the
// input in any pieces, each starting at or before the first byte not yet
// scanned and holding every byte from the start of the record in
// progress.
type splitter struct {
	pos   int64 // next byte to scan
	line0 int64 // start of the line pos is on
	// stack holds the open brackets: the array of cards, if any, then
	// those of the record in progress.
	stack []byte
	exp   expectation // between records

	// inString holds inside a string cut at the end of the last piece,
	// escaped right after a backslash in one.
	inString, escaped, inScalar bool
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

	// indent is the record in progress' indentation: its first byte's
	// distance from its line start when only blanks come between (at
	// most maxIndent), else 0; 0 at the top level. A '{' or '[' at most
	// indent bytes after a later line's start starts a new document or
	// element (see splitter).
	indent int64
	// lineBlank holds, between records, while the line holds only
	// blanks so far.
	lineBlank bool
	// In the array of cards an element is a record only at the comma or
	// ']' after it: closedAt is where its value ended (-1 while it has
	// not), recBroken that something in it or after it is wrong.
	closedAt  int64
	recBroken bool
	// limit is the record bound (0: none): white space after a whole
	// element that takes the record in progress past it ends the
	// element (see settle).
	limit int64

	// exact turns the block path off, so that tests can hold the two
	// paths against each other.
	exact bool
}

func (s *splitter) reset(start int64, bom bool) {
	*s = splitter{stack: s.stack[:0], pos: start, exp: expTop, rec: -1, bom: bom, exact: s.exact, lineBlank: true, closedAt: -1}
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

// recDepth is the depth at which records start and end: 0, or 1 inside
// the array of cards.
func (s *splitter) recDepth() int {
	if s.cards {
		return 1
	}
	return 0
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
		switch {
		case s.resync:
			i = s.seek(b, base, i)
			if s.resync {
				s.pos = base + int64(i)
				return out
			}
			out = append(out, span{s.brokenStart, base + int64(i), true})
		case len(s.stack) > s.recDepth():
			var end recordEnd
			i, end = s.record(b, base, i)
			switch end {
			case recordFault:
				i = s.fail(base, i)
			case recordClosed:
				s.valueDone(base+int64(i), &out)
			case recordSplit:
				// The element ends before the line at b[i], broken;
				// the next starts there.
				out = append(out, span{s.rec, base + int64(i), true})
				s.rec, s.closedAt, s.recBroken = -1, -1, false
				s.stack, s.exp, s.lineBlank = s.stack[:1], expValueOrClose, true
			}
		case s.inString:
			// A string value between records that ran past the end of
			// the last piece.
			var fault bool
			i, fault = s.skipString(b, i)
			if fault {
				i = s.stringFault(base, i)
				continue
			}
			if s.inString {
				s.pos = base + int64(len(b))
				return out
			}
			i++ // the closing quote
			s.valueDone(base+int64(i), &out)
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
			i, out = s.between(b, base, i, out)
		}
	}
	s.pos = base + int64(i)
	return out
}

// between follows the grammar between records from b[i]. It returns when
// a record opens with a bracket (for scan to follow it with record), at a
// fault (with s.resync set, where fail says to look on), at a string or a
// scalar cut by the end of b, or at the end of b. Offsets in locals are
// relative to b.
//
// In the array of cards a fault does not leave the array: the element in
// progress, or one starting at the fault, is broken and runs on to the
// next comma or ']' outside its strings and brackets (see junk), or to a
// line whose '{' or '[' is no deeper than its own first line's.
func (s *splitter) between(b []byte, base int64, i int, out []span) (int, []span) {
	exp, line0 := s.exp, int(s.line0-base)
	for i < len(b) {
		c := b[i]
		switch classes[c] {
		case clSpace:
			i++
			continue
		case clNewline:
			i++
			line0, s.lineBlank = i, true
			continue
		}
		if s.rec >= 0 && s.limit > 0 && base+int64(i)-s.rec > s.limit {
			// Past the bound behind a whole element, as far as a cutter
			// that cannot hold the space sees it (see settle): end the
			// element, so that what follows is framed alike whatever
			// the chunk size.
			out = s.settle(out)
		}
		switch classes[c] {
		case clComma:
			if exp&allowComma == 0 {
				break
			}
			out = s.elementDone(base+int64(i), out)
			exp, s.lineBlank = expElement, false
			i++
			continue
		case clClose:
			// Only the array of cards can close here: a record's brackets
			// are record's.
			if c != ']' || exp&allowClose == 0 {
				break
			}
			out = s.elementDone(base+int64(i), out)
			s.stack, s.cards, exp, s.lineBlank = s.stack[:0], false, expTop, false
			i++
			continue
		case clColon:
		default: // a value: clOpen, clQuote, clScalar
			if s.startsNextElement(c, base, i, line0) {
				out = append(out, span{s.rec, base + int64(i), true})
				s.rec, s.closedAt, s.recBroken, s.lineBlank = -1, -1, false, true
				exp = expElement
			}
			if exp&allowValue == 0 {
				break
			}
			if c == '[' && len(s.stack) == 0 && !s.bom {
				// Not a record: its elements are.
				s.stack, s.cards, exp = append(s.stack, c), true, expValueOrClose
				i++
				continue
			}
			s.startValue(base, i, line0)
			s.exp, s.line0 = exp, base+int64(line0)
			switch classes[c] {
			case clOpen:
				s.stack = append(s.stack, c)
				return i + 1, out
			case clQuote:
				end, st := stringEnd(b, i+1)
				switch st {
				case strFault:
					if i = s.stringFault(base, end); !s.resync {
						exp = s.exp
						continue
					}
					return i, out
				case strClosed:
					s.valueDone(base+int64(end+1), &out)
					exp, i = s.exp, end+1
					continue
				}
				s.inString, s.escaped = true, st == strOpenEscaped
				return len(b), out
			}
			i++
			for i < len(b) && classes[b[i]] == clScalar {
				i++
			}
			if i == len(b) {
				s.inScalar = true
				return i, out
			}
			s.valueDone(base+int64(i), &out)
			exp = s.exp
			continue
		}
		// A fault.
		s.exp, s.line0 = exp, base+int64(line0)
		if !s.cards {
			return s.fail(base, i), out
		}
		i, out = s.junk(b, base, i, line0, out)
		exp = s.exp
	}
	s.exp, s.line0 = exp, base+int64(line0)
	return i, out
}

// startsNextElement reports whether c, at b[i] on a line starting at
// b[line0], opens a line that starts the next element of the array of
// cards, so that the element before, cut short (no comma after it) or
// broken, ends there: an opening bracket indented no deeper than that
// element's first line, on a line after its start.
func (s *splitter) startsNextElement(c byte, base int64, i, line0 int) bool {
	return s.cards && s.rec >= 0 && classes[c] == clOpen && i-line0 <= int(s.indent) && base+int64(line0) > s.rec
}

// startValue notes the start of a value at b[i] between records: a
// record's first byte, unless it is part of a broken element.
func (s *splitter) startValue(base int64, i, line0 int) {
	if s.rec < 0 {
		s.rec, s.indent = base+int64(i), 0
		if s.lineBlank && s.cards {
			s.indent = int64(min(i-line0, maxIndent))
		}
	}
	if s.bom {
		s.rec, s.bom = 0, false // the record starts at the BOM
	}
	s.lineBlank = false
}

// junk takes the byte at b[i], a fault in the array of cards, into the
// element in progress, or into one that starts there, which is then
// broken: the rest of it is followed as values, whatever they are, up to
// a comma or ']' (exp becomes expJunk). A comma or ']' where an element
// was due is an element of its own, of that byte.
func (s *splitter) junk(b []byte, base int64, i, line0 int, out []span) (int, []span) {
	c := b[i]
	if s.rec < 0 {
		if c == ',' || c == ']' {
			at := base + int64(i)
			out = append(out, span{at, at + 1, true})
			s.exp = expCommaOrClose // then read as what it is
			return i, out
		}
		s.startValue(base, i, line0)
	}
	s.recBroken, s.exp = true, expJunk
	if c == '}' || c == ':' {
		return i + 1, out // what junk does not take as a value
	}
	return i, out
}

// stringFault ends a string at the raw newline at b[i]. Outside the array
// of cards it is a fault, and it returns where fail says to look on. In
// it the string's element is broken and goes on from the newline, since
// no string runs past one.
func (s *splitter) stringFault(base int64, i int) int {
	if !s.cards {
		return s.fail(base, i)
	}
	s.inString, s.escaped, s.recBroken, s.exp = false, false, true, expJunk
	return i
}

// elementDone ends the element in progress, if any, at the comma or ']'
// at offset at: a record, which ends with its value unless it is broken.
func (s *splitter) elementDone(at int64, out []span) []span {
	if s.rec < 0 {
		return out
	}
	broken := s.recBroken || s.closedAt < 0
	end := s.closedAt
	if broken {
		end = at
	}
	out = append(out, span{s.rec, end, broken})
	s.rec, s.closedAt, s.recBroken = -1, -1, false
	return out
}

// settle ends an element of the array of cards whose value is whole and
// that waits only for its comma or ']' (only white space came after it):
// its span is appended to out, and what comes next starts anew (junk a
// broken record of its own). The cutter calls it rather than take white
// space longer than the record bound for part of the element, which would
// make a card of a few bytes too large.
func (s *splitter) settle(out []span) []span {
	if !s.cards || s.rec < 0 || s.closedAt < 0 || s.recBroken || s.resync {
		return out
	}
	out = append(out, span{s.rec, s.closedAt, false})
	s.rec, s.closedAt = -1, -1
	return out
}

// How record returned.
type recordEnd uint8

const (
	recordOpen   recordEnd = iota // at the end of b, the record still open
	recordClosed                  // after the record's last byte
	recordFault                   // at a fault
	recordSplit                   // at a bracket that starts the next element
)

// record follows a record that opened with a bracket from b[i], with the
// block path where it can and recordExact where it cannot.
func (s *splitter) record(b []byte, base int64, i int) (int, recordEnd) {
	// After the block path hands over, the byte loop goes as far as it
	// says, so that reading always moves on.
	for {
		exactTo := len(b)
		if !s.exact && len(b)-i >= 64 {
			var end recordEnd
			if i, end, exactTo = s.fastRecord(b, base, i); exactTo < 0 {
				return i, end
			}
		}
		var end recordEnd
		if i, end = s.recordExact(b, base, i, exactTo); end != recordOpen || i == len(b) {
			return i, end
		}
	}
}

// recordExact follows a record that opened with a bracket from b[i] a byte
// at a time: strings and brackets, nothing else. It returns at the
// record's end, at a fault, or at the first byte outside a string from
// index stop on.
//
// In the array of cards a fault inside an element breaks it and reading
// goes on, since the element must end where the next one can be found:
// a string ends at a raw newline; a close that does not match the
// innermost open bracket closes the innermost that it matches, or is a
// stray byte; a '{' or '[' near a line start (see splitter) starts the
// next element, and a ']' there that matches nothing in the element
// closes the array.
func (s *splitter) recordExact(b []byte, base int64, i, stop int) (int, recordEnd) {
	recDepth := s.recDepth()
	for i < len(b) {
		if s.inString {
			var fault bool
			if i, fault = s.skipString(b, i); fault {
				if !s.cards {
					return i, recordFault
				}
				s.inString, s.escaped, s.recBroken = false, false, true
				continue // at the newline
			}
			if s.inString {
				return len(b), recordOpen
			}
			i++ // the closing quote
			continue
		}
		if i >= stop {
			return i, recordOpen
		}
		switch c := b[i]; c {
		case '"':
			s.inString = true
		case '\n':
			s.line0 = base + int64(i) + 1
		case '{', '[':
			if len(s.stack) >= maxSplitDepth {
				return i, recordFault
			}
			if base+int64(i)-s.line0 <= s.indent {
				// Only on a line after the record's first: there no
				// bracket is this near the line start.
				if s.cards {
					return i, recordSplit
				}
				return i, recordFault
			}
			s.stack = append(s.stack, c)
		case '}', ']':
			// '}' is '{' + 2, ']' is '[' + 2.
			if s.stack[len(s.stack)-1] == c-2 {
				s.stack = s.stack[:len(s.stack)-1]
			} else if !s.cards {
				return i, recordFault
			} else if !s.popTo(c-2, recDepth) {
				if c == ']' && base+int64(i)-s.line0 <= s.indent {
					return i, recordSplit // the array of cards' own
				}
				break // a stray byte
			}
			if len(s.stack) == recDepth {
				return i + 1, recordClosed
			}
		}
		i++
	}
	return i, recordOpen
}

// popTo closes the innermost open bracket of the record that is open,
// with those inside it, among the innermost maxPopSearch above recDepth,
// and marks the record broken. It reports false if there is none.
func (s *splitter) popTo(open byte, recDepth int) bool {
	s.recBroken = true
	for j := len(s.stack) - 1; j >= max(recDepth, len(s.stack)-maxPopSearch); j-- {
		if s.stack[j] == open {
			s.stack = s.stack[:j]
			return true
		}
	}
	return false
}

// finish ends the input at s.pos and appends the last records to out.
func (s *splitter) finish(out []span) []span {
	switch {
	case s.resync:
		out = append(out, span{s.brokenStart, s.pos, true})
	case s.inScalar && len(s.stack) == 0:
		s.inScalar = false
		s.valueDone(s.pos, &out)
	case s.cards && s.rec >= 0 && s.closedAt >= 0 && !s.recBroken && !s.inScalar:
		// An element whole, and the array cut after it.
		out = append(out, span{s.rec, s.closedAt, false}, span{s.pos, s.pos, true})
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
	s.stack, s.rec, s.inScalar, s.inString, s.escaped, s.resync = s.stack[:0], -1, false, false, false, false
	s.closedAt, s.recBroken, s.indent = -1, false, 0
	return out
}

// valueDone ends a value that ends at offset end: a record, or in the
// array of cards an element, a record at the comma or ']' after it.
func (s *splitter) valueDone(end int64, out *[]span) {
	s.lineBlank = false
	if s.cards {
		s.closedAt, s.exp = end, expCommaOrClose
		return
	}
	s.exp = expTop
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
	s.closedAt, s.recBroken, s.indent = -1, false, 0
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
