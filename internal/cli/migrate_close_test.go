package cli

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestMigrateDecoderClosed: the zstd decoder migrate opens for a
// compressed input is closed when the input is done; left open, each of
// many inputs kept its decoder's buffers until the collector found them.
func TestMigrateDecoderClosed(t *testing.T) {
	plain := bytes.Repeat([]byte(`{"name":"a card","url":"https://example.com/"}`+"\n"), 40000)
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	packed := enc.EncodeAll(plain, nil)
	dec, compressed, err := decompress(bufio.NewReader(bytes.NewReader(packed)))
	if err != nil || !compressed {
		t.Fatalf("decompress: compressed %v, %v", compressed, err)
	}
	c, ok := any(dec).(io.Closer)
	if !ok {
		t.Fatalf("the reader of a zstd input (%T) cannot be closed: its decoder is never released", dec)
	}
	head := make([]byte, 100)
	if _, err := io.ReadFull(dec, head); err != nil || !bytes.Equal(head, plain[:100]) {
		t.Fatalf("read %q, %v; want the input's first bytes", head, err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	// Past what was buffered, a closed decoder says so.
	if _, err := io.ReadAll(dec); !errors.Is(err, zstd.ErrDecoderClosed) {
		t.Errorf("reading on after Close: %v, want %v", err, zstd.ErrDecoderClosed)
	}
}
