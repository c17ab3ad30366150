//go:build !amd64 || purego

package tape

// Elsewhere classify computes the bits a word at a time (classifyWords).
const HaveClassify = false

func classifyBlocks(b []byte, blocks []charBlock) {
	panic("tape: no classifyBlocks on this machine")
}
