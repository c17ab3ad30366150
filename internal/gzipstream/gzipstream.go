// Package gzipstream reads a gzip stream member by member, for every
// reader of cardscan's compressed inputs: the validation run and migrate
// accept and refuse the same streams.
package gzipstream

import (
	"bufio"
	"bytes"
	"errors"
	"io"

	"github.com/klauspost/compress/gzip"
)

// magic opens every gzip member (RFC 1952, section 2.3.1).
var magic = []byte{0x1f, 0x8b}

// ErrTrailing is what follows the last member of a gzip stream when
// it is no member and not NUL bytes alone.
var ErrTrailing = errors.New("bytes after the last gzip member that are neither a gzip member nor zero padding")

// Reader reads a gzip stream member by member, so that what follows
// a member is judged here rather than taken for the next one's header:
// tar and some uploaders pad a stream with NUL bytes to a block (GNU
// gzip -d ignores them, saying so). NUL bytes alone end the stream, and
// are counted (Zeros); anything else is ErrTrailing. The padding is
// read through, never held, so any length of it costs bounded memory.
type Reader struct {
	z     *gzip.Reader
	src   *bufio.Reader
	zeros int64 // NUL bytes read after the last member
	done  bool
	err   error // to be returned once the bytes read with it are
}

// Reset starts reading the stream of src, whose first member's header it
// reads.
func (g *Reader) Reset(src *bufio.Reader) error {
	*g = Reader{z: g.z, src: src}
	var err error
	if g.z == nil {
		g.z, err = gzip.NewReader(src)
	} else {
		err = g.z.Reset(src)
	}
	if err != nil {
		return err
	}
	// src is a bufio.Reader, so the decoder reads no byte past a
	// member's end: what follows is left in src for next to judge.
	g.z.Multistream(false)
	return nil
}

func (g *Reader) Read(p []byte) (int, error) {
	for {
		if g.err != nil {
			return 0, g.err
		}
		if g.done {
			return 0, io.EOF
		}
		n, err := g.z.Read(p)
		if err == io.EOF {
			err = g.next()
		}
		if err != nil {
			if n > 0 {
				g.err = err
				return n, nil
			}
			return 0, err
		}
		if n > 0 {
			return n, nil
		}
	}
}

// next goes on past the member that ended: to the next member, or through
// NUL bytes alone to the end.
func (g *Reader) next() error {
	head, err := g.src.Peek(len(magic))
	switch {
	case len(head) == 0 && errors.Is(err, io.EOF):
		g.done = true
		return nil
	case bytes.Equal(head, magic):
		if err := g.z.Reset(g.src); err != nil {
			return err
		}
		g.z.Multistream(false)
		return nil
	case len(head) == 0:
		return err
	case head[0] == 0:
		return g.skipZeros()
	}
	return ErrTrailing
}

// skipZeros reads the stream to its end, a buffer at a time, as long as
// it holds NUL bytes alone.
func (g *Reader) skipZeros() error {
	for {
		if _, err := g.src.Peek(1); err != nil {
			if errors.Is(err, io.EOF) {
				g.done = true
				return nil
			}
			return err
		}
		b, _ := g.src.Peek(g.src.Buffered())
		if len(bytes.TrimLeft(b, "\x00")) > 0 {
			return ErrTrailing
		}
		g.zeros += int64(len(b))
		g.src.Discard(len(b))
	}
}

// Zeros returns how many NUL bytes followed the stream's last member.
func (g *Reader) Zeros() int64 { return g.zeros }
