package tape

import (
	"cmp"
	"encoding/binary"
	"math/bits"
	"slices"
	"unicode/utf8"

	"github.com/cardscan/cardscan/fastvalidate/internal/decimal"
)

// The Scanner is the only pass over a card's bytes. It checks RFC 8259 syntax
// and the I-JSON rules (RFC 7493: valid UTF-8, no lone surrogates, no
// duplicate member names) while it records every value on a flat tape, so the
// profile checks that follow walk tokens, never bytes. A lenient parser
// followed by a second, strict pass would read every byte twice.
//
// A first pass (classify) marks each quote and each byte a string must not
// hold as is: on amd64 with vector instructions, 16, 32 or 64 bytes each
// as the CPU allows (classify_amd64.go), elsewhere eight bytes at a time.
// The Scanner then finds where a plain string ends from those bits instead
// of its bytes; the strings are most of a card's bytes. BenchmarkProfile's
// classify-only row times the vector pass, strict-scan-portable the scan
// with the word-at-a-time one, and BenchmarkClassify each pass.

type Kind uint8

const (
	KindNone Kind = iota
	KindObject
	KindArray
	KindString
	KindNumber
	KindTrue
	KindFalse
	KindNull
)

// String flags.
const (
	FlagEscaped  uint8 = 1 << iota // raw text holds backslash escapes
	FlagNonASCII                   // raw text holds bytes >= 0x80
)

// Object flags.
const (
	// FlagNameClash marks an object in which two member names fell on the
	// same bit of the Scanner's name filter, or a name had escapes: only
	// such objects are searched for duplicate names.
	FlagNameClash uint8 = 1 << iota
)

// Number flags.
const (
	FlagNeg  uint8 = 1 << iota // leading minus
	FlagFrac                   // has a fraction part
	FlagExp                    // has an exponent part
	FlagBad                    // not a number by RFC 8259's grammar
	FlagLong                   // long enough to overflow a float64 (see scanNumber)
)

const NoParent = ^uint32(0)

// node is one value on the tape. Objects are followed by their members as
// key, value pairs; arrays by their elements. A container's end is the tape
// index just past its last descendant, so siblings are one hop apart.
type node struct {
	start  uint32 // byte offset; strings: first byte after the opening quote
	end    uint32 // strings: offset of the closing quote; numbers: one past the last digit; containers: tape index past the last descendant
	parent uint32 // tape index of the enclosing container, NoParent for the root
	kind   Kind
	flags  uint8
}

// Scanner holds the reusable buffers of one scan. Not safe for concurrent use.
type Scanner struct {
	tape     []node
	stack    []frame  // enclosing containers of the open one, outermost first
	keys     []keyRef // scratch for duplicate detection
	MaxDepth int

	// blocks holds two words per 64 bytes of the document, a bit per byte:
	// the quotes, and the bytes a string must not hold as is (see
	// classify). Portable computes them a word at a time, as machines
	// without the vector pass do, so that tests and benchmarks can hold
	// the two side by side.
	blocks   []charBlock
	Portable bool

	// The document being scanned, and the scan loop's locals while it
	// calls out (see scan).
	doc    []byte
	parked loopState

	// escaped lists the tape indexes of the strings, names and values,
	// that have escapes, so that the walker can decode the names once per
	// card without searching the tape (see walker.scan). Few cards have
	// any.
	// classify empties it: a document too large to scan, which leaves the
	// tape empty, leaves it as it was.
	escaped []uint32

	// aux is what a View of the tape reads through a pointer: the decoded
	// member names and comparison scratch.
	aux aux

	// pickMask picks member names as the scan reads them (see PickKeys):
	// a name whose filter bits are all in the entry for its last byte.
	// That is one look-up a name where the filter's name bits and a bit
	// set of last bytes, tested apart, took two and five more
	// instructions. picks lists the picked names' tape indexes in its
	// first nPicked entries. picks is as long as the tape, so that the
	// scan loop stores to it without a branch on the verdict; a Scanner
	// that picks nothing keeps none and takes one predictable branch a
	// name.
	pickMask [256]uint64
	picking  bool // some entry of pickMask is set
	picks    []uint64
	nPicked  uint32
	// merged is Picked's scratch, for a scan that read names with escapes.
	merged []uint64

	// The first error found; scanning stops there.
	err     Err
	errOff  int
	errNode uint32 // tape index the error belongs to, NoParent for the document
	errKey  bool   // the error is in the member name of errNode's object
}

// inObject marks the scan loop's open container as an object (see scan).
const inObject = 1 << 32

// loopState is what the scan loop keeps in registers.
type loopState struct {
	i     int
	nt    uint32
	open  uint64
	names uint64
}

// resume gives the scan loop back its document and its parked locals.
func (s *Scanner) resume() ([]byte, int, uint32, uint64, uint64) {
	// Capped at its length, as scan caps it: see there.
	doc := s.doc[:len(s.doc):len(s.doc)]
	return doc, s.parked.i, s.parked.nt, s.parked.open, s.parked.names
}

type keyRef struct {
	hash uint64
	node uint32
}

