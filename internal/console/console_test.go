package console

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

func TestConsole_Lines(t *testing.T) {
	var b bytes.Buffer
	c := New(&b)
	if c.Terminal() {
		t.Fatal("a buffer is not a terminal")
	}
	c.Printf("%d records", 3)
	c.Progress("1 records")
	c.Errorf("%s: %v", "in.ndjson", errors.New("no such file"))
	c.Hintf("run '%s --help' for usage", "cardscan fetch")
	want := "cardscan: 3 records\n" +
		"cardscan: 1 records\n" +
		"cardscan: error: in.ndjson: no such file\n" +
		"cardscan: hint: run 'cardscan fetch --help' for usage\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// On a terminal the progress line is redrawn in place and erased before
// the next line.
func TestConsole_ProgressOnTerminal(t *testing.T) {
	var b bytes.Buffer
	c := &Console{w: &b, tty: true}
	c.Progress("1 records")
	c.Progress("2 records")
	c.Errorf("stop")
	want := "cardscan: 1 records\r\x1b[Kcardscan: 2 records\r\x1b[Kcardscan: error: stop\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

// TestConsole_AroundProgress: findings written to the same terminal as the
// progress line clear it first and redraw it after.
func TestConsole_AroundProgress(t *testing.T) {
	var b bytes.Buffer
	c := &Console{w: &b, tty: true}
	out := c.Around(&b)
	io.WriteString(out, "in:1: error: x\n") // no progress on screen yet
	c.Progress("1 records")
	io.WriteString(out, "in:2: error: y\n")
	c.Printf("done")
	want := "in:1: error: x\n" +
		"cardscan: 1 records\r\x1b[Kin:2: error: y\ncardscan: 1 records" +
		"\r\x1b[Kcardscan: done\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
