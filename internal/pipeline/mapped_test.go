package pipeline

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/klauspost/compress/gzip"
)

// mappedInput builds random NDJSON of at least size bytes.
func mappedInput(r *rand.Rand, size int) []byte {
	var b []byte
	for len(b) < size {
		if r.IntN(8) == 0 {
			// Longer than most chunks and record bounds below.
			b = append(b, `{"padding":"`+strings.Repeat("y", r.IntN(200<<10))+`"}`+"\n"...)
		}
		b = append(b, randomInput(r)...)
		if len(b) > 0 && b[len(b)-1] != '\n' {
			b = append(b, '\n')
		}
	}
	if r.IntN(2) == 0 {
		b = append(b, card...) // no final newline
	}
	return b
}

// watchMapping counts the inputs mapped while the test runs, and calls
// then on each if it is not nil.
func watchMapping(t *testing.T, then func(Input)) *int {
	n := new(int)
	mappedHook = func(in Input) {
		*n++
		if then != nil {
			then(in)
		}
	}
	t.Cleanup(func() { mappedHook = nil })
	return n
}

// TestMappedMatchesReference: a file large enough to be mapped is judged
// as the line-by-line reference judges it, at every chunk size, record
// bound (too-large lines pass to --invalid-out in pieces) and -j.
func TestMappedMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	mapped := watchMapping(t, nil)
	dir := t.TempDir()
	for i := range 24 {
		input := mappedInput(r, mapMinSize+r.IntN(1<<20))
		path := filepath.Join(dir, fmt.Sprintf("in%d.ndjson", i))
		if err := os.WriteFile(path, input, 0o644); err != nil {
			t.Fatal(err)
		}
		chunk := 1024 + r.IntN(256<<10)
		maxRecord := 64 + r.IntN(4096)
		if i%3 == 0 {
			chunk, maxRecord = 1024+r.IntN(4096), 64+r.IntN(300<<10)
		}
		jobs := 2 + r.IntN(3)
		var out, valid, invalid bytes.Buffer
		before := *mapped
		st, err := Run(Config{
			Profile: "agentcard", Jobs: jobs, ChunkSize: chunk, MaxRecord: maxRecord,
			All: true, Findings: jsonlTo(&out, true), ValidOut: &valid, InvalidOut: &invalid,
		}, []Input{{Name: "in", Path: path, Framing: FramingNDJSON}})
		if err != nil {
			t.Fatal(err)
		}
		if *mapped != before+1 {
			t.Fatalf("input %d (%d bytes) was not mapped", i, len(input))
		}
		wantOut, wantValid, wantInvalid := reference(input, maxRecord)
		where := fmt.Sprintf("input %d (%d bytes), chunk %d, max record %d, -j %d", i, len(input), chunk, maxRecord, jobs)
		if out.String() != string(wantOut) {
			t.Fatalf("%s: verdicts differ", where)
		}
		if !bytes.Equal(valid.Bytes(), wantValid) || !bytes.Equal(invalid.Bytes(), wantInvalid) {
			t.Fatalf("%s: out files differ", where)
		}
		if st.BytesRead != int64(len(input)) || st.BytesDecompressed != int64(len(input)) ||
			st.Records != int64(bytes.Count(wantOut, nl)) || st.InputErrors != 0 || st.Framings["ndjson"] != 1 {
			t.Fatalf("%s: stats %+v", where, st)
		}
	}
}

// TestMappedMaxInvalid: --max-invalid stops a mapped input where it stops
// the same bytes read from a pipe.
func TestMappedMaxInvalid(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	input := mappedInput(r, mapMinSize)
	path := filepath.Join(t.TempDir(), "in.ndjson")
	if err := os.WriteFile(path, input, 0o644); err != nil {
		t.Fatal(err)
	}
	mapped := watchMapping(t, nil)
	run := func(in Input) (string, Stats) {
		var out bytes.Buffer
		st, err := Run(Config{Profile: "agentcard", Jobs: 2, ChunkSize: 8 << 10, MaxInvalid: 100, All: true,
			Findings: jsonlTo(&out, true), Stdin: bytes.NewReader(input)}, []Input{in})
		if err != nil {
			t.Fatal(err)
		}
		return out.String(), st
	}
	gotOut, got := run(Input{Name: "in", Path: path, Framing: FramingNDJSON})
	wantOut, want := run(Input{Name: "in", Framing: FramingNDJSON})
	if *mapped != 1 || gotOut != wantOut || got.Records != want.Records || got.Invalid != 100 || !got.Stopped {
		t.Errorf("mapped %d: %d records, %d invalid, stopped %v; read: %d records", *mapped, got.Records, got.Invalid, got.Stopped, want.Records)
	}
}

