//go:build !amd64 || purego

package fastvalidate

import "unsafe"

// blockMaskRead is how many bytes from a block's start blockMasks reads
// at least: none beyond the n+7 that matchRaw always has (see there).
const blockMaskRead = 0

// blockMasks is blockMasksPortable here.
func blockMasks(src []byte, n int) (word, other uint64) { return blockMasksPortable(src, n) }

// haveTeddy is false here: the pass hashes every word (matchRaw).
const haveTeddy = false

// blockMaskTeddyRead is as on amd64, where blockMasksTeddy is used.
const blockMaskTeddyRead = 67

// blockMasksTeddy is blockMasksPortable and teddyPortable here, which
// matchRaw does not call (haveTeddy); the tests hold the vector code to it.
func blockMasksTeddy(src []byte, n int, t *teddyTables) (word, other, cand uint64) {
	word, other = blockMasksPortable(src, n)
	return word, other, teddyPortable(t, src, n)
}

// haveGateVec is false here: gateSegments reads texts as without it.
const haveGateVec = false

// gateTextVec is gateTextPortable here, which gateSegments does not call
// (haveGateVec); the text of n bytes at p is followed by blockRead more.
func gateTextVec(p *byte, base, n int, ps *patternSet) (seen uint64, from, next int, anchors uint64) {
	return gateTextPortable(ps, unsafe.Slice(p, n+blockRead), base, n)
}

// haveGateAVX2 is false here: gateSegments reads texts as without it.
const haveGateAVX2 = false

// gateTextAVX2 is gateTextTeddyPortable here, which gateSegments does not
// call (haveGateAVX2); the text of n bytes at p is followed by blockRead
// more.
func gateTextAVX2(p *byte, base, n int, ps *patternSet, all bool) (seen uint64, from, next int, anchors uint64) {
	return gateTextTeddyPortable(ps, unsafe.Slice(p, n+blockRead), base, n, all)
}
