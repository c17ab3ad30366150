package cli

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/cardscan/cardscan/internal/pipeline"
	"golang.org/x/term"
)

// console serialises what goes to stderr: diagnostics, the summary and
// the progress line, which is erased before anything else is written.
type console struct {
	mu       sync.Mutex
	w        io.Writer
	progress bool // a progress line without a newline is on screen
}

func (c *console) linef(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clearProgress()
	fmt.Fprintf(c.w, format+"\n", args...)
}

// errorf writes "cardscan: error: ...": lowercase, no final period.
func (c *console) errorf(format string, args ...any) {
	c.linef("cardscan: error: "+format, args...)
}

func (c *console) hintf(format string, args ...any) {
	c.linef("cardscan: hint: "+format, args...)
}

func (c *console) clearProgress() {
	if c.progress {
		io.WriteString(c.w, "\r\x1b[K")
		c.progress = false
	}
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// nonTTYProgressEvery spaces progress lines that go to a log rather than a
// terminal.
var nonTTYProgressEvery = 10 * time.Second

type progress struct {
	done chan struct{}
	wg   sync.WaitGroup
}

// startProgress shows records, MB read, MB/s and, when the total input
// size is known (total > 0), the ETA. On a terminal the line is redrawn
// in place four times a second; elsewhere (--progress always into a log)
// a line is appended every ten seconds.
func startProgress(when string, con *console, p *pipeline.Progress, total int64) *progress {
	pr := &progress{done: make(chan struct{})}
	tty := isTerminal(con.w)
	if when == "never" || (when == "auto" && !tty) {
		return pr
	}
	every := 250 * time.Millisecond
	if !tty {
		every = nonTTYProgressEvery
	}
	start := time.Now()
	pr.wg.Add(1)
	go func() {
		defer pr.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-pr.done:
				return
			case <-t.C:
			}
			elapsed := time.Since(start).Seconds()
			read := p.BytesRead.Load()
			line := fmt.Sprintf("cardscan: %d records, %.1f MB read, %.1f MB/s", p.Records.Load(), float64(read)/1e6, float64(read)/1e6/elapsed)
			if total > 0 && read > 0 {
				left := time.Duration(float64(total-read) / float64(read) * elapsed * float64(time.Second))
				line += fmt.Sprintf(", %.0f%%, ETA %s", 100*float64(read)/float64(total), left.Round(time.Second))
			}
			con.mu.Lock()
			if tty {
				con.clearProgress()
				io.WriteString(con.w, line)
				con.progress = true
			} else {
				io.WriteString(con.w, line+"\n")
			}
			con.mu.Unlock()
		}
	}()
	return pr
}

func (pr *progress) stop() {
	close(pr.done)
	pr.wg.Wait()
}
