//go:build !amd64 || purego

package fastvalidate

// blockMaskRead is how many bytes from a block's start blockMasks reads
// at least: none beyond the n+7 that matchRaw always has (see there).
const blockMaskRead = 0

// blockMasks is blockMasksPortable here.
func blockMasks(src []byte, n int) (word, other uint64) { return blockMasksPortable(src, n) }
