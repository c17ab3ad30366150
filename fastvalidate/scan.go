package fastvalidate

import (
	"bytes"
	"encoding/binary"
	"unicode/utf8"
)

// The scanner is the only pass over a card's bytes. It checks RFC 8259 syntax
// and the I-JSON rules (RFC 7493: valid UTF-8, no lone surrogates, no
// duplicate member names) while it records every value on a flat tape, so the
// profile checks that follow walk tokens, never bytes. A lenient parser
// followed by a second, strict pass would read every byte twice.

type kind uint8

const (
	kindNone kind = iota
	kindObject
	kindArray
	kindString
	kindNumber
	kindTrue
	kindFalse
	kindNull
)

// String flags.
const (
	flagEscaped  uint8 = 1 << iota // raw text holds backslash escapes
	flagNonASCII                   // raw text holds bytes >= 0x80
)

// Number flags.
const (
	flagNeg  uint8 = 1 << iota // leading minus
	flagFrac                   // has a fraction part
	flagExp                    // has an exponent part
)

const noParent = ^uint32(0)

// node is one value on the tape. Objects are followed by their members as
// key, value pairs; arrays by their elements. A container's end is the tape
// index just past its last descendant, so siblings are one hop apart.
type node struct {
	start  uint32 // byte offset; strings: first byte after the opening quote
	end    uint32 // strings: offset of the closing quote; numbers: one past the last digit; containers: tape index past the last descendant
	parent uint32 // tape index of the enclosing container, noParent for the root
	count  uint32 // containers: number of members or elements
	kind   kind
	flags  uint8
}

// scanner holds the reusable buffers of one scan. Not safe for concurrent use.
type scanner struct {
	tape     []node
	stack    []uint32 // open containers, innermost last
	keys     []keyRef // scratch for duplicate detection
	scratch  []byte   // scratch for unescaping
	scratch2 []byte
	maxDepth int

	// The first error found; scanning stops there.
	err     Code
	errOff  int
	errNode uint32 // tape index the error belongs to, noParent for the document
	errKey  bool   // the error is in the member name of errNode's object
}

type keyRef struct {
	hash uint64
	node uint32
}

// wsTable marks the four whitespace bytes JSON allows between tokens.
var wsTable = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

// strClass sorts bytes inside a JSON string: 0 plain ASCII, then the bytes
// that need a closer look.
const (
	strPlain = iota
	strQuote
	strBackslash
	strControl
	strHigh
)

var strClass = func() (t [256]uint8) {
	for c := 0; c < 0x20; c++ {
		t[c] = strControl
	}
	t['"'] = strQuote
	t['\\'] = strBackslash
	for c := 0x80; c < 0x100; c++ {
		t[c] = strHigh
	}
	return t
}()

