package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
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
	cards := readFile(t, cardsFile)
	small := writeFile(t, filepath.Join(dir, "one.json"), cards[:bytes.IndexByte(cards, '\n')+1])
	other := writeFile(t, filepath.Join(dir, "two.json"), cards[:bytes.IndexByte(cards, '\n')+1])
	large := writeFile(t, filepath.Join(dir, "big.ndjson"), bigInput(t, 40))
	for _, tc := range []struct {
		name string
		// stdin is standard input: a small file when "file", else a reader
		// holding this text.
		stdin string
		args  []string
		want  int
	}{
		{"one small file", "", []string{"-q", small}, 0},
		{"two small files", "", []string{"-q", small, other}, 0},
		{"standard input from a small file", "file", []string{"-q", "-"}, 0},
		{"a file over 64 KiB", "", []string{"-q", large}, 1},
		{"standard input that is no file", "{}\n", []string{"-q"}, 1},
		{"a small file and an out file", "", []string{"-q", "--valid-out", filepath.Join(dir, "v.ndjson"), small}, 1},
		{"a small file and a summary file", "", []string{"-q", "--summary", filepath.Join(dir, "s.json"), small}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdin io.Reader = strings.NewReader(tc.stdin)
			if tc.stdin == "file" {
				in, err := os.Open(small)
				if err != nil {
					t.Fatal(err)
				}
				defer in.Close()
				stdin = in
			}
			f := installFakeNotify(t)
			var out, errOut strings.Builder
			if code := Run(tc.args, stdin, &out, &errOut); code > 1 {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			notified, stopped := f.count()
			if notified != tc.want || stopped != notified {
				t.Errorf("cardscan %s installed %d signal handlers and removed %d, want %d", strings.Join(tc.args, " "), notified, stopped, tc.want)
			}
		})
	}
}

// TestLateHandlerInterrupts: a run that outlasts the grace installs the
// handler then, and a signal from then on ends it in order.
func TestLateHandlerInterrupts(t *testing.T) {
	f := installFakeNotify(t)
	s := catchSignalsAfter(time.Millisecond)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if n, _ := f.count(); n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no handler installed 10 s after a grace of 1 ms")
		}
		time.Sleep(time.Millisecond)
	}
	f.mu.Lock()
	f.channels[0] <- syscall.SIGTERM
	f.mu.Unlock()
	select {
	case <-s.interrupt:
	case <-time.After(10 * time.Second):
		t.Fatal("SIGTERM did not interrupt the run")
	}
	if got := s.signal(); got != syscall.SIGTERM {
		t.Errorf("signal() = %v, want SIGTERM", got)
	}
	s.stop()
	if _, stopped := f.count(); stopped != 1 {
		t.Errorf("stop removed %d handlers, want 1", stopped)
	}
}

// TestStopBeforeGrace: a run that ends within the grace installs nothing,
// and none later.
func TestStopBeforeGrace(t *testing.T) {
	f := installFakeNotify(t)
	s := catchSignalsAfter(20 * time.Millisecond)
	s.stop()
	time.Sleep(50 * time.Millisecond)
	if notified, stopped := f.count(); notified != 0 || stopped != 0 {
		t.Errorf("a run stopped within the grace installed %d handlers and removed %d, want none", notified, stopped)
	}
}

// TestMainLeavesHandlerInstalled: a run through Main, whose process exits
// when it returns, installs its handler as Run does but leaves it to the
// exit rather than remove it: removal waits on os/signal's thread once
// per signal, serial at the end of every run.
func TestMainLeavesHandlerInstalled(t *testing.T) {
	large := writeFile(t, filepath.Join(t.TempDir(), "big.ndjson"), bigInput(t, 40))
	t.Cleanup(func() { exitsAfterRun.Store(false) })
	for _, tc := range []struct {
		name        string
		run         func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
		wantStopped int
	}{
		{"Run", Run, 1},
		{"Main", Main, 0},
	} {
		f := installFakeNotify(t)
		var out, errOut strings.Builder
		if code := tc.run([]string{"-q", large}, strings.NewReader(""), &out, &errOut); code > 1 {
			t.Fatalf("%s: exit %d: %s", tc.name, code, errOut.String())
		}
		if notified, stopped := f.count(); notified != 1 || stopped != tc.wantStopped {
			t.Errorf("%s installed %d signal handlers and removed %d, want 1 and %d", tc.name, notified, stopped, tc.wantStopped)
		}
	}
}
