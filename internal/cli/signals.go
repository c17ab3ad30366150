package cli

import (
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/cardscan/cardscan/internal/cmderr"
	"github.com/cardscan/cardscan/internal/dump"
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
	mu        sync.Mutex
	caught    syscall.Signal
}

// notify and stopNotify are signal.Notify and signal.Stop; tests count
// the handlers a run installs.
var notify, stopNotify = signal.Notify, signal.Stop

func catchSignals() *signals {
	s := &signals{ch: make(chan os.Signal, 2), interrupt: make(chan struct{}), done: make(chan struct{})}
	notify(s.ch, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	s.wg.Add(1)
	go func() {
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
	}()
	return s
}

// signal is the signal that ended the run first.
func (s *signals) signal() syscall.Signal {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caught
}

func (s *signals) stop() {
	stopNotify(s.ch)
	close(s.done)
	s.wg.Wait()
}
