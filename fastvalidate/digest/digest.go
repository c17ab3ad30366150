// Package digest hashes cards by their content: a hash of a JSON object that is equal for two objects
// just when their RFC 8785 canonical forms are equal (up to the odds of a
// collision), taken from the strict scanner's tape rather than from the
// canonical form, so that a caller that has validated a card hashes it
// without reading its bytes again.
//
// A card's hash is made of one hash per member, of an encoding of the
// member, summed per 64-bit lane mod 2^64, so that the members' order does
// not matter, as the canonical form's sorting makes it not matter; Members
// hands out the members' hashes. The encoding of a member is "name":value
// in RFC 8785's canonical form, but that the members of nested objects
// are in the order of their names' bytes (encodeObject): strings and
// numbers as the canonical form writes them, no white space. So two
// members encode alike just when their canonical forms are equal, and
// most are copied from the card as they are (encodeMember). One call of
// the hash function per member of the card is all the hashing.
//
// The sum is sound because the scan rejects duplicate names: two cards
// that differ have different sets of members, so one member hash at least
// is in one sum and not the other, and with member hashes as good as
// random the two sums agree in a lane with odds of 2^-64, in both with
// 2^-128. The sum is hashed once more to make the card's hash.
package digest

import (
	"bytes"
	"encoding/binary"
	"slices"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/fastvalidate/internal/jcs"
	"github.com/cardscan/cardscan/fastvalidate/internal/tape"
	"github.com/cardscan/cardscan/fastvalidate/internal/tapehook"
)

// Hash128 is a 128-bit hash.
type Hash128 struct{ Hi, Lo uint64 }

// Bytes returns h big-endian, as xxhsum writes an XXH128.
func (h Hash128) Bytes() [16]byte {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], h.Hi)
	binary.BigEndian.PutUint64(b[8:], h.Lo)
	return b
}

// HashFunc hashes b under seed; different seeds must give unrelated hash
// functions, as XXH3's do. It is the caller's, so that the package needs
// no hashing library.
type HashFunc func(b []byte, seed uint64) Hash128

// The seeds of the hashes: a member's, and an object's.
const (
	seedMember uint64 = 0x9e3779b97f4a7c15 + iota
	seedObject
)

// Hasher hashes JSON objects by their RFC 8785 canonical form (see
// the package's doc). It keeps its buffers between cards and
// allocates nothing once they have grown to the largest card seen; it
// cannot be used from concurrent goroutines.
type Hasher struct {
	hash HashFunc

	sc     tape.Scanner // for a document no Validator's tape describes
	vw     tape.View    // of the card Bind read
	loaded bool         // Bind read a JSON object
	b      []byte
	sum    Hash128
	sums   []Hash128 // of the card's members, by their names' tape index

	buf   []byte  // the encoding of the member being hashed
	ents  []entry // the members of the objects being encoded
	str   []byte  // a string's decoded text
	val   []byte  // Value.Str's decoded string
	text  []byte  // Value.Text's canonical string
	names []byte  // Members' decoded names
	mem   []sortedName
}

// New returns a Hasher that hashes with hash.
func New(hash HashFunc) *Hasher {
	h := &Hasher{hash: hash}
	h.sc.MaxDepth = fastvalidate.DefaultMaxDepth
	return h
}

// Load hashes card, a JSON object, and reports whether it is one. When v
// is not nil and its last Validate read exactly card as the object it is
// (not a string holding one), it hashes from v's tape, and when v found
// card no JSON it does not look again; otherwise it scans card itself,
// with the nesting limit fastvalidate.DefaultMaxDepth, which canon.Append
// has too.
// A Validator allowing deeper nesting is not used, so that whether a card
// has a hash never depends on the Validator.
func (h *Hasher) Load(v *fastvalidate.Validator, card []byte) bool {
	if !h.Bind(v, card) {
		return false
	}
	h.Hash()
	return true
}

// Bind reads card as Load does, without hashing it: Root and Each read its
// values, and Hash hashes it when the caller finds it needs the hash after
// all. Sum and Members need Hash (or Load) to have run.
func (h *Hasher) Bind(v *fastvalidate.Validator, card []byte) bool {
	h.vw, h.loaded, h.b = tape.View{}, false, nil
	if len(card) == 0 {
		return false
	}
	switch vw, whole, failed := tapehook.Read(v, card); {
	case whole:
		h.vw = vw
	case failed:
		return false
	default:
		if !h.sc.Scan(card) {
			return false
		}
		h.vw = h.sc.View()
	}
	if h.vw.Len() == 0 || h.vw.Kind(0) != tape.KindObject {
		h.vw = tape.View{}
		return false
	}
	h.loaded, h.b = true, card
	if n := h.vw.Len(); cap(h.sums) < n {
		h.sums = make([]Hash128, n, n+n/4)
	}
	h.sums = h.sums[:h.vw.Len()]
	h.sum = Hash128{}
	return true
}

// Hash hashes the card Bind read; after a Bind that read none, it does
// nothing, as Sum then says.
func (h *Hasher) Hash() {
	if h.loaded {
		h.sum = h.object(0)
	}
}

// Root returns the card Bind (or Load) read, as a Value.
func (h *Hasher) Root() Value {
	if !h.loaded {
		return Value{}
	}
	return Value{h: h}
}

// Sum returns the hash of the card Load hashed.
func (h *Hasher) Sum() Hash128 {
	if !h.loaded {
		return Hash128{}
	}
	return h.sum
}

// object hashes the members of object n into h.sums, and returns the
// hash of their sum.
func (h *Hasher) object(n uint32) Hash128 {
	var sum Hash128
	_, _, _, end, _ := h.vw.Node(n)
	for k := n + 1; k < end; k = h.nextMember(k) {
		var m Hash128
		if start, end := h.plainMember(k); end != 0 {
			// Its encoding as it lies in the card: hashed there.
			m = h.hash(h.b[start:end], seedMember)
		} else {
			m = h.member(k)
		}
		h.sums[k] = m
		sum.Hi += m.Hi
		sum.Lo += m.Lo
	}
	h.buf = appendHash(h.buf[:0], sum)
	return h.hash(h.buf, seedObject)
}

// member returns the hash of member k's encoding.
func (h *Hasher) member(k uint32) Hash128 {
	buf, _ := h.encodeMember(h.buf[:0], k)
	h.buf = buf
	return h.hash(buf, seedMember)
}

func appendHash(dst []byte, s Hash128) []byte {
	dst = binary.LittleEndian.AppendUint64(dst, s.Hi)
	return binary.LittleEndian.AppendUint64(dst, s.Lo)
}

// encodeMember appends member k's encoding, "name":value, to buf and
// returns the node after it. Written compactly, a member whose name and
// value need no rewriting is copied in one go.
func (h *Hasher) encodeMember(buf []byte, k uint32) ([]byte, uint32) {
	_, kflags, ks, ke, _ := h.vw.Node(k)
	if kflags&tape.FlagEscaped != 0 || h.b[ke+1] != ':' {
		buf = append(h.encodeString(buf, k), ':')
		return h.encode(buf, k+1)
	}
	v := k + 1
	kind, vflags, vs, ve, _ := h.vw.Node(v)
	switch kind {
	case tape.KindString:
		if vflags&tape.FlagEscaped == 0 && vs == ke+3 {
			return append(buf, h.b[ks-1:ve+1]...), k + 2
		}
	case tape.KindNumber:
		if vs == ke+2 && jcs.NumberAsIs(h.b[vs:ve], vflags) {
			return append(buf, h.b[ks-1:ve]...), k + 2
		}
	case tape.KindObject:
		return h.encodeObject(append(buf, h.b[ks-1:ke+2]...), v), ve // a container's end is the node past it
	}
	return h.encode(append(buf, h.b[ks-1:ke+2]...), v)
}

