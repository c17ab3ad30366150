package cardhttp

import (
	"bytes"
	"io"
	"runtime"
	"testing"
)

// TestReadCappedBoundedBuffer: a body just under the limit costs no more
// than the limit. The buffer grew by doubling past it: a 9 MiB body under
// a 9 MiB cap ended in a 16 MiB buffer after 32 MiB of allocations.
func TestReadCappedBoundedBuffer(t *testing.T) {
	const maxBytes = 9 << 20
	for _, tc := range []struct {
		name     string
		size     int
		declared int64 // -1: chunked, no Content-Length
	}{
		{"chunked, just under the cap", maxBytes - 1, -1},
		{"chunked, at the cap", maxBytes, -1},
		{"declared, just under the cap", maxBytes - 1, maxBytes - 1},
		{"declared, past a doubling", 5<<20 + 1, 5<<20 + 1},
	} {
		body := bytes.Repeat([]byte{' '}, tc.size)
		// Reads of 16 KiB at a time, as a body arrives from a socket.
		src := &chunkReader{bytes.NewReader(body), 16 << 10}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		got, err := readCapped(nil, src, tc.declared, maxBytes)
		runtime.ReadMemStats(&after)
		if err != nil || len(got) != tc.size {
			t.Errorf("%s: read %d bytes, %v; want %d", tc.name, len(got), err, tc.size)
			continue
		}
		limit := maxBytes + 1
		if tc.declared >= 0 {
			limit = int(tc.declared)
		}
		if cap(got) > limit {
			t.Errorf("%s: a %d-byte body holds a %d-byte buffer; want at most %d", tc.name, tc.size, cap(got), limit)
		}
		// The buffers on the way add up to less than the final one.
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 2*uint64(limit)+1<<20 {
			t.Errorf("%s: reading a %d-byte body allocated %d bytes; want at most %d", tc.name, tc.size, grew, 2*limit)
		}
	}
}

// TestReadCappedOverLimit: a body past the cap is refused after the cap's
// bytes, whatever it declares, and a short one is cut short.
func TestReadCappedOverLimit(t *testing.T) {
	const maxBytes = 1 << 20
	body := bytes.Repeat([]byte{' '}, 2<<20)
	if _, err := readCapped(nil, bytes.NewReader(body), -1, maxBytes); err != errTooLarge {
		t.Errorf("chunked past the cap: %v, want %v", err, errTooLarge)
	}
	if _, err := readCapped(nil, bytes.NewReader(body), int64(len(body)), maxBytes); err != errTooLarge {
		t.Errorf("declared past the cap: %v, want %v", err, errTooLarge)
	}
	if _, err := readCapped(nil, bytes.NewReader(body[:10]), 100, maxBytes); err != io.ErrUnexpectedEOF {
		t.Errorf("declared 100, sent 10: %v, want %v", err, io.ErrUnexpectedEOF)
	}
}

// chunkReader reads at most n bytes at a time.
type chunkReader struct {
	r io.Reader
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.n)]) }
