package cli

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// fakeNotify stands in for signal.Notify while a test runs, recording the
// channels a run asks signals on.
type fakeNotify struct {
	mu       sync.Mutex
	channels []chan<- os.Signal
	stopped  int
}

func installFakeNotify(t *testing.T) *fakeNotify {
	f := &fakeNotify{}
	oldNotify, oldStop := notify, stopNotify
	notify = func(c chan<- os.Signal, _ ...os.Signal) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.channels = append(f.channels, c)
	}
	stopNotify = func(chan<- os.Signal) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.stopped++
	}
	t.Cleanup(func() { notify, stopNotify = oldNotify, oldStop })
	return f
}

func (f *fakeNotify) count() (notified, stopped int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.channels), f.stopped
}

// TestSmallRunInstallsNoHandler: a run over a few small files that writes
// no file of its own ends in about a millisecond, before a signal handler
// would be of use, and installing one (os/signal starts a thread locked to
// a goroutine, and a second) costs it a third of that; a run over more,
// from a pipe, or writing files installs one at once, as before.
func TestSmallRunInstallsNoHandler(t *testing.T) {
	dir := t.TempDir()
	small := writeFile(t, filepath.Join(dir, "one.json"), readFile(t, cardsFile)[:strings.IndexByte(string(readFile(t, cardsFile)), '\n')+1])
	large := writeFile(t, filepath.Join(dir, "big.ndjson"), bigInput(t, 40))
	for _, tc := range []struct {
		name  string
		stdin string
		args  []string
		want  int
	}{
		{"one small file", "", []string{"-q", small}, 0},
		{"two small files", "", []string{"-q", small, small}, 0},
		{"a file over 64 KiB", "", []string{"-q", large}, 1},
		{"standard input", "{}\n", []string{"-q"}, 1},
		{"a small file and an out file", "", []string{"-q", "--valid-out", filepath.Join(dir, "v.ndjson"), small}, 1},
		{"a small file and a summary file", "", []string{"-q", "--summary", filepath.Join(dir, "s.json"), small}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := installFakeNotify(t)
			r := run(t, tc.stdin, tc.args...)
			if r.code > 1 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			notified, stopped := f.count()
			if notified != tc.want || stopped != notified {
				t.Errorf("cardscan %s installed %d signal handlers and removed %d, want %d", strings.Join(tc.args, " "), notified, stopped, tc.want)
			}
		})
	}
}
