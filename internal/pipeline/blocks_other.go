//go:build !amd64 || purego

package pipeline

func classifyBlocks(b []byte, blocks []blockBits) { classifyWords(b, blocks) }
