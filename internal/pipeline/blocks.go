package pipeline

import (
	"encoding/binary"
	"math/bits"
)

// blockBits marks, a bit per byte (bit i for byte i), the bytes of a
// 64-byte block that the splitter looks at inside a record. Backslashes
// and newlines share a mask: both are rare in cards written on one line,
// and where one is marked the bytes tell which.
type blockBits struct {
	quotes   uint64 // '"'
	brackets uint64 // '{', '[', '}' and ']'
	rare     uint64 // '\\' and '\n'
}

// classifyWords computes a block's bits eight bytes at a time, for
// walkBlocksGo (walkBlocks computes them with SSE2).
func classifyWords(b *[64]byte) blockBits {
	var q, br, rare uint64
	for j := 0; j < 64; j += 8 {
		w := binary.LittleEndian.Uint64(b[j:])
		// A byte is '{' or '[' when it is '{' with 0x20 set, and likewise
		// '}' or ']'.
		w20 := w | 0x20*lsb
		q |= eqBytes(w, '"') << j
		br |= (eqBytes(w20, '{') | eqBytes(w20, '}')) << j
		rare |= (eqBytes(w, '\\') | eqBytes(w, '\n')) << j
	}
	return blockBits{q, br, rare}
}

// eqBytes returns a bit per byte of w (bit i for byte i) set where the
// byte is c. Each flag is exact: no sum carries from one byte into the
// next.
func eqBytes(w uint64, c byte) uint64 {
	// A byte of x is 0 where x&low7 + low7 leaves its top bit clear and
	// x has none.
	const low7 = 0x7f7f7f7f7f7f7f7f
	x := w ^ (uint64(c) * lsb)
	x = ^(x&low7 + low7 | x) & msb
	// The multiply gathers the top bit of each byte into the top byte.
	return (x >> 7) * 0x0102040810204080 >> 56
}

// evenBits has the bits of even index set.
const evenBits = 0x5555555555555555

// fastDepth is how many levels of brackets a walk holds, their kinds in
// the bits of a word. One level deeper the walk stops at the bracket,
// recordExact takes it, and a new walk holds the innermost half.
const fastDepth = 64

// walkState is what walkBlocks carries from block to block, in and out.
type walkState struct {
	// kinds: a bit per open bracket the walk holds (the record's
	// innermost), innermost lowest, 1 for '{' ('{' and '}' have 0x20 set,
	// '[' and ']' not); depth: how many.
	kinds, depth uint64
	// in: all ones when the block starts in a string; esc: 1 when its
	// first byte is escaped; line: the newlines of the block before (bit
	// 63: the block starts a line).
	in, esc, line uint64
	// nl: the newlines of the block walkBlocks stopped in; lastNL: those
	// of the last block it walked through that had any, and lastNLLeft
	// how many blocks were left from that one on (0: none had any).
	nl, lastNL uint64
	lastNLLeft int
	// indent: an opening bracket at most this many bytes after a line
	// start stops the walk (see splitter.indent); at most maxIndent.
	indent uint64
}

// Why walkBlocks stopped.
const (
	walkEnd     = iota // past the last block
	walkBlock          // before block k, which the byte loop must follow
	walkBracket        // at the bracket p of block k: a fault, or too deep
	walkClosed         // after the bracket p of block k, which closes the last held
)

// walkBlocksGo is walkBlocks in Go, for machines without the assembly
// version (and to test it against). It walks the whole blocks of b.
func walkBlocksGo(b []byte, st *walkState) (k, p, stop int) {
	kinds, depth, in, esc, lineBit := st.kinds, st.depth, st.in, st.esc, st.line
	n := len(b) / 64
	for k = range n {
		blk := (*[64]byte)(b[64*k : 64*k+64])
		m := classifyWords(blk)
		// Backslashes and newlines, told apart by their bytes.
		var bs, nl uint64
		for rare := m.rare; rare != 0; rare &= rare - 1 {
			p := bits.TrailingZeros64(rare)
			if blk[p] == '\n' {
				nl |= 1 << p
			} else {
				bs |= 1 << p
			}
		}
		st.nl = nl
		// starters: the backslashes that escape the byte after them.
		quotes, nextEsc, starters := m.quotes, uint64(0), uint64(0)
		if bs|esc != 0 {
			bs &^= esc // escaped itself: starts no run
			follows := bs<<1 | esc
			oddStarts := bs &^ evenBits &^ follows
			evenStarts, carry := bits.Add64(oddStarts, bs, 0)
			escaped := (evenBits ^ evenStarts<<1) & follows
			quotes &^= escaped
			nextEsc, starters = carry, bs&^escaped
		}
		str := inStrings(quotes, in)
		// The block is left to the byte loop if a string holds a raw
		// newline (a fault), or a backslash that escapes is outside a
		// string, where it escapes nothing and str is wrong.
		if nl&str != 0 || starters&^str != 0 {
			*st = walkState{kinds, depth, in, esc, lineBit, nl, st.lastNL, st.lastNLLeft, st.indent}
			return k, 0, walkBlock
		}
		near := nearLineStart(nl, lineBit, st.indent)
		for br := m.brackets &^ str; br != 0; br &= br - 1 {
			p := bits.TrailingZeros64(br)
			c := uint64(blk[p])
			if c&2 != 0 { // '{' or '['
				if near>>p&1 != 0 || depth == fastDepth {
					st.kinds, st.depth = kinds, depth
					return k, p, walkBracket
				}
				kinds = kinds<<1 | c>>5&1
				depth++
				continue
			}
			if kinds&1 != c>>5&1 {
				st.kinds, st.depth = kinds, depth
				return k, p, walkBracket
			}
			kinds >>= 1
			if depth--; depth == 0 {
				st.kinds, st.depth = kinds, depth
				return k, p, walkClosed
			}
		}
		if nl != 0 {
			st.lastNL, st.lastNLLeft = nl, n-k
		}
		lineBit = nl
		in = uint64(int64(str) >> 63)
		esc = nextEsc
	}
	st.kinds, st.depth, st.in, st.esc, st.line = kinds, depth, in, esc, lineBit
	return n, 0, walkEnd
}

