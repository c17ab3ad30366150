package pipeline

import (
	"bufio"
	"bytes"
	"io"
	"math"
)

// NDJSON framing, in one place for the pipeline's workers, which cut lines
// out of chunks, and for cardscan serve, which reads a request body as a
// stream of lines with LineReader:
//
//   - a line ends at '\n'; the last one may have none;
//   - its record is the line without that '\n' and a '\r' before it;
//   - a line of JSON white space alone holds no record (BlankRecord);
//   - a line whose bytes, '\r' included and '\n' not, exceed the record
//     bound is too large;
//   - lines are numbered from 1, blank ones included.

// LineRecord returns the record of line, one line with or without its
// '\n', and size, the line's length that the record bound applies to.
func LineRecord(line []byte) (rec []byte, size int) {
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
	}
	size = len(line)
	if size > 0 && line[size-1] == '\r' {
		line = line[:size-1]
	}
	return line, size
}

// BlankRecord reports whether rec holds only JSON white space: its line
// carries no card.
func BlankRecord(rec []byte) bool {
	for _, c := range rec {
		if !isSpace(c) {
			return false
		}
	}
	return true
}

// LineReader reads the lines of a stream one at a time, framed as the
// pipeline frames them. A line that fits in the read buffer is returned in
// it; a longer one is copied out as it grows, up to the record bound, and
// past that only counted, so that a line costs at most the bound in
// memory however long it is.
type LineReader struct {
	br  *bufio.Reader
	buf []byte // a line longer than br's buffer
}

// NewLineReader reads r through a buffer of size bytes.
func NewLineReader(r io.Reader, size int) *LineReader {
	return &LineReader{br: bufio.NewReaderSize(r, size)}
}

// Reset reads r from now on, as a new stream; nil lets go of the last.
func (lr *LineReader) Reset(r io.Reader) {
	lr.br.Reset(r)
	lr.buf = lr.buf[:0]
}

// Buffered is how many bytes of the stream are read but not yet returned:
// 0 means the next Next waits for the stream.
func (lr *LineReader) Buffered() int { return lr.br.Buffered() }

// LongLineCap is the capacity of the buffer long lines were copied to, for
// a caller that keeps readers for reuse and would not keep a large one.
func (lr *LineReader) LongLineCap() int { return cap(lr.buf) }

// Next reads the next line. rec is its record, valid until the next call;
// n counts the bytes consumed, '\n' included; tooLarge says the line is
// longer than limit bytes, in which case rec is not the record. grow is
// asked before the long-line buffer grows to hold n bytes; an error from
// it ends Next with that error, the line consumed in part. err is the
// stream's otherwise: io.EOF comes with the last line when it has no
// '\n' (n > 0), or alone at the end.
func (lr *LineReader) Next(limit int64, grow func(n int) error) (rec []byte, n int64, tooLarge bool, err error) {
	frag, err := lr.br.ReadSlice('\n')
	n = int64(len(frag))
	line := frag
	if err == bufio.ErrBufferFull {
		if gerr := grow(len(frag)); gerr != nil {
			return nil, n, false, gerr
		}
		lr.buf = append(lr.buf[:0], frag...)
		for err == bufio.ErrBufferFull {
			frag, err = lr.br.ReadSlice('\n')
			n += int64(len(frag))
			if !tooLarge && int64(len(lr.buf)+len(frag)) > limit+1 {
				tooLarge = true
				lr.buf = lr.buf[:0]
			}
			if tooLarge {
				continue
			}
			if len(lr.buf)+len(frag) > cap(lr.buf) {
				if gerr := grow(max(len(lr.buf)+len(frag), 2*cap(lr.buf))); gerr != nil {
					return nil, n, false, gerr
				}
			}
			lr.buf = append(lr.buf, frag...)
		}
		line = lr.buf
	}
	rec, size := LineRecord(line)
	return rec, n, tooLarge || int64(size) > limit, err
}

// lineEndsPer is the bytes of a chunk per newline place it keeps at most:
// the places, 4 bytes each, then take a sixteenth of the chunk's size at
// most, and a chunk of lines shorter than that on average has the rest
// found again as it is judged.
const lineEndsPer = 64

// indexNewlines returns how many newlines b holds and the places of the
// first len(b)/lineEndsPer of them, appended to ends[:0]: one pass over b
// gives both the count that numbers the next chunk's lines and the ends
// that cut this chunk's. A b too long for int32 places is only counted.
func indexNewlines(b []byte, ends []int32) (int, []int32) {
	ends = ends[:0]
	if len(b) > math.MaxInt32 {
		return bytes.Count(b, nl), ends
	}
	keep := len(b) / lineEndsPer
	for i := 0; ; i++ {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			return len(ends), ends
		}
		i += j
		if len(ends) == keep {
			return len(ends) + 1 + bytes.Count(b[i+1:], nl), ends
		}
		if len(ends) == cap(ends) {
			// Grown by hand: append's growth would round past keep, and
			// the memory bound counts a sixteenth of the chunk.
			grown := make([]int32, len(ends), min(keep, max(2*cap(ends), 256)))
			copy(grown, ends)
			ends = grown
		}
		ends = append(ends, int32(i))
	}
}
