package tape

import (
	"hash/maphash"
	"sort"
)

// StringIndex finds, among the string nodes added to it, the first that
// decodes to a given text, in log n. It is for the checks that compare
// each entry of a list with every other (ids unique, names defined): done
// pair by pair, a hostile card of n entries costs n² comparisons.
//
// Its hash is seeded per process, so that no card can be made of names
// that all collide; only which node matches is ever read, never the
// order of the hashes, so the seed changes no result.
type StringIndex struct {
	refs []keyRef // sorted by hash, then node
}

var indexSeed = maphash.MakeSeed()

// StringIndexes are the two indexes a check may hold at once (a skill's
// requirements look schemes up while the skills' ids are indexed); they
// belong to the Scanner, so that their memory is reused card after card.
const (
	IndexA = iota
	IndexB
	numIndexes
)

// Index returns index i (IndexA or IndexB) of the view's Scanner.
func (v View) Index(i int) *StringIndex { return &v.s.aux.indexes[i] }

// Reset empties the index.
func (x *StringIndex) Reset() { x.refs = x.refs[:0] }

// Add adds string node n (a value or a member name) to the index; add
// nodes in ascending order, then call Sort.
func (x *StringIndex) Add(v View, n uint32) {
	x.refs = append(x.refs, keyRef{hash: v.seededHash(n), node: n})
}

// Sort makes the index ready for First.
func (x *StringIndex) Sort() { sortKeyRefs(x.refs) }

// Len returns the number of nodes added.
func (x *StringIndex) Len() int { return len(x.refs) }

// First returns the smallest node of the index that decodes to the text
// string node n decodes to, or 0 if none does.
func (x *StringIndex) First(v View, n uint32) uint32 {
	h := v.seededHash(n)
	refs := x.refs
	i := sort.Search(len(refs), func(i int) bool { return refs[i].hash >= h })
	for ; i < len(refs) && refs[i].hash == h; i++ {
		if refs[i].node == n || v.Same(refs[i].node, n) {
			return refs[i].node
		}
	}
	return 0
}

// seededHash hashes string node n's decoded text with the index's seed.
func (v View) seededHash(n uint32) uint64 {
	v.s.aux.compares++ // a pass over the text, as a comparison is
	raw := v.Raw(n)
	if v.Flags(n)&FlagEscaped != 0 {
		a := &v.s.aux
		a.x = AppendUnescaped(a.x[:0], raw)
		raw = a.x
	}
	return maphash.Bytes(indexSeed, raw)
}

// ElementIndex returns the position of element x in array arr, which lies
// depth levels below the root, for a finding's JSON Pointer. Checks report
// an array's findings in the order of its elements, so it resumes from the
// element it last counted to at that depth: n findings in an array of n
// cost n steps, where counting from the first element each time cost n².
func (v View) ElementIndex(arr, x uint32, depth int) int {
	var at *elementAt
	if depth >= 0 && depth < len(v.s.aux.elementAt) {
		at = &v.s.aux.elementAt[depth]
	}
	e, idx := arr+1, 0
	gen := v.s.aux.scans
	if at != nil && at.scan == gen && at.arr == arr && at.node <= x {
		e, idx = at.node, at.index
	}
	steps := idx
	for ; e < x; e = v.Next(e) {
		idx++
	}
	v.s.aux.compares += uint64(idx - steps) // a step over each element counted
	if at != nil {
		*at = elementAt{scan: gen, arr: arr, node: x, index: idx}
	}
	return idx
}

// elementAt is where ElementIndex last stopped at one depth: element node,
// the index-th of array arr, in the scan-th Scan; after another Scan node
// numbers name another card's nodes, so it holds only in that one.
type elementAt struct {
	scan      uint64
	arr, node uint32
	index     int
}