// WSTable marks the four whitespace bytes JSON allows between tokens.
var WSTable = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

var HexVal = func() (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = int8(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = int8(c - 'a' + 10)
	}
	for c := 'A'; c <= 'F'; c++ {
		t[c] = int8(c - 'A' + 10)
	}
	return t
}()

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

func (s *Scanner) fail(c Err, off int, n uint32, inKey bool) bool {
	s.err, s.errOff, s.errNode, s.errKey = c, off, n, inKey
	return false
}

func SkipWS(b []byte, i int) int {
	for i < len(b) && WSTable[b[i]] {
		i++
	}
	return i
}

// frame saves the enclosing container's state while a nested one is open.
type frame struct {
	open  uint64
	names uint64
}

func (s *Scanner) growTape() {
	s.tape = append(s.tape, make([]node, max(len(s.tape), 64))...)
	s.tape = s.tape[:cap(s.tape)]
	s.growPicks()
}

// charBlock marks, a bit per byte of 64, the quotes and the bytes that
// need care: a backslash, a control character or a byte of 0x80 and up.
type charBlock struct{ quotes, care uint64 }

// classify fills s.blocks for b. The block past the last marks every byte
// as needing care, so that a string still open there goes to scanStringBits,
// which reports it.
func (s *Scanner) classify(b []byte) {
	// Here rather than in scan: a store there moves the scan loop's
	// registers about, at a cost to every card.
	s.escaped = s.escaped[:0]
	n := len(b)/64 + 1
	if cap(s.blocks) < n {
		s.blocks = make([]charBlock, n, n+n/4)
	}
	s.blocks = s.blocks[:n]
	full := len(b) &^ 63
	vector := HaveClassify && !s.Portable
	if vector {
		classifyBlocks(b[:full], s.blocks)
	} else {
		classifyWords(b[:full], s.blocks)
	}
	last := full / 64
	if tail := b[full:]; len(tail) > 0 {
		// Zero bytes past the end are control characters: they need care.
		var block [64]byte
		copy(block[:], tail)
		if vector {
			classifyBlocks(block[:], s.blocks[last:])
		} else {
			classifyWords(block[:], s.blocks[last:])
		}
	} else {
		s.blocks[last] = charBlock{care: ^uint64(0)}
	}
}

// classifyWords does what classifyBlocks does, eight bytes at a time, for
// machines without the vector pass.
func classifyWords(b []byte, blocks []charBlock) {
	for x := 0; len(b) >= 64; x++ {
		var quotes, care uint64
		for j := 0; j < 64; j += 8 {
			q, c := wordBits(binary.LittleEndian.Uint64(b[j : j+8]))
			quotes |= q << j
			care |= c << j
		}
		blocks[x] = charBlock{quotes, care}
		b = b[64:]
	}
}

// wordBits returns a bit per byte of w for its quotes and for the bytes
// that need care. Every flag is exact: no sum carries from one byte into
// the next.
func wordBits(w uint64) (quotes, care uint64) {
	// A byte of v is 0 where v&low7 + low7 leaves its top bit clear and v
	// has none.
	q, c := w^wordQuote, w^wordBackslash
	q = ^(q&wordLow7 + wordLow7 | q) & wordHigh
	c = ^(c&wordLow7 + wordLow7 | c) & wordHigh
	// Below 0x20: the low seven bits plus 0x60 stay under 0x80.
	c |= (w | ^(w&wordLow7 + wordControl)) & wordHigh
	// The multiply gathers the top bit of each byte into the top byte.
	return (q >> 7) * wordGather >> 56, (c >> 7) * wordGather >> 56
}

// The constants of wordBits, as variables: Go rematerialises a constant
// at every use, an instruction each, where a variable is an operand.
var (
	wordLow7      uint64 = 0x7f7f7f7f7f7f7f7f
	wordHigh      uint64 = msb
	wordQuote     uint64 = lsb * '"'
	wordBackslash uint64 = lsb * '\\'
	wordControl   uint64 = lsb * 0x60
	wordGather    uint64 = 0x0102040810204080
)

// nameBytes maps a bit per byte of a member name, the low byte of a mask
// of the name's bytes in a block, to the mask of those bytes in a word:
// names of eight bytes and more fill the byte and keep the whole word.
var nameBytes = func() (t [256]uint64) {
	for n := range 9 {
		t[1<<n-1] = ^uint64(0) >> (64 - 8*n)
	}
	return t
}()

// plainStringEndFar returns the offset of the quote that ends a string
// which goes on past the block it starts in, from the start of block x,
// when no byte before it needs care; otherwise ok is false and the string
// is left to scanStringBits. Most strings end in the block they start in,
// which the scan loop decides itself.
func plainStringEndFar(blocks []charBlock, x int) (end int, ok bool) {
	for ; x < len(blocks); x++ {
		q, k := blocks[x].quotes, blocks[x].care
		if q != 0 {
			return x<<6 + bits.TrailingZeros64(q), k&(q&-q-1) == 0
		}
		if k != 0 {
			break
		}
	}
	return 0, false
}

