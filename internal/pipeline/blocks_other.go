//go:build !amd64 || purego

package pipeline

func walkBlocks(b []byte, st *walkState) (k, p, stop int) { return walkBlocksGo(b, st) }
