//go:build !amd64 || purego

package fastvalidate

// Elsewhere the scanner finds string ends with its word-at-a-time loops.
const haveClassify = false

func classifyBlocks(b []byte, blocks []charBlock) {
	panic("fastvalidate: no classifyBlocks on this machine")
}
