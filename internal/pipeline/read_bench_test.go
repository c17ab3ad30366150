package pipeline

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
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
	cfg := &Config{Profile: "agentcard", Jobs: 1, ChunkSize: DefaultChunkSize, MaxRecord: DefaultMaxRecord, Progress: new(Progress)}
	p := newPipeline(cfg)
	go func() {
		for c := range p.work {
			c.done <- struct{}{}
		}
	}()
	go p.read([]Input{{Name: "in", Path: path}})
	var n int64
	for c := range p.order {
		<-c.done
		if c.kind == kindDiagnostic {
			b.Fatal(c.diag)
		}
		n += int64(len(c.buf))
		p.free <- c
	}
	return n
}