// scan reads exactly one JSON value from b onto the tape. It reports false
// with s.err set at the first violation.
//
// The loop keeps its position, the node count, the open container and its
// name filter in locals, and its common paths call nothing. Go's calling
// convention keeps no register across a call, so a local still needed
// after any call in the loop is stored to the stack at the loop's merge
// points, on every pass, whether the call happens or not. The rare paths
// that call out (strings with escapes or non-ASCII, numbers, a full tape or
// stack, the duplicate search) therefore park the locals in s.parked and
// read them back after the call, which starts them afresh. The tape and
// the stack are read through s for the same reason. Per generated A2A 0.2
// card this took an eighth off the scan's instructions (callgrind: 12.4K to
// 10.9K) and a twentieth off Validate's time.
//
// The hot tests of the position compare it unsigned (uint(i) <
// uint(len(b))): it is never negative, and the compiler then takes that
// one compare as the bounds check of the b[i] after it, where a signed one
// is followed by a second branch for the check.
func (s *Scanner) scan(b []byte) bool {
	s.err = 0
	if uint64(len(b)) >= 1<<32-1 {
		s.tape = s.tape[:0]
		return s.fail(ErrTooLarge, 0, NoParent, false)
	}
	s.tape = s.tape[:cap(s.tape)]
	s.stack = s.stack[:0]
	s.nPicked = 0
	if len(s.picks) < len(s.tape) && s.picking {
		s.growPicks()
	}
	nt := uint32(0)
	// open is the open container: its tape index, NoParent at the top,
	// and bit 32 (inObject) set for an object. One register holds both,
	// and whether a comma leads to a member name or a value is a test of
	// a bit, not a load. A bit test, not a compare with 1<<32: that
	// constant does not fit an instruction, and the compiler kept it in a
	// register of its own through the loop.
	open := uint64(NoParent)
	// names is a two-hash Bloom filter of the open object's member names.
	// A card's objects are small, so most never see two names on one bit
	// and skip the duplicate search at their close.
	names := uint64(0)
	var (
		code     Err
		errOff   int
		errNode  uint32
		errKey   bool
		end      int
		flags    uint8
		nameWord uint64
		t        *node
	)
	s.classify(b)
	// With its capacity cut to its length, the document's two bounds are
	// one value to the compiler, and a slice of it is checked against the
	// register that holds its length rather than a second one for its
	// capacity, which the loop has none to spare for.
	b = b[:len(b):len(b)]
	s.doc = b
	i := SkipWS(b, 0)
	if i == len(b) {
		code, errOff, errNode = ErrSyntax, i, NoParent
		goto fail
	}

	////////////////////////////// VALUE STATE /////////////////////////////
	//
	// A value is due at i: at the start, after a colon, after a comma in
	// an array, or after an opening bracket. Its first byte picks the
	// kind; a string or a container opens here, a scalar is read whole.
value:
	if uint(i) >= uint(len(b)) {
		goto badValue
	}
	// Room for this value and the member name that may follow it before
	// the next value: names need no check of their own.
	if int(nt)+2 > len(s.tape) {
		s.parked = loopState{i, nt, open, names}
		s.growTape()
		b, i, nt, open, names = s.resume()
	}
	////////////////////////////// DISPATCH ////////////////////////////////
	//
	// The value's first byte, with the tape's room already made; white
	// space before a value comes back here once skipped.
dispatch:
	switch c := b[i]; {
	case c == '"':
		// The quote bits from here on end the string unless a byte that
		// needs care comes first.
		end = i + 1
		blk := &s.blocks[end>>6]
		q, k := blk.quotes>>(end&63), blk.care>>(end&63)
		ok := false
		if q != 0 {
			ok = k&(q&-q-1) == 0
			end += bits.TrailingZeros64(q)
		} else if k == 0 {
			end, ok = plainStringEndFar(s.blocks, end>>6+1)
		}
		if ok {
			t = &s.tape[nt]
			t.start, t.end, t.parent, t.kind, t.flags = uint32(i+1), uint32(end), uint32(open), KindString, 0
			nt++
			i = end + 1
			goto after
		}
		end = i + 1
		s.parked = loopState{i, nt, open, names}
		end, flags, code = s.scanStringBits(b, end)
		b, i, nt, open, names = s.resume()
		t = &s.tape[nt]
		t.start, t.end, t.parent, t.kind, t.flags = uint32(i+1), uint32(end), uint32(open), KindString, flags
		nt++
		if code != 0 {
			errOff, errNode = end, nt-1
			goto fail
		}
		i = end + 1
	case c <= ' ':
		// Pretty-printed JSON and arrays written with ", " come here;
		// control characters go on to fail.
		if !WSTable[c] {
			goto badValue
		}
		if i = SkipWS(b, i); i >= len(b) {
			goto badValue
		}
		// An array with nothing but whitespace in it closes here.
		if b[i] == ']' && open&inObject == 0 && uint32(open) != NoParent && nt == uint32(open)+1 {
			i++
			goto close
		}
		goto dispatch
	case c == '{' || c == '[':
		if len(s.stack) >= s.MaxDepth {
			code, errOff, errNode = ErrDepth, i, uint32(open)
			goto fail
		}
		if len(s.stack) == cap(s.stack) {
			s.parked = loopState{i, nt, open, names}
			s.stack = slices.Grow(s.stack, 1)
			b, i, nt, open, names = s.resume()
		}
		s.stack = s.stack[:len(s.stack)+1]
		s.stack[len(s.stack)-1] = frame{open: open, names: names}
		t = &s.tape[nt]
		// One test of the bracket, not one to pick the kind and more to
		// act on it: the two kinds share only the stack.
		if b[i] == '{' {
			t.start, t.end, t.parent, t.kind, t.flags = uint32(i), 0, uint32(open), KindObject, 0
			open, names = uint64(nt)|inObject, 0
			nt++
			// Whitespace before the first member or element is for key
			// and value to skip, and to close an empty container after.
			if i++; uint(i) < uint(len(b)) && b[i] == '}' {
				i++
				goto close
			}
			goto key
		}
		t.start, t.end, t.parent, t.kind, t.flags = uint32(i), 0, uint32(open), KindArray, 0
		open, names = uint64(nt), 0
		nt++
		if i++; uint(i) < uint(len(b)) && b[i] == ']' {
			i++
			goto close
		}
		goto value
	case c == '-' || c-'0' <= 9:
		s.parked = loopState{i, nt, open, names}
		end, flags = scanNumber(b, i)
		b, i, nt, open, names = s.resume()
		s.tape[nt] = node{start: uint32(i), end: uint32(end), parent: uint32(open), kind: KindNumber, flags: flags}
		nt++
		if flags&(FlagBad|FlagLong) != 0 {
			if flags&FlagBad != 0 {
				code, errOff, errNode = ErrSyntax, end, nt-1
				goto fail
			}
			s.parked = loopState{i, nt, open, names}
			fits := decimal.FitsFloat64(b[i:end])
			b, i, nt, open, names = s.resume()
			if !fits {
				code, errOff, errNode = ErrNumberRange, i, nt-1
				goto fail
			}
			end = int(s.tape[nt-1].end)
		}
		i = end
	case c == 't' && hasLiteral(b, i, "true"):
		s.tape[nt] = node{start: uint32(i), end: uint32(i + 4), parent: uint32(open), kind: KindTrue}
		nt++
		i += 4
	case c == 'f' && hasLiteral(b, i, "false"):
		s.tape[nt] = node{start: uint32(i), end: uint32(i + 5), parent: uint32(open), kind: KindFalse}
		nt++
		i += 5
	case c == 'n' && hasLiteral(b, i, "null"):
		s.tape[nt] = node{start: uint32(i), end: uint32(i + 4), parent: uint32(open), kind: KindNull}
		nt++
		i += 4
	default:
		goto badValue
	}

	////////////////////////////// AFTER VALUE /////////////////////////////
	//
	// A value has ended. At the top level only white space may follow;
	// inside a container a comma leads to the next member name or element,
	// and a closing bracket that matches the open container closes it.
after:
	// Compact JSON puts a comma or the closing bracket right after a value.
	if uint(i) < uint(len(b)) {
		switch c := b[i]; {
		case c == ',':
			// Whitespace after it is for key and value to skip. An
			// object's comma, the most common, is told by one test;
			// one at the top level is left to the error below.
			if open&inObject != 0 {
				i++
				goto key
			}
			if open != uint64(NoParent) {
				i++
				goto value
			}
		case c == '}' && open&inObject != 0, c == ']' && open&inObject == 0 && open != uint64(NoParent):
			i++
			goto close
		}
	}
	if open == uint64(NoParent) {
		if i = SkipWS(b, i); i != len(b) {
			code, errOff, errNode = ErrSyntax, i, NoParent
			goto fail
		}
		s.tape = s.tape[:nt]
		return true
	}
	for i < len(b) && WSTable[b[i]] {
		i++
	}
	if i >= len(b) {
		code, errOff, errNode = ErrSyntax, i, uint32(open)
		goto fail
	}
	if open&inObject != 0 {
		switch b[i] {
		case ',':
			i = SkipWS(b, i+1)
			goto key
		case '}':
			i++
			goto close
		}
	} else {
		switch b[i] {
		case ',':
			i = SkipWS(b, i+1)
			goto value
		case ']':
			i++
			goto close
		}
	}
	code, errOff, errNode = ErrSyntax, i, uint32(open)
	goto fail

	////////////////////////////// CLOSE STATE /////////////////////////////
	//
	// The open container ends at i: its end is set, an object whose
	// names clashed in the filter is searched for duplicates, and the
	// enclosing container is reopened from the stack.
close:
	t = &s.tape[uint32(open)]
	t.end = nt
	if t.flags&FlagNameClash != 0 {
		// Only objects get the flag.
		s.parked = loopState{i, nt, open, names}
		dup := s.duplicateKey(b, s.tape[:nt], uint32(open))
		b, i, nt, open, _ = s.resume()
		if dup != 0 {
			code, errOff, errNode = ErrDuplicateKey, int(s.tape[dup].start)-1, dup+1
			goto fail
		}
	}
	{
		top := s.stack[len(s.stack)-1]
		s.stack = s.stack[:len(s.stack)-1]
		open, names = top.open, top.names
	}
	goto after

	////////////////////////////// OBJECT KEY STATE ////////////////////////
	//
	// A member name is due at i: after an opening brace or a comma in an
	// object. A plain name ends at its first quote bit; one with escapes
	// or non-ASCII bytes is read by scanStringBits and marks the object
	// for the duplicate search.
key:
	if uint(i) >= uint(len(b)) || b[i] != '"' {
		if i < len(b) && WSTable[b[i]] {
			i = SkipWS(b, i)
			if i < len(b) && b[i] == '}' && nt == uint32(open)+1 {
				i++
				goto close
			}
			goto key
		}
		code, errOff, errNode = ErrSyntax, i, uint32(open)
		goto fail
	}
	{
		// As for a string value above. The two stay written out: as a
		// function they are past the compiler's inlining budget, and a
		// call per string costs more than the lookup itself.
		end = i + 1
		blk := &s.blocks[end>>6]
		q, k := blk.quotes>>(end&63), blk.care>>(end&63)
		if q != 0 {
			if below := q&-q - 1; k&below == 0 {
				end += bits.TrailingZeros64(q)
				flags = 0
				if i+9 <= len(b) {
					// below has a bit for each byte of the name.
					nameWord = binary.LittleEndian.Uint64(b[i+1:i+9]) & nameBytes[uint8(below)]
					goto nameScanned
				}
				goto plainName
			}
		} else if k == 0 {
			var ok bool
			if end, ok = plainStringEndFar(s.blocks, (i+1)>>6+1); ok {
				flags = 0
				goto plainName
			}
		}
	}
	s.parked = loopState{i, nt, open, names}
	end, flags, code = s.scanStringBits(b, i+1)
	b, i, nt, open, names = s.resume()
	if code != 0 {
		t = &s.tape[nt]
		t.start, t.end, t.parent, t.kind, t.flags = uint32(i+1), uint32(end), uint32(open), KindString, flags
		nt++
		errOff, errNode, errKey = end, nt-1, true
		goto fail
	}
	if flags&FlagEscaped != 0 {
		// The filter sees the raw text, and "a" and "\u0061" are one
		// name: only the search decodes.
		s.tape[uint32(open)].flags |= FlagNameClash
	}
	////////////////////////////// PLAIN NAME //////////////////////////////
	//
	// A name without escapes, ending at end: its first word feeds the
	// name filter.
plainName:
	// The name filter hashes a name's length and first eight bytes. A name
	// is followed by at least a quote, a colon, a value and a brace, so a
	// word load from its start stays inside b but in tiny documents.
	if i+9 <= len(b) {
		nameWord = binary.LittleEndian.Uint64(b[i+1:i+9]) &^ (^uint64(0) << (8 * uint(end-i-1)))
	} else {
		nameWord = shortName(b[i+1 : min(end, i+9)])
	}
	////////////////////////////// NAME SCANNED ////////////////////////////
	//
	// The name goes on the tape and into the object's filter; a colon
	// must follow, then a value.
nameScanned:
	t = &s.tape[nt]
	t.start, t.end, t.parent, t.kind, t.flags = uint32(i+1), uint32(end), uint32(open), KindString, flags
	nt++
	{
		h := (nameWord ^ uint64(end-i)) * nameFilterMul
		bits := uint64(1)<<(h>>58) | uint64(1)<<(h>>52&63)
		if s.picking {
			// The name is stored, and counted when picked: a branch on
			// the verdict, which no predictor learns, would cost more.
			pick := uint32(b2u(s.pickMask[b[end-1]]&bits == bits))
			s.picks[s.nPicked] = uint64(uint32(open))<<32 | uint64(nt-1)
			s.nPicked += pick
		}
		if names&bits == bits {
			s.tape[uint32(open)].flags |= FlagNameClash
		} else {
			names |= bits
		}
	}
	// Compact JSON puts the colon right after the name.
	if i = end + 1; uint(i) < uint(len(b)) && b[i] == ':' {
		// Whitespace after it, as in pretty-printed JSON or Python's
		// ": ", is for the value's dispatch to skip.
		i++
		goto memberValue
	}
	for i < len(b) && WSTable[b[i]] {
		i++
	}
	if i >= len(b) || b[i] != ':' {
		code, errOff, errNode = ErrSyntax, i, uint32(open)
		goto fail
	}
	i = SkipWS(b, i+1)
	goto value

	////////////////////////////// MEMBER VALUE ////////////////////////////
	//
	// A member's value is due at i, right after its colon. Most members of
	// a card are "name":"text", so a plain string that ends in its block
	// is read here and followed, in an object, by a comma or a closing
	// brace; anything else goes to the value state. Apart from the
	// instructions it spares (the open container is known to be an
	// object), the string, comma and brace tests here are branches of
	// their own, which the predictor learns apart from those after array
	// elements and closed containers (docs/performance.md, The core).
memberValue:
	if uint(i) >= uint(len(b)) || int(nt)+2 > len(s.tape) {
		goto value
	}
	if b[i] != '"' {
		goto dispatch
	}
	{
		end = i + 1
		blk := &s.blocks[end>>6]
		q, k := blk.quotes>>(end&63), blk.care>>(end&63)
		if q == 0 || k&(q&-q-1) != 0 {
			goto dispatch
		}
		end += bits.TrailingZeros64(q)
	}
	t = &s.tape[nt]
	t.start, t.end, t.parent, t.kind, t.flags = uint32(i+1), uint32(end), uint32(open), KindString, 0
	nt++
	if i = end + 1; uint(i) < uint(len(b)) {
		switch b[i] {
		case ',':
			i++
			goto key
		case '}':
			i++
			goto close
		}
	}
	goto after

	////////////////////////////// ERROR STATES ////////////////////////////
	//
	// No value starts at i (badValue), or the scan stopped at an error
	// already described (fail): the containers still open are ended so
	// that paths can be rendered, and the tape is cut at the last node.
badValue:
	// No value starts at i. Where a bracket closes the container after a
	// comma, the container is at fault; otherwise the value that should be
	// there is, so it gets a node, and with it the member's or element's
	// path.
	code, errOff, errNode = ErrSyntax, i, uint32(open)
	if i < len(b) && (b[i] == ']' || b[i] == '}') {
		goto fail
	}
	if int(nt) == len(s.tape) {
		s.growTape()
	}
	s.tape[nt] = node{start: uint32(i), end: uint32(i), parent: uint32(open), kind: KindNull}
	nt++
	errNode = nt - 1

fail:
	// Containers still open get an end so that paths can be rendered.
	for x := uint32(open); x != NoParent; x = s.tape[x].parent {
		s.tape[x].end = nt
	}
	s.tape = s.tape[:nt]
	return s.fail(code, errOff, errNode, errKey)
}

