package pipeline

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"testing"

	"github.com/cardscan/cardscan/internal/gzipstream"
)

// TestGzipMembersPadding reads, with one set of decoders as a run reuses
// them, streams whose members are followed by nothing, by NUL bytes, or
// by other bytes: the padding is counted for each stream alone, the
// decompressed bytes are the members' whatever follows, and anything but
// NULs is gzipstream.ErrTrailing.
func TestGzipMembersPadding(t *testing.T) {
	member := func(s string) []byte {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write([]byte(s))
		w.Close()
		return b.Bytes()
	}
	two := append(member("{\"a\":1}\n"), member("{\"b\":2}\n")...)
	var dec decoders
	for _, tc := range []struct {
		name   string
		stream []byte
		zeros  int64
		err    error
	}{
		{"padded", append(bytes.Clone(two), make([]byte, 200<<10)...), 200 << 10, nil},
		{"not padded", two, 0, nil},
		{"one zero", append(bytes.Clone(two), 0), 1, nil},
		{"zeros then a byte", append(append(bytes.Clone(two), make([]byte, 100<<10)...), 1), 0, gzipstream.ErrTrailing},
		{"half a magic", append(bytes.Clone(two), 0x1f), 0, gzipstream.ErrTrailing},
		{"a member header cut short", append(bytes.Clone(two), member("x")[:5]...), 0, io.ErrUnexpectedEOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, compression, err := dec.open(bytes.NewReader(tc.stream))
			if err != nil || compression != "gzip" {
				t.Fatalf("open: %q, %v", compression, err)
			}
			got, err := io.ReadAll(r)
			if !errors.Is(err, tc.err) {
				t.Errorf("error %v, want %v", err, tc.err)
			}
			if string(got) != "{\"a\":1}\n{\"b\":2}\n" {
				t.Errorf("read %q, want both members", got)
			}
			if tc.err == nil && dec.gzip.Zeros() != tc.zeros {
				t.Errorf("%d zero bytes counted, want %d", dec.gzip.Zeros(), tc.zeros)
			}
		})
	}
}
