package pipeline

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"github.com/klauspost/compress/zstd"

	"github.com/cardscan/cardscan/internal/gzipstream"
)

// Input is one source of records.
type Input struct {
	// Name identifies the input in reports: the path as given, or
	// "<stdin>".
	Name string
	// Path is the file to open; "" reads Stdin.
	Path string
	// Framing says how the input is cut into records; FramingAuto
	// chooses from its content.
	Framing Framing
}

// Limits a compressed stream may not exceed, whatever its headers claim:
// enough for `zstd --long` (a 128 MiB window), little enough that a
// hostile stream cannot exhaust memory.
const (
	zstdMaxWindow = 128 << 20
	zstdMaxMemory = 128 << 20
)

var (
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
	gzipMagic = []byte{0x1f, 0x8b}
)

// isZstd reports whether head opens a zstd stream: a frame, or a skippable
// frame (magic 0x184D2A50 to 0x184D2A5F), which pzstd writes ahead of every
// frame and other tools use for metadata; the decoder skips those.
func isZstd(head []byte) bool {
	if bytes.HasPrefix(head, zstdMagic) {
		return true
	}
	return len(head) >= 4 && head[0]&0xf0 == 0x50 && head[1] == 0x2a && head[2] == 0x4d && head[3] == 0x18
}

// mayBeMagic says head, fewer bytes than a zstd magic number, starts the
// magic number of a zstd frame, a skippable frame or a gzip member, so
// that more bytes are needed to tell whether the input is compressed.
func mayBeMagic(head []byte) bool {
	switch {
	case len(head) == 0 || len(head) >= len(zstdMagic):
		return false
	case bytes.HasPrefix(zstdMagic, head):
		return true
	case len(head) < len(gzipMagic) && bytes.HasPrefix(gzipMagic, head):
		return true
	}
	return head[0]&0xf0 == 0x50 && bytes.HasPrefix([]byte{head[0], 0x2a, 0x4d, 0x18}, head)
}

// countingReader counts the bytes read from an input as stored, before
// any decompression. n is read by the progress display while the reader
// runs.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// decoders keeps the decompressors of the reading goroutine, so that a
// directory of many small compressed files costs one zstd decoder.
type decoders struct {
	zstd *zstd.Decoder
	gzip gzipstream.Reader
	peek *bufio.Reader
}

// open returns the decompressed stream of r, chosen by magic bytes, and the
// name of the compression ("" for none).
func (d *decoders) open(r io.Reader) (io.Reader, string, error) {
	if d.peek == nil {
		d.peek = bufio.NewReaderSize(r, 64<<10)
	} else {
		d.peek.Reset(r)
	}
	// Only as many bytes as may still be magic: a pipe that holds "{}\n"
	// and stays open is judged at once, not when a fourth byte comes.
	head, err := d.peek.Peek(1)
	for err == nil && mayBeMagic(head) {
		head, err = d.peek.Peek(len(head) + 1)
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, "", err
	}
	if len(head) == 0 && err != nil {
		// The end, at once. bufio hands an EOF out only once, so reading
		// on from d.peek would read the source again: a terminal would
		// wait for a second Ctrl-D.
		return eofReader{}, "", nil
	}
	switch {
	case isZstd(head):
		if d.zstd == nil {
			d.zstd, err = zstd.NewReader(d.peek,
				zstd.WithDecoderConcurrency(1),
				zstd.WithDecoderMaxWindow(zstdMaxWindow),
				zstd.WithDecoderMaxMemory(zstdMaxMemory))
		} else {
			err = d.zstd.Reset(d.peek)
		}
		if err != nil {
			return nil, "zstd", err
		}
		return d.zstd, "zstd", nil
	case bytes.HasPrefix(head, gzipMagic):
		if err := d.gzip.Reset(d.peek); err != nil {
			return nil, "gzip", err
		}
		return &d.gzip, "gzip", nil
	}
	return d.peek, "", nil
}

func (d *decoders) close() {
	if d.zstd != nil {
		d.zstd.Close()
	}
}

// openFile opens an input, or returns stdin for Path "".
func openFile(in Input, stdin io.Reader) (io.ReadCloser, error) {
	if in.Path == "" {
		return io.NopCloser(stdin), nil
	}
	f, err := os.Open(in.Path)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("is a directory")
	}
	return f, nil
}

// regularSize returns the size of f when it is a regular file, or -1: a
// hint for the size of its chunks, which a file that grows while it is
// read outgrows.
func regularSize(f io.Reader) int64 {
	if st, ok := f.(interface{ Stat() (os.FileInfo, error) }); ok {
		if fi, err := st.Stat(); err == nil && fi.Mode().IsRegular() {
			return fi.Size()
		}
	}
	return -1
}

// stdinRemaining returns how many bytes standard input holds from where
// it is read, when in is standard input and a regular file, or else -1.
// The file's offset need not be its start: a shell reading ahead of
// cardscan ({ read line; cardscan; } < dump) leaves it further on.
func stdinRemaining(in Input, stdin io.Reader) int64 {
	f, ok := stdin.(*os.File)
	if in.Path != "" || !ok {
		return -1
	}
	size := regularSize(f)
	at, err := f.Seek(0, io.SeekCurrent)
	if size < 0 || err != nil || at > size {
		return -1
	}
	return size - at
}

// eofReader is an input that has ended.
type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }
