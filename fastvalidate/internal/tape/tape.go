// Package tape is the strict JSON scanner of fastvalidate and the one way
// to read what it records. A Scanner reads a document once, checking RFC
// 8259 and the I-JSON rules (RFC 7493), onto a flat tape of nodes; a View
// of the tape is how the profile checks, the canonicaliser and the content
// digest read the document afterwards.
//
// The package is internal so that the tape's layout can change with the
// scanner: nothing outside fastvalidate's own packages sees a node.
package tape

// Err says why a scan stopped. Its zero value is no error.
type Err uint8

// The errors a scan can stop at, in the order of the rule codes that
// report them (see fastvalidate's scanCodes).
const (
	ErrNone         Err = iota
	ErrSyntax           // not exactly one RFC 8259 JSON value
	ErrUTF8             // invalid UTF-8 or an escaped lone surrogate
	ErrDuplicateKey     // an object names a member twice
	ErrDepth            // nesting deeper than MaxDepth
	ErrNumberRange      // a number overflows a float64
	ErrTooLarge         // a document of 4 GiB or more, which offsets cannot reach
)

// Scan reads b onto the tape and reports whether b is strict JSON. After a
// failed scan the tape holds what was read up to the error, with every
// container still open ended there, so that paths can be rendered and the
// checks that read such a tape (see fastvalidate's autoRejected) can: the
// string the scan stopped in is not on it.
//
// Member names with escapes, which are rare, are decoded here once, so that
// View.Name needs no call and stays within the inliner's budget.
func (s *Scanner) Scan(b []byte) bool {
	s.doc = b
	s.aux.compares = 0
	s.aux.scans++
	s.aux.namesEscaped = false
	ok := s.scan(b)
	if len(s.escaped) != 0 && len(s.tape) != 0 {
		s.aux.decodeNames(s.View(), s.escaped)
	}
	return ok
}

// View returns the cursor over the tape of the last Scan. It stays valid
// until the next Scan. It is made on each call rather than kept: a
// Scanner holding a pointer to its own aux would make every Scanner
// escape to the heap.
func (s *Scanner) View() View { return View{tape: s.tape, s: s} }

// Err returns why the last Scan stopped, or ErrNone.
func (s *Scanner) Err() Err { return s.err }

// ErrOffset returns the byte offset at which the last Scan stopped.
func (s *Scanner) ErrOffset() int { return s.errOff }

// ErrNode returns the tape index of the value the last Scan stopped in,
// NoParent for the document, and whether the fault lies in the member name
// of that object rather than in the value itself.
func (s *Scanner) ErrNode() (n uint32, inName bool) { return s.errNode, s.errKey }

// Whole reports whether the last Scan read node n's subtree to its end:
// always after a scan that succeeded; after one that failed, unless n is
// the node where it stopped or encloses it.
func (s *Scanner) Whole(n uint32) bool { return s.whole(n) }

// Classify computes the quote and care bits of b only, for the benchmark
// that times that pass apart from the scan.
func (s *Scanner) Classify(b []byte) { s.classify(b) }

// KeyFilter says which member names a Scanner picks (see PickKeys): the
// names AddName gave it, and every name whose last byte AddLast gave it.
// A name with escapes is always picked, its written bytes not being the
// name. The filter may pick more names than it was given, never fewer:
// it sees two bits of a hash of a name's first eight bytes and length
// (those of the Scanner's duplicate-name filter), and its last byte.
// The bits are kept by last byte, so that a name is held only to those of
// the names given that end as it does: with the bits of all nine content
// names in one set, one name in twelve of a card that ends otherwise
// passed it ("goal_id", "pricing", "framework"), 3.5 a card of the 100 MB
// dump, each a pick the reader then looks up and rejects.
type KeyFilter struct {
	// byLast holds, for each last byte, the bits of the names given
	// that end in it, or all bits for a byte AddLast gave.
	byLast [256]uint64
}

// AddName makes f pick the member name name.
func (f *KeyFilter) AddName(name string) {
	var word uint64
	for i := 0; i < len(name) && i < 8; i++ {
		word |= uint64(name[i]) << (8 * i)
	}
	// As the scan loop hashes it, whose length counts the opening quote,
	// and whose last byte, for an empty name, is that quote.
	h := (word ^ uint64(len(name)+1)) * nameFilterMul
	last := byte('"')
	if len(name) > 0 {
		last = name[len(name)-1]
	}
	f.byLast[last] |= uint64(1)<<(h>>58) | uint64(1)<<(h>>52&63)
}

// AddLast makes f pick every member name whose last byte, as written, is
// one of last's.
func (f *KeyFilter) AddLast(last string) {
	for _, c := range []byte(last) {
		// Every name ending in c: any bits are in the entry.
		f.byLast[c] = ^uint64(0)
	}
}

// PickKeys makes the Scanner's later scans list, as they read them, the
// member names f picks (see Picked), so that a reader wanting a few
// names wherever they stand need not read every node of the tape; nil
// stops it.
func (s *Scanner) PickKeys(f *KeyFilter) {
	s.pickMask = [256]uint64{}
	s.picking = false
	if f != nil && f.byLast != [256]uint64{} {
		s.pickMask = f.byLast
		s.picking = true
	}
	s.nPicked = 0
}

// Picked returns the member names the last Scan picked, and those with
// escapes, in tape order, each as its object's tape index << 32 | the
// name's tape index. The slice is the Scanner's own, the caller's to
// reorder until the next Scan. After a failed scan it lists the names
// read up to the error.
func (s *Scanner) Picked() []uint64 {
	picked := s.picks[:s.nPicked]
	if !s.aux.namesEscaped || !s.picking {
		return picked
	}
	// Names with escapes are rare: they join the list here, in order,
	// rather than cost the scan loop a term for every name. Values with
	// escapes ("\n" in a description, "\/" in a URL) are not, and a
	// card with those alone returns above, as Scan found no name among
	// them (aux.decodeNames).
	v := s.View()
	out := s.merged[:0]
	for _, n := range s.escaped {
		if int(n) >= len(s.tape) || !v.memberName(n) {
			continue
		}
		for len(picked) > 0 && uint32(picked[0]) < n {
			out = append(out, picked[0])
			picked = picked[1:]
		}
		if len(picked) > 0 && uint32(picked[0]) == n {
			picked = picked[1:]
		}
		out = append(out, uint64(s.tape[n].parent)<<32|uint64(n))
	}
	out = append(out, picked...)
	s.merged = out
	return out
}

// growPicks makes picks as long as the tape for a Scanner that picks:
// the scan loop stores a name there before knowing whether it picks it.
func (s *Scanner) growPicks() {
	if !s.picking {
		return
	}
	if cap(s.picks) < len(s.tape) {
		s.picks = append(s.picks[:cap(s.picks)], make([]uint64, len(s.tape)-cap(s.picks))...)
	}
	s.picks = s.picks[:len(s.tape)]
}
