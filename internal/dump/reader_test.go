package dump

import (
	"encoding/binary"
	"testing"
)

// TestReaderUvarint holds reader.uvarint's short cuts to binary.Uvarint:
// every value of one to four bytes, written minimally and not, whole and
// cut short, reads as binary.Uvarint reads it and leaves the same rest.
func TestReaderUvarint(t *testing.T) {
	var encodings [][]byte
	for _, v := range []uint64{0, 1, 127, 128, 129, 255, 300, 16383, 16384, 16385, 1<<21 - 1, 1 << 21, 1<<28 - 1, 1 << 40} {
		encodings = append(encodings, binary.AppendUvarint(nil, v))
	}
	// Not minimal: binary.Uvarint takes them, and so must the reader.
	encodings = append(encodings, []byte{0x80, 0x00}, []byte{0xff, 0x80, 0x00}, []byte{0x80})
	for _, enc := range encodings {
		for _, tail := range [][]byte{nil, {7}, {0x80, 1}} {
			b := append(append([]byte(nil), enc...), tail...)
			for cut := 0; cut <= len(b); cut++ {
				in := b[:cut]
				want, n := binary.Uvarint(in)
				r := reader{b: in}
				got := r.uvarint()
				switch {
				case n <= 0 && !r.bad:
					t.Errorf("% x: read %d, want it bad", in, got)
				case n > 0 && (r.bad || got != want || len(r.rest()) != len(in)-n):
					t.Errorf("% x: read %d (bad %v, %d left), want %d (%d left)", in, got, r.bad, len(r.rest()), want, len(in)-n)
				}
			}
		}
	}
}
