package fastvalidate

import (
	"math/bits"
)

// The card gate. Most objects of a card hold no literal's anchor byte and
// no word of an anchor, and the patterns can match nothing in them: the
// pass over each text (gateSegments) finds that out text by text, a call
// and its setup each (twenty table registers loaded on AVX-512, twelve
// cleared), some twelve times a card. On CPUs with AVX-512 (haveGateVec),
// one call a card (gateCardVec) reads the card's bytes first, all of
// them, strings or not, and marks every literal's anchor byte and the
// start of every word that gateTextVec's tables say may be an anchor's
// and whose gate bits hold an anchor's; the walk then looks only at the
// marks that fall inside the texts it adds (walker.addSeg), so that a
// key, a number or a link marks nothing it reads, and matchPatterns runs
// only for an object with a mark, a text not read in place (escaped or
// beyond ASCII), or a text carried from the object before whose bits
// hold an anchor's (matchObject). For any other object the per-text pass
// would find no anchor byte and no anchor's bits: no literal, turn or
// split word is looked at but at an anchor byte, no word pattern matches
// without its anchor's word, and the object's last text is carried to
// the next one as the per-text pass leaves it, unread until an anchor's
// word is met (readOnFromTail). A word that runs on past its block is
// marked unhashed, as a word that may be an anchor's.
//
// On CPUs with AVX2 and BMI2 but not AVX-512, gateCardAVX2 does the same
// with gateTextAVX2's nibble tables.

// cardGateOff turns the card gate off, for the tests that hold the gated
// walk to the ungated one.
var cardGateOff = false

// gateCard fills walker.cardFlags for the card w.b, a uint64 of flags
// for each block of 64 bytes (gateCardAVX2): the blocks followed by
// blockRead bytes of the card read in place, the last one or two from a
// copy of the card's end padded with zeros, which are no word and no
// anchor byte.
func (w *walker) gateCard(p *patternSet) {
	b := w.b
	n := len(b)
	blocks := (n + 63) / 64
	if cap(w.cardFlags) < blocks {
		w.cardFlags = make([]uint64, blocks, blocks+blocks/4)
	}
	w.cardFlags = w.cardFlags[:blocks]
	inPlace := 0
	if n >= blockRead {
		inPlace = (n-blockRead)/64 + 1
	}
	var carry uint64
	if inPlace > 0 {
		carry = gateCardBlocks(&b[0], inPlace, p, &w.cardFlags[0], 0)
	}
	if rest := blocks - inPlace; rest > 0 {
		// Fewer than blockRead bytes are left, two blocks at most.
		var tail [2*64 + blockRead]byte
		copy(tail[:], b[64*inPlace:])
		gateCardBlocks(&tail[0], rest, p, &w.cardFlags[inPlace], carry)
	}
}

// gateCardBlocks is gateCardVec on CPUs with AVX-512, else gateCardAVX2.
func gateCardBlocks(b *byte, blocks int, p *patternSet, flags *uint64, carry uint64) uint64 {
	if haveGateVec {
		return gateCardVec(b, blocks, p, flags, carry)
	}
	return gateCardAVX2(b, blocks, p, flags, carry)
}

// flaggedIn reports whether the card gate marked a byte of the card from
// start to end: a text's bytes, most of them within one block.
func (w *walker) flaggedIn(start, end uint32) bool {
	i, j := start>>6, end>>6
	if i == j {
		return w.cardFlags[i]>>(start&63)&(1<<(end-start)-1) != 0
	}
	return w.flaggedAcross(start, end)
}

// flaggedAcross is flaggedIn for a text that crosses a block's end.
func (w *walker) flaggedAcross(start, end uint32) bool {
	f := w.cardFlags
	i, j := start>>6, end>>6
	if f[i]>>(start&63) != 0 {
		return true
	}
	for k := i + 1; k < j; k++ {
		if f[k] != 0 {
			return true
		}
	}
	return f[j]&(1<<(end&63)-1) != 0
}

// gateCardPortable is what gateCardVec computes, a byte at a time, to
// hold it to: for the first blocks blocks of 64 bytes of b (len(b) >=
// 64*blocks+7), flags[x] has a bit for each byte of block x that is a
// literal's anchor, and for each start of a word (ASCII letters and
// digits; carry is 1 when the byte before b is one) that gateTextVec's
// tables mark (gateVecTables.mayStart) and that either runs to its
// block's end or has gate bits that hold an anchor's. It returns the
// carry into the block after.
func gateCardPortable(p *patternSet, b []byte, blocks int, flags []uint64, carry uint64) uint64 {
	return gateCardBy(p, p.vec.mayStart, b, blocks, flags, carry)
}

// gateCardTeddyPortable is what gateCardAVX2 computes, to hold it to:
// gateCardPortable with the anchors' words found by the nibble tables.
func gateCardTeddyPortable(p *patternSet, b []byte, blocks int, flags []uint64, carry uint64) uint64 {
	return gateCardBy(p, func(src []byte) bool { return teddyPortable(&p.teddy, src, 1) != 0 }, b, blocks, flags, carry)
}

// gateCardBy is gateCardPortable with mayStart telling where an anchor's
// word may start.
func gateCardBy(p *patternSet, mayStart func(src []byte) bool, b []byte, blocks int, flags []uint64, carry uint64) uint64 {
	for x := range blocks {
		blk := b[64*x:]
		var word, f uint64
		for i := range 64 {
			c := blk[i]
			if isWordASCII(c) {
				word |= 1 << i
			}
			if p.anchors[c] {
				f |= 1 << i
			}
		}
		starts := word &^ (word<<1 | carry)
		carry = word >> 63
		for s := starts; s != 0; s &= s - 1 {
			i := bits.TrailingZeros64(s)
			if !mayStart(blk[i:]) {
				continue
			}
			n := bits.TrailingZeros64(^(word >> i))
			if i+n == 64 || p.gateWord(blk, i, n)&p.anchorBits != 0 {
				f |= 1 << i
			}
		}
		flags[x] = f
	}
	return carry
}
