package cli

import (
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cardscan/cardscan/internal/cmderr"
	"github.com/cardscan/cardscan/internal/dump"
	"github.com/cardscan/cardscan/internal/pipeline"
)

// signals turns SIGINT, SIGTERM and SIGHUP into an orderly end of the run:
// the first closes interrupt, so that the records read so far are judged
// and written whole, compressed outputs are closed properly and the
// summary is written, marked interrupted; a second one ends the process at
// once, for a user who will not wait, removing diff's and --cross-card's
// temporary files first.
type signals struct {
	ch        chan os.Signal
	interrupt chan struct{}
	done      chan struct{}
	wg        sync.WaitGroup
	// mu guards caught, and armed and stopped, which say whether the
	// handler has been installed and whether the run has ended; grace
	// installs it late (catchSignalsAfter).
	mu      sync.Mutex
	caught  syscall.Signal
	armed   bool
	stopped bool
	grace   *time.Timer
}

// notify and stopNotify are signal.Notify and signal.Stop; tests count
// the handlers a run installs.
var notify, stopNotify = signal.Notify, signal.Stop

// exitsAfterRun is set by Main, whose process ends when the run returns:
// a run's handler then stays installed to the end rather than be removed.
// Removing it hands each of its three signals to os/signal's thread and
// waits for the thread to answer, about 0.3 ms in all, serial at the end
// of every run, for a process that is about to exit. A signal after the
// run has ended, in order, is then ignored.
var exitsAfterRun atomic.Bool

// catchSignals installs the handler at once.
func catchSignals() *signals {
	s := newSignals()
	s.arm()
	return s
}

// catchSignalsAfter installs the handler once the run has lasted delay,
// and not at all when it ends before. os/signal's first handler costs a
// run a goroutine locked to a thread of its own, a second thread and a
// hand-off to that thread on Notify and on Stop: about 0.35 ms of CPU and
// 45 page faults, a third of what a one-card run costs after package
// initialisation. A signal within the grace ends the process as one
// during start-up does, with the exit status the orderly end gives
// (128 plus the signal's number) but without the summary; smallRun says
// when that is all there is to lose.
func catchSignalsAfter(delay time.Duration) *signals {
	s := newSignals()
	s.mu.Lock()
	s.grace = time.AfterFunc(delay, s.arm)
	s.mu.Unlock()
	return s
}

func newSignals() *signals {
	return &signals{ch: make(chan os.Signal, 2), interrupt: make(chan struct{}), done: make(chan struct{})}
}

// arm installs the handler, unless the run has ended.
func (s *signals) arm() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped || s.armed {
		return
	}
	s.armed = true
	notify(s.ch, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	s.wg.Add(1)
	go s.wait()
}

func (s *signals) wait() {
	defer s.wg.Done()
	select {
	case sig := <-s.ch:
		s.mu.Lock()
		s.caught = sig.(syscall.Signal)
		s.mu.Unlock()
		close(s.interrupt)
	case <-s.done:
		return
	}
	select {
	case sig := <-s.ch:
		// Deferred calls do not run past os.Exit: the temporary
		// files they would remove go first.
		dump.RemoveSpillDirs()
		os.Exit(cmderr.Status(cmderr.Interrupted(sig.(syscall.Signal))))
	case <-s.done:
	}
}

// signal is the signal that ended the run first.
func (s *signals) signal() syscall.Signal {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caught
}

func (s *signals) stop() {
	s.mu.Lock()
	s.stopped = true
	if s.grace != nil {
		s.grace.Stop()
	}
	armed := s.armed
	s.mu.Unlock()
	if armed && !exitsAfterRun.Load() {
		stopNotify(s.ch)
	}
	close(s.done)
	s.wg.Wait()
}

// Bounds of a run that installs its signal handler late: inputs that are
// all regular files (or standard input redirected from one) of at most
// smallRunBytes together, stored (each input is stat'ed, so at most
// smallRunInputs of them), and no file written. Judging 64 KiB
// takes about a millisecond, and even compressed input that expands far
// beyond it has the handler from signalGrace on.
const (
	smallRunBytes  = 64 << 10
	smallRunInputs = 16
	signalGrace    = 20 * time.Millisecond
)

// catchRunSignals installs the signal handler of a validation run of o
// over inputs: at once, or after signalGrace for a small run.
func catchRunSignals(o *options, inputs []pipeline.Input, stdin io.Reader) *signals {
	if smallRun(o, inputs, stdin) {
		return catchSignalsAfter(signalGrace)
	}
	return catchSignals()
}

// smallRun reports whether a run of o over inputs may install its signal
// handler late: it ends in a few milliseconds, like start-up, in which a
// signal ends the process at once, and it writes no file that a signal
// would leave unfinished. A pipe, a terminal or a FIFO may be read for
// ever, so it has the handler from the start.
func smallRun(o *options, inputs []pipeline.Input, stdin io.Reader) bool {
	if o.validOut != "" || o.invalidOut != "" || (o.summary != "" && o.summary != "-") ||
		len(o.formatFiles) > 0 || o.crossCard || o.digestOut != "" || len(inputs) > smallRunInputs {
		return false
	}
	var total int64
	for _, in := range inputs {
		var size int64
		if in.Path == "" {
			n, ok := regularSize(stdin)
			if !ok {
				return false
			}
			size = n
		} else {
			st, err := os.Stat(in.Path)
			switch {
			case err != nil:
				// The reader diagnoses it at once.
				continue
			case !st.Mode().IsRegular():
				return false
			}
			size = st.Size()
		}
		if total += size; total > smallRunBytes {
			return false
		}
	}
	return true
}
