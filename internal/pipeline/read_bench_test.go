package pipeline

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// BenchmarkReader runs the reader goroutine alone on a 32 MB file, the
// workers and the writer replaced by a loop that hands every chunk back
// at once: what the reader costs per byte, which at -j 2 shares the two
// cores with the workers. ndjson is the path of a plain NDJSON dump
// (read(2) into the chunk, cut at the last newline, lines counted);
// json-array the same cards as one JSON array, which the splitter also
// follows byte by byte.
func BenchmarkReader(b *testing.B) {
	ndjson, compact, _, _ := framingInputs(b)
	dir := b.TempDir()
	for _, tc := range []struct {
		name  string
		input []byte
	}{{"ndjson", ndjson}, {"json-array", compact}} {
		// About 32 MB, so that the chunks, not the start, dominate.
		input := bytes.Repeat(tc.input, max(1, 32<<20/len(tc.input)))
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, input, 0o600); err != nil {
			b.Fatal(err)
		}
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(input)))
			for b.Loop() {
				if n := readOnly(b, path); n != int64(len(input)) {
					b.Fatalf("the reader passed on %d bytes of %d", n, len(input))
				}
			}
		})
	}
}

// readOnly runs the reader on one input with chunks returned as soon as
// they are dispatched, and returns the bytes the chunks carried.
func readOnly(b *testing.B, path string) int64 {
	n, _ := readChunks(b, path)
	return n
}

// readChunks runs the reader alone on one input, as readOnly, and
// returns the bytes the chunks carried and how many chunks there were.
func readChunks(tb testing.TB, path string) (n int64, chunks int) {
	cfg := &Config{Profile: "agentcard", Jobs: 1, ChunkSize: DefaultChunkSize, MaxRecord: DefaultMaxRecord, Progress: new(Progress)}
	p := newPipeline(cfg)
	go func() {
		for c := range p.work {
			c.done <- struct{}{}
		}
	}()
	go p.read([]Input{{Name: "in", Path: path}})
	for c := range p.order {
		<-c.done
		if c.kind == kindDiagnostic {
			tb.Fatal(c.diag)
		}
		n += int64(len(c.buf))
		chunks++
		p.free <- c
	}
	return n, chunks
}

// TestCompressedFileFullChunks: a zstd file is read into full chunks. The
// decoder returns at most a block (128 KiB) a read; taking each short
// read for a pipe with no more for now cut a chunk after every block,
// eight times the hand-offs between the reader, the workers and the
// writer.
func TestCompressedFileFullChunks(t *testing.T) {
	input := bytes.Repeat([]byte(card+"\n"), 4*DefaultChunkSize/(len(card)+1))
	path := writeZstd(t, filepath.Join(t.TempDir(), "cards.ndjson.zst"), input)
	n, chunks := readChunks(t, path)
	if n != int64(len(input)) {
		t.Fatalf("the reader passed on %d bytes of %d", n, len(input))
	}
	// Four chunks' worth, each cut at its last whole line.
	if chunks > 5 {
		t.Errorf("%d bytes decompressed came in %d chunks of %d bytes at most; want at most 5", n, chunks, DefaultChunkSize)
	}
}

// chunkSizes runs the reader alone on one input with jobs workers'
// chunk sizing, and returns the bytes each chunk carried, in order.
func chunkSizes(t *testing.T, path string, jobs, chunkSize int) []int {
	t.Helper()
	cfg := &Config{Profile: "agentcard", Jobs: jobs, ChunkSize: chunkSize, MaxRecord: DefaultMaxRecord, Progress: new(Progress)}
	p := newPipeline(cfg)
	go func() {
		for c := range p.work {
			c.done <- struct{}{}
		}
	}()
	go p.read([]Input{{Name: "in", Path: path}})
	var sizes []int
	for c := range p.order {
		<-c.done
		if c.kind == kindDiagnostic {
			t.Fatal(c.diag)
		}
		sizes = append(sizes, len(c.buf))
		p.free <- c
	}
	return sizes
}