// duplicateKey returns the key node of the first member of obj whose name
// repeats an earlier one, or 0. Names compare decoded: "a" and "\u0061" are
// the same name.
func (s *Scanner) duplicateKey(b []byte, tape []node, obj uint32) uint32 {
	end := tape[obj].end
	// Compare one-word signatures first; only equal ones compare in full.
	// The scan loop does not count members, so the count is found on the
	// way: past sixteen, or at a name with escapes, other ways take over.
	var sigs [16]uint64
	var keys [16]uint32
	n := 0
	for k := obj + 1; k < end; k = s.next(k + 1) {
		t := &tape[k]
		if n == len(sigs) {
			goto large
		}
		if t.flags&FlagEscaped != 0 {
			goto decoded
		}
		sig := nameSignature(b, t.start, t.end)
		for j := range n {
			if sigs[j] == sig {
				u := &tape[keys[j]]
				if string(b[u.start:u.end]) == string(b[t.start:t.end]) {
					return k
				}
			}
		}
		sigs[n], keys[n] = sig, k
		n++
	}
	return 0
decoded:
	// Names with escapes compare decoded, each with each: only in objects
	// of up to sixteen members, so that a hostile one cannot make it
	// quadratic.
	n = 0
	for k := obj + 1; k < end; k = s.next(k + 1) {
		if n++; n > len(sigs) {
			goto large
		}
	}
	for k := obj + 1; k < end; k = s.next(k + 1) {
		nk := &tape[k]
		for j := obj + 1; j < k; j = s.next(j + 1) {
			nj := &tape[j]
			// Equal raw text, or escapes on either side: compare decoded.
			if (nj.flags|nk.flags)&FlagEscaped != 0 {
				if s.aux.same(b[nj.start:nj.end], b[nk.start:nk.end]) {
					return k
				}
			} else if nj.end-nj.start == nk.end-nk.start && string(b[nj.start:nj.end]) == string(b[nk.start:nk.end]) {
				return k
			}
		}
	}
	return 0
large:
	// Large objects: sort member names by hash, then compare neighbours.
	s.keys = s.keys[:0]
	for k := obj + 1; k < end; k = s.next(k + 1) {
		s.keys = append(s.keys, keyRef{hash: s.aux.hash(b[tape[k].start:tape[k].end], tape[k].flags), node: k})
	}
	sortKeyRefs(s.keys)
	// Names of one hash lie in member order, so a name equal to one before
	// it in its run repeats it; the first such member in the object is the
	// one to report, as the other ways do, whatever the hash order.
	first := uint32(0)
	for x := 1; x < len(s.keys); x++ {
		for y := x - 1; y >= 0 && s.keys[y].hash == s.keys[x].hash; y-- {
			nx, ny := &tape[s.keys[x].node], &tape[s.keys[y].node]
			if s.aux.same(b[nx.start:nx.end], b[ny.start:ny.end]) {
				if first == 0 || s.keys[x].node < first {
					first = s.keys[x].node
				}
				break
			}
		}
	}
	return first
}

