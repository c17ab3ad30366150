//go:build !purego

package pipeline

// walkBlocks is walkBlocksGo in assembly: the bits of each block come
// from SSE2, which every amd64 machine has, and the state stays in
// registers from block to block.
//
//go:noescape
func walkBlocks(b []byte, st *walkState) (k, p, stop int)
