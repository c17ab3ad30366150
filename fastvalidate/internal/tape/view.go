package tape

import "hash/maphash"

// View is the cursor over a scanned document: its tape, and the Scanner
// that holds the document's bytes and the member names the scan decoded.
// It is four words held by value: the tape's pointer, length and capacity,
// which nearly every accessor reads, and the Scanner, which only the ones
// that read text go through. Four words is as large as the compiler keeps
// a struct in registers (cmd/compile/internal/ssa's CanSSA); a larger View
// would be copied whole, in memory, into every inlined accessor, whichever
// of its fields that accessor reads. So a loop that copies a View into a
// local keeps the tape in registers, where reading it through a pointer
// would make the compiler reload it after every store the loop makes
// elsewhere. Node reads a node's kind, flags, bounds and parent in one
// call, for loops that read every node (the content digest's). Its
// accessors are inlined (TestView_Inlined holds them to it).
//
// Node indexes are tape indexes; the root is node 0. Iterate an object's
// members with
//
//	for k := v.First(obj); k < v.End(obj); k = v.NextMember(k) { val := k + 1 ... }
//
// and an array's elements with
//
//	for e := v.First(arr); e < v.End(arr); e = v.Next(e) { ... }
type View struct {
	tape []node
	s    *Scanner
}

// aux is what a View reads through a pointer, off its hot paths: the
// decoded member names with escapes, and scratch for comparing strings
// with escapes.
type aux struct {
	// names holds the member names with escapes, decoded, and nameAt,
	// indexed by tape index, where each lies in it.
	names  []byte
	nameAt []span
	// namesEscaped says the last Scan decoded a member name with
	// escapes, which Picked then merges into the picks.
	namesEscaped bool
	// x and y are scratch for decoding the two sides of a comparison, and
	// keys for DuplicateString's sort.
	x, y []byte
	keys []keyRef
	// compares counts the string comparisons and index hashes since the
	// Scan, each a pass over a text, and the elements stepped over to find
	// an element's position (ElementIndex), so that tests can hold a
	// check's work to the size of the card.
	compares uint64
	// indexes are the lookups of the checks of long lists (StringIndex).
	indexes [numIndexes]StringIndex
	// elementAt is where ElementIndex last stopped, at each of the first
	// 64 depths, and scans numbers the Scans, so that what an earlier
	// card left there is told apart without clearing it on every card.
	elementAt [64]elementAt
	scans     uint64
}

// span is where a decoded member name lies in aux.names.
type span struct{ start, end uint32 }

// Len returns the number of nodes on the tape.
func (v View) Len() int { return len(v.tape) }

// Doc returns the document the tape describes.
func (v View) Doc() []byte { return v.s.doc }

// Kind returns node n's JSON type.
func (v View) Kind(n uint32) Kind { return v.tape[n].kind }

// Flags returns node n's flags: for strings FlagEscaped and FlagNonASCII,
// for numbers FlagNeg and the others, for objects FlagNameClash.
func (v View) Flags(n uint32) uint8 { return v.tape[n].flags }

// Escaped reports whether string node n's text holds escapes.
func (v View) Escaped(n uint32) bool { return v.tape[n].flags&FlagEscaped != 0 }

// EmptyString reports whether string node n is "". Escapes never decode
// to nothing, so the raw text is empty just when the decoded text is.
func (v View) EmptyString(n uint32) bool {
	t := &v.tape[n]
	return t.end == t.start
}

// Parent returns the container that holds node n, NoParent for the root.
func (v View) Parent(n uint32) uint32 { return v.tape[n].parent }

// First returns the first member name or element of container n; it is
// End(n) when n is empty.
func (v View) First(n uint32) uint32 { return n + 1 }

// End returns the node past container n's last descendant.
func (v View) End(n uint32) uint32 { return v.tape[n].end }

// Empty reports whether container n has no member or element.
func (v View) Empty(n uint32) bool { return v.tape[n].end == n+1 }

// Next returns the node after n's subtree: its next sibling, or its
// parent's end.
func (v View) Next(n uint32) uint32 {
	if k := v.tape[n].kind; k == KindObject || k == KindArray {
		return v.tape[n].end
	}
	return n + 1
}

// NextMember returns the member name after member name k's value: the
// step of a loop over an object's members.
func (v View) NextMember(k uint32) uint32 { return v.Next(k + 1) }

// Bounds returns where node n's text lies in the document: for a string,
// between its quotes; for a number or a literal, the token; for a
// container, start is its opening bracket and end means nothing.
func (v View) Bounds(n uint32) (start, end uint32) {
	t := &v.tape[n]
	return t.start, t.end
}

// Node returns all of node n: its kind, flags, bounds (see Bounds and
// End) and parent, in one call, for a loop that reads every node of a
// card (the content digest's) and would otherwise index the tape once per
// accessor.
func (v *View) Node(n uint32) (kind Kind, flags uint8, start, end, parent uint32) {
	t := &v.tape[n]
	return t.kind, t.flags, t.start, t.end, t.parent
}

// Offset returns the offset of node n's first byte: a string's opening
// quote, a container's bracket, a literal's first character.
func (v View) Offset(n uint32) int {
	t := &v.tape[n]
	if t.kind == KindString {
		return int(t.start) - 1
	}
	return int(t.start)
}

// Raw returns a string's or a number's text as written, escapes included.
func (v View) Raw(n uint32) []byte {
	t := &v.tape[n]
	return v.s.doc[t.start:t.end]
}