// nameFilterMul mixes a member name's first eight bytes and length into
// the two bits the Scanner's name filter sets. It was found by trying
// random odd constants until no object of the generated cards of any
// dialect looked like it repeated a name (TestScan_NameFilterQuietOnCards
// holds that); under the golden ratio constant used before, 737 objects of
// 1,000 MA2D cards went to the duplicate search. Hashing more of each name
// would part the one pair that still meets, A2A 1.0's protocolBinding and
// protocolVersion, but measured slower for every card than the search is
// for the cards that hold the pair.
const nameFilterMul = 0x8bcbcde81355ef2d

// shortName packs a member name of up to eight bytes into a word, for the
// names too near the end of a document for a word load.
func shortName(name []byte) uint64 {
	var h uint64
	for i, c := range name {
		h |= uint64(c) << (8 * i)
	}
	return h
}

// nameSignature packs the length and first bytes of the member name at
// b[start:end] into a word. A name is followed by its closing quote and
// usually more, so one load past a short name stays inside b.
func nameSignature(b []byte, start, end uint32) uint64 {
	n := end - start
	var w uint64
	switch {
	case int(start)+8 <= len(b):
		w = binary.LittleEndian.Uint64(b[start:])
		if n < 8 {
			w &= 1<<(8*n) - 1
		}
	default:
		for i, c := range b[start:end] {
			w |= uint64(c) << (8 * i)
		}
	}
	// The last byte parts names that share their length and first eight
	// bytes, as A2A 1.0's protocolBinding and protocolVersion do; before
	// a name is its opening quote.
	return w ^ uint64(n)<<56 ^ uint64(b[end-1])<<48
}

