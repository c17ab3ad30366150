package fastvalidate

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"strings"
)

// The gate on the word patterns. A word pattern matches only where every
// one of its tokens other than gaps matches a word, so an object's texts
// in which some token of every pattern matches no word at all cannot
// match any: the pass over the texts (matchRaw, gateFolded) keeps only
// which tokens some word of them may match, a bit per token in a uint64,
// looked up by a hash of each word, and the patterns are followed word by
// word (matchWordsExact) only for an object in which every token of some
// pattern may have matched. Honest texts hold "the", "a", "to", "from"
// and "copy" often, but rarely all of "pretend", "to" and "be", or of
// "route", "every", "payment" and "to". Found this way, a word
// costs a hash and one lookup, with no branch that depends on the word:
// the branch on each word that the filter by first word took before
// (patternSet.mayStart, still used by matchWordsExact) cost more than the
// rest of its work, the words that pass it being a mix no predictor
// learns.

// gateSlots is the size of patternSet.gate, a power of two. The set's 230
// or so distinct words fill one slot in eighteen, so that a word it does
// not name sets some token's bit about as often; that only lets an object
// through to matchWordsExact, which on the dump's first 20,000 cards
// happens for fewer than 0.01% of them (BenchmarkMatchRaw's gated/object
// metric, 0 with set v1 and with set v2). A word that shares an anchor
// word's slot costs more: it sends its object through the passes that
// follow an anchor's word (gateAll, readOnFromTail, noteDisguisedWord).
// With 2,048 slots, 61 of them an anchor word's, 52 of the 1,944 words
// of the real cards' texts shared one, 1.7% of the words read, and on the
// dump "sales" (in one card of five); with 4,096, 19 and 0.5%, for a gate
// of 32 KB rather than 16.
const gateSlots = 1 << gateSlotBits

// gateSlotBits is the bits of a slot's index, the top bits of the key's
// product (gateSlot; HASH_WORDS in content_match_amd64.s shifts by
// 64-gateSlotBits too).
const gateSlotBits = 12

// gateKey returns the key of a word of n bytes, x holding its first eight
// bytes as a little-endian uint64 (and any bytes after it): the bytes of
// the word ORed with 0x20, which lower-cases letters and leaves digits as
// they are, as matching reads them; then the bytes after the word
// cleared, and its length mixed in, so that "instruction" and
// "instructions" differ.
func gateKey(x uint64, n int) uint64 {
	// A shift by 64 or more leaves 0 in Go, so that keep is all ones from
	// eight bytes on, without a branch on the length.
	keep := uint64(1)<<(8*uint(n)) - 1
	return (x|0x2020202020202020)&keep ^ uint64(n)<<59
}

// gateSlot maps a key to a slot of patternSet.gate (Fibonacci hashing).
func gateSlot(key uint64) uint64 { return key * 0x9E3779B97F4A7C15 >> (64 - gateSlotBits) }

// assignGateBits gives each token of the word patterns its bit in the
// gate. The tokens outnumber a uint64's bits, so some must share one,
// which lets through objects whose words hold only some pattern's tokens:
// a pattern's anchor token (anchorOf) and first token get bits of their
// own, since the anchors' bits decide whether every word of an object is
// hashed (gateSegments) and the first tokens' whether the gate is opened
// at all (gateOpen), and the other tokens share the bits left in turn.
// Tokens of the same words ("roleplay|role" of four patterns, "you" of
// four) are set by the same words, so they take one bit at no loss: the
// bits left to share are the more for it.
func (p *patternSet) assignGateBits() {
	next := 0
	bitOf := map[string]uint64{} // by tokenWords
	own := func(tok *patternToken) {
		if tok.bit == 0 {
			if tok.bit = bitOf[tokenWords(tok)]; tok.bit == 0 {
				tok.bit = uint64(1) << (next % 64)
				bitOf[tokenWords(tok)] = tok.bit
				next++
			}
		}
	}
	for i := range p.words {
		wp := &p.words[i]
		own(&wp.tokens[anchorOf(wp)])
		own(&wp.tokens[0]) // tokens[0] is no gap
	}
	shared := next % 64
	for i := range p.words {
		for t := range p.words[i].tokens {
			if tok := &p.words[i].tokens[t]; tok.gap == 0 && tok.bit == 0 {
				if tok.bit = bitOf[tokenWords(tok)]; tok.bit == 0 {
					tok.bit = uint64(1) << (shared + (next-shared)%(64-shared))
					bitOf[tokenWords(tok)] = tok.bit
					next++
				}
			}
		}
	}
	p.gateTokens = next
}

