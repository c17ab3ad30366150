//go:build !unix

package dump

// newOutsideBlock returns an empty block of capacity size, from the Go
// heap: without mmap(2), no block is outside it (see the unix build).
func newOutsideBlock(size int) (blk []byte, outside bool) {
	return make([]byte, 0, size), false
}

// freeOutsideBlock is not called here: no block is outside the heap.
func freeOutsideBlock([]byte) {}

// outsideHeap tells that newOutsideBlock makes blocks outside the heap.
const outsideHeap = false