// plainMember returns where member k's text lies when it is a name and a
// string, neither with escapes, written compactly: its encoding, which
// the members of nested objects mostly are, copied without the call of
// encodeMember. Else end is 0.
func (h *Hasher) plainMember(k uint32) (start, end uint32) {
	_, kflags, ks, ke, _ := h.vw.Node(k)
	kind, vflags, vs, ve, _ := h.vw.Node(k + 1)
	if kind == tape.KindString && (kflags|vflags)&tape.FlagEscaped == 0 && vs == ke+3 {
		return ks - 1, ve + 1
	}
	return 0, 0
}

// encodeString appends string n in canonical form.
func (h *Hasher) encodeString(buf []byte, n uint32) []byte {
	if _, flags, start, end, _ := h.vw.Node(n); flags&tape.FlagEscaped == 0 {
		// As written: see jcs.AppendEscaped.
		return append(buf, h.b[start-1:end+1]...)
	}
	h.str = h.vw.AppendStr(h.str[:0], n)
	return append(jcs.AppendEscaped(append(buf, '"'), h.str), '"')
}

// encode appends node n's encoding to buf and returns the node after its
// subtree.
func (h *Hasher) encode(buf []byte, n uint32) ([]byte, uint32) {
	kind, flags, start, end, _ := h.vw.Node(n)
	switch kind {
	case tape.KindString:
		return h.encodeString(buf, n), n + 1
	case tape.KindNumber:
		return jcs.AppendNumber(buf, h.b[start:end], flags), n + 1
	case tape.KindTrue:
		return append(buf, "true"...), n + 1
	case tape.KindFalse:
		return append(buf, "false"...), n + 1
	case tape.KindNull:
		return append(buf, "null"...), n + 1
	case tape.KindArray:
		buf = append(buf, '[')
		for e := n + 1; e < end; { // a container's end is the node past it
			if e > n+1 {
				buf = append(buf, ',')
			}
			// Strings, the most common elements, without a call.
			if ekind, eflags, s, t, _ := h.vw.Node(e); ekind == tape.KindString && eflags&tape.FlagEscaped == 0 {
				buf = append(buf, h.b[s-1:t+1]...)
				e++
				continue
			}
			buf, e = h.encode(buf, e)
		}
		return append(buf, ']'), end
	}
	return h.encodeObject(buf, n), end
}

// entry is an object member being encoded: its name's tape index, and
// what orders most names without reading them again.
type entry struct {
	prefix uint64 // the name's first eight bytes, big-endian, zeros after its end
	key    uint32
	plain  bool // no escapes: the prefix is of its decoded bytes
}

// encodeObject appends object n's encoding to buf: its members sorted by
// their decoded names' bytes. Any one order of names serves to make the
// encoding independent of the members' order; the canonical form's own,
// by UTF-16 code units, would cost more to compare.
func (h *Hasher) encodeObject(buf []byte, n uint32) []byte {
	_, _, _, end, _ := h.vw.Node(n)
	// Objects of one or two members, common in cards, need no list.
	if k1 := n + 1; k1 == end {
		return append(buf, '{', '}')
	} else if k2 := h.nextMember(k1); k2 == end {
		buf, _ = h.encodeMember(append(buf, '{'), k1)
		return append(buf, '}')
	} else if h.nextMember(k2) == end {
		x, y := h.entry(k1), h.entry(k2)
		if x.plain && y.plain && x.prefix != y.prefix {
			if x.prefix > y.prefix {
				k1, k2 = k2, k1
			}
		} else if h.compareEntries(x, y) > 0 {
			k1, k2 = k2, k1
		}
		buf, _ = h.encodeMember(append(buf, '{'), k1)
		buf, _ = h.encodeMember(append(buf, ','), k2)
		return append(buf, '}')
	}
	ents := h.ents
	base := len(ents)
	sorted := true
	for k := n + 1; k < end; k = h.nextMember(k) {
		e := h.entry(k)
		if last := len(ents) - 1; sorted && last >= base {
			// Most pairs are told apart by their prefixes, without a call.
			if p := ents[last]; p.plain && e.plain && p.prefix != e.prefix {
				sorted = p.prefix < e.prefix
			} else {
				sorted = h.compareEntries(p, e) < 0
			}
		}
		ents = append(ents, e)
	}
	if !sorted {
		h.sortEntries(ents[base:])
	}
	// A nested object's entries go past these in h.ents and are gone
	// before the next turn.
	h.ents = ents
	buf = append(buf, '{')
	for i := base; i < len(ents); i++ {
		if i > base {
			buf = append(buf, ',')
		}
		buf, _ = h.encodeMember(buf, h.ents[i].key)
	}
	h.ents = h.ents[:base]
	return append(buf, '}')
}

