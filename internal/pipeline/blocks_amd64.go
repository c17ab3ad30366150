//go:build !purego

package pipeline

// classifyBlocks fills blocks[k] for b[64k:64k+64], for each whole block
// of b, with SSE2, which every amd64 machine has. blocks has room for them.
//
//go:noescape
func classifyBlocks(b []byte, blocks []blockBits)

// walkBlocks is walkBlocksGo in assembly, which keeps its state in
// registers from block to block.
//
//go:noescape
func walkBlocks(b []byte, blocks []blockBits, st *walkState) (k, p, stop int)