// sortKeyRefs sorts by hash, then node. slices.SortFunc's pattern-defeating
// quicksort falls back to heapsort, so that a hostile object cannot make
// it quadratic, and sorts in place: TestSortKeyRefs_ZeroAllocs holds the
// searches that sort to no allocation.
func sortKeyRefs(k []keyRef) {
	slices.SortFunc(k, func(a, b keyRef) int {
		if c := cmp.Compare(a.hash, b.hash); c != 0 {
			return c
		}
		return cmp.Compare(a.node, b.node)
	})
}

// whole reports whether the scan read node n's subtree to its end: always
// after a scan that succeeded; after one that failed, unless n is the
// node where it stopped or encloses it.
func (s *Scanner) whole(n uint32) bool {
	if s.err == 0 {
		return true
	}
	for x := s.errNode; x != NoParent; x = s.tape[x].parent {
		if x == n {
			return false
		}
	}
	return true
}

// next returns the tape index of the value after node i's subtree.
func (s *Scanner) next(i uint32) uint32 {
	if k := s.tape[i].kind; k == KindObject || k == KindArray {
		return s.tape[i].end
	}
	return i + 1
}

// b2u is 1 for true and 0 for false, without a branch: the compiler turns
// it into the flag the comparison set.
func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

func hasLiteral(b []byte, i int, lit string) bool {
	return len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit
}