// entry returns member name k as encodeObject sorts it.
func (h *Hasher) entry(k uint32) entry {
	_, flags, start, end, _ := h.vw.Node(k)
	return entry{prefix: namePrefix(h.b, start, end), key: k, plain: flags&tape.FlagEscaped == 0}
}

// nextMember returns the member name after member k's value, as
// tape.View.NextMember does, reading the tape through a pointer: each of
// View's by-value accessors copies the whole View first (tape.View.Node).
func (h *Hasher) nextMember(k uint32) uint32 {
	kind, _, _, end, _ := h.vw.Node(k + 1)
	if kind == tape.KindObject || kind == tape.KindArray {
		return end
	}
	return k + 2
}

// namePrefix returns the first eight bytes of b[start:end], big-endian,
// with zeros past end.
func namePrefix(b []byte, start, end uint32) uint64 {
	n := end - start
	if int(start)+8 <= len(b) {
		p := binary.BigEndian.Uint64(b[start:])
		if n < 8 {
			p &^= ^uint64(0) >> (8 * n & 63) // the mask tells the compiler the shift is short
		}
		return p
	}
	var p uint64
	for i := range uint32(8) {
		p <<= 8
		if i < n {
			p |= uint64(b[start+i])
		}
	}
	return p
}

// sortEntries sorts an object's members by name: by insertion, for the
// few members most objects have, else by slices.SortFunc, for the many
// some card may have.
func (h *Hasher) sortEntries(ents []entry) {
	if len(ents) > 12 {
		slices.SortFunc(ents, h.compareEntries)
		return
	}
	for i := 1; i < len(ents); i++ {
		e, j := ents[i], i
		for ; j > 0; j-- {
			p := ents[j-1]
			if e.plain && p.plain && e.prefix != p.prefix {
				if e.prefix > p.prefix {
					break
				}
			} else if h.compareEntries(e, p) > 0 {
				break
			}
			ents[j] = p
		}
		ents[j] = e
	}
}

// compareEntries orders two members by their decoded names' bytes. Names
// without escapes that differ in their first eight bytes are ordered by
// those; others are read.
func (h *Hasher) compareEntries(x, y entry) int {
	if x.plain && y.plain && x.prefix != y.prefix {
		if x.prefix < y.prefix {
			return -1
		}
		return 1
	}
	return bytes.Compare(h.vw.Name(x.key), h.vw.Name(y.key))
}

