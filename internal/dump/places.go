package dump

import "math/rand/v2"

// places finds where the old dump's valid digests are by the low half of
// the hash of their records' bytes, for diff's recall: a table probed
// linearly, a slot holding the half and the place, so that a look-up
// reads one cache line where Go's map read its group's control word and
// then a slot. It is written by one goroutine and then only read, by
// any number.
type places struct {
	slots []place // a power of two of them; at 0 is empty
	n     int
	// mult scatters the halves over the slots: odd and chosen at random
	// per table, so that no input can be made to crowd one run of slots.
	mult uint64
	bits int // log2(len(slots))
}

// place is a slot of places. No digest is at 0: an at is past the
// digest's length (keyed.rec).
type place struct{ half, at uint64 }

// minPlaces is the fewest slots a table has.
const minPlaces = 1 << 12

// put notes that the digest at at is of a record whose hash has the low
// half half, replacing the one noted before with that half.
func (p *places) put(half, at uint64) {
	if 4*(p.n+1) > 3*len(p.slots) {
		p.grow()
	}
	mask := len(p.slots) - 1
	for i := p.slot(half); ; i = (i + 1) & mask {
		s := &p.slots[i]
		if s.at == 0 {
			*s = place{half, at}
			p.n++
			return
		}
		if s.half == half {
			s.at = at
			return
		}
	}
}

// get returns where the digest noted last under half is.
func (p *places) get(half uint64) (at uint64, ok bool) {
	if p.n == 0 {
		return 0, false
	}
	mask := len(p.slots) - 1
	for i := p.slot(half); ; i = (i + 1) & mask {
		s := &p.slots[i]
		if s.at == 0 {
			return 0, false
		}
		if s.half == half {
			return s.at, true
		}
	}
}

func (p *places) slot(half uint64) int { return int(half * p.mult >> (64 - p.bits)) }

// grow doubles the slots, or makes the first minPlaces.
func (p *places) grow() {
	old := p.slots
	if p.mult == 0 {
		p.mult = rand.Uint64() | 1
	}
	n := max(2*len(old), minPlaces)
	p.slots, p.n, p.bits = make([]place, n), 0, 0
	for 1<<p.bits < n {
		p.bits++
	}
	for _, s := range old {
		if s.at != 0 {
			p.put(s.half, s.at)
		}
	}
}

// reset forgets every place, and the memory they took.
func (p *places) reset() { *p = places{} }
