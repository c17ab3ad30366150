package pipeline

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// runOutcome is everything a run gives: what it writes and what it counts.
type runOutcome struct {
	out, valid, invalid string
	diags               []string
	stats               Stats
	err                 string
}

// runWith runs cfg over inputs with every output captured; an input with
// an empty Path reads stdin.
func runWith(cfg Config, inputs []Input, stdin []byte, outFiles bool) runOutcome {
	var out, valid, invalid bytes.Buffer
	var o runOutcome
	cfg.Profile = "agentcard"
	cfg.All = true
	cfg.Findings = jsonlTo(&out, true)
	if outFiles {
		cfg.ValidOut, cfg.InvalidOut = &valid, &invalid
	}
	cfg.Diagnose = func(m string) { o.diags = append(o.diags, m) }
	cfg.Stdin = bytes.NewReader(stdin)
	st, err := Run(cfg, inputs)
	if err != nil {
		o.err = err.Error()
	}
	o.out, o.valid, o.invalid, o.stats = out.String(), valid.String(), invalid.String(), st
	return o
}

// withoutMapping runs f with no file mapped, whatever its size.
func withoutMapping(f func()) {
	saved := mapMinSize
	mapMinSize = math.MaxInt
	defer func() { mapMinSize = saved }()
	f()
}

// firstDiff says where two outcomes first differ, or "" when they do not.
func firstDiff(a, b runOutcome) string {
	for _, f := range []struct {
		name string
		x, y string
	}{{"verdicts", a.out, b.out}, {"valid-out", a.valid, b.valid}, {"invalid-out", a.invalid, b.invalid}, {"error", a.err, b.err}} {
		if f.x != f.y {
			i := 0
			for i < len(f.x) && i < len(f.y) && f.x[i] == f.y[i] {
				i++
			}
			return fmt.Sprintf("%s differ at byte %d of %d/%d: %q vs %q", f.name, i, len(f.x), len(f.y),
				f.x[max(0, i-80):min(len(f.x), i+80)], f.y[max(0, i-80):min(len(f.y), i+80)])
		}
	}
	if !reflect.DeepEqual(a.diags, b.diags) {
		return fmt.Sprintf("diagnostics differ: %q vs %q", a.diags, b.diags)
	}
	if a.stats.Stopped && b.stats.Stopped {
		// How far the reader got before the run stopped is a race.
		a.stats.BytesRead, a.stats.BytesDecompressed, a.stats.Framings = 0, 0, nil
		b.stats.BytesRead, b.stats.BytesDecompressed, b.stats.Framings = 0, 0, nil
	}
	if !reflect.DeepEqual(a.stats, b.stats) {
		return fmt.Sprintf("stats differ:\n%+v\n%+v", a.stats, b.stats)
	}
	return ""
}

// mapDiffCase is one run of the differential test: the inputs' bytes and
// the flags they are judged with.
type mapDiffCase struct {
	name      string
	files     [][]byte // each a file on disk; the mapped ones are >= mapMinSize
	jobs      int
	chunk     int
	maxRecord int
	maxInv    int64
	outFiles  bool
	framing   Framing
}

// checkMappedAsRead runs tc's files mapped, then read from disk, then
// (for one file) through a pipe and -j 1, and fails on any difference in
// any output or count.
func checkMappedAsRead(t *testing.T, tc mapDiffCase) {
	t.Helper()
	dir := t.TempDir()
	var inputs []Input
	large := 0
	for i, content := range tc.files {
		path := filepath.Join(dir, fmt.Sprintf("in%d.ndjson", i))
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, Input{Name: path, Path: path, Framing: tc.framing})
		if len(content) >= mapMinSize {
			large++
		}
	}
	cfg := Config{Jobs: tc.jobs, ChunkSize: tc.chunk, MaxRecord: tc.maxRecord, MaxInvalid: tc.maxInv}
	mapped := watchMapping(t, nil)
	got := runWith(cfg, inputs, nil, tc.outFiles)
	// A file can be mapped only to find it is not NDJSON, or the run can
	// stop before reaching it.
	if tc.maxInv == 0 && tc.framing == FramingNDJSON && *mapped != large {
		t.Fatalf("%s: %d inputs mapped, want %d", tc.name, *mapped, large)
	}
	var read runOutcome
	withoutMapping(func() { read = runWith(cfg, inputs, nil, tc.outFiles) })
	if d := firstDiff(got, read); d != "" {
		t.Fatalf("%s: mapped and read runs: %s", tc.name, d)
	}
	if len(tc.files) != 1 || tc.jobs != 2 {
		return
	}
	// The same bytes through a pipe, named as the file, give the same.
	piped := runWith(cfg, []Input{{Name: inputs[0].Name, Framing: tc.framing}}, tc.files[0], tc.outFiles)
	if d := firstDiff(got, piped); d != "" {
		t.Fatalf("%s: mapped and piped runs: %s", tc.name, d)
	}
	one := cfg
	one.Jobs = 1
	if d := firstDiff(got, runWith(one, inputs, nil, tc.outFiles)); d != "" {
		t.Fatalf("%s: mapped and -j 1 runs: %s", tc.name, d)
	}
}

