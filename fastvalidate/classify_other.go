//go:build !amd64 || purego

package fastvalidate

// Elsewhere classify computes the bits a word at a time (classifyWords).
const haveClassify = false

func classifyBlocks(b []byte, blocks []charBlock) {
	panic("fastvalidate: no classifyBlocks on this machine")
}