var faultNote = regexp.MustCompile(`^in: line (\d+), offset (\d+) \(\d+ bytes read as stored\): reading: the file was truncated while it was read; the rest of the input was not judged$`)

// judgeCutShort judges the file at path, which is cut short while it is
// judged, in 64 KiB chunks, and checks that the run reports one failed
// input; it returns the run's counts, its JSONL verdicts and the line
// and offset the diagnostic says judging stopped at.
func judgeCutShort(t *testing.T, path string, jobs int, where string) (st Stats, out *bytes.Buffer, line, offset int) {
	t.Helper()
	out = new(bytes.Buffer)
	var diags []string
	st, err := Run(Config{Profile: "agentcard", Jobs: jobs, ChunkSize: 64 << 10, All: true,
		Findings: jsonlTo(out, true), Diagnose: func(m string) { diags = append(diags, m) }},
		[]Input{{Name: "in", Path: path}})
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
	line, _ = strconv.Atoi(m[1])
	offset, _ = strconv.Atoi(m[2])
	return st, out, line, offset
}

// TestMappedFileTruncated: a mapped file cut short after it was mapped,
// before the workers read it, makes no crash: the lines it still holds
// are judged up to a line start the diagnostic names, none after it, and
// the input counts as unreadable, as a failed read does.
func TestMappedFileTruncated(t *testing.T) {
	input := bytes.Repeat([]byte(card+"\n"+`{"name":1}`+"\n"), (3<<20)/(len(card)+12))
	page := os.Getpagesize()
	for _, keep := range []int{0, 100, 64 << 10, 1<<20 + 7, 2 << 20, len(input) - 3, len(input) - page - 5} {
		for _, jobs := range []int{2, 3} {
			path := filepath.Join(t.TempDir(), "in.ndjson")
			if err := os.WriteFile(path, input, 0o644); err != nil {
				t.Fatal(err)
			}
			watchMapping(t, func(Input) {
				if err := os.Truncate(path, int64(keep)); err != nil {
					t.Error(err)
				}
			})
			where := fmt.Sprintf("%d of %d bytes kept, -j %d", keep, len(input), jobs)
			st, out, line, offset := judgeCutShort(t, path, jobs, where)
			if offset > keep || offset > 0 && input[offset-1] != '\n' || line != 1+bytes.Count(input[:offset], nl) {
				t.Fatalf("%s: stopped at line %d, offset %d: not a line start within what was kept", where, line, offset)
			}
			if offset < keep-2*(64<<10) {
				t.Errorf("%s: stopped at offset %d, more than two chunks before the end", where, offset)
			}
			if want := int64(bytes.Count(input[:offset], nl)); st.Records != want || int64(strings.Count(out.String(), "\n")) != want {
				t.Errorf("%s: %d records judged and %d written, want the %d before offset %d", where, st.Records, strings.Count(out.String(), "\n"), want, offset)
			}
		}
	}
}

// TestWhatIsMapped: only a regular, uncompressed NDJSON file of
// mapMinSize bytes or more, judged by two workers or more, is mapped;
// every other input is read, and judged the same.
func TestWhatIsMapped(t *testing.T) {
	dir := t.TempDir()
	lines := bytes.Repeat([]byte(card+"\n"), (2<<20)/(len(card)+1))
	var gz bytes.Buffer
	zw, err := gzip.NewWriterLevel(&gz, gzip.NoCompression)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(lines)
	zw.Close()
	array := append(append([]byte("["), bytes.ReplaceAll(lines[:len(lines)-1], nl, []byte(","))...), ']')
	for _, tc := range []struct {
		name    string
		content []byte
		jobs    int
		mapped  bool
	}{
		{"large", lines, 2, true},
		{"one worker", lines, 1, false},
		{"small", lines[:(mapMinSize/(len(card)+1))*(len(card)+1)], 2, false},
		{"gzip", gz.Bytes(), 2, false},
		{"array", array, 2, false},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-"))
		if err := os.WriteFile(path, tc.content, 0o644); err != nil {
			t.Fatal(err)
		}
		mapped := watchMapping(t, nil)
		st, err := Run(Config{Profile: "agentcard", Jobs: tc.jobs}, []Input{{Name: path, Path: path}})
		if err != nil {
			t.Fatal(err)
		}
		want := int64(bytes.Count(tc.content, []byte(`"agent_id"`)))
		if tc.name == "gzip" {
			want = int64(bytes.Count(lines, nl))
		}
		if (*mapped == 1) != tc.mapped || st.Valid != want || st.Records != want {
			t.Errorf("%s: mapped %v, want %v; %d of %d records valid, want %d", tc.name, *mapped == 1, tc.mapped, st.Valid, st.Records, want)
		}
	}
}

