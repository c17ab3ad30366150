package pipeline

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// newlinesOf is indexNewlines' reference: how many newlines b holds, and
// the places of as many of the first as it keeps.
func newlinesOf(b []byte) (n int, first []int32) {
	for i, c := range b {
		if c == '\n' {
			if n < len(b)/lineEndsPer {
				first = append(first, int32(i))
			}
			n++
		}
	}
	return n, first
}

func TestIndexNewlines(t *testing.T) {
	tiny := bytes.Repeat([]byte("1\n\n{}\r\n"), 1000) // three lines a repeat, too many to keep
	long := []byte(strings.Repeat(strings.Repeat("x", 100)+"\n", 100))
	for _, b := range [][]byte{
		nil, []byte("\n"), []byte("no newline"), []byte("a\nb"), []byte("a\n\n\nb\n"),
		[]byte(strings.Repeat("x", 100) + "\n" + strings.Repeat("y", 70)),
		tiny, tiny[:1000], tiny[:len(tiny)-1], long, long[:len(long)-1],
	} {
		// A buffer holding another chunk's places first, as a reused
		// chunk's does.
		stale := []int32{5, 9, 13}
		n, ends := indexNewlines(b, stale)
		wantN, wantEnds := newlinesOf(b)
		if n != wantN || !slices.Equal(ends, wantEnds) {
			t.Errorf("%d bytes: %d newlines, %d places kept; want %d and %d", len(b), n, len(ends), wantN, len(wantEnds))
		}
	}
}

// TestReadChunksCarryLineEnds: a chunk the reader cuts from NDJSON comes
// with the places of its newlines, found by the pass that counts them,
// so that its worker cuts its lines without searching for them again;
// from a file, the zstd copy of one and a pipe alike, and in chunks that
// are reused for the next input.
func TestReadChunksCarryLineEnds(t *testing.T) {
	var b bytes.Buffer
	for i := 0; b.Len() < 3*DefaultChunkSize; i++ {
		switch i % 5 {
		case 0:
			b.WriteString(card + "\n")
		case 1:
			b.WriteString("\n")
		case 2:
			b.WriteString("{}\r\n")
		case 3:
			b.WriteString(strings.Repeat(" ", i%300) + "1\n")
		default:
			b.WriteString("[]\n")
		}
	}
	b.WriteString(card) // a last line without a newline
	input := b.Bytes()
	dir := t.TempDir()
	plain := filepath.Join(dir, "in.ndjson")
	if err := os.WriteFile(plain, input, 0o600); err != nil {
		t.Fatal(err)
	}
	compressed := writeZstd(t, filepath.Join(dir, "in.ndjson.zst"), input)
	for _, tc := range []struct {
		name   string
		inputs []Input
		stdin  []byte
	}{
		{"file", []Input{{Name: "a", Path: plain}, {Name: "b", Path: plain}}, nil},
		{"zstd", []Input{{Name: "a", Path: compressed}}, nil},
		{"stdin", []Input{{Name: "-"}}, input},
	} {
		cfg := &Config{Profile: "agentcard", Jobs: 1, ChunkSize: 256 << 10, MaxRecord: DefaultMaxRecord, Progress: new(Progress)}
		if tc.stdin != nil {
			cfg.Stdin = bytes.NewReader(tc.stdin)
		}
		p := newPipeline(cfg)
		go func() {
			for c := range p.work {
				c.done <- struct{}{}
			}
		}()
		go p.read(tc.inputs)
		var carried int64
		for c := range p.order {
			<-c.done
			if c.kind == kindDiagnostic {
				t.Fatal(c.diag)
			}
			_, want := newlinesOf(c.buf)
			if c.kind != kindLines || !slices.Equal(c.ends, want) {
				t.Errorf("%s: a chunk of kind %d at line %d carries %d newline places; want %d", tc.name, c.kind, c.line, len(c.ends), len(want))
			}
			carried += int64(len(c.buf))
			p.free <- c
		}
		if want := int64(len(input) * len(tc.inputs)); carried != want {
			t.Errorf("%s: the chunks carried %d bytes of %d", tc.name, carried, want)
		}
	}
}

