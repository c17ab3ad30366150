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
