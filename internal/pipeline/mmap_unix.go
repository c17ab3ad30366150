//go:build linux || darwin || freebsd

package pipeline

import (
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps the first size bytes of f read-only; an error means the
// file is to be read instead.
func mapFile(f *os.File, size int64) ([]byte, error) {
	return unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
}

func unmapFile(b []byte) { _ = unix.Munmap(b) }

// dropPages lets go of the process's page table entries for b, a
// page-aligned range of a mapping already judged: the file's pages stay
// in the page cache, and a later touch maps them again.
func dropPages(b []byte) { _ = unix.Madvise(b, unix.MADV_DONTNEED) }