// lineOf returns a line of exactly n bytes, newline included (n >= 2):
// an invalid card when there is room for one, else filler bytes.
func lineOf(n int, crlf bool) []byte {
	end := "\n"
	if crlf {
		end = "\r\n"
	}
	body := n - len(end)
	const open, shut = `{"name":"`, `"}`
	if body >= len(open)+len(shut) {
		return []byte(open + strings.Repeat("x", body-len(open)-len(shut)) + shut + end)
	}
	return []byte(strings.Repeat("7", body) + end)
}

// atBoundaries builds NDJSON of at least size bytes whose lines end just
// before, at and just after every multiple of step: the line ends fall
// on every page and on the ramp's chunk sizes, which are powers of two.
func atBoundaries(size, step int, crlf bool) []byte {
	var b []byte
	for k := 1; len(b) < size; k++ {
		target := k*step + (k%3 - 1) // -1, 0, +1 around the boundary
		for len(b) < target {
			n := target - len(b)
			if n > 300 {
				n = 200 + len(b)%97
			}
			if n < 4 {
				// Too short for a line of its own: widen the previous
				// one's reach by starting the next with a blank line.
				b = append(b, '\n')
				continue
			}
			if len(b)%5 == 0 {
				b = append(b, card+strings.Repeat(" ", max(0, n-len(card)-1))+"\n"...)
				if len(b) > target {
					b = b[:len(b)-(len(b)-target)]
					b[len(b)-1] = '\n'
				}
				continue
			}
			b = append(b, lineOf(n, crlf && n > 4)...)
		}
	}
	return b
}

