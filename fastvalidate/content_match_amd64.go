//go:build !purego

package fastvalidate

import "golang.org/x/sys/cpu"

// blockMaskRead is how many bytes from a block's start blockMasks reads:
// a whole block of 64, whatever the text's length (see matchRaw).
const blockMaskRead = 64

// blockMasks returns, for the first n bytes of src (len(src) >=
// blockMaskRead), the masks of textBlockMasks: a bit per byte, byte k's
// at bit k, for the letters and digits, and for the bytes that are none
// of those nor a space. Bits at n and after are the caller's to clear.
// SSE2, which every amd64 machine has, tells sixteen bytes with a few
// instructions and gathers their bits with one (PMOVMSKB), where the
// portable blockMasksPortable spends some thirty a word of eight: the
// pass over every byte of every text was most of the matcher's time.
func blockMasks(src []byte, n int) (word, other uint64) {
	_ = src[blockMaskRead-1]
	word, notOther := textBlockMasksSSE2(&src[0])
	return word, ^notOther
}

// textBlockMasksSSE2 returns, for the 64 bytes at p, a bit per byte set
// for letters and digits (word), and one set for those and spaces
// (notOther).
//
//go:noescape
func textBlockMasksSSE2(p *byte) (word, notOther uint64)

// haveTeddy says whether blockMasksTeddy may be called: on CPUs with AVX2.
var haveTeddy = cpu.X86.HasAVX2

// blockMaskTeddyRead is how many bytes from a block's start
// blockMasksTeddy reads: the block, and three more for the last byte's
// four.
const blockMaskTeddyRead = 67

// blockMasksTeddy returns blockMasks' bits of the first n bytes of src
// (len(src) >= blockMaskTeddyRead), and, in cand, a bit per byte where a
// word of an anchor may start by t (teddyTables): 32 bytes an instruction
// with AVX2. Bits at n and after are the caller's to clear; past 32 they
// are not computed when n <= 32.
func blockMasksTeddy(src []byte, n int, t *teddyTables) (word, other, cand uint64) {
	_ = src[blockMaskTeddyRead-1]
	return textBlockTeddyAVX2(&src[0], t, n)
}

//go:noescape
func textBlockTeddyAVX2(p *byte, t *teddyTables, n int) (word, other, cand uint64)

// haveGateVec says whether gateTextVec may be called: on CPUs with
// AVX-512 (F, BW, and VBMI for VPERMI2B) and BMI1 and BMI2; and AVX2,
// which every such CPU has, but which GODEBUG may turn off alone: the
// words gateTextVec passes over are hashed again where haveTeddy.
var haveGateVec = cpu.X86.HasAVX2 && cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VBMI &&
	cpu.X86.HasBMI1 && cpu.X86.HasBMI2

// gateTextVec is gateTextPortable on AVX-512, for the text of n bytes at
// p, which must be followed by blockRead bytes of the card (gateSegments
// and gateTextOn see to it); it reads ps.vec and ps.gate.
//
//go:noescape
func gateTextVec(p *byte, base, n int, ps *patternSet) (seen uint64, from, next int, anchors uint64)

// haveGateAVX2 says whether gateTextAVX2 may be called: on CPUs with
// AVX2, BMI1 and BMI2, which every CPU with AVX2 of Intel since Haswell
// and of AMD since Zen has.
var haveGateAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasBMI1 && cpu.X86.HasBMI2

// gateTextAVX2 is gateTextTeddyPortable on AVX2, gateTextVec's results
// with the anchors' words found by the nibble tables (ps.teddy), or with
// all every word's bits and no anchor bytes, for the text of n bytes at
// p, which must be followed by blockRead bytes of the card; it reads
// ps.teddy, ps.teddyAnchors and ps.gate.
//
//go:noescape
func gateTextAVX2(p *byte, base, n int, ps *patternSet, all bool) (seen uint64, from, next int, anchors uint64)
