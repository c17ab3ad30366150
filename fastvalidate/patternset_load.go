package fastvalidate

import "sync"

// The content patterns as static data (patternset_static.go, which
// go test ./fastvalidate/ -run TestStaticPatternSet -update-patterns
// writes): parsing content/patterns.txt costs the first card with text in
// a run about 430 allocations and 0.1 ms, a tenth of what judging a
// one-card file costs after start-up; the static set costs nothing.

func init() {
	parse := loadPatterns
	// Once: the texts compared are some 13 KB, at two addresses, which
	// each card paid for while the comparison was made on every call.
	loadPatterns = sync.OnceValue(func() *patternSet { return patternsFor(patternsText, parse) })
}

// patternsFor returns the static set when text is the one it was made
// from, and parse's set otherwise: a pattern file changed without
// rewriting patternset_static.go is read as it is, only more slowly, and
// TestStaticPatternSet fails until the file is rewritten.
//
// The static set is returned as a copy on the heap, made once: the
// linker aligns a variable to 32 bytes at most, where the heap puts an
// object of the set's size (some 47 KB, past the allocator's size
// classes) at the start of its own pages, and so the vector tables at
// the set's start (patternSet.vec) on whole cache lines. Read where the
// linker put it, every 64-byte load of them was split over two lines,
// and the AVX-512 pass took some twice as long a call on a short text.
func patternsFor(text string, parse func() *patternSet) *patternSet {
	if text == staticPatternsText {
		p := new(patternSet)
		*p = staticPatterns
		return p
	}
	return parse()
}
