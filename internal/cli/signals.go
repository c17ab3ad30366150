package cli

import (
	"os"
	"os/signal"
	"sync"
	"syscall"

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

func catchSignals() *signals {
	s := &signals{ch: make(chan os.Signal, 2), interrupt: make(chan struct{}), done: make(chan struct{})}
	signal.Notify(s.ch, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
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
			os.Exit(128 + int(sig.(syscall.Signal)))
		case <-s.done:
		}
	}()
	return s
}

// status is the exit status of a run the first signal ended: 128 plus the
// signal's number, as the shell reports a process the signal killed (130
// for SIGINT, 143 for SIGTERM, 129 for SIGHUP).
func (s *signals) status() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return 128 + int(s.caught)
}

func (s *signals) stop() {
	signal.Stop(s.ch)
	close(s.done)
	s.wg.Wait()
}
