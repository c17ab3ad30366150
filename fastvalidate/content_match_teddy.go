package fastvalidate

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"strings"
)

// The anchors of the gate. The gate (content_match_gate.go) hashes every
// word of an object's texts; most objects hold no word of the rarest
// token of any pattern (its anchor, anchorToken), and no pattern matches
// there. Where the vector unit allows (haveTeddy), the pass over a text
// first marks, for each 64-byte block, the bytes where the first four
// bytes of an anchor's word may start (teddyTables, after the "Teddy"
// algorithm of Hyperscan and Rust's aho-corasick: nibble tables looked up
// with a byte shuffle), hashes only the words that start there, and
// hashes every word of the object, as without the anchors, only when one
// of them is an anchor's word. With AVX2 and BMI2 a whole text is read in
// one call (gateTextAVX2); with AVX-512 too, the tables looked up by
// whole bytes, in sixteen buckets (gateVecTables, gateTextVec).

// anchorToken returns the index in its tokens of the token a pattern is
// anchored on: the one whose words the fewest strings of the real cards
// hold (docs/performance.md has the command and the counts), among tokens
// of words of three letters or more, since a shorter word lets through
// the tables every word that starts as it does ("if": "in", "index"). Any
// token would do for the findings, which only need one the pattern cannot
// match without; the choice only sets how often an object's words are all
// hashed. A pattern not named here is anchored on its first token.
func anchorToken(id string) int {
	switch id {
	case "ignore-previous", "override-previous", "pretend", "roleplay-as", "always-call", "no-longer":
		return 0 // ignore|disregard|..., override|bypass, pretend, roleplay|role, always|must, you
	case "new-system-prompt", "from-now-on", "developer-mode", "developer-mode-policies", "set-aside", "real-task", "respond-only":
		return 1 // system, now, mode, mode, aside, real|actual, only
	case "you-are-now", "dan", "send-secrets", "must-now":
		return 2 // now, now, key|keys|token|..., now
	case "do-not-follow", "do-not-tell", "enter-mode":
		return 3 // follow|obey|heed, tell, mode
	case "route-payments", "act-as-if", "no-longer-apply", "act-as-admin", "discard-previous":
		return 4 // payment|payments|funds|..., you, longer, system, instructions
	case "forget-previous-romance":
		return 2 // instructions|instrucciones|instrucoes|...
	case "forget-all-romance", "forget-all-rules-romance":
		return 3 // instructions|instrucciones|..., reglas|regles|regras
	case "reveal-prompt":
		return 5 // prompt|prompts|instructions
	}
	return 0
}

// teddyTables are the nibble tables of the anchors' words: for the k-th
// byte of a word (k < 4), at [2k] by its low nibble and at [2k+1] by its
// high nibble, a bit per bucket of words whose k-th byte may have that
// nibble; each 16-byte table twice, once for each 128-bit lane of an
// AVX2 register. A byte is lower-cased (ORed with 0x20) before the look-up.
// Bytes i to i+3 of a text may start an anchor's word if, for some bucket,
// all eight look-ups hold its bit; a word shorter than four bytes lets any
// byte through after its end.
type teddyTables [8][32]byte

// buildTeddy fills p.teddy from the anchors' words: their first four
// bytes, each put in the bucket whose tables it widens least (by
// teddyVolume, the strings of text the bucket then lets through), then
// each moved to the bucket it widens least given all the others, until
// none moves, as fillBuckets does for the tables by whole bytes, so that
// different words alias less; a bucket lets through every mix of the
// nibbles of its words at each place.
func (p *patternSet) buildTeddy() {
	var prefixes []string
	for i := range p.words {
		wp := &p.words[i]
		for _, word := range wp.tokens[anchorOf(wp)].words {
			prefixes = append(prefixes, word[:min(len(word), 4)])
		}
	}
	slices.Sort(prefixes)
	prefixes = slices.Compact(prefixes)
	of := assignBuckets(len(prefixes), 8, func(tables *[8]uint16, i int) { addTeddyPrefix(tables, prefixes[i]) }, teddyVolume)
	var tables [8][8]uint16 // each bucket's
	for i, b := range of {
		addTeddyPrefix(&tables[b], prefixes[i])
	}
	for b := range 8 {
		for table, nibbles := range tables[b] {
			for n := range 16 {
				if nibbles>>n&1 != 0 {
					p.teddy[table][n] |= 1 << b
					p.teddy[table][16+n] |= 1 << b
				}
			}
		}
	}
}

