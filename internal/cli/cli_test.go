package cli

import (
	"bufio"
	"bytes"
	binenc "encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cardscan/cardscan/rule"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/cmderr"
	"github.com/cardscan/cardscan/internal/console"
	"github.com/cardscan/cardscan/internal/golden"
	"github.com/cardscan/cardscan/internal/pipeline"
	"github.com/cardscan/cardscan/internal/summary"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// result is what one cardscan run produced.
type result struct {
	code           int
	stdout, stderr string
}

// run runs cardscan in-process. Every run's stderr must end in exactly one
// newline.
func run(t testing.TB, stdin string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Run(args, strings.NewReader(stdin), &out, &errOut)
	r := result{code, out.String(), errOut.String()}
	checkStderr(t, r.stderr)
	return r
}

func checkStderr(t testing.TB, stderr string) {
	t.Helper()
	if stderr != "" && (!strings.HasSuffix(stderr, "\n") || strings.HasSuffix(stderr, "\n\n")) {
		t.Errorf("stderr does not end in exactly one newline: %q", stderr)
	}
}

const cardsFile = "testdata/cards.ndjson"

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t testing.TB, path string, b []byte) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func zstdBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return enc.EncodeAll(b, nil)
}

func gzipBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// verdict is one line of --format jsonl.
type verdict struct {
	Input    string    `json:"input"`
	Line     int       `json:"line"`
	Offset   int64     `json:"offset"`
	Valid    bool      `json:"valid"`
	Profile  string    `json:"profile"`
	Errors   []finding `json:"errors"`
	Warnings []finding `json:"warnings"`
	// Present only for a card with more findings than are listed.
	ErrorsUnlisted   *int `json:"errors_unlisted"`
	WarningsUnlisted *int `json:"warnings_unlisted"`
}