// Members calls f for each member of an object of the card Load hashed,
// in the canonical form's order: the card's own members when of is "",
// else those of the card's member named of, if it is an object.
// f gets the member's decoded name, valid until f returns; its value; and
// the member's hash, which changes just when the value's canonical form
// does. f must not call Members.
func (h *Hasher) Members(of string, f func(name []byte, value Value, sum Hash128)) {
	if !h.loaded {
		return
	}
	obj := uint32(0)
	if of != "" {
		obj = tape.NoParent
		h.names = h.names[:0]
		for k := uint32(1); k < h.vw.End(0); k = h.vw.NextMember(k) {
			if string(h.vw.Name(k)) == of {
				obj = k + 1
				break
			}
		}
		if obj == tape.NoParent || h.vw.Kind(obj) != tape.KindObject {
			return
		}
	}
	h.mem, h.names = h.mem[:0], h.names[:0]
	_, _, _, end, _ := h.vw.Node(obj)
	for k := obj + 1; k < end; k = h.nextMember(k) {
		_, flags, ks, ke, _ := h.vw.Node(k)
		m := sortedName{key: k, start: ks, end: ke, ascii: flags&(tape.FlagEscaped|tape.FlagNonASCII) == 0}
		if flags&tape.FlagEscaped != 0 {
			// Copied decoded into h.names; names without escapes are
			// read from the card, not copied.
			start := len(h.names)
			h.names = append(h.names, h.vw.Name(k)...)
			m.start, m.end, m.decoded = uint32(start), uint32(len(h.names)), true
		} else {
			m.prefix = namePrefix(h.b, ks, ke)
		}
		h.mem = append(h.mem, m)
	}
	if len(h.mem) > 12 {
		slices.SortFunc(h.mem, h.compareNames)
	} else {
		for i := 1; i < len(h.mem); i++ {
			m, j := h.mem[i], i
			for ; j > 0; j-- {
				p := h.mem[j-1]
				// ASCII orders as its UTF-16 code units do.
				if m.ascii && p.ascii && m.prefix != p.prefix {
					if m.prefix > p.prefix {
						break
					}
				} else if h.compareNames(m, p) > 0 {
					break
				}
				h.mem[j] = p
			}
			h.mem[j] = m
		}
	}
	for _, m := range h.mem {
		sum := h.sums[m.key]
		if obj != 0 {
			sum = h.member(m.key)
		}
		f(h.sortedName(m), Value{h, m.key + 1}, sum)
	}
}

// Each calls f for each member of the card Bind (or Load) read, in the order they
// are written: for a caller to whom the order does not matter, without
// the sorting that Members does. f gets the member's decoded name, valid
// until f returns, and its value.
func (h *Hasher) Each(f func(name []byte, value Value)) {
	if !h.loaded {
		return
	}
	_, _, _, end, _ := h.vw.Node(0)
	for k := uint32(1); k < end; k = h.nextMember(k) {
		f(h.vw.Name(k), Value{h, k + 1})
	}
}

// sortedName is a member as Members sorts it: its name's tape index, where
// its decoded name lies, in the card or, when it has escapes, in h.names,
// and, for an ASCII name, its first eight bytes, which order most names
// without reading them again.
type sortedName struct {
	prefix          uint64
	key, start, end uint32
	ascii, decoded  bool
}

func (h *Hasher) sortedName(m sortedName) []byte {
	if m.decoded {
		return h.names[m.start:m.end]
	}
	return h.b[m.start:m.end]
}

// compareNames orders two members by their decoded names' UTF-16 code
// units, as the canonical form does.
func (h *Hasher) compareNames(x, y sortedName) int {
	if x.ascii && y.ascii && x.prefix != y.prefix {
		if x.prefix < y.prefix {
			return -1
		}
		return 1
	}
	return jcs.CompareUTF16(h.sortedName(x), h.sortedName(y))
}

// canonicalValue returns node n as Members passes it.
func (h *Hasher) canonicalValue(n uint32) []byte {
	switch h.vw.Kind(n) {
	case tape.KindString:
		if !h.vw.Escaped(n) {
			// As written: see jcs.AppendEscaped.
			start, end := h.vw.Bounds(n)
			return h.b[start-1 : end+1]
		}
		h.text = h.encodeString(h.text[:0], n)
		return h.text
	case tape.KindNumber:
		h.text = jcs.AppendNumber(h.text[:0], h.vw.Raw(n), h.vw.Flags(n))
		return h.text
	}
	return h.b[h.vw.Offset(n):h.rawEnd(n)]
}