var hexVal = func() (t [256]int8) {
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

// needsCare reports whether any of the 8 bytes in w is a quote, a backslash,
// a control character or non-ASCII. It may report true for a word that only
// follows such a byte; callers then fall back to the byte loop.
func needsCare(w uint64) bool {
	quote := w ^ (lsb * '"')
	bslash := w ^ (lsb * '\\')
	return ((quote-lsb)&^quote|(bslash-lsb)&^bslash|(w-lsb*0x20)|w)&msb != 0
}

func (s *scanner) fail(c Code, off int, n uint32, inKey bool) bool {
	s.err, s.errOff, s.errNode, s.errKey = c, off, n, inKey
	return false
}

func skipWS(b []byte, i int) int {
	for i < len(b) && wsTable[b[i]] {
		i++
	}
	return i
}

func (s *scanner) push(k kind, start int, flags uint8) uint32 {
	parent := noParent
	if n := len(s.stack); n > 0 {
		parent = s.stack[n-1]
		s.tape[parent].count++
	}
	s.tape = append(s.tape, node{start: uint32(start), parent: parent, kind: k, flags: flags})
	return uint32(len(s.tape) - 1)
}

// scan reads exactly one JSON value from b onto the tape. It reports false
// with s.err set at the first violation.
func (s *scanner) scan(b []byte) bool {
	s.tape = s.tape[:0]
	s.stack = s.stack[:0]
	s.err = 0
	if uint64(len(b)) >= 1<<32-1 {
		return s.fail(CodeInputTooLarge, 0, noParent, false)
	}
	i := skipWS(b, 0)
	if i == len(b) {
		return s.fail(CodeJSONSyntax, i, noParent, false)
	}

value:
	if i >= len(b) {
		return s.fail(CodeJSONSyntax, i, s.top(), false)
	}
	switch c := b[i]; {
	case c == '{' || c == '[':
		if len(s.stack) >= s.maxDepth {
			return s.fail(CodeJSONDepth, i, s.top(), false)
		}
		k := kindObject
		if c == '[' {
			k = kindArray
		}
		n := s.push(k, i, 0)
		s.stack = append(s.stack, n)
		i = skipWS(b, i+1)
		if k == kindObject {
			if i < len(b) && b[i] == '}' {
				i++
				s.closeTop()
				goto after
			}
			goto key
		}
		if i < len(b) && b[i] == ']' {
			i++
			s.closeTop()
			goto after
		}
		goto value
	case c == '"':
		n := s.push(kindString, i+1, 0)
		end, ok := s.scanString(b, i+1, n, false)
		if !ok {
			return false
		}
		s.tape[n].end = uint32(end)
		i = end + 1
	case c == '-' || c-'0' <= 9:
		n := s.push(kindNumber, i, 0)
		end, flags, ok := scanNumber(b, i)
		if !ok {
			return s.fail(CodeJSONSyntax, end, n, false)
		}
		s.tape[n].end, s.tape[n].flags = uint32(end), flags
		i = end
	case c == 't':
		if !hasLiteral(b, i, "true") {
			return s.fail(CodeJSONSyntax, i, s.top(), false)
		}
		n := s.push(kindTrue, i, 0)
		i += 4
		s.tape[n].end = uint32(i)
	case c == 'f':
		if !hasLiteral(b, i, "false") {
			return s.fail(CodeJSONSyntax, i, s.top(), false)
		}
		n := s.push(kindFalse, i, 0)
		i += 5
		s.tape[n].end = uint32(i)
	case c == 'n':
		if !hasLiteral(b, i, "null") {
			return s.fail(CodeJSONSyntax, i, s.top(), false)
		}
		n := s.push(kindNull, i, 0)
		i += 4
		s.tape[n].end = uint32(i)
	default:
		return s.fail(CodeJSONSyntax, i, s.top(), false)
	}

after:
	if len(s.stack) == 0 {
		if i = skipWS(b, i); i != len(b) {
			return s.fail(CodeJSONSyntax, i, noParent, false)
		}
		return true
	}
	i = skipWS(b, i)
	if i >= len(b) {
		return s.fail(CodeJSONSyntax, i, s.top(), false)
	}
	if top := s.top(); s.tape[top].kind == kindObject {
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
			goto key
		case '}':
			i++
			if !s.closeObject(b, top) {
				return false
			}
			goto after
		}
		return s.fail(CodeJSONSyntax, i, top, false)
	}
	switch b[i] {
	case ',':
		i = skipWS(b, i+1)
		goto value
	case ']':
		i++
		s.closeTop()
		goto after
	}
	return s.fail(CodeJSONSyntax, i, s.top(), false)

key:
	if i >= len(b) || b[i] != '"' {
		return s.fail(CodeJSONSyntax, i, s.top(), false)
	}
	{
		n := s.push(kindString, i+1, 0)
		end, ok := s.scanString(b, i+1, n, true)
		if !ok {
			return false
		}
		s.tape[n].end = uint32(end)
		i = skipWS(b, end+1)
		if i >= len(b) || b[i] != ':' {
			return s.fail(CodeJSONSyntax, i, s.top(), false)
		}
		i = skipWS(b, i+1)
	}
	goto value
}

func (s *scanner) top() uint32 {
	if len(s.stack) == 0 {
		return noParent
	}
	return s.stack[len(s.stack)-1]
}

