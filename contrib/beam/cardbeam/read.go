package cardbeam

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
)

// MaxRecord bounds a line, as cardscan's default --max-record does: a
// longer line is read to its end without being held, and is one invalid
// record of rule input.too-large, so that one endless line can take
// neither a worker's memory nor the records after it.
const MaxRecord = 16 << 20

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// countingReader counts the bytes read through it: an input's bytes as
// stored.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// decompress returns r's content, decompressed when it starts with the
// gzip or zstd magic (by content, never by name, as cardscan reads), and
// a function closing the decoder.
func decompress(r io.Reader) (io.Reader, func(), error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(4)
	switch {
	case bytes.HasPrefix(head, gzipMagic):
		z, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, fmt.Errorf("reading gzip stream: %w", err)
		}
		return z, func() { z.Close() }, nil
	case bytes.HasPrefix(head, zstdMagic):
		z, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(128<<20))
		if err != nil {
			return nil, nil, fmt.Errorf("reading zstd stream: %w", err)
		}
		return z, z.Close, nil
	}
	return br, func() {}, nil
}

// isBlank reports whether a line holds only JSON white space: cardscan
// skips such lines, and does not count them.
func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

// eachLine calls fn with each non-blank line of r (without its newline,
// with a '\r' before it), its line number from 1 and its byte offset in r,
// as cardscan numbers and places records. A line longer than MaxRecord
// (its '\r' counted, as cardscan counts it) is given as nil with tooLarge
// set, blank or not, as cardscan's reader cuts it without looking. It
// returns the decompressed bytes read and the first error of reading,
// naming the line.
func eachLine(r io.Reader, fn func(line []byte, number, offset int64, tooLarge bool)) (int64, error) {
	br := bufio.NewReaderSize(r, 256<<10)
	var n, number, start, size int64
	var long []byte
	tooLarge := false
	for {
		chunk, err := br.ReadSlice('\n')
		n += int64(len(chunk))
		partial := err == bufio.ErrBufferFull
		if err != nil && err != io.EOF && !partial {
			// A partial line before a broken stream is not a record.
			return n, fmt.Errorf("line %d: %w", number+1, err)
		}
		size += int64(len(chunk))
		body := size
		if !partial && bytes.HasSuffix(chunk, []byte{'\n'}) {
			body--
		}
		line := chunk
		switch {
		case tooLarge:
		case body > MaxRecord:
			tooLarge, long = true, nil
		case partial || long != nil:
			long = append(long, chunk...)
			line = long
		}
		if partial {
			continue
		}
		if size > 0 {
			number++
			if tooLarge {
				fn(nil, number, start, true)
			} else if body := bytes.TrimSuffix(line, []byte{'\n'}); !isBlank(body) {
				fn(body, number, start, false)
			}
		}
		long, tooLarge, size, start = nil, false, 0, n
		if err == io.EOF {
			return n, nil
		}
	}
}