// scanStringBits checks a string's content from i (just after the opening
// quote). It returns the offset of the closing quote, or of the first bad
// byte with a non-zero code. Led by the quote and care bits of s.blocks, it
// reads only the bytes that need care, and the string ends at the first
// quote no backslash takes. Text with escapes or non-ASCII letters costs in
// proportion to those, not to its length: an embedded card, all escaped
// quotes, reads three times as fast as byte by byte (BenchmarkScanString).
// A string with escapes that ends well is listed in s.escaped: its node is
// the next on the tape, whose index the scan loop parked.
func (s *Scanner) scanStringBits(b []byte, i int) (int, uint8, Err) {
	blocks := s.blocks
	var flags uint8
	for {
		blk := &blocks[i>>6]
		q, k := blk.quotes>>(i&63), blk.care>>(i&63)
		if q|k == 0 {
			i = i&^63 + 64
			continue
		}
		// TrailingZeros64 of an empty word is 64, past any bit.
		qi, ki := bits.TrailingZeros64(q), bits.TrailingZeros64(k)
		if qi < ki {
			if flags&FlagEscaped != 0 {
				s.escaped = append(s.escaped, s.parked.nt)
			}
			return i + qi, flags, 0
		}
		i += ki
		// The bytes past the end need care, so an open string stops here.
		if i >= len(b) {
			return i, flags, ErrSyntax
		}
		switch c := b[i]; {
		case c == '\\':
			flags |= FlagEscaped
			// A two-byte escape, most of them (an embedded card's quotes),
			// needs no call.
			if i+1 < len(b) && shortEscapes[b[i+1]] != 0 {
				i += 2
				continue
			}
			var code Err
			if i, code = escapeEnd(b, i); code != 0 {
				return i, flags, code
			}
		case c >= 0x80:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				return i, flags, ErrUTF8
			}
			flags |= FlagNonASCII
			i += size
		default:
			return i, flags, ErrSyntax
		}
	}
}

