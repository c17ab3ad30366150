//go:build unix

package dump

import "syscall"

// newOutsideBlock returns an empty block of capacity size in memory of its
// own from the system, outside the Go heap, and whether it is: see
// blockSource. Where the system refuses, the block is the heap's.
func newOutsideBlock(size int) (blk []byte, outside bool) {
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]byte, 0, size), false
	}
	return b[:0], true
}

// freeOutsideBlock returns a block newOutsideBlock made outside the heap
// to the system.
func freeOutsideBlock(blk []byte) {
	syscall.Munmap(blk[:cap(blk)])
}

// outsideHeap tells that newOutsideBlock makes blocks outside the heap.
const outsideHeap = true