// Name returns member name k decoded: the document's own bytes, or the
// text Scan decoded for it, which stays until the next Scan.
func (v View) Name(k uint32) []byte {
	t := &v.tape[k]
	if t.flags&FlagEscaped != 0 {
		d := v.s.aux.nameAt[k]
		return v.s.aux.names[d.start:d.end]
	}
	return v.s.doc[t.start:t.end]
}

// AppendStr appends string node n decoded to dst.
func (v View) AppendStr(dst []byte, n uint32) []byte {
	t := &v.tape[n]
	if t.flags&FlagEscaped == 0 {
		return append(dst, v.s.doc[t.start:t.end]...)
	}
	return AppendUnescaped(dst, v.s.doc[t.start:t.end])
}

// Same reports whether string nodes x and y decode to the same text.
func (v View) Same(x, y uint32) bool {
	v.s.aux.compares++
	tx, ty := &v.tape[x], &v.tape[y]
	if (tx.flags|ty.flags)&FlagEscaped == 0 {
		return string(v.s.doc[tx.start:tx.end]) == string(v.s.doc[ty.start:ty.end])
	}
	return v.s.aux.same(v.s.doc[tx.start:tx.end], v.s.doc[ty.start:ty.end])
}

// SameAs reports whether string node n decodes to the text that raw, the
// text of a JSON string as written, decodes to.
func (v View) SameAs(n uint32, raw []byte) bool {
	v.s.aux.compares++
	return v.s.aux.same(v.Raw(n), raw)
}

// Compares returns how many string comparisons (Same, SameAs), index
// hashes (StringIndex) and element steps (ElementIndex) the checks have
// made since the Scan.
func (v View) Compares() uint64 { return v.s.aux.compares }

// DuplicateString returns the first string element of array arr equal to
// an earlier one, or 0. Tag lists are short; a long one is sorted by hash
// so a hostile list costs n log n.
func (v View) DuplicateString(arr uint32) uint32 {
	count := 0
	for e := v.First(arr); e < v.End(arr); e = v.Next(e) {
		count++
	}
	if count <= 16 {
		for e := v.First(arr); e < v.End(arr); e = v.Next(e) {
			if v.Kind(e) != KindString {
				continue
			}
			for p := v.First(arr); p < e; p = v.Next(p) {
				if v.Kind(p) == KindString && v.Same(p, e) {
					return e
				}
			}
		}
		return 0
	}
	a := &v.s.aux
	a.keys = a.keys[:0]
	for e := v.First(arr); e < v.End(arr); e = v.Next(e) {
		if v.Kind(e) == KindString {
			a.keys = append(a.keys, keyRef{hash: a.hash(v.Raw(e), v.Flags(e)), node: e})
		}
	}
	sortKeyRefs(a.keys)
	// Elements of one hash lie in list order, so an element equal to one
	// before it in its run repeats it; the first such element in the list
	// is the one to report, whatever the order of the hashes.
	first := uint32(0)
	for x := 1; x < len(a.keys); x++ {
		for y := x - 1; y >= 0 && a.keys[y].hash == a.keys[x].hash; y-- {
			if v.Same(a.keys[y].node, a.keys[x].node) {
				if first == 0 || a.keys[x].node < first {
					first = a.keys[x].node
				}
				break
			}
		}
	}
	return first
}

// hash hashes a string's decoded text for the searches by hash. Its seed
// is the process's (StringIndex's), so that no card can be made of names
// that all share a hash and so cost a search n² comparisons; the searches
// read only which nodes are equal, never the hashes' order.
func (a *aux) hash(raw []byte, flags uint8) uint64 {
	if flags&FlagEscaped != 0 {
		a.x = AppendUnescaped(a.x[:0], raw)
		raw = a.x
	}
	return maphash.Bytes(indexSeed, raw)
}

// same reports whether two strings' raw texts decode alike.
func (a *aux) same(x, y []byte) bool {
	a.x = AppendUnescaped(a.x[:0], x)
	a.y = AppendUnescaped(a.y[:0], y)
	return string(a.x) == string(a.y)
}

// decodeNames decodes the member names among the strings with escapes.
// The values are left to the readers, which decode only what they read:
// on real cards the strings with escapes are mostly prose that no check
// reads.
func (a *aux) decodeNames(v View, escaped []uint32) {
	if cap(a.nameAt) < len(v.tape) {
		a.nameAt = make([]span, len(v.tape))
	}
	a.nameAt = a.nameAt[:len(v.tape)]
	a.names = a.names[:0]
	for _, n := range escaped {
		if !v.memberName(n) {
			continue
		}
		a.namesEscaped = true
		t := &v.tape[n]
		start := len(a.names)
		a.names = AppendUnescaped(a.names, v.s.doc[t.start:t.end])
		a.nameAt[n] = span{uint32(start), uint32(len(a.names))}
	}
}

// memberName reports whether string node n is a member name: in an
// object, a value follows a colon and a name does not. The whitespace
// skipped lies between n and the node before it, so that over a document
// this reads each byte at most once.
func (v View) memberName(n uint32) bool {
	p := v.tape[n].parent
	if p == NoParent || v.tape[p].kind != KindObject {
		return false
	}
	i := int(v.tape[n].start) - 2 // the byte before the opening quote
	for i >= 0 && WSTable[v.s.doc[i]] {
		i--
	}
	return i < 0 || v.s.doc[i] != ':'
}
