//go:build !amd64 || purego

package fastvalidate

// blockMaskRead is how many bytes past a block's n blockMasks reads: up
// to the next multiple of eight (see matchRaw).
const blockMaskRead = 7

// blockMasks is blockMasksPortable here.
func blockMasks(src []byte, n int) (word, other uint64) { return blockMasksPortable(src, n) }