// TestRecycleDropsGrownLineEnds: a chunk grown for a long record may
// have kept the places of the many short lines read after it; like its
// bytes, they are let go of when it is recycled, so that the chunks in
// flight keep what the memory bound says.
func TestRecycleDropsGrownLineEnds(t *testing.T) {
	cfg := &Config{Profile: "agentcard", Jobs: 1, ChunkSize: 64 << 10, MaxRecord: DefaultMaxRecord, Progress: new(Progress)}
	p := newPipeline(cfg)
	for _, n := range []int{cfg.ChunkSize / lineEndsPer, 64 * cfg.ChunkSize / lineEndsPer} {
		c := <-p.free
		c.ends = make([]int32, 0, n)
		p.recycle(c)
		kept := cap(c.ends) > 0
		if want := n <= 4*cfg.ChunkSize/lineEndsPer; kept != want {
			t.Errorf("room for %d line ends: kept %v, want %v", n, kept, want)
		}
	}
}

// FuzzReadFramingMatchesReference: NDJSON read through a pipe in chunks
// of any size, their lines cut by the places the reader kept (and past
// them, by searching), gives the verdicts and out files of a line-by-line
// reference.
func FuzzReadFramingMatchesReference(f *testing.F) {
	f.Add([]byte(card+"\n\n{}\r\n"+card), uint16(16), uint16(64), uint8(1))
	f.Add([]byte(strings.Repeat("\n", 300)+card+"\n1\n"), uint16(40), uint16(300), uint8(2))
	f.Fuzz(func(t *testing.T, input []byte, chunk, maxRecord uint16, jobs uint8) {
		if len(input) > 1<<16 {
			return
		}
		chunkSize, limit, j := 16+int(chunk)%4096, 64+int(maxRecord)%4096, 1+int(jobs)%3
		var out, valid, invalid bytes.Buffer
		_, err := Run(Config{
			Profile: "agentcard", Jobs: j, ChunkSize: chunkSize, MaxRecord: limit,
			All: true, Findings: jsonlTo(&out, true), ValidOut: &valid, InvalidOut: &invalid,
			Stdin: iotest.HalfReader(bytes.NewReader(input)),
		}, []Input{{Name: "in", Framing: FramingNDJSON}})
		if err != nil {
			t.Fatal(err)
		}
		wantOut, wantValid, wantInvalid := reference(input, limit)
		if out.String() != string(wantOut) || !bytes.Equal(valid.Bytes(), wantValid) || !bytes.Equal(invalid.Bytes(), wantInvalid) {
			t.Fatalf("chunk %d, max record %d, -j %d: verdicts or out files differ\n got %s\nwant %s", chunkSize, limit, j, out.String(), wantOut)
		}
	})
}

// TestIndexNewlinesKeepsASixteenth: the places a chunk keeps take a
// sixteenth of its size at most, as the memory bound in docs/cli.md
// counts them, however many lines it holds and whatever room its slice
// had before. append's growth rounds past what is needed (a third more
// for a 64 KiB chunk), and a chunk in flight keeps that room.
func TestIndexNewlinesKeepsASixteenth(t *testing.T) {
	for _, size := range []int{4 << 10, 64 << 10, 100_000, 1 << 20, 4 << 20} {
		for _, line := range []string{"\n", "{}\n", "{}\r\n"} {
			b := bytes.Repeat([]byte(line), size/len(line))
			for _, room := range []int{0, 7, len(b)/lineEndsPer - 1} {
				_, ends := indexNewlines(b, make([]int32, 0, room))
				if held := 4 * cap(ends); held > max(len(b)/16, 4*room) {
					t.Errorf("%d bytes of %q lines, room for %d places: %d bytes of places, over a sixteenth (%d)",
						len(b), line, room, held, len(b)/16)
				}
			}
		}
	}
}