type finding struct {
	Rule    string `json:"rule"`
	Path    string `json:"path"`
	Message string `json:"message"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
}

func parseVerdicts(t testing.TB, out string) []verdict {
	t.Helper()
	var vs []verdict
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var v verdict
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("bad jsonl line %q: %v", sc.Text(), err)
		}
		vs = append(vs, v)
	}
	return vs
}

// records returns the non-blank lines of an NDJSON input with their
// 1-based line numbers and offsets, as the issue defines them.
type record struct {
	line   int
	offset int64
	raw    []byte // with its line ending
}

func splitRecords(b []byte) []record {
	var rs []record
	line, off := 1, 0
	for off < len(b) {
		end := bytes.IndexByte(b[off:], '\n')
		next := len(b)
		if end >= 0 {
			next = off + end + 1
		}
		if len(bytes.TrimSpace(b[off:next])) > 0 {
			rs = append(rs, record{line, int64(off), b[off:next]})
		}
		off = next
		line++
	}
	return rs
}

func TestGoldenFormats(t *testing.T) {
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"cards.text.golden", []string{"--color", "never"}},
		{"cards.text-all.golden", []string{"--all", "--color", "never"}},
		{"cards.text-color.golden", []string{"--color", "always"}},
		{"cards.jsonl.golden", []string{"--format", "jsonl"}},
		{"cards.jsonl-all.golden", []string{"--format", "jsonl", "--all"}},
		{"cards.github.golden", []string{"--format", "github"}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			r := run(t, "", append(tc.args, "--profile", "agentcard", cardsFile)...)
			if r.code != cmderr.StatusFailed {
				t.Errorf("exit %d, want %d; stderr %s", r.code, cmderr.StatusFailed, r.stderr)
			}
			golden.Check(t, tc.golden, r.stdout)
			// The same through stdin, named <stdin>.
			s := run(t, string(readFile(t, cardsFile)), append(tc.args, "--profile", "agentcard")...)
			if want := strings.ReplaceAll(r.stdout, cardsFile, stdinName); s.stdout != want {
				t.Errorf("stdin run differs:\n%s\nwant\n%s", s.stdout, want)
			}
		})
	}
}

// TestVerdictsMatchValidator checks every jsonl verdict against the
// validator run directly on the record, and the line and offset against
// the input, so the golden files are not the only oracle.
func TestVerdictsMatchValidator(t *testing.T) {
	input := readFile(t, cardsFile)
	r := run(t, "", "--format", "jsonl", "--all", "--profile", "agentcard", cardsFile)
	vs := parseVerdicts(t, r.stdout)
	recs := splitRecords(input)
	if len(vs) != len(recs) {
		t.Fatalf("%d verdicts for %d records", len(vs), len(recs))
	}
	v := fastvalidate.MustNew("agentcard")
	for i, rec := range recs {
		got := vs[i]
		res := v.Validate(bytes.TrimRight(rec.raw, "\r\n"))
		if got.Line != rec.line || got.Offset != rec.offset || got.Valid != res.Valid() || got.Input != cardsFile {
			t.Errorf("record %d: verdict %+v, want line %d offset %d valid %v", i, got, rec.line, rec.offset, res.Valid())
		}
		if len(got.Errors) != res.Errors() || len(got.Warnings) != res.Warnings() {
			t.Errorf("line %d: %d errors %d warnings, want %d %d", rec.line, len(got.Errors), len(got.Warnings), res.Errors(), res.Warnings())
		}
		if got.Errors == nil || got.Warnings == nil {
			t.Errorf("line %d: errors/warnings must be arrays", rec.line)
		}
	}
	// The text format has one line per finding, errors and warnings alike.
	text := run(t, "", "--profile", "agentcard", cardsFile)
	n := 0
	for _, vd := range vs {
		n += len(vd.Errors) + len(vd.Warnings)
	}
	if got := strings.Count(text.stdout, "\n"); got != n {
		t.Errorf("text has %d lines for %d findings", got, n)
	}
}

// bigInput repeats the test cards into an input of many chunks, with
// varied line endings and blank lines.
func bigInput(t testing.TB, copies int) []byte {
	base := readFile(t, cardsFile)
	var b bytes.Buffer
	for i := range copies {
		b.Write(base)
		if i%3 == 0 {
			b.WriteString("\n\r\n")
		}
	}
	return b.Bytes()
}

func TestOrderIndependentOfJobs(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, filepath.Join(dir, "big.ndjson"), bigInput(t, 200))
	var want result
	for j := 1; j <= 8; j++ {
		r := run(t, "", "-j", fmt.Sprint(j), "--chunk-size", "1KiB", "--format", "jsonl", "--all", path)
		if j == 1 {
			want = r
			if n := len(parseVerdicts(t, r.stdout)); n != 200*11 {
				t.Fatalf("%d verdicts, want %d", n, 200*11)
			}
			continue
		}
		if r.stdout != want.stdout || r.code != want.code {
			t.Errorf("-j %d: output differs from -j 1", j)
		}
	}
	// Chunk size does not change the verdicts either.
	if r := run(t, "", "-j", "3", "--format", "jsonl", "--all", path); r.stdout != want.stdout {
		t.Error("default chunk size: output differs")
	}
}

// TestOutFilesReproduceInput checks that --valid-out and --invalid-out
// hold every record exactly once, byte for byte (CRLF included), in input
// order, compressed or not.
func TestOutFilesReproduceInput(t *testing.T) {
	input := bigInput(t, 50)
	input = append(input, []byte(`{"last":"record without newline"}`)...)
	dir := t.TempDir()
	path := writeFile(t, filepath.Join(dir, "in.ndjson"), input)
	for _, ext := range []string{"", ".gz", ".zst"} {
		validPath, invalidPath := filepath.Join(dir, "valid.ndjson"+ext), filepath.Join(dir, "invalid.ndjson"+ext)
		r := run(t, "", "-j", "4", "--chunk-size", "2KiB", "--format", "jsonl", "--all", "--valid-out", validPath, "--invalid-out", invalidPath, path)
		vs := parseVerdicts(t, r.stdout)
		valid, invalid := decompressFile(t, validPath), decompressFile(t, invalidPath)
		var rebuilt bytes.Buffer
		for i, rec := range splitRecords(input) {
			src := &invalid
			if vs[i].Valid {
				src = &valid
			}
			want := rec.raw
			if !bytes.HasSuffix(want, []byte("\n")) {
				want = append(slices.Clip(want), '\n')
			}
			if !bytes.HasPrefix(*src, want) {
				t.Fatalf("%s: record at line %d is not next in its out file", ext, rec.line)
			}
			*src = (*src)[len(want):]
			rebuilt.Write(want)
		}
		if len(valid)+len(invalid) != 0 {
			t.Errorf("%s: out files hold %d extra bytes", ext, len(valid)+len(invalid))
		}
		if !bytes.Contains(rebuilt.Bytes(), []byte("\r\n")) {
			t.Errorf("%s: CRLF endings were not kept", ext)
		}
	}
}

func decompressFile(t testing.TB, path string) []byte {
	t.Helper()
	b := readFile(t, path)
	switch {
	case strings.HasSuffix(path, ".zst"):
		dec, err := zstd.NewReader(nil)
		if err != nil {
			t.Fatal(err)
		}
		defer dec.Close()
		out, err := dec.DecodeAll(b, nil)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return out
	case strings.HasSuffix(path, ".gz"):
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		out, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	return b
}

func TestCompressedInputs(t *testing.T) {
	input := bigInput(t, 30)
	dir := t.TempDir()
	plain := writeFile(t, filepath.Join(dir, "cards.ndjson"), input)
	// Names lie on purpose: compression is told by magic bytes.
	zst := writeFile(t, filepath.Join(dir, "cards-zst.ndjson"), zstdBytes(t, input))
	half := len(input) / 2
	half = bytes.IndexByte(input[half:], '\n') + half + 1
	multi := append(gzipBytes(t, input[:half]), gzipBytes(t, input[half:])...)
	gz := writeFile(t, filepath.Join(dir, "cards.ndjson.gz"), multi)

	want := run(t, "", "--format", "jsonl", "--all", "--summary", filepath.Join(dir, "plain.json"), plain)
	for _, path := range []string{zst, gz} {
		sumPath := filepath.Join(dir, filepath.Base(path)+".summary.json")
		r := run(t, "", "--format", "jsonl", "--all", "--summary", sumPath, path)
		if got := strings.ReplaceAll(r.stdout, path, plain); got != want.stdout || r.code != want.code {
			t.Errorf("%s: verdicts differ from the uncompressed input", path)
		}
		s := readSummary(t, sumPath)
		st, _ := os.Stat(path)
		if s.BytesRead != st.Size() || s.BytesDecompressed != int64(len(input)) {
			t.Errorf("%s: bytes read %d decompressed %d, want %d and %d", path, s.BytesRead, s.BytesDecompressed, st.Size(), len(input))
		}
	}
}

// skippableFrame is a zstd skippable frame with the given magic nibble
// and payload, as pzstd writes one ahead of each compressed frame.
func skippableFrame(nibble byte, payload []byte) []byte {
	f := binenc.LittleEndian.AppendUint32(nil, 0x184D2A50|uint32(nibble))
	f = binenc.LittleEndian.AppendUint32(f, uint32(len(payload)))
	return append(f, payload...)
}

// A zstd stream that opens with a skippable frame (pzstd's output, or
// metadata another tool put first) is zstd, not plain text.
func TestZstdSkippableFrame(t *testing.T) {
	input := bigInput(t, 3)
	dir := t.TempDir()
	plain := writeFile(t, filepath.Join(dir, "cards.ndjson"), input)
	want := run(t, "", "--format", "jsonl", "--all", plain)
	half := len(input) / 2
	half = bytes.IndexByte(input[half:], '\n') + half + 1
	size := binenc.LittleEndian.AppendUint32(nil, uint32(len(zstdBytes(t, input[:half]))))
	inputs := map[string][]byte{
		"first nibble": append(skippableFrame(0, size), zstdBytes(t, input)...),
		"last nibble, two frames": slices.Concat(skippableFrame(0xf, nil), zstdBytes(t, input[:half]),
			skippableFrame(7, []byte("meta")), zstdBytes(t, input[half:])),
	}
	if _, err := exec.LookPath("pzstd"); err == nil {
		cmd := exec.Command("pzstd", "-q", "-c", "-p", "2", plain)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("pzstd: %v", err)
		}
		if !bytes.HasPrefix(out, []byte{0x50, 0x2a, 0x4d, 0x18}) {
			t.Fatalf("pzstd output does not start with a skippable frame: % x", out[:4])
		}
		inputs["pzstd"] = out
	}
	for name, b := range inputs {
		path := writeFile(t, filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".ndjson"), b)
		r := run(t, "", "--format", "jsonl", "--all", path)
		if got := strings.ReplaceAll(r.stdout, path, plain); got != want.stdout || r.code != want.code {
			t.Errorf("%s: exit %d, stderr %q; verdicts differ from the uncompressed input", name, r.code, r.stderr)
		}
	}
}

func readSummary(t testing.TB, path string) *summary.Summary {
	t.Helper()
	s, err := summary.Unmarshal(readFile(t, path))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return s
}

func TestCorruptZstdMidStream(t *testing.T) {
	input := bytes.Repeat(readFile(t, cardsFile), 2000)
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithWindowSize(1<<16))
	if err != nil {
		t.Fatal(err)
	}
	var comp bytes.Buffer
	zw := enc
	zw.Reset(&comp)
	zw.Write(input)
	zw.Close()
	broken := slices.Clone(comp.Bytes())
	mid := len(broken) / 2
	for i := mid; i < mid+64; i++ {
		broken[i] ^= 0x5a
	}
	dir := t.TempDir()
	path := writeFile(t, filepath.Join(dir, "broken.ndjson.zst"), broken)
	after := writeFile(t, filepath.Join(dir, "after.ndjson"), readFile(t, cardsFile))
	sumPath := filepath.Join(dir, "s.json")
	r := run(t, "", "--format", "jsonl", "--all", "--summary", sumPath, path, after)
	if r.code != cmderr.StatusIO {
		t.Errorf("exit %d, want %d", r.code, cmderr.StatusIO)
	}
	if !strings.Contains(r.stderr, "cardscan: error: "+path+": line ") || !strings.Contains(r.stderr, "offset ") {
		t.Errorf("stderr does not name the input, line and offset: %q", r.stderr)
	}
	vs := parseVerdicts(t, r.stdout)
	var before int
	for _, v := range vs {
		if v.Input == path {
			before++
		}
	}
	full := parseVerdicts(t, run(t, "", "--format", "jsonl", "--all", writeFile(t, filepath.Join(dir, "whole.ndjson"), input)).stdout)
	if before == 0 || before >= len(full) {
		t.Errorf("%d records judged before the break, want some but fewer than %d", before, len(full))
	}
	for i := range before {
		if vs[i].Line != full[i].Line || vs[i].Valid != full[i].Valid {
			t.Fatalf("verdict %d before the break differs from the intact input", i)
		}
	}
	if len(vs)-before != 11 {
		t.Errorf("the input after the broken one gave %d verdicts, want 11", len(vs)-before)
	}
	s := readSummary(t, sumPath)
	if s.Records != int64(len(vs)) || s.InputErrors != 1 || s.Inputs != 2 {
		t.Errorf("summary %+v, want %d records, 1 of 2 inputs failed", s, len(vs))
	}
}

// A zstd stream whose window is over the limit is refused with a message
// that says so, and how to compress one that is accepted.
func TestZstdWindowOverLimit(t *testing.T) {
	// One frame by hand (RFC 8878): a window descriptor of 2^28 bytes,
	// then the cards as one raw, last block.
	cards := readFile(t, cardsFile)
	frame := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, (28 - 10) << 3}
	header := uint32(1 | len(cards)<<3)
	frame = append(frame, byte(header), byte(header>>8), byte(header>>16))
	frame = append(frame, cards...)
	path := filepath.Join(t.TempDir(), "wide.ndjson.zst")
	writeFile(t, path, frame)
	r := run(t, "", "-q", path)
	if r.code != cmderr.StatusIO || !strings.Contains(r.stderr, "zstd window larger than the 128 MiB accepted") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	// The same frame with a window of 2^27 is read.
	frame[5] = (27 - 10) << 3
	writeFile(t, path, frame)
	if r := run(t, "", "-q", "--fail-on", "never", path); r.code != 0 {
		t.Errorf("window of 128 MiB: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestBlankLinesAndCRLF(t *testing.T) {
	lf := "\n  \n" + strings.ReplaceAll(string(readFile(t, cardsFile)), "\r\n", "\n") + "\t\n\n"
	crlf := strings.ReplaceAll(lf, "\n", "\r\n")
	a := run(t, lf, "--format", "jsonl", "--all", "--summary", "-")
	b := run(t, crlf, "--format", "jsonl", "--all")
	va, vb := parseVerdicts(t, strings.SplitN(a.stdout, "\n{\n", 2)[0]), parseVerdicts(t, b.stdout)
	if len(va) != 11 || len(vb) != 11 {
		t.Fatalf("%d and %d verdicts, want 11 (blank lines are not records)", len(va), len(vb))
	}
	for i := range va {
		if va[i].Line != vb[i].Line || va[i].Valid != vb[i].Valid || !reflect.DeepEqual(va[i].Errors, vb[i].Errors) {
			t.Errorf("CRLF changes verdict %d: %+v vs %+v", i, va[i], vb[i])
		}
	}
	if va[0].Line != 3 {
		t.Errorf("first record on line %d, want 3", va[0].Line)
	}
}

func TestEmptyInput(t *testing.T) {
	for _, in := range []string{"", "\n\n", "  \r\n"} {
		r := run(t, in, "--format", "jsonl", "--summary", "-")
		if r.code != cmderr.StatusOK {
			t.Errorf("%q: exit %d", in, r.code)
		}
		s, err := summary.Unmarshal([]byte(r.stdout))
		if err != nil || s.Records != 0 || s.Inputs != 1 {
			t.Errorf("%q: summary %+v %v", in, s, err)
		}
		if !strings.HasPrefix(r.stderr, "cardscan: warning: no records were read\ncardscan: 0 records") {
			t.Errorf("%q: stderr %q", in, r.stderr)
		}
		if r := run(t, in, "-q", "--require-records"); r.code != exitInvalid {
			t.Errorf("%q: --require-records: exit %d, want %d", in, r.code, exitInvalid)
		}
	}
	// A file with a record meets --require-records.
	if r := run(t, "", "-q", "--require-records", "--fail-on", "never", cardsFile); r.code != exitOK || strings.Contains(r.stderr, "no records") {
		t.Errorf("cards: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestHugeLine streams a 40 MiB line: it is one invalid record, the lines
// after it keep their numbers, --invalid-out gets it byte for byte, and the
// heap never holds it whole.
func TestHugeLine(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 80 MiB")
	}
	dir := t.TempDir()
	card := strings.Split(string(readFile(t, cardsFile)), "\n")[0]
	huge := `{"padding":"` + strings.Repeat("x", 40<<20) + `"}`
	path := writeFile(t, filepath.Join(dir, "huge.ndjson"), []byte(card+"\n"+huge+"\r\n"+card+"\n"))
	huge = ""
	for _, tc := range []struct {
		maxRecord string
		heapLimit uint64
	}{{"16MiB", 0}, {"1MiB", 24 << 20}} {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		peak := sampleHeap(t)
		invalidPath := filepath.Join(dir, "invalid.ndjson")
		r := run(t, "", "--max-record", tc.maxRecord, "--format", "jsonl", "--invalid-out", invalidPath, "-j", "2", path)
		growth := peak() - before.HeapInuse
		if tc.heapLimit > 0 && growth > tc.heapLimit {
			t.Errorf("--max-record %s: heap grew by %d MiB for a 40 MiB line", tc.maxRecord, growth>>20)
		}
		vs := parseVerdicts(t, r.stdout)
		if len(vs) != 1 || vs[0].Line != 2 || len(vs[0].Errors) != 1 || vs[0].Errors[0].Rule != "input.too-large" {
			t.Fatalf("--max-record %s: verdicts %+v", tc.maxRecord, vs)
		}
		// The message names the limit and the flag that sets it.
		if want := "record longer than the " + tc.maxRecord + " limit (--max-record)"; vs[0].Errors[0].Message != want {
			t.Errorf("--max-record %s: message %q, want %q", tc.maxRecord, vs[0].Errors[0].Message, want)
		}
		if !strings.Contains(r.stderr, "3 records: 2 valid, 1 invalid") {
			t.Errorf("stderr %q", r.stderr)
		}
		got := readFile(t, invalidPath)
		if len(got) != 40<<20+len(`{"padding":""}`)+2 || !bytes.HasSuffix(got, []byte("\"}\r\n")) || !bytes.HasPrefix(got, []byte(`{"padding":"xxx`)) {
			t.Errorf("--invalid-out holds %d bytes, not the huge line", len(got))
		}
	}
}

