package gzipstream

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"testing"
)

// TestReaderEnds reads streams written by the standard library's gzip
// writer, an implementation apart from the reader's: members followed by
// nothing, by NUL bytes of any length (read through, counted), or by
// anything else (ErrTrailing, after every byte of the members).
func TestReaderEnds(t *testing.T) {
	member := func(s string) []byte {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write([]byte(s))
		w.Close()
		return b.Bytes()
	}
	two := append(member("one\n"), member("two\n")...)
	var r Reader
	for _, tc := range []struct {
		name   string
		stream []byte
		zeros  int64
		err    error
	}{
		{"two members", two, 0, nil},
		{"padded to a tar block", append(bytes.Clone(two), make([]byte, 10240-len(two))...), int64(10240 - len(two)), nil},
		{"padding past the buffer", append(bytes.Clone(two), make([]byte, 1<<20)...), 1 << 20, nil},
		{"one zero", append(bytes.Clone(two), 0), 1, nil},
		{"garbage", append(bytes.Clone(two), "trailing"...), 0, ErrTrailing},
		{"zeros then garbage", append(append(bytes.Clone(two), make([]byte, 9000)...), 'x'), 0, ErrTrailing},
		{"half a magic", append(bytes.Clone(two), 0x1f), 0, ErrTrailing},
		{"a member header cut short", append(bytes.Clone(two), member("x")[:5]...), 0, io.ErrUnexpectedEOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := r.Reset(bufio.NewReaderSize(bytes.NewReader(tc.stream), 4096)); err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(&r)
			if string(got) != "one\ntwo\n" {
				t.Errorf("read %q, want both members", got)
			}
			if !errors.Is(err, tc.err) {
				t.Errorf("error %v, want %v", err, tc.err)
			}
			if tc.err == nil && r.Zeros() != tc.zeros {
				t.Errorf("%d zero bytes counted, want %d", r.Zeros(), tc.zeros)
			}
		})
	}
}