// TestChunksRampAndTail: with two workers, a large file's first chunks
// are small, so that both workers start within microseconds rather than
// after a chunk's read each, and its last chunks shrink with what is
// left, so that the workers finish together rather than one judging the
// last full chunk alone. One worker reads full chunks throughout: it has
// no one to wait for.
func TestChunksRampAndTail(t *testing.T) {
	const chunkSize = 64 << 10
	input := bytes.Repeat([]byte(card+"\n"), 16*chunkSize/(len(card)+1))
	path := filepath.Join(t.TempDir(), "cards.ndjson")
	if err := os.WriteFile(path, input, 0o600); err != nil {
		t.Fatal(err)
	}
	checkRampAndTail(t, path, len(input), chunkSize, len(card)+1)
}

// TestCompressedChunksRampAndTail: a compressed file's chunks are sized
// as a plain file's are at -j 2, its decompressed size estimated from its
// stored size and the ratio so far: small first chunks, so that the
// second worker does not wait for the decompressor to fill two whole
// chunks, and small last ones, so that one worker does not judge the
// last whole chunk alone.
func TestCompressedChunksRampAndTail(t *testing.T) {
	const chunkSize = 64 << 10
	// Lines that compress about 2:1, so that the stored file is several
	// chunks long too.
	r := rand.New(rand.NewPCG(3, 4))
	var b bytes.Buffer
	for b.Len() < 16*chunkSize {
		fmt.Fprintf(&b, `{"x":"%x"}`+"\n", r.Uint64())
	}
	input := b.Bytes()
	path := writeZstd(t, filepath.Join(t.TempDir(), "lines.ndjson.zst"), input)
	checkRampAndTail(t, path, len(input), chunkSize, 100)
}

// checkRampAndTail reads path at -j 1 and -j 2 in chunks of chunkSize and
// checks that all size bytes arrive, that -j 1 reads full chunks (within
// the longest line, maxLine, that a cut may leave out) and that -j 2's
// first chunk and last two are small.
func checkRampAndTail(t *testing.T, path string, size, chunkSize, maxLine int) {
	t.Helper()
	for _, jobs := range []int{1, 2} {
		sizes := chunkSizes(t, path, jobs, chunkSize)
		total := 0
		for _, n := range sizes {
			total += n
			if n > chunkSize {
				t.Errorf("-j %d: a chunk of %d bytes, over the chunk size %d", jobs, n, chunkSize)
			}
		}
		if total != size {
			t.Fatalf("-j %d: the chunks carried %d bytes of %d", jobs, total, size)
		}
		first, last := sizes[0], sizes[len(sizes)-1]
		if jobs == 1 {
			if first < chunkSize-maxLine {
				t.Errorf("-j 1: first chunk %d bytes, want a full chunk of %d", first, chunkSize)
			}
			continue
		}
		if first > chunkSize/8 {
			t.Errorf("-j 2: first chunk %d bytes, want at most %d (sizes %v)", first, chunkSize/8, sizes)
		}
		if end := last + sizes[len(sizes)-2]; end > chunkSize/4 {
			t.Errorf("-j 2: last two chunks %d bytes, want at most %d (sizes %v)", end, chunkSize/4, sizes)
		}
	}
}

// writeZstd writes input, zstd-compressed, to path and returns path.
func writeZstd(tb testing.TB, path string, input []byte) string {
	tb.Helper()
	return writeCompressed(tb, path, input, func(w io.Writer) (io.WriteCloser, error) { return zstd.NewWriter(w) })
}

// writeCompressed writes input through the writer compress makes to
// path and returns path.
func writeCompressed(tb testing.TB, path string, input []byte, compress func(io.Writer) (io.WriteCloser, error)) string {
	tb.Helper()
	var z bytes.Buffer
	enc, err := compress(&z)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := enc.Write(input); err != nil {
		tb.Fatal(err)
	}
	if err := enc.Close(); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, z.Bytes(), 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}
