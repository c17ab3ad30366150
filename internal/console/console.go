// Package console is how cardscan and its subcommands answer a person: the
// lines they write to stderr ("cardscan: error: ..." with an optional
// "cardscan: hint: ..."), in one voice. (Their exit statuses are
// internal/cmderr's.)
package console

import (
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/cardscan/cardscan/internal/report"
	"golang.org/x/term"
)

// name starts every line a command writes to stderr.
const name = "cardscan"

// Console serialises what goes to stderr: diagnostics, notes such as the
// summary, and a progress line, which is erased before anything else is
// written. It is safe for concurrent use.
type Console struct {
	mu       sync.Mutex
	w        io.Writer
	tty      bool
	progress bool   // a progress line without a newline is on screen
	last     string // the progress line last drawn
}

// New returns a Console writing to w, usually stderr.
func New(w io.Writer) *Console {
	f, ok := w.(*os.File)
	return &Console{w: w, tty: ok && term.IsTerminal(int(f.Fd()))}
}

// Terminal reports whether the console writes to a terminal.
func (c *Console) Terminal() bool { return c.tty }

// Printf writes "cardscan: " and the formatted text as one line.
func (c *Console) Printf(format string, args ...any) {
	c.line(name+": "+format, args...)
}

// Errorf writes "cardscan: error: " and the formatted text: lowercase, no
// final period.
func (c *Console) Errorf(format string, args ...any) {
	c.line(name+": error: "+format, args...)
}

// Hintf writes "cardscan: hint: " and the formatted text, after an error
// whose remedy is not obvious.
func (c *Console) Hintf(format string, args ...any) {
	c.line(name+": hint: "+format, args...)
}

// line writes one line. Control characters are escaped, whatever their
// source (a file name, a URL from a list), so that nothing reaches the
// terminal raw.
func (c *Console) line(format string, args ...any) {
	line := report.TextSafe(fmt.Sprintf(format, args...))
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clearProgress()
	io.WriteString(c.w, line+"\n")
}

// Progress shows "cardscan: " and line as the progress line: on a terminal
// it replaces the one on screen, which the next other line erases;
// elsewhere (a log) it is appended as a line of its own.
func (c *Console) Progress(line string) {
	line = name + ": " + line
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.tty {
		io.WriteString(c.w, line+"\n")
		return
	}
	c.clearProgress()
	io.WriteString(c.w, line)
	c.progress, c.last = true, line
}

// Around returns w, which shows on the same terminal as the progress line
// (findings on stdout), wrapped so that each write clears the line first
// and redraws it after: findings are never glued to the progress text.
func (c *Console) Around(w io.Writer) io.Writer { return aroundProgress{c, w} }

type aroundProgress struct {
	c *Console
	w io.Writer
}

func (a aroundProgress) Write(p []byte) (int, error) {
	c := a.c
	c.mu.Lock()
	defer c.mu.Unlock()
	shown := c.progress
	c.clearProgress()
	n, err := a.w.Write(p)
	if shown {
		io.WriteString(c.w, c.last)
		c.progress = true
	}
	return n, err
}

func (c *Console) clearProgress() {
	if c.progress {
		io.WriteString(c.w, "\r\x1b[K")
		c.progress = false
	}
}
