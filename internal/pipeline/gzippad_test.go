package pipeline

import (
	"bytes"
	"compress/gzip"
	"io"
	"testing"
)

// TestDecodersGzipPerStream: a run reuses one set of decoders for all its
// inputs, and a gzip stream's padding is counted for that stream alone
// (gzipstream's own test covers how a stream ends).
func TestDecodersGzipPerStream(t *testing.T) {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte("{\"a\":1}\n"))
	w.Close()
	var dec decoders
	for _, tc := range []struct {
		stream []byte
		zeros  int64
	}{
		{append(bytes.Clone(b.Bytes()), make([]byte, 200<<10)...), 200 << 10},
		{b.Bytes(), 0},
		{append(bytes.Clone(b.Bytes()), 0, 0, 0), 3},
	} {
		r, compression, err := dec.open(bytes.NewReader(tc.stream))
		if err != nil || compression != "gzip" {
			t.Fatalf("open: %q, %v", compression, err)
		}
		got, err := io.ReadAll(r)
		if err != nil || string(got) != "{\"a\":1}\n" || dec.gzip.Zeros() != tc.zeros {
			t.Errorf("read %q, %v, %d zero bytes counted; want the member, no error, %d", got, err, dec.gzip.Zeros(), tc.zeros)
		}
	}
}