// rawEnd returns the offset just past node n's text. The tape keeps where
// a container starts, not where it ends: it ends past its last
// descendant's text, and the white space and closing brackets of the
// containers between that descendant and it.
func (h *Hasher) rawEnd(n uint32) int {
	vw := h.vw
	start, end := vw.Bounds(n)
	switch vw.Kind(n) {
	case tape.KindString:
		return int(end) + 1
	case tape.KindNumber:
		return int(end)
	case tape.KindTrue, tape.KindNull:
		return int(start) + 4
	case tape.KindFalse:
		return int(start) + 5
	}
	i := int(start) + 1
	if last := vw.End(n) - 1; last > n {
		// The last node of the subtree is a scalar or an empty container.
		i = h.rawEnd(last)
		for x := vw.Parent(last); x != n; x = vw.Parent(x) {
			i = tape.SkipWS(h.b, i) + 1
		}
	}
	return tape.SkipWS(h.b, i) + 1
}

// Value is a value of the card a Hasher loaded, read from its tape:
// valid until the next Load. The zero Value stands for one that is absent.
type Value struct {
	h *Hasher
	n uint32
}

// Exists reports whether v is a value rather than an absent one.
func (v Value) Exists() bool { return v.h != nil }

// IsObject, IsArray and IsString tell v's JSON type.
func (v Value) IsObject() bool { return v.h != nil && v.h.vw.Kind(v.n) == tape.KindObject }

func (v Value) IsArray() bool { return v.h != nil && v.h.vw.Kind(v.n) == tape.KindArray }

func (v Value) IsString() bool { return v.h != nil && v.h.vw.Kind(v.n) == tape.KindString }

// Member returns the value of object v's member name, or an absent one.
func (v Value) Member(name string) Value {
	if !v.IsObject() {
		return Value{}
	}
	h := v.h
	_, _, _, end, _ := h.vw.Node(v.n)
	for k := v.n + 1; k < end; k = h.nextMember(k) {
		if _, flags, s, e, _ := h.vw.Node(k); flags&tape.FlagEscaped == 0 {
			if string(h.b[s:e]) == name {
				return Value{h, k + 1}
			}
		} else if h.vw.SameAs(k, []byte(name)) {
			return Value{h, k + 1}
		}
	}
	return Value{}
}

// First returns array v's first element, or an absent value; Next then
// returns the element after v.
func (v Value) First() Value {
	if !v.IsArray() || v.h.vw.End(v.n) == v.n+1 {
		return Value{}
	}
	return Value{v.h, v.n + 1}
}

// Next returns the element after v in its array, or an absent value.
func (v Value) Next() Value {
	if v.h == nil {
		return Value{}
	}
	h := v.h
	p := h.vw.Parent(v.n)
	if p == tape.NoParent || h.vw.Kind(p) != tape.KindArray {
		return Value{}
	}
	if n := h.vw.Next(v.n); n < h.vw.End(p) {
		return Value{h, n}
	}
	return Value{}
}

// Str returns string v decoded, or nil for another kind. The slice is the
// card's own bytes, or scratch that the next Str overwrites.
func (v Value) Str() []byte {
	if !v.IsString() {
		return nil
	}
	h := v.h
	if _, flags, s, e, _ := h.vw.Node(v.n); flags&tape.FlagEscaped == 0 {
		return h.b[s:e]
	}
	h.val = h.vw.AppendStr(h.val[:0], v.n)
	return h.val
}

// Text returns v in canonical form for a string, number or literal, and
// as written for an object or array. The slice is the card's own bytes,
// or scratch that the next Text overwrites.
func (v Value) Text() []byte {
	if v.h == nil {
		return nil
	}
	return v.h.canonicalValue(v.n)
}