// TestMappedAsRead: every output and count of a mapped file is that of
// the same bytes read from disk, from a pipe, and by one worker.
func TestMappedAsRead(t *testing.T) {
	const mib = 1 << 20
	r := rand.New(rand.NewPCG(11, 12))
	page := os.Getpagesize()
	repeat := func(s string, size int) []byte {
		return bytes.Repeat([]byte(s), size/len(s)+1)
	}
	mixed := mappedInput(r, mib+page)
	long := append(repeat(card+"\n", mib/2), `{"name":"`+strings.Repeat("z", 300<<10)+`"}`+"\n"...)
	long = append(long, repeat(card+"\r\n", mib/2)...)
	// A long line that starts on a page boundary and ends the file.
	longLast := append(bytes.Repeat([]byte{'\n'}, 16*page), repeat(card+"\n", mib)...)
	longLast = append(longLast[:len(longLast)-len(longLast)%page], `{"name":"`+strings.Repeat("q", 200<<10)...)
	var tiny []byte
	for len(tiny) < 2*mib {
		// Mostly blank lines: more lines in a chunk than it keeps the
		// places of (lineEndsPer), and few enough records to keep the
		// verdicts small.
		tiny = append(tiny, strings.Repeat("\n", 30)+"\r\n1\n"...)
	}
	nul := repeat(card+"\n"+"\x00\x00\x00\n"+"{\"name\":\"\x00\"}\n", mib)
	badUTF8 := repeat(card+"\n"+"{\"name\":\"\xff\xfe\xc3\"}\n"+"\xed\xa0\x80\n", mib)
	blank := repeat(card+"\n \n\t\n\r\n   \r\n\n", mib)
	bom := append([]byte("\xef\xbb\xbf"), repeat(card+"\n", mib)...)
	bomCRLF := append([]byte("\xef\xbb\xbf"), repeat(card+"\r\n", mib)...)
	noFinal := append(repeat(card+"\n", mib), `{"name":1}`...)
	onlyNewlines := bytes.Repeat([]byte{'\n'}, mib+3)
	onlyCRLF := bytes.Repeat([]byte("\r\n"), mib/2+3)
	allNUL := make([]byte, mib+5)
	small := []byte(card + "\n{\"name\":2}\n")

	var cases []mapDiffCase
	add := func(name string, files [][]byte, jobs, chunk, maxRecord int) {
		cases = append(cases, mapDiffCase{name: fmt.Sprintf("%s -j %d chunk %d max-record %d", name, jobs, chunk, maxRecord),
			files: files, jobs: jobs, chunk: chunk, maxRecord: maxRecord, outFiles: jobs == 2, framing: FramingNDJSON})
	}
	for _, jobs := range []int{2, 3} {
		for _, chunk := range []int{64 << 10, mib} {
			if jobs == 3 && chunk == 64<<10 || jobs == 2 && chunk == mib {
				continue
			}
			add("pages", [][]byte{atBoundaries(mib+page, page, false)}, jobs, chunk, 0)
			add("pages crlf", [][]byte{atBoundaries(mib+page, page, true)}, jobs, chunk, 0)
			add("ramp", [][]byte{atBoundaries(2*mib, chunk/16, false)}, jobs, chunk, 0)
			add("chunks", [][]byte{atBoundaries(2*mib, 64<<10, false)}, jobs, chunk, 0)
			add("mixed", [][]byte{mixed}, jobs, chunk, 0)
			add("mixed small records", [][]byte{mixed}, jobs, chunk, 1000)
			add("long line", [][]byte{long}, jobs, chunk, 0)
			add("long line over max-record", [][]byte{long}, jobs, chunk, 100<<10)
			add("long last line", [][]byte{longLast}, jobs, chunk, 100<<10)
			add("long last line fits", [][]byte{longLast}, jobs, chunk, 0)
			add("tiny lines", [][]byte{tiny}, jobs, chunk, 0)
			add("nul", [][]byte{nul}, jobs, chunk, 0)
			add("invalid utf-8", [][]byte{badUTF8}, jobs, chunk, 0)
			add("blank lines", [][]byte{blank}, jobs, chunk, 0)
			add("bom", [][]byte{bom}, jobs, chunk, 0)
			add("bom crlf", [][]byte{bomCRLF}, jobs, chunk, 0)
			add("no final newline", [][]byte{noFinal}, jobs, chunk, 0)
			add("only newlines", [][]byte{onlyNewlines}, jobs, chunk, 0)
			add("only crlf", [][]byte{onlyCRLF}, jobs, chunk, 0)
			add("all nul", [][]byte{allNUL}, jobs, chunk, 0)
			add("all nul over max-record", [][]byte{allNUL}, jobs, chunk, 4096)
			add("several inputs", [][]byte{small, mixed, noFinal, small, blank}, jobs, chunk, 0)
		}
	}
	for _, maxInv := range []int64{1, 7, 1000} {
		for _, jobs := range []int{2, 3} {
			cases = append(cases, mapDiffCase{name: fmt.Sprintf("max-invalid %d -j %d", maxInv, jobs),
				files: [][]byte{mixed}, jobs: jobs, chunk: 64 << 10, maxInv: maxInv, outFiles: true, framing: FramingNDJSON},
				mapDiffCase{name: fmt.Sprintf("max-invalid %d several inputs -j %d", maxInv, jobs),
					files: [][]byte{small, long, noFinal}, jobs: jobs, chunk: 64 << 10, maxInv: maxInv, outFiles: true, framing: FramingNDJSON})
		}
	}
	// Framed by content: the mapped file is told NDJSON as a read one is.
	for _, files := range [][][]byte{{mixed}, {bom}, {small, noFinal}} {
		cases = append(cases, mapDiffCase{name: "auto framing", files: files, jobs: 2, chunk: 64 << 10, outFiles: true, framing: FramingAuto})
	}
	if testing.Short() {
		cases = cases[:len(cases)/4]
	}
	for _, tc := range cases {
		checkMappedAsRead(t, tc)
	}
}