// teddyVolume returns how many strings of four bytes of text a bucket's
// nibbles (tables, as addTeddyPrefix sets them) let through, each place
// counted as byteSet.count counts a set of bytes, over the bytes as the
// tables see them (ORed with 0x20): each letter or digit one, and the
// bytes that end a word, all together, six. Counting every byte alike,
// as an earlier version did, let the nibbles of "and" and "for" through,
// with 16% of the dump's words. An empty bucket lets none through.
func teddyVolume(tables *[8]uint16) int {
	if *tables == [8]uint16{} {
		return 0
	}
	v := 1
	for k := range 4 {
		var set byteSet
		for c := range byte(128) {
			if c|0x20 == c && tables[2*k]>>(c&15)&1 != 0 && tables[2*k+1]>>(c>>4)&1 != 0 {
				set.add(c)
			}
		}
		v *= set.count()
	}
	return v
}

// addTeddyPrefix sets in tables, a bucket's nibbles at each of the four
// places (low at 2k, high at 2k+1), those of prefix lower-cased, and every
// nibble at the places past its end.
func addTeddyPrefix(tables *[8]uint16, prefix string) {
	for k := range 4 {
		if k >= len(prefix) {
			tables[2*k], tables[2*k+1] = 0xFFFF, 0xFFFF
			continue
		}
		c := prefix[k] | 0x20
		tables[2*k] |= 1 << (c & 15)
		tables[2*k+1] |= 1 << (c >> 4)
	}
}

// teddyPortable returns the bits of the first n bytes of src (n <= 64,
// len(src) >= n+3) where an anchor's word may start, by t, one byte at a
// time: what the vector code computes, to hold it to.
func teddyPortable(t *teddyTables, src []byte, n int) uint64 {
	var cand uint64
	for i := range n {
		match := byte(0xFF)
		for k := range 4 {
			c := src[i+k] | 0x20
			match &= t[2*k][c&15] & t[2*k+1][c>>4]
		}
		if match != 0 {
			cand |= 1 << i
		}
	}
	return cand
}

// anchorOf returns the index of the token pattern wp is anchored on
// (anchorToken), its first if anchorToken names none of its word tokens.
func anchorOf(wp *wordPattern) int {
	if t := anchorToken(wp.id); t < len(wp.tokens) && wp.tokens[t].gap == 0 {
		return t
	}
	return 0
}

// gateVecTables are the tables of the pass that reads a whole text with
// AVX-512 (gateTextVec), each looked up by a byte's low seven bits, all
// 128 at once (VPERMI2B): class, bit 0 for a letter or digit and bit 1
// for a byte that is some literal's anchor; and for the k-th byte of an
// anchor's word (k < 4), a bit per bucket of words whose k-th byte is
// that byte in either case. A lookup by the whole byte rather than by
// its two nibbles lets no mix of two words' nibbles through: where the
// nibble tables (teddyTables) mark 6.9% of the dump's words, these mark
// 4.1% (BenchmarkMatchRaw's anchor-cand/word, with and without
// GODEBUG=cpu.avx512f=off,cpu.avx512bw=off). A word shorter than four
// bytes needs a byte that is no letter nor digit after its end, since
// the word must end there; past that, any byte. The tables are 1,152
// bytes, made with the rest of the set (buildGateVec).
type gateVecTables struct {
	class [128]byte
	// places[h][k] are the tables of buckets 8h to 8h+7: sixteen
	// buckets, so that each holds three words or so and lets few mixes
	// of them through.
	places [2][4][128]byte
}

// gateVecBuckets is how many buckets gateVecTables has.
const gateVecBuckets = 16

// mayStart reports whether an anchor's word may start at src[0], by t:
// whether for some bucket the look-ups of src[0] to src[3] all hold its
// bit.
func (t *gateVecTables) mayStart(src []byte) bool {
	for h := range t.places {
		match := byte(0xFF)
		for k := range 4 {
			match &= t.places[h][k][src[k]&0x7F]
		}
		if match != 0 {
			return true
		}
	}
	return false
}

// Bits of gateVecTables.class.
const (
	vecWordByte   = 1 << 0
	vecAnchorByte = 1 << 1
)

// byteSet is a set of bytes below 128.
type byteSet [2]uint64