// TestMappedFileTruncatedWhileJudged: a file cut short after a worker
// counted a chunk's lines, before it judged them, faults in the middle of
// a page, where the bytes before the fault are gone too. The chunk is cut
// before that page, and what was judged before the cut stays written.
func TestMappedFileTruncatedWhileJudged(t *testing.T) {
	t.Cleanup(func() { mappedChunkHook = nil })
	input := bytes.Repeat([]byte(card+"\n"+`{"name":1}`+"\n"), (3<<20)/(len(card)+12))
	page := int64(os.Getpagesize())
	for _, at := range []int{1, 3, 9} {
		for _, jobs := range []int{2, 3} {
			for _, keep := range []struct {
				name string
				size func(start int64) int64
			}{
				// The chunk's first page is gone: its first byte faults, in
				// the middle of the page.
				{"page", func(start int64) int64 { return start - start%page }},
				// The chunk's first page is kept in part, and reads as zeros
				// after the end: only its size tells.
				{"bytes", func(start int64) int64 { return start - 3 }},
			} {
				path := filepath.Join(t.TempDir(), "in.ndjson")
				if err := os.WriteFile(path, input, 0o644); err != nil {
					t.Fatal(err)
				}
				truncateOnce(t, path, func(c *chunk) (int64, bool) { return keep.size(c.offset), c.chainAt == at })
				where := fmt.Sprintf("cut by %s before chunk %d, -j %d", keep.name, at, jobs)
				st, out, line, offset := judgeCutShort(t, path, jobs, where)
				mappedChunkHook = nil
				if offset > 0 && input[offset-1] != '\n' || line != 1+bytes.Count(input[:offset], nl) {
					t.Fatalf("%s: stopped at line %d, offset %d: not a line start", where, line, offset)
				}
				if want := int64(bytes.Count(input[:offset], nl)); st.Records != want || int64(strings.Count(out.String(), "\n")) != want {
					t.Errorf("%s: %d records judged and %d written, want the %d before offset %d", where, st.Records, strings.Count(out.String(), "\n"), want, offset)
				}
			}
		}
	}
}

type faultAt uintptr

func (f faultAt) Addr() uintptr { return uintptr(f) }

// TestMappedFaultInsideLostPage: a page the file lost while a worker
// scanned it faults where the scan was, in the middle of the page, and
// the bytes before that in the page are gone too. Cutting the chunk
// there scanned them back to front and faulted again, outside any
// recover: a crash seen when a file was truncated under a run.
func TestMappedFaultInsideLostPage(t *testing.T) {
	page := os.Getpagesize()
	input := bytes.Repeat([]byte(card+"\n"), 4*page/(len(card)+1))
	m, path := mapForTest(t, input)
	data := m.data
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	if err := os.Truncate(path, int64(page)); err != nil {
		t.Fatal(err)
	}
	inside := faultAt(uintptr(unsafe.Pointer(&data[0])) + uintptr(2*page+100))
	at, ok := m.faultOffset(inside)
	if !ok || at != int64(2*page) {
		t.Fatalf("a fault at 2 pages + 100 bytes is placed at %d (%v), want the page's start %d", at, ok, 2*page)
	}
	c := &chunk{kind: kindLines, buf: data, mapped: m}
	c.cutAt(int64(2*page + 100))
	if want := bytes.LastIndexByte(input[:page], '\n') + 1; len(c.buf) != want || !c.fault {
		t.Errorf("cut at %d bytes (fault %v), want %d: the last line end before the file's end", len(c.buf), c.fault, want)
	}
}

// TestMappedWriteIsNoTruncation: a fault on a page the file still has
// (a write into the read-only mapping) is the program's own, not a
// truncation to report as a failed read: it is not recovered.
func TestMappedWriteIsNoTruncation(t *testing.T) {
	m, _ := mapForTest(t, bytes.Repeat([]byte(card+"\n"), 100))
	data := m.data
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	var r any
	func() {
		defer func() { r = recover() }()
		data[10] = 'x'
	}()
	if r == nil {
		t.Fatal("a write into the mapping did not fault")
	}
	if at, ok := m.faultOffset(r); ok {
		t.Errorf("a write into the mapping was taken for a truncation at %d", at)
	}
}