// runTimeout is how long a run may take before it counts as hung.
var runTimeout = time.Minute

// runTimed runs cfg over inputs like runWith, failing t when the run
// takes longer than a minute: a hang must not wait for the test binary's
// own timeout.
func runTimed(t *testing.T, cfg Config, inputs []Input, outFiles bool) runOutcome {
	t.Helper()
	done := make(chan runOutcome, 1)
	go func() { done <- runWith(cfg, inputs, nil, outFiles) }()
	select {
	case o := <-done:
		return o
	case <-time.After(runTimeout):
		t.Fatalf("the run did not end within %v", runTimeout)
		return runOutcome{}
	}
}

// hostileInput is NDJSON of invalid records only, some of them longer
// than hostileMaxRecord, every line ending in a newline: its
// --invalid-out copy is the input itself, up to where judging stopped.
func hostileInput(r *rand.Rand, size int) []byte {
	var b []byte
	for len(b) < size {
		switch r.IntN(10) {
		case 0:
			b = append(b, `{"name":"`+strings.Repeat("L", hostileMaxRecord+r.IntN(200<<10))+`"}`+"\n"...)
		case 1:
			b = append(b, `{"name":2}`+"\r\n"...)
		default:
			b = append(b, `{"name":"`+strings.Repeat("s", r.IntN(3000))+`"}`+"\n"...)
		}
	}
	return b
}

const hostileMaxRecord = 100 << 10

// checkStoppedWhole checks a run over a file whose bytes were input when
// it was opened and which may have been truncated while it was judged:
// what was written is input's first lines, every record counted and
// none made up, and a diagnostic names where judging stopped.
func checkStoppedWhole(t *testing.T, where string, input []byte, o runOutcome) {
	t.Helper()
	if o.err != "" {
		t.Fatalf("%s: %s", where, o.err)
	}
	records := int64(strings.Count(o.invalid, "\n"))
	if o.stats.Records != records || o.stats.Invalid != records || int64(strings.Count(o.out, "\n")) != records {
		t.Fatalf("%s: %d records counted, %d invalid, %d verdicts, for the %d records of --invalid-out", where, o.stats.Records, o.stats.Invalid, strings.Count(o.out, "\n"), records)
	}
	want := string(input)
	if len(o.diags) > 0 {
		m := faultNote.FindStringSubmatch(o.diags[0])
		if len(o.diags) != 1 || m == nil || o.stats.InputErrors != 1 {
			t.Fatalf("%s: diagnostics %q, %d input errors", where, o.diags, o.stats.InputErrors)
		}
		line, _ := strconv.Atoi(m[1])
		offset, _ := strconv.Atoi(m[2])
		if offset > len(input) || line != 1+bytes.Count(input[:offset], nl) {
			t.Fatalf("%s: judging stopped at line %d, offset %d: not that offset's line", where, line, offset)
		}
		// A record longer than --max-record whose first pieces went to
		// --invalid-out ends where reading stopped, with its newline.
		want = want[:offset]
		if offset > 0 && input[offset-1] != '\n' {
			want += "\n"
		}
	} else if o.stats.InputErrors != 0 {
		t.Fatalf("%s: %d input errors and no diagnostic", where, o.stats.InputErrors)
	}
	if o.invalid != want {
		i := 0
		for i < len(o.invalid) && i < len(want) && o.invalid[i] == want[i] {
			i++
		}
		t.Fatalf("%s: --invalid-out (%d bytes) differs at byte %d from the %d bytes before the stop (diagnostics %q): %q", where, len(o.invalid), i, len(want), o.diags, o.invalid[i:min(len(o.invalid), i+40)])
	}
}