// tokenWords returns the words of tok, sorted and joined, the same for
// every token of the same words.
func tokenWords(tok *patternToken) string {
	return strings.Join(slices.Sorted(slices.Values(tok.words)), "|")
}

// addGate records the tokens of pattern wp in the gate: each word of a
// token sets the token's bit (assignGateBits) in its slot, and the
// pattern needs them all.
func (p *patternSet) addGate(wp *wordPattern) {
	var need uint64
	p.gateFirsts |= wp.tokens[0].bit
	anchor := anchorOf(wp)
	for t, tok := range wp.tokens {
		if tok.gap > 0 {
			continue
		}
		need |= tok.bit
		if t == anchor {
			p.anchorBits |= tok.bit
		}
		for _, word := range tok.words {
			var x uint64
			for i := range min(len(word), 8) {
				x |= uint64(word[i]) << (8 * i)
			}
			p.gate[gateSlot(gateKey(x, len(word)))] |= tok.bit
		}
	}
	p.gateNeeds = append(p.gateNeeds, need)
}

// gateOpen reports whether the tokens seen, by the gate's bits, hold every
// token of some word pattern.
func (p *patternSet) gateOpen(seen uint64) bool {
	if seen&p.gateFirsts == 0 || seen&p.anchorBits == 0 {
		// No pattern's first token, or no anchor token, which every
		// pattern needs as well: the common cases, in two tests, where
		// the loop below costs some hundred instructions.
		return false
	}
	for _, need := range p.gateNeeds {
		if seen&need == need {
			return true
		}
	}
	return false
}

// gateWord returns the gate's bits for the word of n bytes at text[i:].
func (p *patternSet) gateWord(text []byte, i, n int) uint64 {
	if i+8 <= len(text) {
		return p.gate[gateSlot(gateKey(binary.LittleEndian.Uint64(text[i:]), n))]
	}
	var buf [8]byte // the word ends less than eight bytes before text does
	copy(buf[:], text[i:min(i+n, len(text))])
	x := uint64(buf[0]) | uint64(buf[1])<<8 | uint64(buf[2])<<16 | uint64(buf[3])<<24 |
		uint64(buf[4])<<32 | uint64(buf[5])<<40 | uint64(buf[6])<<48 | uint64(buf[7])<<56
	return p.gate[gateSlot(gateKey(x, n))]
}

// gateStarts returns the gate's bits for the words of a block of a text
// that start at the bits of starts and end within the block, by the
// block's word mask; src holds the block from its start, and seven bytes
// past the last word start.
func (p *patternSet) gateStarts(src []byte, word, starts uint64) uint64 {
	var seen uint64
	for ; starts != 0; starts &= starts - 1 {
		i := bits.TrailingZeros64(starts)
		n := bits.TrailingZeros64(^(word >> i))
		seen |= p.gate[gateSlot(gateKey(binary.LittleEndian.Uint64(src[i:]), n))]
	}
	return seen
}

// disguiseAt returns the index of the first byte of text from k on that
// noteDisguisedWord looks at, a dot or a digit leetLetter reads as a
// letter, or maybe another byte of '.' to '7' ('/', '2', '6'), which it
// passes over; len(text) if none. It tests eight bytes at a time: the
// byte by byte loop over every text of an object with an anchor's word
// was 4% of the content rules' instructions on the AVX2 path (callgrind,
// docs/performance.md).
func disguiseAt(text []byte, k int) int {
	const lows, highs = 0x0101010101010101, 0x8080808080808080
	for ; k+8 <= len(text); k += 8 {
		x := binary.LittleEndian.Uint64(text[k:])
		// Each byte's low seven bits plus 0x80-'.' and 0x80-('7'+1), which
		// carry into no other byte: bit 7 of the first says >= '.', of the
		// second >= '8'; a byte beyond ASCII is none.
		low := x &^ highs
		if m := (low + (0x80-'.')*lows) &^ (low + (0x80-'8')*lows) &^ x & highs; m != 0 {
			return k + bits.TrailingZeros64(m)/8
		}
	}
	for ; k < len(text); k++ {
		if c := text[k]; c >= '.' && c <= '7' {
			return k
		}
	}
	return k
}