func (s *scanner) closeTop() {
	top := s.stack[len(s.stack)-1]
	s.stack = s.stack[:len(s.stack)-1]
	s.tape[top].end = uint32(len(s.tape))
}

// closeObject ends an object and rejects duplicate member names, compared
// as decoded strings: "a" and "\u0061" are the same name.
func (s *scanner) closeObject(b []byte, obj uint32) bool {
	s.closeTop()
	// Members are counted per key and per value.
	members := s.tape[obj].count / 2
	s.tape[obj].count = members
	if members < 2 {
		return true
	}
	if members <= 16 {
		for k := obj + 1; k < s.tape[obj].end; k = s.next(k + 1) {
			for j := obj + 1; j < k; j = s.next(j + 1) {
				if s.sameString(b, j, k) {
					return s.fail(CodeJSONDuplicateKey, int(s.tape[k].start)-1, k+1, false)
				}
			}
		}
		return true
	}
	// Large objects: sort member names by hash, then compare neighbours.
	s.keys = s.keys[:0]
	for k := obj + 1; k < s.tape[obj].end; k = s.next(k + 1) {
		s.keys = append(s.keys, keyRef{hash: s.stringHash(b, k), node: k})
	}
	sortKeyRefs(s.keys)
	for x := 1; x < len(s.keys); x++ {
		for y := x - 1; y >= 0 && s.keys[y].hash == s.keys[x].hash; y-- {
			if s.sameString(b, s.keys[y].node, s.keys[x].node) {
				later := max(s.keys[x].node, s.keys[y].node)
				return s.fail(CodeJSONDuplicateKey, int(s.tape[later].start)-1, later+1, false)
			}
		}
	}
	return true
}

// sortKeyRefs is an insertion sort for short inputs and a heap sort beyond,
// so that a hostile object cannot make the sort quadratic and nothing allocates.
func sortKeyRefs(k []keyRef) {
	n := len(k)
	less := func(a, b keyRef) bool { return a.hash < b.hash || a.hash == b.hash && a.node < b.node }
	down := func(i, n int) {
		for {
			c := 2*i + 1
			if c >= n {
				return
			}
			if c+1 < n && less(k[c], k[c+1]) {
				c++
			}
			if !less(k[i], k[c]) {
				return
			}
			k[i], k[c] = k[c], k[i]
			i = c
		}
	}
	for i := n/2 - 1; i >= 0; i-- {
		down(i, n)
	}
	for end := n - 1; end > 0; end-- {
		k[0], k[end] = k[end], k[0]
		down(0, end)
	}
}

// next returns the tape index of the value after node i's subtree.
func (s *scanner) next(i uint32) uint32 {
	if k := s.tape[i].kind; k == kindObject || k == kindArray {
		return s.tape[i].end
	}
	return i + 1
}

func (s *scanner) raw(b []byte, i uint32) []byte {
	return b[s.tape[i].start:s.tape[i].end]
}

func (s *scanner) sameString(b []byte, x, y uint32) bool {
	nx, ny := &s.tape[x], &s.tape[y]
	if (nx.flags|ny.flags)&flagEscaped == 0 {
		return string(b[nx.start:nx.end]) == string(b[ny.start:ny.end])
	}
	s.scratch = appendUnescaped(s.scratch[:0], b[nx.start:nx.end])
	s.scratch2 = appendUnescaped(s.scratch2[:0], b[ny.start:ny.end])
	return string(s.scratch) == string(s.scratch2)
}