// TestMappedHostileTiming: a mapped file truncated (mid-line, mid-page,
// at a chunk's start, to zero), appended to or replaced while it is
// judged ends as documented: what is written is the file's first lines
// and no byte it no longer holds, the input fails with a message that
// names where judging stopped, and nothing crashes or hangs.
func TestMappedHostileTiming(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	page := int64(os.Getpagesize())
	input := hostileInput(r, 3<<20)
	dir := t.TempDir()
	path := filepath.Join(dir, "in.ndjson")
	rounds := 60
	if testing.Short() {
		rounds = 15
	}
	for round := range rounds {
		if err := os.WriteFile(path, input, 0o644); err != nil {
			t.Fatal(err)
		}
		at := r.IntN(12)
		how := round % 8
		var once sync.Once
		var note string
		mappedChunkHook = func(c *chunk) {
			if c.chainAt < at {
				return
			}
			once.Do(func() {
				end := c.offset + int64(len(c.buf))
				var keep int64
				switch how {
				case 0:
					keep = 0
				case 1:
					keep = c.offset
				case 2:
					keep = c.offset + int64(len(c.buf))/2
				case 3: // the chunk's last page kept in part: it reads as zeros
					keep = max(end-1-(end-1)%page, end-10)
				case 4:
					keep = r.Int64N(int64(len(input)))
				case 5:
					keep = end - end%page
				case 6: // appended to
					f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
					if err == nil {
						_, err = f.Write([]byte(`{"name":"appended"}` + "\n"))
						f.Close()
					}
					if err != nil {
						t.Error(err)
					}
					note = "appended"
					return
				default: // replaced
					tmp := path + ".new"
					if err := os.WriteFile(tmp, []byte(`{"name":"replaced"}`+"\n"), 0o644); err != nil {
						t.Error(err)
					}
					if err := os.Rename(tmp, path); err != nil {
						t.Error(err)
					}
					note = "replaced"
					return
				}
				note = fmt.Sprintf("truncated to %d in chunk %d (kind %d) at %d+%d", keep, c.chainAt, c.kind, c.offset, len(c.buf))
				if err := os.Truncate(path, keep); err != nil {
					t.Error(err)
				}
			})
		}
		jobs := 2 + round%2
		chunk := []int{64 << 10, 256 << 10, 1 << 20}[round%3]
		o := runTimed(t, Config{Jobs: jobs, ChunkSize: chunk, MaxRecord: hostileMaxRecord},
			[]Input{{Name: "in", Path: path, Framing: FramingNDJSON}}, true)
		mappedChunkHook = nil
		where := fmt.Sprintf("round %d, -j %d, chunk %d: %s", round, jobs, chunk, note)
		checkStoppedWhole(t, where, input, o)
		if how >= 6 && (len(o.diags) != 0 || len(o.invalid) != len(input)) {
			t.Fatalf("%s: the file as it was opened was not judged whole: %q, %d of %d bytes", where, o.diags, len(o.invalid), len(input))
		}
	}
}

// TestMappedPieceTruncatedInPage: a file cut short inside the last page
// of a piece of a record longer than --max-record reads as zeros there
// without a fault; those zeros went to --invalid-out as the record's
// bytes. Whether the piece is the record's first or a later one, no
// byte the file no longer holds is written.
func TestMappedPieceTruncatedInPage(t *testing.T) {
	page := int64(os.Getpagesize())
	const pieceSize = 64 << 10
	input := []byte(`{"name":1}` + "\n" + `{"name":"` + strings.Repeat("L", 5*pieceSize) + `"}` + "\n")
	input = append(input, bytes.Repeat([]byte(`{"name":2}`+"\n"), mapMinSize/11+1)...)
	for _, piece := range []int{0, 2} {
		path := filepath.Join(t.TempDir(), "in.ndjson")
		if err := os.WriteFile(path, input, 0o644); err != nil {
			t.Fatal(err)
		}
		kept := truncateOnce(t, path, func(c *chunk) (int64, bool) {
			end := c.offset + int64(len(c.buf))
			return max(end-1-(end-1)%page, end-10), c.kind == kindPiece && c.offset == c.recordOffset+int64(piece*pieceSize)
		})
		o := runTimed(t, Config{Jobs: 2, ChunkSize: pieceSize, MaxRecord: hostileMaxRecord},
			[]Input{{Name: "in", Path: path, Framing: FramingNDJSON}}, true)
		mappedChunkHook = nil
		keep := *kept
		where := fmt.Sprintf("truncated to %d in piece %d", keep, piece)
		if keep == 0 {
			t.Fatalf("%s: the piece was never judged", where)
		}
		if i := strings.IndexByte(o.invalid, 0); i >= 0 {
			t.Fatalf("%s: --invalid-out holds a NUL at byte %d, where the file was cut", where, i)
		}
		checkStoppedWhole(t, where, input, o)
	}
}

