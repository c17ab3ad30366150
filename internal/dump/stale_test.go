package dump

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// fillTmp makes n entries in dir that are no spill directory's, as a
// shared $TMPDIR holds: files and directories of other programs.
func fillTmp(t testing.TB, dir string, n int) {
	t.Helper()
	for i := range n {
		path := filepath.Join(dir, fmt.Sprintf("other-%05d", i))
		var err error
		if i%2 == 0 {
			err = os.Mkdir(path, 0o755)
		} else {
			err = os.WriteFile(path, nil, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestRemoveStaleAmongOthers: among many entries of other programs, the
// spill directory of an ended process goes, and a live run's, this
// process's, a file named as a spill directory and the others stay.
func TestRemoveStaleAmongOthers(t *testing.T) {
	tmp := t.TempDir()
	fillTmp(t, tmp, 300)
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Skipf("no process to outlive: %v", err)
	}
	mkdir := func(name string) string {
		path := filepath.Join(tmp, name)
		if err := os.Mkdir(path, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(path, lockName), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	dead := mkdir(fmt.Sprintf("%s%d-1", spillPrefix, gone.Process.Pid))
	own := mkdir(fmt.Sprintf("%s%d-2", spillPrefix, os.Getpid()))
	live := mkdir(fmt.Sprintf("%s%d-3", spillPrefix, gone.Process.Pid))
	lock, err := lockFile(filepath.Join(live, lockName))
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	old := time.Now().Add(-2 * unlockedAge)
	if err := os.Chtimes(live, old, old); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(tmp, fmt.Sprintf("%s%d-4", spillPrefix, gone.Process.Pid))
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	removeStale(tmp)
	held, _ := lockHeld(filepath.Join(live, lockName))
	for _, c := range []struct {
		path string
		kept bool
	}{{dead, false}, {own, true}, {live, held}, {file, true}, {filepath.Join(tmp, "other-00000"), true}, {filepath.Join(tmp, "other-00299"), true}} {
		_, err := os.Lstat(c.path)
		if kept := err == nil; kept != c.kept {
			t.Errorf("%s: kept %v, want %v", filepath.Base(c.path), kept, c.kept)
		}
	}
}

// BenchmarkRemoveStale times the sweep of a $TMPDIR of 2,000 entries of
// other programs, as a shared machine's holds, which diff and
// --cross-card run before their first record:
//
//	go test -run=NONE -bench=RemoveStale -count=6 ./internal/dump/
func BenchmarkRemoveStale(b *testing.B) {
	tmp := b.TempDir()
	fillTmp(b, tmp, 2000)
	b.ReportAllocs()
	for b.Loop() {
		removeStale(tmp)
	}
}
