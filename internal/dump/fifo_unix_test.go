//go:build unix

package dump

import "syscall"

// makeFIFO makes a named pipe at path.
func makeFIFO(path string) error { return syscall.Mkfifo(path, 0o644) }