// FuzzMappedAsRead: any bytes, repeated into a file of several chunks,
// judged mapped give every output and count that they give read. Files
// of any size are mapped here, so that short inputs reach every chunk
// and record bound.
func FuzzMappedAsRead(f *testing.F) {
	f.Add([]byte(card+"\n"), uint8(40), uint16(100), uint16(300), uint8(0), false)
	f.Add([]byte("\xef\xbb\xbf"+card+"\r\n \n"), uint8(9), uint16(4080), uint16(60), uint8(1), true)
	f.Add([]byte(`{"name":"`+strings.Repeat("x", 500)+`"}`), uint8(7), uint16(64), uint16(100), uint8(1), true)
	f.Add([]byte("\n\n\r\n\x00\xff\n"), uint8(200), uint16(16), uint16(8), uint8(0), false)
	f.Fuzz(func(t *testing.T, data []byte, reps uint8, chunk, maxRecord uint16, jobs uint8, outFiles bool) {
		if len(data) > 4096 {
			return
		}
		input := bytes.Repeat(data, 1+int(reps))
		path := filepath.Join(t.TempDir(), "in.ndjson")
		if err := os.WriteFile(path, input, 0o644); err != nil {
			t.Fatal(err)
		}
		cfg := Config{Jobs: 2 + int(jobs)%2, ChunkSize: 16 + int(chunk)%8192, MaxRecord: 8 + int(maxRecord)%4096}
		inputs := []Input{{Name: "in", Path: path, Framing: FramingNDJSON}}
		saved := mapMinSize
		mapMinSize = 1
		t.Cleanup(func() { mapMinSize = saved })
		mapped := watchMapping(t, nil)
		got := runTimed(t, cfg, inputs, outFiles)
		if *mapped != 1 && len(input) > 0 {
			t.Fatalf("%d bytes not mapped", len(input))
		}
		var read runOutcome
		withoutMapping(func() { read = runWith(cfg, inputs, nil, outFiles) })
		if d := firstDiff(got, read); d != "" {
			t.Fatalf("%d bytes, %+v: mapped and read runs: %s", len(input), cfg, d)
		}
	})
}

// TestMappedTruncatedMidPageWhileFlushing: a chunk whose verdicts
// outgrow a chunk is written in parts while it is judged. A file cut in
// the middle of one of the chunk's pages leaves the rest of that page
// reading as zeros where its lines were found: no record built from
// them may be written, even in a part written before the chunk's end.
func TestMappedTruncatedMidPageWhileFlushing(t *testing.T) {
	page := int64(os.Getpagesize())
	input := bytes.Repeat([]byte(`{"name":1}`+"\n"), (2<<20)/11)
	for _, at := range []int{3, 6} {
		for _, into := range []int64{100, page / 2, page - 3} {
			path := filepath.Join(t.TempDir(), "in.ndjson")
			if err := os.WriteFile(path, input, 0o644); err != nil {
				t.Fatal(err)
			}
			kept := truncateOnce(t, path, func(c *chunk) (int64, bool) {
				mid := c.offset + int64(len(c.buf))/2
				return mid - mid%page + into, c.chainAt == at
			})
			o := runTimed(t, Config{Jobs: 2, ChunkSize: 64 << 10},
				[]Input{{Name: "in", Path: path, Framing: FramingNDJSON}}, true)
			mappedChunkHook = nil
			where := fmt.Sprintf("chunk %d cut to %d", at, *kept)
			if i := strings.IndexByte(o.invalid, 0); i >= 0 {
				t.Fatalf("%s: --invalid-out holds a NUL at byte %d", where, i)
			}
			checkStoppedWhole(t, where, input, o)
		}
	}
}