// stringHash is FNV-1a over the decoded string.
func (s *scanner) stringHash(b []byte, i uint32) uint64 {
	text := s.raw(b, i)
	if s.tape[i].flags&flagEscaped != 0 {
		s.scratch = appendUnescaped(s.scratch[:0], text)
		text = s.scratch
	}
	h := uint64(14695981039346656037)
	for _, c := range text {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

func hasLiteral(b []byte, i int, lit string) bool {
	return len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit
}

// scanString checks a string's content from i (just after the opening
// quote) and returns the offset of the closing quote.
func (s *scanner) scanString(b []byte, i int, n uint32, isKey bool) (int, bool) {
	var flags uint8
	for {
		for i+8 <= len(b) && !needsCare(binary.LittleEndian.Uint64(b[i:])) {
			i += 8
		}
		if i >= len(b) {
			return i, s.fail(CodeJSONSyntax, i, n, isKey)
		}
		switch strClass[b[i]] {
		case strPlain:
			i++
		case strQuote:
			s.tape[n].flags = flags
			return i, true
		case strControl:
			return i, s.fail(CodeJSONSyntax, i, n, isKey)
		case strHigh:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				return i, s.fail(CodeJSONUTF8, i, n, isKey)
			}
			flags |= flagNonASCII
			i += size
		case strBackslash:
			flags |= flagEscaped
			if i+1 >= len(b) {
				return i, s.fail(CodeJSONSyntax, i, n, isKey)
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				r, ok := hex4(b, i+2)
				if !ok {
					return i, s.fail(CodeJSONSyntax, i, n, isKey)
				}
				switch {
				case r >= 0xDC00 && r <= 0xDFFF:
					return i, s.fail(CodeJSONUTF8, i, n, isKey)
				case r >= 0xD800 && r <= 0xDBFF:
					lo, ok := rune(0), false
					if i+7 < len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
						lo, ok = hex4(b, i+8)
					}
					if !ok || lo < 0xDC00 || lo > 0xDFFF {
						return i, s.fail(CodeJSONUTF8, i, n, isKey)
					}
					i += 12
				default:
					i += 6
				}
			default:
				return i, s.fail(CodeJSONSyntax, i, n, isKey)
			}
		}
	}
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	a, c, d, e := hexVal[b[i]], hexVal[b[i+1]], hexVal[b[i+2]], hexVal[b[i+3]]
	if a|c|d|e < 0 {
		return 0, false
	}
	return rune(a)<<12 | rune(c)<<8 | rune(d)<<4 | rune(e), true
}

// scanNumber checks the RFC 8259 number grammar from b[i] and returns the
// offset just past it, or the offset of the first wrong byte.
func scanNumber(b []byte, i int) (int, uint8, bool) {
	var flags uint8
	if b[i] == '-' {
		flags |= flagNeg
		i++
	}
	switch {
	case i >= len(b):
		return i, 0, false
	case b[i] == '0':
		i++
	case b[i]-'1' <= 8:
		i++
		for i < len(b) && b[i]-'0' <= 9 {
			i++
		}
	default:
		return i, 0, false
	}
	if i < len(b) && b[i] == '.' {
		flags |= flagFrac
		i++
		if i >= len(b) || b[i]-'0' > 9 {
			return i, 0, false
		}
		for i < len(b) && b[i]-'0' <= 9 {
			i++
		}
	}
	if i < len(b) && b[i]|0x20 == 'e' {
		flags |= flagExp
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i]-'0' > 9 {
			return i, 0, false
		}
		for i < len(b) && b[i]-'0' <= 9 {
			i++
		}
	}
	// A number glued to a letter ("1x", "0x10", "01") is one bad token, not two.
	if i < len(b) && !wsTable[b[i]] && b[i] != ',' && b[i] != ']' && b[i] != '}' {
		return i, 0, false
	}
	return i, flags, true
}

// appendUnescaped decodes the raw text of a string the scanner accepted.
func appendUnescaped(dst, raw []byte) []byte {
	for {
		j := bytes.IndexByte(raw, '\\')
		if j < 0 {
			return append(dst, raw...)
		}
		dst = append(dst, raw[:j]...)
		raw = raw[j:]
		switch raw[1] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, _ := hex4(raw, 2)
			if r >= 0xD800 && r <= 0xDBFF {
				lo, _ := hex4(raw, 8)
				r = (r-0xD800)<<10 | (lo - 0xDC00) + 0x10000
				raw = raw[6:]
			}
			dst = utf8.AppendRune(dst, r)
			raw = raw[6:]
			continue
		default: // '"', '\\', '/'
			dst = append(dst, raw[1])
		}
		raw = raw[2:]
	}
}
