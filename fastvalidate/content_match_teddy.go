package fastvalidate

import (
	"math/bits"
	"slices"
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
// of them is an anchor's word.

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
	case "ignore-previous", "pretend", "roleplay-as", "always-call":
		return 0 // ignore|disregard|..., pretend, roleplay|role, always|must
	case "new-system-prompt", "from-now-on", "developer-mode":
		return 1 // system, now, mode
	case "you-are-now", "dan", "send-secrets":
		return 2 // now, now, key|keys|token|...
	case "do-not-follow":
		return 3 // follow|obey|heed
	case "route-payments", "act-as-if":
		return 4 // payment|payments|funds|..., you
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
// bytes, each put in the bucket whose tables it widens least (by the
// number of 4-byte strings the bucket then lets through), so that
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
	var buckets [8][8]uint16 // per bucket, per table, the nibbles set
	volume := func(b *[8]uint16) int {
		v := 1
		for _, nibbles := range b {
			v *= bits.OnesCount16(nibbles)
		}
		return v
	}
	for _, prefix := range prefixes {
		best, bestGrowth := 0, -1
		for b := range buckets {
			grown := buckets[b]
			addTeddyPrefix(&grown, prefix)
			growth := volume(&grown) - volume(&buckets[b])
			if buckets[b] == [8]uint16{} {
				growth = volume(&grown) // an empty bucket's volume is none, not 1
			}
			if bestGrowth < 0 || growth < bestGrowth {
				best, bestGrowth = b, growth
			}
		}
		addTeddyPrefix(&buckets[best], prefix)
	}
	for b, tables := range buckets {
		for table, nibbles := range tables {
			for n := range 16 {
				if nibbles>>n&1 != 0 {
					p.teddy[table][n] |= 1 << b
					p.teddy[table][16+n] |= 1 << b
				}
			}
		}
	}
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

// litTables are the nibble tables of the literals' anchor bytes
// (patternSet.anchors), all ASCII: at [0] by a byte's low nibble, a bit
// for each high nibble (below 8) with which it makes an anchor; at [1] by
// the high nibble, its bit, none for 8 and up. A byte is an anchor if the
// two look-ups share a bit. Each 16-byte table twice, as teddyTables.
type litTables [2][32]byte

// buildLits fills p.lits from p.anchors.
func (p *patternSet) buildLits() {
	for c, anchor := range p.anchors {
		if !anchor {
			continue
		}
		if c >= 0x80 {
			panic("fastvalidate: a literal's anchor byte is beyond ASCII")
		}
		p.lits[0][c&15] |= 1 << (c >> 4)
		p.lits[0][16+c&15] |= 1 << (c >> 4)
	}
	for h := range 8 {
		p.lits[1][h], p.lits[1][16+h] = 1<<h, 1<<h
	}
}

// cardBlock holds, for a 64-byte block of a card, a bit per byte, byte
// k's at bit k: the letters and digits (word), the literals' anchor bytes
// (lit), and the places where a word of an anchor may start by the
// teddyTables (cand), judged on the four bytes from there, which may run
// into the next block.
type cardBlock struct {
	word, lit, cand uint64
	// visit is what gateCardText visits: the literals' anchor bytes and
	// the words' starts that are candidates. A word that goes on from
	// the block before starts at bit 0 if that block's bits were not
	// made with this one's.
	visit uint64
}

// cardBlocksPortable fills out[:blocks] for the blocks of b from its
// start (len(b) >= 64*blocks+3), a byte at a time: what the vector code
// computes, to hold it to.
func cardBlocksPortable(b []byte, blocks int, p *patternSet, out []cardBlock) {
	for x := range blocks {
		src := b[64*x:]
		var blk cardBlock
		for k := range 64 {
			c := src[k]
			if l := c | 0x20; l >= 'a' && l <= 'z' || c >= '0' && c <= '9' {
				blk.word |= 1 << k
			}
			if p.anchors[c] {
				blk.lit |= 1 << k
			}
		}
		blk.cand = teddyPortable(&p.teddy, src, 64)
		out[x] = blk
	}
}

// The card's blocks. On CPUs with AVX2 the pass over a text reads its
// bits from those the vector unit made for the 64-byte blocks of the card
// that hold it (cardBlocks, kept in walker.cardBlocks), rather than making
// them for each text: that cost a call, the tables' loads and a half or
// whole block for each of some thirteen texts a card, most of them short,
// where the card's texts lie in some sixteen blocks of its twenty-eight,
// in four or five runs (the first 20,000 cards of the 100 MB dump). From
// those bits most texts are passed over at once (mayGate).

// resetCardMasks starts the card's blocks afresh for the card w.b: none
// made yet.
func (w *walker) resetCardMasks() {
	nb := len(w.b)/64 + 2 // cardMasksAt reads the block after a text's last
	if cap(w.cardBlocks) < nb {
		w.cardBlocks = make([]cardBlock, nb, nb+nb/4)
	}
	w.cardBlocks = w.cardBlocks[:nb]
	words := (nb + 63) / 64
	if cap(w.cardMasked) < words {
		w.cardMasked = make([]uint64, words, words+words/4)
	}
	w.cardMasked = w.cardMasked[:words]
	clear(w.cardMasked)
}

// maskText makes the bits of the card's blocks that hold the bytes from
// start to end, those not made yet, a run of blocks a call.
func (w *walker) maskText(p *patternSet, start, end uint32) {
	if end <= start {
		return
	}
	last := int(end-1) >> 6
	for x := int(start >> 6); x <= last; x++ {
		if w.cardMasked[x>>6]>>(x&63)&1 != 0 {
			continue
		}
		y := x + 1
		for y <= last && w.cardMasked[y>>6]>>(y&63)&1 == 0 {
			y++
		}
		w.maskBlocks(p, x, y)
		for ; x < y; x++ {
			w.cardMasked[x>>6] |= 1 << (x & 63)
		}
	}
}

// maskBlocks makes the bits of the card's blocks from to to (not
// included). The blocks whose three bytes past the end lie in the card
// are read in place; the rest, the card's last 66 bytes at most, from a
// copy ending in zeros, as matchRaw reads a text that ends near the
// card's end.
func (w *walker) maskBlocks(p *patternSet, from, to int) {
	b := w.b
	inPlace := 0
	if len(b) >= blockMaskTeddyRead {
		inPlace = (len(b) - 3) / 64
	}
	if n := min(to, inPlace) - from; n > 0 {
		cardBlocks(b[64*from:], n, p, w.cardBlocks[from:])
	}
	if to > inPlace {
		var tail [2*64 + 3]byte
		copy(tail[:], b[64*inPlace:])
		var blocks [2]cardBlock
		cardBlocks(tail[:], 2, p, blocks[:])
		for x := max(from, inPlace); x < to; x++ {
			w.cardBlocks[x] = blocks[x-inPlace]
		}
	}
	var carry uint64
	for x := from; x < to; x++ {
		blk := &w.cardBlocks[x]
		blk.visit = blk.word&^(blk.word<<1|carry)&blk.cand | blk.lit
		carry = blk.word >> 63
	}
}

// maskObject makes the bits of the card's blocks that the object's
// texts, those that are the card's own bytes, lie in: the blocks from
// the first text's to the last's, which texts of one object mostly fill.
func (w *walker) maskObject(p *patternSet) {
	lo, hi := ^uint32(0), uint32(0)
	for i := range w.segs {
		if s := &w.segs[i]; !s.folded && s.end > s.start {
			lo, hi = min(lo, s.start), max(hi, s.end)
		}
	}
	w.maskText(p, lo, hi)
}

// textVisits returns, of the bits of the card's bytes from start to end,
// whose blocks are made, those that gateCardText visits (cardBlock.visit),
// or, for a text of 64 bytes or more, not zero if it has any: the bits of
// its blocks, the last one's past the text too, which only lets it
// through.
func (w *walker) textVisits(start, end uint32) uint64 {
	x, sh := start>>6, start&63
	if n := end - start; n < 64 {
		// A shift by 64 leaves 0: the block after adds nothing to a text
		// that starts a block, nor to one that ends in its first.
		v := w.cardBlocks[x].visit>>sh | w.cardBlocks[x+1].visit<<(64-sh)
		return v & (1<<n - 1)
	}
	v := w.cardBlocks[x].visit >> sh
	for x++; v == 0 && x<<6 < end; x++ {
		v = w.cardBlocks[x].visit
	}
	return v
}

// gateCardText is matchRaw's pass looking for the anchors (its teddy)
// over segment si, the card's own bytes, whose blocks maskText has made:
// it adds the literals' matches to lits and returns the gate's bits of
// the words that start where an anchor's word may. It visits only those
// words and the literals' anchor bytes, by the blocks' bits, so that a
// text with none, most of them, costs a few operations a block.
func (w *walker) gateCardText(p *patternSet, si int, lits *litHits) uint64 {
	start, end := int(w.segs[si].start), int(w.segs[si].end)
	var seen uint64
	for x := start >> 6; x<<6 < end; x++ {
		blk := &w.cardBlocks[x]
		visit := blk.visit
		if lo := start - x<<6; lo > 0 {
			visit &= ^uint64(0) << lo
		}
		if hi := end - x<<6; hi < 64 {
			visit &= 1<<hi - 1
		}
		for ; visit != 0; visit &= visit - 1 {
			k := bits.TrailingZeros64(visit)
			pos := x<<6 + k
			if blk.lit>>k&1 != 0 {
				// An anchor byte is no word's.
				w.matchLiteralsAt(p, si, pos-start, w.b[pos], lits)
				continue
			}
			if k == 0 && pos > start && w.cardBlocks[x-1].word>>63 != 0 {
				continue
			}
			seen |= p.gateWord(w.b, pos, w.cardWordLen(x, k, end))
		}
	}
	return seen
}

// cardWordLen returns the length of the word that starts at bit k of the
// card's block x, by the blocks' word bits, reading no block past the
// one that holds byte end-1, the text's last: the blocks after it may be
// another card's.
func (w *walker) cardWordLen(x, k, end int) int {
	n := bits.TrailingZeros64(^(w.cardBlocks[x].word >> k))
	if n < 64-k {
		return n
	}
	for x++; x<<6 < end; x++ {
		run := bits.TrailingZeros64(^w.cardBlocks[x].word)
		n += run
		if run < 64 {
			break
		}
	}
	return n
}

// cardMasksAt returns the card's bits (cardBlock) of the 64 bytes from
// offset pos of the card: those of the bytes of blocks maskText has made,
// and others of no meaning.
func (w *walker) cardMasksAt(pos int) (word, lit, cand uint64) {
	x, sh := pos>>6, uint(pos&63)
	a, b := &w.cardBlocks[x], &w.cardBlocks[x+1]
	// A shift by 64 leaves 0: no branch for a text that starts a block.
	return a.word>>sh | b.word<<(64-sh), a.lit>>sh | b.lit<<(64-sh), a.cand>>sh | b.cand<<(64-sh)
}