func (s *byteSet) add(c byte)      { s[c>>6&1] |= 1 << (c & 63) }
func (s *byteSet) has(c byte) bool { return s[c>>6&1]>>(c&63)&1 != 0 }

// count returns how many kinds of byte s holds, weighed by how often a
// word's next byte is one in text: each letter or digit (in either case)
// one, and the bytes that end a word, all together, six, since words of
// English run five letters or so and then end (buildGateVec's buckets,
// weighed so, keep "for" from passing for "forget" followed by the end of
// "now": that one word was 2.6% of the dump's words).
func (s *byteSet) count() int {
	n, ends := 0, false
	for c := range byte(128) {
		switch {
		case !s.has(c):
		case !isWordASCII(c):
			ends = true
		case c < 'A' || c > 'Z':
			n++
		}
	}
	if ends {
		n += 6
	}
	return n
}
func (s *byteSet) union(o *byteSet) { s[0], s[1] = s[0]|o[0], s[1]|o[1] }

// isWordASCII tells the ASCII letters and digits.
func isWordASCII(c byte) bool { return c < 0x80 && foldWordByte[lowerASCII[c]] }

// anchorPlaceSet returns the bytes that may stand at place k of a text
// where word, the first four bytes at most of an anchor's word, starts:
// its k-th byte in either case; past its end, a byte that ends a word.
func anchorPlaceSet(word string, k int) (s byteSet) {
	switch {
	case k < len(word):
		c := word[k] | 0x20
		s.add(c)
		if c >= 'a' && c <= 'z' {
			s.add(c - 0x20)
		}
	case k == len(word):
		for c := range byte(128) {
			if !isWordASCII(c) {
				s.add(c)
			}
		}
	default:
		s = byteSet{^uint64(0), ^uint64(0)}
	}
	return s
}

// buildGateVec fills p.vec: the class of each byte, and the anchors'
// words, by their first four bytes, each in the bucket whose sets it
// widens least (by the number of 4-byte strings the bucket then lets
// through, weighed by byteSet.count), as buildTeddy does with nibbles,
// then each moved to the bucket it widens least given all the others.
func (p *patternSet) buildGateVec() {
	for c := range byte(128) {
		if isWordASCII(c) {
			p.vec.class[c] |= vecWordByte
		}
		if p.anchors[c] {
			p.vec.class[c] |= vecAnchorByte
		}
	}
	var words []string
	for i := range p.words {
		wp := &p.words[i]
		for _, word := range wp.tokens[anchorOf(wp)].words {
			words = append(words, strings.ToLower(word[:min(len(word), 4)]))
		}
	}
	slices.Sort(words)
	words = slices.Compact(words)
	sets := make([][4]byteSet, len(words))
	for i, word := range words { // each at most four bytes: places past four let any byte by
		for k := range sets[i] {
			sets[i][k] = anchorPlaceSet(word, k)
		}
	}
	for b, bucket := range fillBuckets(sets) {
		for k := range bucket {
			for c := range byte(128) {
				if bucket[k].has(c) {
					p.vec.places[b/8][k][c] |= 1 << (b % 8)
				}
			}
		}
	}
}

// fillBuckets puts each word, by the sets of bytes at its four places,
// in the bucket whose sets it widens least, and returns the buckets'
// sets.
func fillBuckets(sets [][4]byteSet) (buckets [gateVecBuckets][4]byteSet) {
	volume := func(u *[4]byteSet) int {
		v := 1
		for k := range u {
			v *= u[k].count()
		}
		return v
	}
	of := assignBuckets(len(sets), gateVecBuckets, func(u *[4]byteSet, i int) {
		for k := range u {
			u[k].union(&sets[i][k])
		}
	}, volume)
	for i, b := range of {
		for k := range buckets[b] {
			buckets[b][k].union(&sets[i][k])
		}
	}
	return buckets
}

