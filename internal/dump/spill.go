package dump

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// spillPrefix starts the name of every temporary directory diff and
// --cross-card spill to: cardscan-spill-PID-RANDOM, in os.TempDir(). The
// process ID lets a later run tell a directory whose process is gone
// (removeStale).
const spillPrefix = "cardscan-spill-"

// lockName is the file in a spill directory that its process holds an
// exclusive flock(2) on for as long as it lives: a process ID may be
// reused, a lock dies with its holder.
const lockName = "lock"

// A spill directory whose lock nobody holds is stale once its process is
// gone, or once it is older than unlockedAge (lock_unix.go): a run holds
// the lock from a moment after it makes the directory, so an older
// unlocked one belongs to no run even when another process has reused
// its ID.
// spillDir is the temporary directory of one diff or --cross-card run,
// made when it first spills, so that a run that never spills needs no
// writable $TMPDIR.
type spillDir struct {
	mu   sync.Mutex
	path string
	lock *os.File
}

// liveDirs are the spill directories of this process, for
// RemoveSpillDirs.
var liveDirs = struct {
	sync.Mutex
	dirs map[*spillDir]struct{}
}{dirs: map[*spillDir]struct{}{}}

// SpillError is a failure to make, write or read a temporary file; its
// message names the file or directory, which an *os.PathError's message
// shown without its path would not.
type SpillError struct {
	What string // "temporary file", or what else Path is
	Path string
	Err  error
}

func (e *SpillError) Error() string {
	return fmt.Sprintf("%s %s: %v", e.What, e.Path, e.Err)
}

func (e *SpillError) Unwrap() error { return e.Err }

// spillErr returns err as a *SpillError naming path, or the file an
// *os.PathError names; it keeps nil nil.
func spillErr(path string, err error) error {
	if err == nil {
		return nil
	}
	var se *SpillError
	if errors.As(err, &se) {
		return err
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		path, err = pe.Path, pe.Err
	}
	return &SpillError{What: "temporary file", Path: path, Err: err}
}

// ensure returns the directory, making it on first use.
func (d *spillDir) ensure() (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.path != "" {
		return d.path, nil
	}
	tmp := os.TempDir()
	pattern := spillPrefix + strconv.Itoa(os.Getpid()) + "-"
	path, err := os.MkdirTemp(tmp, pattern)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return "", &SpillError{What: "making a temporary directory in", Path: tmp + " ($TMPDIR)", Err: err}
	}
	lock, err := lockFile(filepath.Join(path, lockName))
	if err != nil {
		os.RemoveAll(path)
		return "", spillErr(path, err)
	}
	d.path, d.lock = path, lock
	liveDirs.Lock()
	liveDirs.dirs[d] = struct{}{}
	liveDirs.Unlock()
	return path, nil
}

// create makes a temporary file in the directory.
func (d *spillDir) create(name string) (*os.File, error) {
	dir, err := d.ensure()
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, name+"-")
	return f, spillErr(dir, err)
}

// remove removes the directory and all in it.
func (d *spillDir) remove() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.path == "" {
		return
	}
	os.RemoveAll(d.path)
	d.lock.Close()
	d.path, d.lock = "", nil
	liveDirs.Lock()
	delete(liveDirs.dirs, d)
	liveDirs.Unlock()
}

// RemoveSpillDirs removes this process's spill directories, for a process
// about to exit without running its deferred calls (a second signal).
// Files still open in them go with them.
func RemoveSpillDirs() {
	liveDirs.Lock()
	dirs := make([]*spillDir, 0, len(liveDirs.dirs))
	for d := range liveDirs.dirs {
		dirs = append(dirs, d)
	}
	liveDirs.Unlock()
	for _, d := range dirs {
		d.remove()
	}
}

// removeStale removes the spill directories in tmp that no live process
// holds: those whose lock nobody holds and whose process is gone or which
// are older than unlockedAge. It is best effort: a directory it cannot read
// or remove is left.
//
// It reads tmp's names as the directory lists them, not sorted, and looks
// further only at a spill directory's: a shared $TMPDIR holds thousands
// of entries, and sorting them (os.ReadDir) took most of a millisecond of
// every diff and --cross-card run's start, before its first record
// (BenchmarkRemoveStale; docs/performance.md).
func removeStale(tmp string) {
	d, err := os.Open(tmp)
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	self := os.Getpid()
	for _, name := range names {
		pid, ok := spillPID(name)
		if !ok || pid == self {
			continue
		}
		path := filepath.Join(tmp, name)
		info, err := os.Lstat(path)
		if err != nil || !info.IsDir() {
			continue
		}
		held, err := lockHeld(filepath.Join(path, lockName))
		if err != nil || held {
			continue
		}
		if processAlive(pid) && time.Since(info.ModTime()) < unlockedAge {
			continue
		}
		os.RemoveAll(path)
	}
}

// spillPID reads the process ID from a spill directory's name.
func spillPID(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, spillPrefix)
	if !ok {
		return 0, false
	}
	digits, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(digits)
	return pid, err == nil && pid > 0
}

var staleOnce sync.Once

// removeStaleOnce runs removeStale on os.TempDir() once per process.
func removeStaleOnce() { staleOnce.Do(func() { removeStale(os.TempDir()) }) }