// TestMappedTruncatedThenNextInput: an input found truncated ends there,
// and the inputs after it, mapped or read, are judged whole.
func TestMappedTruncatedThenNextInput(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	input := hostileInput(r, 2<<20)
	small := []byte(`{"name":3}` + "\n")
	dir := t.TempDir()
	first, second, third := filepath.Join(dir, "a.ndjson"), filepath.Join(dir, "b.ndjson"), filepath.Join(dir, "c.ndjson")
	for _, jobs := range []int{2, 3} {
		for path, content := range map[string][]byte{first: input, second: input, third: small} {
			if err := os.WriteFile(path, content, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		truncateOnce(t, first, func(c *chunk) (int64, bool) {
			return c.offset + int64(len(c.buf))/3, c.chainAt == 4 && c.input == "a"
		})
		o := runTimed(t, Config{Jobs: jobs, ChunkSize: 64 << 10, MaxRecord: hostileMaxRecord}, []Input{
			{Name: "a", Path: first, Framing: FramingNDJSON}, {Name: "b", Path: second, Framing: FramingNDJSON},
			{Name: "c", Path: third, Framing: FramingNDJSON}}, true)
		mappedChunkHook = nil
		if len(o.diags) != 1 || !strings.HasPrefix(o.diags[0], "a: line ") || o.stats.InputErrors != 1 {
			t.Fatalf("-j %d: diagnostics %q, %d input errors", jobs, o.diags, o.stats.InputErrors)
		}
		// a's part ends where its diagnostic says, as checkStoppedWhole
		// checks it; b and c follow whole.
		rest := string(input) + string(small)
		m := regexp.MustCompile(`^a: line \d+, offset (\d+) `).FindStringSubmatch(o.diags[0])
		offset, _ := strconv.Atoi(m[1])
		want := string(input[:offset])
		if offset > 0 && input[offset-1] != '\n' {
			want += "\n"
		}
		if o.invalid != want+rest {
			t.Fatalf("-j %d: --invalid-out (%d bytes) is not a's %d bytes before the stop, then b and c (%d+%d)", jobs, len(o.invalid), len(want), len(input), len(small))
		}
		if want := int64(strings.Count(o.invalid, "\n")); o.stats.Records != want {
			t.Fatalf("-j %d: %d records, want %d", jobs, o.stats.Records, want)
		}
	}
}

// signalWriter collects what is written and closes reached once it holds
// at least want bytes.
type signalWriter struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	want    int
	reached chan struct{}
}

func (w *signalWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	before := w.buf.Len()
	w.buf.Write(b)
	if before < w.want && w.buf.Len() >= w.want {
		close(w.reached)
	}
	return len(b), nil
}

// TestMappedTruncatedAfterPieces: a record longer than --max-record
// whose pieces have all gone to --invalid-out is one record with its
// verdict and newline, even when the file is cut short before the
// reader looks at the record's last byte.
func TestMappedTruncatedAfterPieces(t *testing.T) {
	head := []byte(`{"name":1}` + "\n")
	long := []byte(`{"name":"` + strings.Repeat("L", 3*hostileMaxRecord) + `"}` + "\n")
	input := append(append(append([]byte{}, head...), long...), bytes.Repeat(head, mapMinSize/len(head))...)
	path := filepath.Join(t.TempDir(), "in.ndjson")
	if err := os.WriteFile(path, input, 0o644); err != nil {
		t.Fatal(err)
	}
	invalid := &signalWriter{want: len(head) + len(long), reached: make(chan struct{})}
	tooLargeHook = func(start, end int64) {
		select {
		case <-invalid.reached:
		case <-time.After(10 * time.Second):
			t.Error("the record's pieces were not written")
		}
		// Every page from the record's start is lost, its last byte's too.
		if err := os.Truncate(path, start-start%int64(os.Getpagesize())); err != nil {
			t.Error(err)
		}
	}
	defer func() { tooLargeHook = nil }()
	var out bytes.Buffer
	var diags []string
	st, err := Run(Config{Profile: "agentcard", Jobs: 2, ChunkSize: 64 << 10, MaxRecord: hostileMaxRecord, All: true,
		Findings: jsonlTo(&out, true), InvalidOut: invalid, Diagnose: func(m string) { diags = append(diags, m) }},
		[]Input{{Name: "in", Path: path, Framing: FramingNDJSON}})
	o := runOutcome{out: out.String(), invalid: invalid.buf.String(), diags: diags, stats: st}
	if err != nil {
		o.err = err.Error()
	}
	checkStoppedWhole(t, "cut after the pieces", input, o)
}
