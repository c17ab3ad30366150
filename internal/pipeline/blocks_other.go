//go:build !amd64 || purego

package pipeline

func classifyBlocks(b []byte, blocks *[blockBatch]blockBits) { classifyWords(b, blocks) }
