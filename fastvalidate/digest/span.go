package digest

import (
	"bytes"
	"slices"

	"github.com/cardscan/cardscan/fastvalidate/internal/jcs"
	"github.com/cardscan/cardscan/fastvalidate/internal/tape"
)

// A member written compactly, without escapes and with its numbers in
// canonical form, is its own encoding but for the order of its nested
// objects' members: the encoding is its bytes with each object's members
// rearranged. spanMember finds such a member in one pass over its nodes,
// with no call per node, copies it once and moves the members of each
// object out of order into place, innermost objects first, so that a
// nested object's bytes are in order before its enclosing object's
// members are moved, whole, around it. Most members of the cards of a
// dump take this path; the others are encoded value by value
// (encodeMember), which FuzzContentHashSpan holds it to.

// spanFrame is a container open at a node of spanMember's pass.
type spanFrame struct {
	node, end uint32 // its node, and the node past its subtree
	object    bool
	name      bool   // an object whose next child is a member name
	sorted    bool   // an object whose names so far are in order
	last      uint32 // an object's last name so far, or 0
	lastPref  uint64 // its prefix (namePrefix)
}

// spanObject is an object whose members spanMember moves: its node, and
// the offset past its closing brace.
type spanObject struct{ node, end uint32 }

// spanMember returns the hash of member k's encoding when the member is
// written as spanMember's doc says, else ok is false.
func (h *Hasher) spanMember(k uint32) (sum Hash128, ok bool) {
	start, end, ok := h.spanWalk(k)
	if !ok {
		return Hash128{}, false
	}
	if len(h.moves) == 0 {
		return h.hash(h.b[start:end], seedMember), true
	}
	h.buf = append(h.buf[:0], h.b[start:end]...)
	for _, o := range h.moves {
		h.reorder(o, start)
	}
	return h.hash(h.buf, seedMember), true
}

// spanWalk checks member k for spanMember, and lists in h.moves, innermost
// first, the objects whose members are out of order. It returns where the
// member's text lies. The innermost open container is kept in locals
// (top), the ones around it in h.frames.
func (h *Hasher) spanWalk(k uint32) (start, end uint32, ok bool) {
	vw, b := &h.vw, h.b
	_, flags, ks, ke, _ := vw.Node(k)
	if flags&tape.FlagEscaped != 0 {
		return 0, 0, false
	}
	h.moves = h.moves[:0]
	stack := h.frames[:0]
	prevEnd := ke + 1 // past the last node's text: here the name's quote
	stop := h.vw.NextMember(k)
	top := spanFrame{end: stop} // none open: the member's value is next
	depth := 0
	for i := k + 1; ; i++ {
		// The containers that end before node i: their closing brackets
		// must follow one another, with no white space before them.
		for i == top.end && depth > 0 {
			if int(prevEnd) >= len(b) || b[prevEnd] != ']' && b[prevEnd] != '}' {
				return 0, 0, false
			}
			prevEnd++
			if top.object && !top.sorted {
				h.moves = append(h.moves, spanObject{top.node, prevEnd})
			}
			depth--
			top = stack[len(stack)-1]
			stack = stack[:len(stack)-1]
		}
		if i == stop {
			break
		}
		kind, flags, s, e, parent := vw.Node(i)
		// One separator byte before node i, none before a first child:
		// whatever else lies between nodes is white space.
		if parent != i-1 {
			prevEnd++
		}
		// An object's children alternate: a name, then a value.
		isName := top.object && top.name
		top.name = top.object && !top.name
		switch kind {
		case tape.KindString:
			if flags&tape.FlagEscaped != 0 {
				return 0, 0, false
			}
			if isName {
				p := namePrefix(b, s, e)
				if top.sorted && top.last != 0 {
					_, _, ls, le, _ := vw.Node(top.last)
					top.sorted = top.lastPref < p || top.lastPref == p && bytes.Compare(b[ls:le], b[s:e]) < 0
				}
				top.last, top.lastPref = i, p
			}
			s, e = s-1, e+1 // the quotes
		case tape.KindNumber:
			if !jcs.NumberAsIs(b[s:e], flags) {
				return 0, 0, false
			}
		case tape.KindTrue, tape.KindNull:
			e = s + 4
		case tape.KindFalse:
			e = s + 5
		default:
			// A container: e, its subtree's end, becomes its bracket's.
			if len(stack) == cap(stack) {
				h.frames = append(stack, spanFrame{})
				stack = h.frames[:len(stack)]
			}
			stack = append(stack, top)
			top = spanFrame{node: i, end: e, object: kind == tape.KindObject, name: true, sorted: true}
			depth++
			e = s + 1
		}
		if s != prevEnd {
			return 0, 0, false
		}
		prevEnd = e
	}
	return ks - 1, prevEnd, true
}

// spanEntry is a member of an object reorder moves: its name's first
// eight bytes (namePrefix), and where its text lies, from its name's
// opening quote to before the comma or brace after its value.
type spanEntry struct {
	prefix        uint64
	from, nameEnd uint32 // the name is b[from+1:nameEnd]
	to            uint32
}

// reorder moves the members of object o, whose text the span from offset
// base in h.buf holds, into the order of their names. The names have no
// escapes (spanWalk), so their bytes as written are their decoded bytes.
func (h *Hasher) reorder(o spanObject, base uint32) {
	vw, b := &h.vw, h.b
	_, _, open, objEnd, _ := vw.Node(o.node)
	ents := h.spanEnts[:0]
	for k := o.node + 1; k < objEnd; {
		_, _, s, e, _ := vw.Node(k)
		kind, _, _, vend, _ := vw.Node(k + 1)
		next := k + 2
		if kind == tape.KindObject || kind == tape.KindArray {
			next = vend
		}
		to := o.end - 1 // the closing brace, after the last member
		if next < objEnd {
			ns, _ := vw.Bounds(next)
			to = ns - 2 // the comma before the next name's quote
		}
		ents = append(ents, spanEntry{prefix: namePrefix(b, s, e), from: s - 1, nameEnd: e, to: to})
		k = next
	}
	h.spanEnts = ents
	less := func(x, y spanEntry) bool {
		if x.prefix != y.prefix {
			return x.prefix < y.prefix
		}
		return bytes.Compare(b[x.from+1:x.nameEnd], b[y.from+1:y.nameEnd]) < 0
	}
	if len(ents) > 12 {
		slices.SortFunc(ents, func(x, y spanEntry) int {
			if less(x, y) {
				return -1
			}
			return 1 // names are never equal: the scan refuses duplicates
		})
	} else {
		for i := 1; i < len(ents); i++ {
			e, j := ents[i], i
			for ; j > 0 && less(e, ents[j-1]); j-- {
				ents[j] = ents[j-1]
			}
			ents[j] = e
		}
	}
	first := open + 1 // the first member's opening quote
	region := h.buf[first-base : o.end-1-base]
	h.perm = append(h.perm[:0], region...)
	w := region[:0]
	for i, e := range ents {
		if i > 0 {
			w = append(w, ',')
		}
		w = append(w, h.perm[e.from-first:e.to-first]...)
	}
}
