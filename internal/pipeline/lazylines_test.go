package pipeline

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/cardscan/cardscan/internal/report"
)

// TestLineChainOutOfOrder: chunks publish their counts of newlines in any
// order, and each chunk's first line is the count of every newline before
// it, plus one, once those are known; across several reuses of the slots.
func TestLineChainOutOfOrder(t *testing.T) {
	const inFlight, chunks = 4, 40
	var lc lineChain
	lc.init(inFlight)
	count := func(i int) int { return i*7%5 + i%3 } // 0 for some chunks
	want := make([]int, chunks)
	want[0] = 1
	for i := 1; i < chunks; i++ {
		want[i] = want[i-1] + count(i-1)
	}
	// Within each window of inFlight chunks, as the writer's recycling
	// allows, publish back to front, and ask for each first line once the
	// chunks before it have published.
	for base := 0; base < chunks; base += inFlight {
		for i := base + inFlight - 1; i >= base; i-- {
			lc.publish(i, count(i))
		}
		for i := base; i < base+inFlight; i++ {
			if got := lc.first(i); got != want[i] {
				t.Fatalf("chunk %d: first line %d, want %d", i, got, want[i])
			}
		}
	}
}

// TestLineChainWaits: a chunk's first line waits for the chunks before it
// to publish, whichever worker publishes last.
func TestLineChainWaits(t *testing.T) {
	var lc lineChain
	lc.init(6)
	lc.publish(2, 10)
	got := make(chan int)
	go func() { got <- lc.first(2) }()
	lc.publish(1, 4)
	select {
	case n := <-got:
		t.Fatalf("chunk 2's first line %d before chunk 0 published", n)
	default:
	}
	lc.publish(0, 3)
	if n := <-got; n != 8 {
		t.Errorf("chunk 2's first line %d, want 1 + 3 + 4", n)
	}
	if n := lc.first(3); n != 18 {
		t.Errorf("chunk 3's first line %d, want 8 + 10", n)
	}
}

// mappedCards is NDJSON of valid and invalid cards and blank lines, an
// unterminated last line, large enough to be mapped in many chunks.
func mappedCards(t *testing.T) (path string, input []byte) {
	t.Helper()
	var b bytes.Buffer
	for i := 0; b.Len() < 3<<20; i++ {
		switch i % 7 {
		case 3:
			b.WriteString(`{"name":1}` + "\n")
		case 5:
			b.WriteString("\n")
		default:
			b.WriteString(card + "\n")
		}
	}
	b.WriteString(card) // no newline
	input = b.Bytes()
	path = filepath.Join(t.TempDir(), "in.ndjson")
	if err := os.WriteFile(path, input, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, input
}

// TestUnshownLinesNotSearchedFirst: a run that shows no line number (no
// findings rendered, nothing extracted) judges a mapped chunk without a
// pass over its bytes to find its newlines first, which would cost a
// second read of every byte; a run that shows them finds them first, so
// that its workers need not wait for each other's judging. The counts are
// the same either way.
func TestUnshownLinesNotSearchedFirst(t *testing.T) {
	path, input := mappedCards(t)
	var mu sync.Mutex
	var searched, chunks int
	mappedChunkHook = func(c *chunk) {
		mu.Lock()
		defer mu.Unlock()
		if c.kind == kindLines {
			chunks++
			if len(c.ends) > 0 {
				searched++
			}
		}
	}
	t.Cleanup(func() { mappedChunkHook = nil })
	var ref Stats
	for _, tc := range []struct {
		name     string
		findings report.VerdictWriter
		shown    bool
	}{
		{"jsonl", jsonlTo(io.Discard, true), true},
		{"no findings writer", nil, false},
		{"--quiet", report.FormatNone.Writer(io.Discard, report.WriterOptions{}), false},
	} {
		searched, chunks = 0, 0
		st, err := Run(Config{Profile: "agentcard", Jobs: 2, ChunkSize: 64 << 10, Findings: tc.findings},
			[]Input{{Name: "in", Path: path}})
		if err != nil {
			t.Fatal(err)
		}
		if chunks < 10 {
			t.Fatalf("%s: %d mapped chunks, want the file mapped in many", tc.name, chunks)
		}
		if tc.shown && searched != chunks || !tc.shown && searched != 0 {
			t.Errorf("%s: %d of %d mapped chunks searched for their newlines before judging, want %v", tc.name, searched, chunks, tc.shown)
		}
		if want := int64(bytes.Count(input, nl) + 1 - bytes.Count(input, []byte("\n\n"))); st.Records != want {
			t.Errorf("%s: %d records, want %d", tc.name, st.Records, want)
		}
		if tc.shown {
			ref = st
		} else if st.Valid != ref.Valid || st.Invalid != ref.Invalid || st.Warnings != ref.Warnings {
			t.Errorf("%s: %d valid, %d invalid, %d warnings; with line numbers shown %d, %d, %d",
				tc.name, st.Valid, st.Invalid, st.Warnings, ref.Valid, ref.Invalid, ref.Warnings)
		}
	}
}

// TestUnshownLinesFaultLine: a mapped file cut short while a run that
// shows no line numbers judges it is reported at the line where judging
// stopped, which is counted only then.
func TestUnshownLinesFaultLine(t *testing.T) {
	input := bytes.Repeat([]byte(card+"\n"+`{"name":1}`+"\n"+"\n"), (3<<20)/(len(card)+13))
	page := int64(os.Getpagesize())
	for _, at := range []int{0, 1, 3, 9} {
		for _, jobs := range []int{2, 3} {
			path := filepath.Join(t.TempDir(), "in.ndjson")
			if err := os.WriteFile(path, input, 0o644); err != nil {
				t.Fatal(err)
			}
			truncateOnce(t, path, func(c *chunk) (int64, bool) {
				return c.offset + int64(len(c.buf))/2/page*page, c.chainAt == at
			})
			where := fmt.Sprintf("cut in chunk %d, -j %d", at, jobs)
			var diags []string
			st, err := Run(Config{Profile: "agentcard", Jobs: jobs, ChunkSize: 64 << 10,
				Diagnose: func(m string) { diags = append(diags, m) }},
				[]Input{{Name: "in", Path: path}})
			mappedChunkHook = nil
			if err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			if len(diags) != 1 || st.InputErrors != 1 {
				t.Fatalf("%s: diagnostics %q, %d input errors", where, diags, st.InputErrors)
			}
			m := faultNote.FindStringSubmatch(diags[0])
			if m == nil {
				t.Fatalf("%s: diagnostic %q", where, diags[0])
			}
			line, _ := strconv.Atoi(m[1])
			offset, _ := strconv.Atoi(m[2])
			if offset > 0 && input[offset-1] != '\n' || line != 1+bytes.Count(input[:offset], nl) {
				t.Fatalf("%s: stopped at line %d, offset %d: want a line start and its number", where, line, offset)
			}
			if want := int64(bytes.Count(input[:offset], nl) - bytes.Count(input[:offset], []byte("\n\n"))); st.Records != want {
				t.Errorf("%s: %d records judged, want the %d before offset %d", where, st.Records, want, offset)
			}
		}
	}
}