// nearLineStart returns the bytes of a block at most indent bytes after
// a line start, from the block's newlines and those of the block before.
func nearLineStart(nl, prevNL, indent uint64) uint64 {
	starts := nl << 1
	near := starts | prevNL>>63
	for j := uint64(1); j <= indent; j++ {
		near |= starts<<j | prevNL>>(63-j)
	}
	return near
}

// fastRecord follows a record that opened with a bracket from b[i] a
// 64-byte block at a time (walkBlocks), while a whole block is left, as
// recordExact would. It returns as recordExact does, with exactTo -1, or
// at an index where recordExact can go on (the splitter's state is that
// of recordExact at that index) and, in exactTo, how far recordExact must
// go before the blocks can be tried again: the end of a block it cannot
// follow exactly (a raw newline in a string; a backslash outside one,
// which escapes nothing there), past a bracket that is a fault or too
// deep for a walk, or the end of b where less than a block is left.
//
// Per block: the quotes that close or open a string are those not
// escaped, an escaped byte being the one after an odd run of backslashes
// (found as simdjson does, by adding the runs that start on odd bits to
// the backslashes); a prefix XOR of those quotes, carried from block to
// block, gives the bytes in strings; the brackets outside strings are
// then taken one by one with their trailing zeros.
func (s *splitter) fastRecord(b []byte, base int64, i int) (_ int, _ recordEnd, exactTo int) {
	recDepth := s.recDepth()
	for {
		if len(s.stack) > maxSplitDepth-fastDepth {
			// Near the depth limit, which only the byte loop checks.
			return i, recordOpen, min(i+64, len(b))
		}
		// A walk holds the innermost brackets from floor on, at most
		// half of fastDepth to start with, in a word; those below stay
		// in s.stack. A deeper record is walked again from where its
		// depth leaves the word's.
		floor := max(recDepth, len(s.stack)-fastDepth/2)
		st := walkState{depth: uint64(len(s.stack) - floor)}
		for _, c := range s.stack[floor:] {
			st.kinds = st.kinds<<1 | uint64(c>>5&1)
		}
		n := (len(b) - i) / 64
		if n == 0 {
			return i, recordOpen, len(b)
		}
		if s.inString {
			st.in = ^uint64(0)
		}
		if s.escaped {
			st.esc = 1
		}
		if k := base + int64(i) - s.line0; k < 64 {
			st.line = 1 << (63 - k) // the newline before the line
		}
		st.indent = uint64(s.indent)
		k, p, stop := walkBlocks(b[i:i+64*n], &st)
		if st.lastNLLeft != 0 {
			at := i + 64*(n-st.lastNLLeft)
			s.line0 = base + int64(at+64-bits.LeadingZeros64(st.lastNL))
		}
		i += 64 * k
		switch stop {
		case walkBlock, walkEnd:
			s.setStack(floor, st.kinds, int(st.depth))
			s.inString, s.escaped = st.in != 0, st.esc != 0
			return i, recordOpen, min(i+64, len(b))
		}
		// At or after the bracket at b[i+p], out of strings.
		if before := st.nl & (1<<p - 1); before != 0 {
			s.line0 = base + int64(i+64-bits.LeadingZeros64(before))
		}
		s.setStack(floor, st.kinds, int(st.depth))
		s.inString, s.escaped = false, false
		if stop == walkBracket {
			return i + p, recordOpen, i + p + 1
		}
		if i += p + 1; floor == recDepth {
			return i, recordClosed, -1
		}
	}
}

// setStack writes the record's depth open brackets above floor, their
// kinds in the low bits of kinds, back to s.stack.
func (s *splitter) setStack(floor int, kinds uint64, depth int) {
	s.stack = s.stack[:floor]
	for d := depth - 1; d >= 0; d-- {
		c := byte('[')
		if kinds>>d&1 != 0 {
			c = '{'
		}
		s.stack = append(s.stack, c)
	}
}

// inStrings returns the bits of a block's bytes that lie in strings, an
// opening quote included and a closing one not: the prefix XOR of the
// quotes that open or close one, with in (all ones or none) saying
// whether the block starts in a string.
func inStrings(quotes, in uint64) uint64 {
	x := quotes
	x ^= x << 1
	x ^= x << 2
	x ^= x << 4
	x ^= x << 8
	x ^= x << 16
	x ^= x << 32
	return x ^ in
}