// TestMappedTinyLines: a chunk of more lines than it keeps the places of
// (lineEndsPer) has the rest found as it is judged.
func TestMappedTinyLines(t *testing.T) {
	var b bytes.Buffer
	for i := 0; b.Len() < mapMinSize+1000; i++ {
		switch i % 4 {
		case 0:
			if i%64 == 0 {
				b.WriteString(card + "\n")
			} else {
				b.WriteString("[]\n")
			}
		case 1:
			b.WriteString("\n")
		case 2:
			b.WriteString("{}\r\n")
		default:
			b.WriteString("1\n")
		}
	}
	input := b.Bytes()
	path := filepath.Join(t.TempDir(), "in.ndjson")
	if err := os.WriteFile(path, input, 0o644); err != nil {
		t.Fatal(err)
	}
	mapped := watchMapping(t, nil)
	var out bytes.Buffer
	_, err := Run(Config{Profile: "agentcard", Jobs: 2, ChunkSize: 1 << 20, MaxRecord: 1000, All: true,
		Findings: jsonlTo(&out, true)}, []Input{{Name: "in", Path: path, Framing: FramingNDJSON}})
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if _, err := Run(Config{Profile: "agentcard", Jobs: 2, ChunkSize: 1 << 20, MaxRecord: 1000, All: true,
		Findings: jsonlTo(&want, true), Stdin: bytes.NewReader(input)}, []Input{{Name: "in", Framing: FramingNDJSON}}); err != nil {
		t.Fatal(err)
	}
	if *mapped != 1 || bytes.Count(input[:1<<20], nl) <= 1<<20/lineEndsPer || out.String() != want.String() {
		t.Errorf("mapped %d, %d lines in the first chunk: verdicts differ from those of the same bytes read", *mapped, bytes.Count(input[:1<<20], nl))
	}
}

// mapForTest writes input to a file and maps it as the pipeline would,
// held until the test ends; it skips where files cannot be mapped.
func mapForTest(t *testing.T, input []byte) (*mapping, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "in.ndjson")
	if err := os.WriteFile(path, input, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	data, err := mapFile(f, int64(len(input)))
	if err != nil {
		f.Close()
		t.Skip("no mapping on this system:", err)
	}
	m := &mapping{data: data, f: f}
	m.hold()
	t.Cleanup(m.release)
	return m, path
}

// TestMappedUnreadablePageIsAnInputError: a fault on a page the file
// still has, which the file cannot give when read either (the storage's
// I/O error, as read(2) would have returned it), is the input's failure,
// reported as a failed read with the error, not a crash of the program's
// own. Closing the file stands in for storage that fails.
func TestMappedUnreadablePageIsAnInputError(t *testing.T) {
	page := os.Getpagesize()
	input := bytes.Repeat([]byte(card+"\n"), 4*page/(len(card)+1))
	m, _ := mapForTest(t, input)
	if at, ok := m.faultOffset(faultAt(uintptr(unsafe.Pointer(&m.data[0])) + uintptr(page+7))); ok {
		t.Fatalf("a fault on a page the file still has and gives is taken for the input's, at %d", at)
	}
	m.f.Close()
	at, ok := m.faultOffset(faultAt(uintptr(unsafe.Pointer(&m.data[0])) + uintptr(page+7)))
	if !ok || at != int64(page) {
		t.Fatalf("a fault on a page the file cannot give is placed at %d (%v), want the page's start %d", at, ok, page)
	}
	c := &chunk{input: "in", mapped: m, faultLine: 3, faultOffset: int64(page)}
	msg := faultMessage(c)
	if !strings.Contains(msg, "reading: "+errPageUnreadable) || strings.Contains(msg, errShrank) {
		t.Errorf("diagnostic %q: want the page's read error, not a truncation", msg)
	}
}

// truncateOnce sets the mapped chunks' hook to cut the file at path, the
// first time a chunk is one keepAt accepts, to the size keepAt gives for
// it; it returns where the file was cut (0 until then). The hook is unset
// when the test ends.
func truncateOnce(t *testing.T, path string, keepAt func(c *chunk) (keep int64, ok bool)) *int64 {
	t.Helper()
	var once sync.Once
	kept := new(int64)
	mappedChunkHook = func(c *chunk) {
		keep, ok := keepAt(c)
		if !ok {
			return
		}
		once.Do(func() {
			*kept = keep
			if err := os.Truncate(path, keep); err != nil {
				t.Error(err)
			}
		})
	}
	t.Cleanup(func() { mappedChunkHook = nil })
	return kept
}