// sampleHeap samples HeapInuse until the returned function is called,
// which returns the peak.
func sampleHeap(t *testing.T) func() uint64 {
	done := make(chan uint64)
	stop := make(chan struct{})
	go func() {
		var peak uint64
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			select {
			case <-stop:
				done <- peak
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	return func() uint64 { close(stop); return <-done }
}

func TestMaxRecordInLine(t *testing.T) {
	r := run(t, string(readFile(t, cardsFile)), "--max-record", "100", "--format", "jsonl", "--all")
	for _, v := range parseVerdicts(t, r.stdout) {
		long := v.Line != 7 && v.Line != 10 && v.Line != 12 // the short records
		tooLarge := len(v.Errors) == 1 && v.Errors[0].Rule == "input.too-large"
		if long != tooLarge {
			t.Errorf("line %d: %+v", v.Line, v)
		}
	}
}

func TestDirectoryOfMixedFiles(t *testing.T) {
	dir := t.TempDir()
	cards := readFile(t, cardsFile)
	lines := strings.Split(string(cards), "\n")
	array := "[\n  " + lines[0] + ",\n\n  " + lines[1] + " ,\n" + lines[3] + "\n]\n"
	writeFile(t, filepath.Join(dir, "b", "list.json"), []byte(array))
	writeFile(t, filepath.Join(dir, "a.ndjson.zst"), zstdBytes(t, cards))
	writeFile(t, filepath.Join(dir, "b", "one.json.gz"), gzipBytes(t, []byte("\n\n  "+lines[0]+"\n")))
	writeFile(t, filepath.Join(dir, "c.jsonl"), []byte(lines[3]+"\n"))
	writeFile(t, filepath.Join(dir, "notes.txt"), []byte("not a card\n"))
	writeFile(t, filepath.Join(dir, "b", "empty.json"), []byte("  \n"))
	writeFile(t, filepath.Join(dir, "b", "broken.json"), []byte("[{\"a\":1},\n"))
	r := run(t, "", "--format", "jsonl", "--all", "--summary", filepath.Join(dir, "s.json.out"), dir)
	vs := parseVerdicts(t, r.stdout)
	var order []string
	for _, v := range vs {
		name, _ := filepath.Rel(dir, v.Input)
		if len(order) == 0 || order[len(order)-1] != name {
			order = append(order, name)
		}
	}
	// Framing goes by content: b/empty.json holds no value, so no record.
	want := []string{"a.ndjson.zst", "b/broken.json", "b/list.json", "b/one.json.gz", "c.jsonl"}
	if !reflect.DeepEqual(order, want) {
		t.Errorf("inputs in order %v, want %v", order, want)
	}
	byInput := map[string][]verdict{}
	for _, v := range vs {
		name, _ := filepath.Rel(dir, v.Input)
		byInput[name] = append(byInput[name], v)
	}
	if l := byInput["b/list.json"]; len(l) != 3 || l[0].Line != 2 || l[1].Line != 4 || l[2].Line != 5 || !l[0].Valid || l[2].Valid {
		t.Errorf("array elements: %+v", l)
	}
	if l := byInput["b/list.json"]; l[1].Offset != int64(strings.Index(array, lines[1])) {
		t.Errorf("second element at offset %d, want %d", l[1].Offset, strings.Index(array, lines[1]))
	}
	// One card on one line is NDJSON, located at its line's start.
	if o := byInput["b/one.json.gz"]; len(o) != 1 || o[0].Line != 3 || o[0].Offset != 2 || !o[0].Valid {
		t.Errorf("single document: %+v", o)
	}
	// A cut array: its whole element is judged, the missing end is one
	// more record, where the input ends.
	if b := byInput["b/broken.json"]; len(b) != 2 || b[0].Offset != 1 || b[0].Errors[0].Rule != "profile.unknown" ||
		b[1].Offset != 10 || b[1].Line != 2 || b[1].Errors[0].Rule != "json.syntax" {
		t.Errorf("broken document: %+v", b)
	}
	if e := byInput["b/empty.json"]; len(e) != 0 {
		t.Errorf("white space alone: %+v", e)
	}
	s := readSummary(t, filepath.Join(dir, "s.json.out"))
	if s.Inputs != 6 || s.Records != int64(len(vs)) {
		t.Errorf("summary: %d inputs %d records, want 6 and %d", s.Inputs, s.Records, len(vs))
	}
}

// An array that is not strict JSON is still split where a lenient reader
// can: each card up to the one it cannot get past is judged on its own,
// and the rest of the document is one more record.
func TestBrokenArraysSplitWhereTheyCan(t *testing.T) {
	cards := strings.Split(string(readFile(t, cardsFile)), "\n")
	good := cards[0]
	if r := run(t, good+"\n", "-q"); r.code != 0 {
		t.Fatalf("first sample card is not valid: exit %d", r.code)
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		name, doc string
		want      []string // per record: "ok" or the first rule, in order
		lines     []int
	}{
		{"duplicate name in one card", "[\n" + good + ",\n{\"invocation\":1,\"a\":1,\"a\":2},\n" + good + "\n]\n",
			[]string{"ok", "json.duplicate-key", "ok"}, []int{2, 3, 4}},
		{"bad UTF-8 in one card", "[" + good + ",\n{\"name\":\"\xff\"}," + good + "]",
			[]string{"ok", "json.utf8", "ok"}, []int{1, 2, 2}},
		{"bad literal in one card: the others are judged", "[\n" + good + ",\n{\"invocation\":tru},\n" + good + "\n]",
			[]string{"ok", "json.syntax", "ok"}, []int{2, 3, 4}},
		{"missing comma after an invalid card: it is the broken one", "[\n" + good + ",\n{\"invocation\":1}\n" + good + "\n]",
			[]string{"ok", "field.required+json.syntax", "ok"}, []int{2, 3, 4}},
		{"missing comma after a valid card: it is the broken one", "[\n" + good + ",\n" + good + "\n" + good + "\n]",
			[]string{"ok", "json.syntax", "ok"}, []int{2, 3, 4}},
		{"trailing data", "[" + good + "] x", []string{"ok", "json.syntax"}, []int{1, 1}},
		{"no closing bracket", "[\n" + good + ",\n" + good + "\n", []string{"ok", "ok", "json.syntax"}, []int{2, 3, 4}},
		{"broken first card on one line: the others are judged", "[{\"a\":tru}, " + good + "]", []string{"json.syntax", "ok"}, []int{1, 1}},
		{"not an array: one record", "{\"a\":1,\"a\":2}", []string{"json.duplicate-key"}, []int{1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".json")
			writeFile(t, path, []byte(tc.doc))
			valid := filepath.Join(dir, "valid.out")
			invalid := filepath.Join(dir, "invalid.out")
			r := run(t, "", "--format", "jsonl", "--all", "--valid-out", valid, "--invalid-out", invalid, path)
			var got []string
			var lines []int
			for _, v := range parseVerdicts(t, r.stdout) {
				lines = append(lines, v.Line)
				if v.Valid {
					got = append(got, "ok")
				} else {
					// The first rule by position, and json.syntax
					// wherever it stands: a broken document must say so.
					rule := v.Errors[0].Rule
					for _, e := range v.Errors[1:] {
						if e.Rule == "json.syntax" {
							rule += "+json.syntax"
						}
					}
					got = append(got, rule)
				}
			}
			if !reflect.DeepEqual(got, tc.want) || !reflect.DeepEqual(lines, tc.lines) {
				t.Errorf("records %v at lines %v, want %v at %v", got, lines, tc.want, tc.lines)
			}
			// Every byte of a card is in exactly one of the out files.
			out := string(readFile(t, valid)) + string(readFile(t, invalid))
			if n := strings.Count(out, good); n != strings.Count(tc.doc, good) {
				t.Errorf("out files hold the good card %d times, the document %d", n, strings.Count(tc.doc, good))
			}
		})
	}
}

// realCorpus is the directory of real-world cards, read in place.
const realCorpus = "../../../shared/corpus/real"

func TestRealCorpus(t *testing.T) {
	entries, err := os.ReadDir(realCorpus)
	if err != nil {
		t.Skipf("real corpus not available: %v", err)
	}
	files := 0
	for _, e := range entries {
		if isCardFileName(e.Name()) {
			files++
		}
	}
	r1 := run(t, "", "-j", "1", "--format", "jsonl", "--all", realCorpus)
	r4 := run(t, "", "-j", "4", "--chunk-size", "1KiB", "--format", "jsonl", "--all", realCorpus)
	if r1.stdout != r4.stdout || r1.code != r4.code {
		t.Error("-j 1 and -j 4 disagree on the real corpus")
	}
	if r1.code == cmderr.StatusIO || r1.code == cmderr.StatusUsage {
		t.Fatalf("exit %d: %s", r1.code, r1.stderr)
	}
	vs := parseVerdicts(t, r1.stdout)
	inputs := map[string]bool{}
	v := fastvalidate.MustNew("auto")
	for _, vd := range vs {
		inputs[vd.Input] = true
		doc := readFile(t, vd.Input)
		// A file holding an array is judged element by element: the
		// elements' verdicts are checked by the pipeline's own tests.
		if d := bytes.TrimSpace(doc); len(d) == 0 || d[0] != '[' || !json.Valid(d) {
			if want := v.Validate(bytes.TrimSpace(doc)).Valid(); vd.Valid != want {
				t.Errorf("%s: valid %v, want %v", vd.Input, vd.Valid, want)
			}
		}
	}
	if len(inputs) != files {
		t.Errorf("verdicts for %d files, want %d", len(inputs), files)
	}
}

func TestMaxInvalid(t *testing.T) {
	input := string(bigInput(t, 20))
	for _, n := range []int{1, 5} {
		r := run(t, input, "--max-invalid", fmt.Sprint(n), "--format", "jsonl", "--all", "--summary", "-", "-j", "3", "--chunk-size", "1KiB")
		if r.code != cmderr.StatusFailed {
			t.Errorf("exit %d", r.code)
		}
		parts := strings.SplitN(r.stdout, "\n{\n", 2)
		vs := parseVerdicts(t, parts[0]+"\n")
		invalid := 0
		for _, v := range vs {
			if !v.Valid {
				invalid++
			}
		}
		if invalid != n || vs[len(vs)-1].Valid {
			t.Errorf("--max-invalid %d: %d invalid verdicts, last valid %v", n, invalid, vs[len(vs)-1].Valid)
		}
		s, err := summary.Unmarshal([]byte("{\n" + parts[1]))
		if err != nil {
			t.Fatal(err)
		}
		if s.Invalid != int64(n) || s.Records != int64(len(vs)) || !s.StoppedEarly {
			t.Errorf("summary %+v after %d verdicts", s, len(vs))
		}
		if !strings.Contains(r.stderr, "stopped early") {
			t.Errorf("stderr %q", r.stderr)
		}
		// The line said "3 records: ...; 1.4 MB in ..." as if the bytes
		// were those of the records judged: they are those read, which
		// run ahead of judging, as bytes_decompressed counts them.
		want := fmt.Sprintf("; %.1f MB read, some never judged, in ", float64(s.BytesDecompressed)/1e6)
		if !strings.Contains(r.stderr, want) {
			t.Errorf("--max-invalid %d: stderr %q; want %q", n, r.stderr, want)
		}
	}
}

func TestFailOn(t *testing.T) {
	lines := strings.Split(string(readFile(t, cardsFile)), "\n")
	valid, warning, invalid := lines[0], lines[12], lines[1]
	for _, tc := range []struct {
		failOn, input string
		want          int
	}{
		{"error", valid, cmderr.StatusOK},
		{"error", warning, cmderr.StatusOK},
		{"error", invalid, cmderr.StatusFailed},
		{"warning", valid, cmderr.StatusOK},
		{"warning", warning, cmderr.StatusFailed},
		{"warning", invalid, cmderr.StatusFailed},
		{"never", invalid, cmderr.StatusOK},
		{"never", warning, cmderr.StatusOK},
	} {
		if r := run(t, tc.input, "--fail-on", tc.failOn, "-q"); r.code != tc.want {
			t.Errorf("--fail-on %s on %.30q: exit %d, want %d", tc.failOn, tc.input, r.code, tc.want)
		}
	}
	// An unreadable input is exit 3 whatever --fail-on says.
	if r := run(t, "", "--fail-on", "never", "no/such/file.ndjson"); r.code != cmderr.StatusIO || !strings.Contains(r.stderr, "cardscan: error: no/such/file.ndjson: no such file") {
		t.Errorf("missing file: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestSummaryCountsAndMerge(t *testing.T) {
	input := bigInput(t, 10)
	dir := t.TempDir()
	r := run(t, string(input), "--format", "jsonl", "--all", "--summary", filepath.Join(dir, "all.json"))
	whole := readSummary(t, filepath.Join(dir, "all.json"))
	vs := parseVerdicts(t, r.stdout)
	rules := map[string]int64{}
	var valid, warnings int64
	for _, v := range vs {
		if v.Valid {
			valid++
		}
		warnings += int64(len(v.Warnings))
		for _, f := range append(v.Errors, v.Warnings...) {
			rules[f.Rule]++
		}
	}
	if whole.Records != int64(len(vs)) || whole.Valid != valid || whole.Warnings != warnings || !reflect.DeepEqual(whole.Rules, rules) {
		t.Errorf("summary %+v disagrees with the verdicts (%d records, %d valid, rules %v)", whole, len(vs), valid, rules)
	}
	if whole.Profiles["agentcard"]+whole.Profiles["none"] != whole.Records || whole.BytesRead != int64(len(input)) || whole.Shards != 1 {
		t.Errorf("summary %+v", whole)
	}

	// Three shards cut at line boundaries add up to the whole.
	var shards []string
	for i, part := range splitAtLines(input, 3) {
		path := filepath.Join(dir, fmt.Sprintf("%d.json", i))
		run(t, string(part), "-q", "--input", "ndjson", "--fail-on", "never", "--summary", path)
		shards = append(shards, path)
	}
	m := run(t, "", append([]string{"summary", "merge"}, shards...)...)
	if m.code != cmderr.StatusOK {
		t.Fatalf("merge: exit %d %s", m.code, m.stderr)
	}
	merged, err := summary.Unmarshal([]byte(m.stdout))
	if err != nil {
		t.Fatal(err)
	}
	if merged.Shards != 3 {
		t.Errorf("merged %d shards", merged.Shards)
	}
	if merged.Framings["ndjson"] != 3 || len(merged.Framings) != 1 {
		t.Errorf("merged framings %v, want 3 ndjson inputs", merged.Framings)
	}
	// Each shard read a part of the one input as its standard input.
	var shardInvalid int64
	for _, c := range merged.WorstInputs {
		shardInvalid += c.Invalid
	}
	if len(merged.WorstInputs) != 3 || shardInvalid != whole.Invalid {
		t.Errorf("merged worst inputs %+v, want 3 readings of %d invalid records in all", merged.WorstInputs, whole.Invalid)
	}
	merged.Seconds, merged.MBPerSecond, merged.Shards, merged.Inputs, merged.Framings, merged.WorstInputs = 0, 0, 0, 0, nil, nil
	whole.Seconds, whole.MBPerSecond, whole.Shards, whole.Inputs, whole.Framings, whole.WorstInputs = 0, 0, 0, 0, nil, nil
	if !reflect.DeepEqual(merged, whole) {
		t.Errorf("merged shards %+v\nwant %+v", merged, whole)
	}

	for _, bad := range [][]string{{"summary"}, {"summary", "merge"}, {"summary", "add", shards[0]}} {
		if r := run(t, "", bad...); r.code != cmderr.StatusUsage {
			t.Errorf("%v: exit %d", bad, r.code)
		}
	}
	notSummary := writeFile(t, filepath.Join(dir, "x.json"), []byte(`{"records":1,"valid":0,"invalid":0}`))
	if r := run(t, "", "summary", "merge", shards[0], notSummary); r.code != cmderr.StatusIO || !strings.Contains(r.stderr, "x.json") {
		t.Errorf("inconsistent summary: exit %d %q", r.code, r.stderr)
	}
}

func splitAtLines(b []byte, n int) [][]byte {
	var parts [][]byte
	for i := n; i > 1; i-- {
		cut := len(b) / i
		cut += bytes.IndexByte(b[cut:], '\n') + 1
		parts = append(parts, b[:cut])
		b = b[cut:]
	}
	return append(parts, b)
}

// errPipeWriter fails like a pipe whose reader has gone, after n bytes.
type errPipeWriter struct{ n int }

func (w *errPipeWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		k := w.n
		w.n = 0
		return k, &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EPIPE}
	}
	w.n -= len(p)
	return len(p), nil
}

// A card with more findings than are listed still counts every one in the
// summary's rule counts, as in its error and warning totals.
func TestSummaryCountsFindingsPastTheListCap(t *testing.T) {
	// Distinct ids: one repeated would fold into one finding.
	var each []string
	for i := range 150 {
		each = append(each, fmt.Sprintf(`{"id":"Bad Id %d","description":"d"}`, i))
	}
	caps := strings.Join(each, ",")
	card := `{"agent_id":"01HZQK3P8EMXR9V7T5N2W4J6C0","name":"x","version":"1.0","capabilities":[` + caps + `],"endpoint":{"protocol":"https","url":"https://a.example/"}}` + "\n"
	path := filepath.Join(t.TempDir(), "summary.json")
	r := run(t, card, "--format", "jsonl", "--summary", path)
	s := readSummary(t, path)
	vs := parseVerdicts(t, r.stdout)
	if len(vs) != 1 || len(vs[0].Errors) != 100 {
		t.Fatalf("want one verdict listing 100 errors, got %+v", vs)
	}
	want := map[string]int64{"version.semver": 1, "capability.id": 150}
	if s.Errors != 151 || !reflect.DeepEqual(s.Rules, want) {
		t.Errorf("summary: errors %d, rules %v; want 151, %v", s.Errors, s.Rules, want)
	}
}

func TestClosedStdoutIsQuiet(t *testing.T) {
	var errOut bytes.Buffer
	code := Run([]string{"--chunk-size", "1KiB", "-j", "2"}, bytes.NewReader(bigInput(t, 100)), &errPipeWriter{n: 100}, &errOut)
	if errOut.Len() != 0 {
		t.Errorf("stderr %q, want nothing", errOut.String())
	}
	if code != cmderr.StatusFailed {
		t.Errorf("exit %d, want %d (invalid cards were seen)", code, cmderr.StatusFailed)
	}
}

func TestListRulesAndVersion(t *testing.T) {
	r := run(t, "", "--list-rules")
	if r.code != cmderr.StatusOK {
		t.Fatalf("exit %d", r.code)
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	rules := rule.All()
	if len(lines) != len(rules)+1 {
		t.Fatalf("%d lines for %d rules", len(lines), len(rules))
	}
	for i, rule := range rules {
		f := strings.Fields(lines[i+1])
		if len(f) < 4 || f[0] != rule.ID || f[1] != rule.Severity.String() || f[2] != rule.Profiles.String() || !strings.HasSuffix(lines[i+1], rule.Description) {
			t.Errorf("line %q for rule %+v", lines[i+1], rule)
		}
	}
	v := run(t, "", "--version")
	if v.code != cmderr.StatusOK || !strings.HasPrefix(v.stdout, "cardscan ") || !strings.Contains(v.stdout, runtime.Version()) {
		t.Errorf("--version: %d %q", v.code, v.stdout)
	}
	h := run(t, "", "--help")
	if h.code != cmderr.StatusOK || !strings.Contains(h.stdout, "--max-invalid") {
		t.Errorf("--help: %d %q", h.code, h.stdout)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--nope"}, {"--format", "xml"}, {"--profile", "nope"}, {"-j", "-1"}, {"--fail-on", "sometimes"},
		{"--progress", "maybe"}, {"--color", "pink"}, {"--max-record", "lots"}, {"--max-invalid", "-2"},
		{"--chunk-size", "1"}, {"--valid-out", "x", "--invalid-out", "x"}, {"serve-not"}, {"-j"},
	} {
		r := run(t, "", args...)
		if args[0] == "serve-not" {
			// A path, not a subcommand: a missing input.
			if r.code != cmderr.StatusIO {
				t.Errorf("%v: exit %d", args, r.code)
			}
			continue
		}
		if r.code != cmderr.StatusUsage || !strings.HasPrefix(r.stderr, "cardscan: error: ") {
			t.Errorf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
	r := run(t, "", "--profile", "nope")
	for _, p := range fastvalidate.Profiles() {
		if !strings.Contains(r.stderr, p) {
			t.Errorf("unknown profile message %q does not list %s", r.stderr, p)
		}
	}
	if n := strings.Count(r.stderr, "auto"); n != 1 {
		t.Errorf("unknown profile message %q names auto %d times", r.stderr, n)
	}
	// An unknown flag is named as typed.
	for _, flag := range []string{"--nope", "-nope", "--nope=1"} {
		want := "cardscan: error: unknown flag " + strings.TrimSuffix(flag, "=1") + "\n"
		if r := run(t, "", cardsFile, flag); !strings.HasPrefix(r.stderr, want) {
			t.Errorf("%s: stderr %q, want it to start %q", flag, r.stderr, want)
		}
	}
	// A mistyped flag gets the flag meant, as a mistyped subcommand does.
	want := "cardscan: error: unknown flag --profle: did you mean --profile?\n"
	if r := run(t, "", cardsFile, "--profle", "a2a"); r.code != cmderr.StatusUsage || !strings.HasPrefix(r.stderr, want) {
		t.Errorf("--profle: exit %d, stderr %q, want it to start %q", r.code, r.stderr, want)
	}
}

func TestFlagsAfterPaths(t *testing.T) {
	a := run(t, "", "--format", "jsonl", cardsFile, "-q")
	if a.stdout != "" || a.code != cmderr.StatusFailed {
		t.Errorf("-q after the path was not taken: %d %q", a.code, a.stdout)
	}
	o, err := parseFlags([]string{"a.ndjson", "-j4", "b.ndjson", "--format=jsonl", "-", "--all"})
	if err != nil || o.Jobs != 4 || o.format != "jsonl" || !o.all || !reflect.DeepEqual(o.paths, []string{"a.ndjson", "b.ndjson", "-"}) {
		t.Errorf("flags among paths: %+v, %v", o, err)
	}
	b := run(t, "", "--", "-q")
	if b.code != cmderr.StatusIO || !strings.Contains(b.stderr, "-q: no such file") {
		t.Errorf("-- did not end the flags: %d %q", b.code, b.stderr)
	}
}

func TestProfiles(t *testing.T) {
	card := strings.Split(string(readFile(t, cardsFile)), "\n")[0]
	for _, p := range append(fastvalidate.Profiles(), "auto") {
		r := run(t, card+"\n{}\nnot json\n", "--profile", p, "--format", "jsonl", "--all", "--summary", "-")
		if r.code == cmderr.StatusUsage || r.code == cmderr.StatusIO {
			t.Fatalf("--profile %s: exit %d %s", p, r.code, r.stderr)
		}
		vs := parseVerdicts(t, strings.SplitN(r.stdout, "\n{\n", 2)[0]+"\n")
		if len(vs) != 3 {
			t.Fatalf("--profile %s: %d verdicts", p, len(vs))
		}
		want := fastvalidate.MustNew(p).Validate([]byte(card))
		if vs[0].Valid != want.Valid() || vs[0].Profile != want.Profile {
			t.Errorf("--profile %s: %+v, want valid %v profile %q", p, vs[0], want.Valid(), want.Profile)
		}
		if p != "auto" && vs[2].Profile != p {
			t.Errorf("--profile %s: a non-JSON card is judged by %q", p, vs[2].Profile)
		}
	}
}

func TestProgressAndQuiet(t *testing.T) {
	old := nonTTYProgressEvery
	nonTTYProgressEvery = time.Millisecond
	defer func() { nonTTYProgressEvery = old }()
	// A slow source, so that progress lines are due before the end.
	var out, errOut bytes.Buffer
	code := Run([]string{"--progress", "always", "-q", "-j", "1", "--chunk-size", "1KiB"}, &slowReader{r: bytes.NewReader(bigInput(t, 400))}, &out, &errOut)
	r := result{code, out.String(), errOut.String()}
	checkStderr(t, r.stderr)
	if r.stdout != "" {
		t.Errorf("--quiet wrote %q", r.stdout)
	}
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	if !strings.HasPrefix(lines[len(lines)-1], "cardscan: 4400 records") {
		t.Errorf("last stderr line %q is not the summary", lines[len(lines)-1])
	}
	if len(lines) < 2 || !strings.Contains(lines[0], " records, ") || !strings.Contains(lines[0], " MB/s") {
		t.Errorf("no progress line in %q", r.stderr)
	}
	if n := run(t, string(bigInput(t, 10)), "--progress", "never", "-q"); strings.Count(n.stderr, "\n") != 1 {
		t.Errorf("--progress never: stderr %q", n.stderr)
	}
}

// slowReader hands out 16 KiB per read, a millisecond apart.
type slowReader struct{ r io.Reader }

func (s *slowReader) Read(p []byte) (int, error) {
	time.Sleep(time.Millisecond)
	return s.r.Read(p[:min(len(p), 16<<10)])
}

func TestUnreadableOutput(t *testing.T) {
	r := run(t, "{}\n", "--invalid-out", filepath.Join(t.TempDir(), "no", "dir", "x.ndjson"))
	if r.code != cmderr.StatusIO || !strings.Contains(r.stderr, "--invalid-out") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	var errOut bytes.Buffer
	code := Run([]string{"--format", "jsonl"}, strings.NewReader("{}\n"), failingWriter{}, &errOut)
	if code != cmderr.StatusIO || !strings.Contains(errOut.String(), "cardscan: error: writing stdout: disk full") {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestSubcommandsDispatch checks that serve and fetch reach their own
// flag parsing: an unknown flag is their usage error, not a missing input.
func TestSubcommandsDispatch(t *testing.T) {
	for _, name := range []string{"serve", "fetch"} {
		r := run(t, "", name, "--no-such-flag")
		want := "cardscan: error: unknown flag --no-such-flag\ncardscan: hint: run 'cardscan " + name + " --help' for usage\n"
		if r.code != cmderr.StatusUsage || r.stderr != want {
			t.Errorf("%s: exit %d, stderr %q; want %d, %q", name, r.code, r.stderr, cmderr.StatusUsage, want)
		}
	}
}

// TestJobsValueForms reads -j's value written every usual way, which all
// mean the same.
func TestJobsValueForms(t *testing.T) {
	for _, args := range [][]string{{"-j4"}, {"-j", "4"}, {"-j=4"}, {"--jobs=4"}, {"--jobs", "4"}, {"-jobs", "4"}} {
		o, err := parseFlags(args)
		if err != nil || o.Jobs != 4 {
			t.Errorf("%q: %v; want 4 jobs", args, err)
			continue
		}
		// And in a run, as the shell passes it.
		r := run(t, "", append(args, "--format", "jsonl", cardsFile)...)
		if want := run(t, "", "-j", "4", "--format", "jsonl", cardsFile); r.code != want.code || r.stdout != want.stdout {
			t.Errorf("%q: exit %d, stdout %q; want as with -j 4: %d, %q", args, r.code, r.stdout, want.code, want.stdout)
		}
	}
}

// TestHelp pins the commands' --help pages, and requires each to
// show every flag its command declares.
func TestHelp(t *testing.T) {
	var all strings.Builder
	for _, cmd := range [][]string{{"--help"}, {"serve", "--help"}, {"fetch", "-h"}, {"mcp", "--help"}, {"diff", "--help"}} {
		r := run(t, "", cmd...)
		if r.code != cmderr.StatusOK || r.stderr != "" {
			t.Fatalf("%q: exit %d, stderr %q", cmd, r.code, r.stderr)
		}
		all.WriteString(r.stdout)
		if cmd[0] == "--help" {
			for _, f := range newFlagSet(&options{}).Missing(r.stdout) {
				t.Errorf("--help does not show --%s as declared", f.Long)
			}
		}
		if cmd[0] == "diff" {
			for _, f := range newDiffFlagSet(&diffOptions{}).Missing(r.stdout) {
				t.Errorf("diff --help does not show --%s as declared", f.Long)
			}
		}
	}
	golden.Check(t, "help.golden", all.String())
}

func TestLexicalWalkOrderIsSorted(t *testing.T) {
	dir := t.TempDir()
	names := []string{"b.ndjson", "a.ndjson", "C.ndjson", "a0.jsonl", "z/a.json"}
	for _, n := range names {
		writeFile(t, filepath.Join(dir, n), []byte("{}\n"))
	}
	inputs, _, _ := expandPaths([]string{dir}, pipeline.FramingAuto, nil, console.New(io.Discard), nil)
	var got []string
	for _, in := range inputs {
		got = append(got, in.Name)
	}
	if !sort.StringsAreSorted(got) || len(got) != len(names) {
		t.Errorf("walk order %v", got)
	}
}

// A walked directory yields regular files and links to them; a FIFO with
// a card file's name would otherwise block the run for ever.
func TestWalkSkipsFilesThatAreNotRegular(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.ndjson"), []byte("{}\n"))
	if err := os.Symlink(filepath.Join(dir, "a.ndjson"), filepath.Join(dir, "b.ndjson")); err != nil {
		t.Skip(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "c.ndjson"), 0o644); err != nil {
		t.Skip(err)
	}
	inputs, _, walkErrors := expandPaths([]string{dir}, pipeline.FramingAuto, nil, console.New(io.Discard), nil)
	var got []string
	for _, in := range inputs {
		got = append(got, filepath.Base(in.Name))
	}
	if want := []string{"a.ndjson", "b.ndjson"}; !reflect.DeepEqual(got, want) || walkErrors != 0 {
		t.Errorf("walk found %v (%d errors), want %v", got, walkErrors, want)
	}
}

func TestPolicy(t *testing.T) {
	card := `{"agent_id":"01HZQK3P8EMXR9V7T5N2W4J6C0","name":"x","version":"1.0.0","capabilities":[{"id":"a","description":"d"}],"endpoint":{"protocol":"http","url":"http://a.example/"}}` + "\n"
	r := run(t, card, "--profile", "agentcard")
	if r.code != cmderr.StatusOK || !strings.Contains(r.stdout, "warning: endpoint.insecure: /endpoint/url:") {
		t.Errorf("default policy: exit %d, stdout %q; want exit 0 and an endpoint.insecure warning", r.code, r.stdout)
	}
	r = run(t, card, "--profile", "agentcard", "--policy", "production")
	if r.code != cmderr.StatusFailed || !strings.Contains(r.stdout, "error: endpoint.insecure: /endpoint/url:") {
		t.Errorf("production policy: exit %d, stdout %q; want exit 1 and an endpoint.insecure error", r.code, r.stdout)
	}
	if r := run(t, card, "--policy", "strict"); r.code != cmderr.StatusUsage || !strings.Contains(r.stderr, `--policy "strict"`) {
		t.Errorf("unknown policy: exit %d, stderr %q; want a usage error", r.code, r.stderr)
	}
}

// Every record counted is copied to exactly one of the out files, even
// one with no bytes of its own: the missing end of an array is an empty
// line. Inputs of compact records, so that each copy is one line.
func TestEveryRecordIsCopied(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, input string
		records     int64
	}{
		{"cut array.json", "[{}", 2},
		{"empty.json", "", 0},
		{"blank.json", " \n\t\n", 0},
		{"cut after comma.json", "[{},\n", 2},
		{"trailing comma.json", "[{},\n{}, ]\n", 3},
		{"broken element.json", "[{},\n{\"a\":\n{}]\n", 3}, // {}, {"a": (broken), then from line 3 {}; the ] closes the array
	} {
		path := writeFile(t, filepath.Join(dir, tc.name), []byte(tc.input))
		valid, invalid := filepath.Join(dir, "valid.out"), filepath.Join(dir, "invalid.out")
		r := run(t, "", "-q", "--summary", "-", "--valid-out", valid, "--invalid-out", invalid, path)
		s, err := summary.Unmarshal([]byte(r.stdout))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		copies := int64(strings.Count(string(readFile(t, valid))+string(readFile(t, invalid)), "\n"))
		if s.Records != tc.records || copies != s.Records {
			t.Errorf("%s: %d records, %d copied; want %d of each", tc.name, s.Records, copies, tc.records)
		}
	}
}

// TestFramingGolden runs each framing on inputs of every shape, from a
// file, its gzip and zstd copies and standard input; the verdicts, and the
// framing the summary names, are in testdata/framing.golden. Compression
// and stdin must not change them.
func TestFramingGolden(t *testing.T) {
	lines := strings.Split(string(readFile(t, cardsFile)), "\n")
	pretty := func(line string) string {
		var b bytes.Buffer
		if err := json.Indent(&b, []byte(line), "", "  "); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	good, bad := pretty(lines[0]), pretty(lines[1])
	crlf := strings.ReplaceAll(good+"\n"+bad+"\n", "\n", "\r\n")
	inputs := []struct{ name, text string }{
		{"pretty card", good + "\n"},
		{"pretty array", "[\n" + strings.ReplaceAll(good, "\n", "\n  ") + ",\n  " + strings.ReplaceAll(bad, "\n", "\n  ") + "\n]\n"},
		{"three pretty cards", good + "\n" + bad + good},
		{"ndjson named .json", lines[0] + "\n" + lines[1] + "\n\n" + lines[0] + "\n"},
		{"array on one line", "[" + lines[0] + "," + lines[1] + "]\n"},
		{"broken document between good ones", good + "\n" + "{\n  \"name\": \"cut\",\n  \"capabilities\": [\n" + good + "\n"},
		{"pretty array, a card missing a comma and a colon", "[\n  " + strings.ReplaceAll(good, "\n", "\n  ") + ",\n  {\"name\": \"x\" \"version\" \"1.0\"},\n  " + strings.ReplaceAll(good, "\n", "\n  ") + "\n]\n"},
		{"crlf", crlf},
		{"bom", "\ufeff" + good + "\n" + good + "\n"},
		{"bom ndjson", "\ufeff" + lines[0] + "\n" + lines[0] + "\n"},
	}
	dir := t.TempDir()
	var out strings.Builder
	for _, in := range inputs {
		base := strings.ReplaceAll(in.name, " ", "-")
		plain := writeFile(t, filepath.Join(dir, base+".json"), []byte(in.text))
		copies := []string{
			writeFile(t, filepath.Join(dir, base+".json.gz"), gzipBytes(t, []byte(in.text))),
			writeFile(t, filepath.Join(dir, base+".json.zst"), zstdBytes(t, []byte(in.text))),
		}
		for _, framing := range []string{"auto", "ndjson", "json"} {
			args := []string{"--profile", "agentcard", "--input", framing, "--format", "jsonl", "--all"}
			r := run(t, "", append(args, plain)...)
			stdout := strings.ReplaceAll(r.stdout, plain, "IN")
			readAs := regexp.MustCompile(`read as [a-z]+`).FindString(r.stderr)
			fmt.Fprintf(&out, "== %s, --input %s: %s, exit %d\n%s", in.name, framing, readAs, r.code, stdout)
			for _, path := range copies {
				if c := run(t, "", append(args, path)...); strings.ReplaceAll(c.stdout, path, "IN") != stdout || c.code != r.code {
					t.Errorf("%s, --input %s: %s differs from the plain file:\n%s", in.name, framing, filepath.Base(path), c.stdout)
				}
			}
			if s := run(t, in.text, args...); strings.ReplaceAll(s.stdout, stdinName, "IN") != stdout || s.code != r.code {
				t.Errorf("%s, --input %s: stdin differs from the plain file:\n%s", in.name, framing, s.stdout)
			}
		}
	}
	golden.Check(t, "framing.golden", out.String())
}

// TestInputHelpNamesEveryFraming keeps --input's help, written in
// internal/cmdflag (which cannot import the pipeline), naming the same
// framings the pipeline parses.
func TestInputHelpNamesEveryFraming(t *testing.T) {
	for _, cmd := range [][]string{{"--help"}, {"diff", "--help"}} {
		r := run(t, "", cmd...)
		if want := "--input FRAMING"; !strings.Contains(r.stdout, want) {
			t.Fatalf("%q: no %s in the help", cmd, want)
		}
		if want := pipeline.FramingNames() + ": how inputs are cut"; !strings.Contains(r.stdout, want) {
			t.Errorf("%q: --input's help does not start %q; internal/cmdflag/group.go spells the framings out", cmd, want)
		}
	}
}