// assignBuckets puts each of n items in one of k buckets, whose state S
// add grows by an item and volume measures (the strings of text the
// bucket lets through): each item in turn in the bucket it widens least,
// then, since that first placing depends on the items' order, each moved
// to the bucket it widens least given all the others, until none moves
// (eight rounds at most). It returns each item's bucket. The nibble
// tables (buildTeddy) and the whole-byte tables (fillBuckets) are filled
// by it alike.
func assignBuckets[S any](n, k int, add func(s *S, i int), volume func(s *S) int) []int {
	of := make([]int, n) // the bucket of each item, -1 for none yet
	for i := range of {
		of[i] = -1
	}
	bucket := func(b, without int) (s S) {
		for i := range n {
			if of[i] == b && i != without {
				add(&s, i)
			}
		}
		return s
	}
	place := func(i int) bool {
		best, bestGrowth := 0, -1
		for b := range k {
			rest := bucket(b, i)
			grown := rest
			add(&grown, i)
			if growth := volume(&grown) - volume(&rest); bestGrowth < 0 || growth < bestGrowth {
				best, bestGrowth = b, growth
			}
		}
		moved := of[i] != best
		of[i] = best
		return moved
	}
	for i := range n {
		place(i)
	}
	for range 8 {
		moved := false
		for i := range n {
			moved = place(i) || moved
		}
		if !moved {
			break
		}
	}
	return of
}

// gateTextPortable is what gateTextVec computes, a byte at a time, to hold
// it to: for text[:n] (len(text) >= n+blockRead) from byte base on, in
// blocks of 64 bytes, the gate's bits of the words that may be an
// anchor's, until the end of the text or a block that holds a literal's
// anchor byte; that block's span (from, next) and its anchor bytes, a
// bit per byte from from. next is -1 where a word to hash runs from its
// block through all of the next.
func gateTextPortable(p *patternSet, text []byte, base, n int) (seen uint64, from, next int, anchors uint64) {
	return gateTextBy(p, p.vec.mayStart, true, text, base, n)
}

// gateTextTeddyPortable is what gateTextAVX2 computes, to hold it to:
// gateTextPortable with the anchors' words found by the nibble tables
// (teddyTables), which let more words through than gateVecTables; or,
// with all, with every word hashed and no anchor byte looked for, which
// returns only at the text's end or at a long word.
func gateTextTeddyPortable(p *patternSet, text []byte, base, n int, all bool) (seen uint64, from, next int, anchors uint64) {
	mayStart := func(src []byte) bool { return teddyPortable(&p.teddy, src, 1) != 0 }
	if all {
		mayStart = func([]byte) bool { return true }
	}
	return gateTextBy(p, mayStart, !all, text, base, n)
}

// gateTextBy is gateTextPortable with mayStart telling where an anchor's
// word may start, and the literals' anchor bytes looked for only with
// stopAtAnchors.
func gateTextBy(p *patternSet, mayStart func(src []byte) bool, stopAtAnchors bool, text []byte, base, n int) (seen uint64, from, next int, anchors uint64) {
	t := &p.vec
	isWord := func(c byte) bool { return c < 0x80 && t.class[c]&vecWordByte != 0 }
	for base < n {
		size := min(n-base, 64)
		var cands uint64
		anchors = 0
		for i := range size {
			c := text[base+i]
			if stopAtAnchors && c < 0x80 && t.class[c]&vecAnchorByte != 0 {
				anchors |= 1 << i
			}
			starts := isWord(c) && (base+i == 0 || !isWord(text[base+i-1]))
			if starts && mayStart(text[base+i:]) {
				cands |= 1 << i
			}
		}
		for s := cands; s != 0; s &= s - 1 {
			i := base + bits.TrailingZeros64(s)
			end := i
			for end < n && isWord(text[end]) {
				end++
			}
			if end >= base+128 {
				return seen, base, -1, 0
			}
			seen |= p.gate[gateSlot(gateKey(binary.LittleEndian.Uint64(text[i:]), end-i))]
		}
		if anchors != 0 {
			return seen, base, base + size, anchors
		}
		base += size
	}
	return seen, base, base, 0
}

// teddyAnchorTable is the table by which gateTextAVX2 tells the
// literals' anchor bytes, all below 0x80 (mustParsePatterns checks), 32
// at a time with two byte shuffles: at each low nibble, a bit per high
// nibble (0 to 7) of the anchor bytes with that low nibble, the byte's
// bit looked up by its high nibble in a constant table (anchorHighBits in
// content_match_amd64.s) with none for 8 to 15. The table is there twice,
// once for each 128-bit lane.
func (p *patternSet) teddyAnchorTable() (t [32]byte) {
	for c := range 128 {
		if p.anchors[c] {
			t[c&15] |= 1 << (c >> 4)
			t[16+c&15] |= 1 << (c >> 4)
		}
	}
	return t
}
