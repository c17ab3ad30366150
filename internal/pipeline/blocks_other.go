//go:build !amd64 || purego

package pipeline

func classifyBlocks(b []byte, blocks []blockBits) { classifyWords(b, blocks) }

func walkBlocks(b []byte, blocks []blockBits, st *walkState) (k, p, stop int) {
	return walkBlocksGo(b, blocks, st)
}