// escapeEnd returns the offset past the escape at b[i], a backslash, or
// the backslash's offset with the code of what is wrong with it.
func escapeEnd(b []byte, i int) (int, Err) {
	if i+1 >= len(b) {
		return i, ErrSyntax
	}
	switch b[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return i + 2, 0
	case 'u':
		r, ok := Hex4(b, i+2)
		if !ok {
			return i, ErrSyntax
		}
		switch {
		case r >= 0xDC00 && r <= 0xDFFF:
			return i, ErrUTF8
		case r >= 0xD800 && r <= 0xDBFF:
			lo, ok := rune(0), false
			if i+7 < len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
				lo, ok = Hex4(b, i+8)
			}
			if !ok || lo < 0xDC00 || lo > 0xDFFF {
				return i, ErrUTF8
			}
			return i + 12, 0
		}
		return i + 6, 0
	}
	return i, ErrSyntax
}

func Hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	a, c, d, e := HexVal[b[i]], HexVal[b[i+1]], HexVal[b[i+2]], HexVal[b[i+3]]
	if a|c|d|e < 0 {
		return 0, false
	}
	return rune(a)<<12 | rune(c)<<8 | rune(d)<<4 | rune(e), true
}

// scanNumber checks the RFC 8259 number grammar from b[i] and returns the
// offset just past it, or the offset of the first wrong byte with FlagBad.
// Only a number of 200 characters or more, or with an exponent of three
// digits or more, can overflow a float64 (fitsFloat64): such a number gets
// FlagLong, and the scan reads it again to decide. One that overflows is
// json.number-range: encoding/json refuses it and Python reads it as
// infinity, so no card may hold one, wherever it stands. One that
// underflows is read as 0 or a subnormal by both (as strconv.ParseFloat
// does, without error) and passes. The second read is left to the scan
// loop's rare path: a call here would cost every number the registers
// it saves around it.
func scanNumber(b []byte, i int) (int, uint8) {
	var flags uint8
	start := i
	if b[i] == '-' {
		flags |= FlagNeg
		i++
	}
	switch {
	case i >= len(b):
		return i, FlagBad
	case b[i] == '0':
		i++
	case b[i]-'1' <= 8:
		i++
		for i < len(b) && b[i]-'0' <= 9 {
			i++
		}
	default:
		return i, FlagBad
	}
	if i < len(b) && b[i] == '.' {
		flags |= FlagFrac
		i++
		if i >= len(b) || b[i]-'0' > 9 {
			return i, FlagBad
		}
		for i < len(b) && b[i]-'0' <= 9 {
			i++
		}
	}
	if i < len(b) && b[i]|0x20 == 'e' {
		flags |= FlagExp
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i]-'0' > 9 {
			return i, FlagBad
		}
		digits := i
		for i < len(b) && b[i]-'0' <= 9 {
			i++
		}
		if i-digits > 2 {
			flags |= FlagLong
		}
	}
	// A number glued to a letter ("1x", "0x10", "01") is one bad token, not two.
	if i < len(b) && !WSTable[b[i]] && b[i] != ',' && b[i] != ']' && b[i] != '}' {
		return i, FlagBad
	}
	if i-start >= 200 {
		flags |= FlagLong
	}
	return i, flags
}

// shortEscapes maps the letter after a backslash to the byte its two-byte
// escape stands for, and every other byte to 0.
var shortEscapes = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// AppendUnescaped decodes the raw text of a string the Scanner accepted.
//
// It reads eight bytes at a time and stores each word whole before looking
// for a backslash in it: a card sent as a JSON string (the draft's section
// 3) holds an escape every few bytes, and a search call and an append per
// escape cost it more than the bytes did. Decoding never lengthens the
// text (an escape of 2, 6 or 12 bytes decodes to 1 to 4 bytes), so the
// output never gets ahead of the input, and room for len(raw) bytes holds
// every eight-byte store.
func AppendUnescaped(dst, raw []byte) []byte {
	n := len(dst)
	dst = slices.Grow(dst, len(raw))
	out := dst[:n+len(raw)]
	i := 0
	for i < len(raw) {
		if rest := raw[i:]; len(rest) >= 8 {
			word := binary.LittleEndian.Uint64(rest)
			binary.LittleEndian.PutUint64(out[n:], word)
			x := word ^ wordBackslash
			found := (x - lsb) &^ x & msb
			if found == 0 {
				i, n = i+8, n+8
				continue
			}
			// Only the lowest mark is sure: a borrow may mark bytes above it.
			skip := bits.TrailingZeros64(found) >> 3
			i, n = i+skip, n+skip
		} else if c := raw[i]; c != '\\' {
			out[n] = c
			i, n = i+1, n+1
			continue
		}
		// raw[i] is a backslash.
		if d := shortEscapes[raw[i+1]]; d != 0 {
			out[n] = d
			i, n = i+2, n+1
			continue
		}
		// A \u escape: the Scanner accepted no other.
		r, _ := Hex4(raw, i+2)
		if r >= 0xD800 && r <= 0xDBFF {
			lo, _ := Hex4(raw, i+8)
			r = (r-0xD800)<<10 | (lo - 0xDC00) + 0x10000
			i += 6
		}
		n += utf8.EncodeRune(out[n:], r)
		i += 6
	}
	return out[:n]
}
