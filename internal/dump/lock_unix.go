//go:build unix

package dump

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// unlockedAge: flock(2) tells a live run's directory, so an unlocked one
// is stale as soon as it is older than the moment between making it and
// locking it.
const unlockedAge = time.Minute

// lockFile creates path and holds an exclusive lock on it until the file
// is closed or the process ends.
func lockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, &fs.PathError{Op: "flock", Path: path, Err: err}
	}
	return f, nil
}

// lockHeld reports whether a process holds path's lock; a missing file is
// not held.
func lockHeld(path string) (bool, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}

// processAlive reports whether a process of ID pid exists (one of another
// user's answers EPERM).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
