package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/corpus"
	"github.com/klauspost/compress/zstd"
)

// cardgen runs the command and returns its exit code and stderr.
func cardgen(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stderr.String()
}

func decompress(t *testing.T, name string, b []byte) []byte {
	t.Helper()
	switch filepath.Ext(name) {
	case ".zst":
		d, err := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(64<<20))
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		out, err := d.DecodeAll(b, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return out
	case ".gz":
		r, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if _, err := out.ReadFrom(r); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return out.Bytes()
	}
	return b
}

// TestSampleUpToDate regenerates the shipped sample corpus and compares
// it byte for byte: `make sample` must reproduce it exactly, and a change
// to the generator must come with a regenerated sample.
func TestSampleUpToDate(t *testing.T) {
	dir := t.TempDir()
	out, truth := filepath.Join(dir, "sample.ndjson.zst"), filepath.Join(dir, "truth.tsv")
	if code, stderr := cardgen(t, "-sample", "-o", out, "-truth", truth); code != 0 {
		t.Fatalf("cardgen -sample: exit %d: %s", code, stderr)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../sample.ndjson.zst")
	if err != nil {
		t.Fatal(err)
	}
	if len(want) >= 1<<20 {
		t.Errorf("sample corpus is %d bytes, want under 1 MiB", len(want))
	}
	if !bytes.Equal(got, want) {
		if bytes.Equal(decompress(t, out, got), decompress(t, out, want)) {
			t.Fatal("corpus/sample.ndjson.zst holds the right cards but compresses differently (a new zstd version?); run make sample")
		}
		t.Fatal("corpus/sample.ndjson.zst differs from what the generator makes now; run make sample")
	}

	// Every dialect and every defect kind is in the sample.
	seen := map[string]bool{}
	rows := readTSV(t, truth)
	for _, row := range rows[1:] {
		seen[row[1]] = true
		seen[row[1]+" "+row[2]] = true
	}
	for _, d := range corpus.Dialects() {
		if !seen[d] {
			t.Errorf("sample has no %s card", d)
		}
		for _, k := range corpus.DefectKinds(d) {
			if !seen[d+" "+k] {
				t.Errorf("sample has no %s card with defect %s", d, k)
			}
		}
	}
	if lines := bytes.Count(decompress(t, out, got), []byte{'\n'}); lines != len(rows)-1 {
		t.Errorf("sample has %d lines but the truth file %d rows", lines, len(rows)-1)
	}
}

func readTSV(t *testing.T, name string) [][]string {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		row := strings.Split(sc.Text(), "\t")
		if len(row) != 4 {
			t.Fatalf("%s: row %d has %d fields, want 4: %q", name, len(rows)+1, len(row), sc.Text())
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 || strings.Join(rows[0], ",") != "line,dialect,defect,rule" {
		t.Fatalf("%s: missing header", name)
	}
	return rows
}

// TestCompressionIsTransparent checks that .zst and .gz outputs hold the
// same bytes as the plain output of the same flags.
func TestCompressionIsTransparent(t *testing.T) {
	dir := t.TempDir()
	var plain []byte
	for _, name := range []string{"cards.ndjson", "cards.ndjson.zst", "cards.ndjson.gz"} {
		out := filepath.Join(dir, name)
		if code, stderr := cardgen(t, "-seed", "3", "-n", "200", "-dialect", "all", "-defects", "0.2", "-o", out); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		got := decompress(t, name, b)
		if plain == nil {
			plain = got
			if n := bytes.Count(plain, []byte{'\n'}); n != 200 {
				t.Fatalf("-n 200 wrote %d lines", n)
			}
			continue
		}
		if !bytes.Equal(got, plain) {
			t.Errorf("%s decompresses to other bytes than the plain output", name)
		}
	}
}

func TestSizeFlag(t *testing.T) {
	out := filepath.Join(t.TempDir(), "cards.ndjson")
	if code, stderr := cardgen(t, "-size", "200KB", "-dialect", "a2a", "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	last := bytes.LastIndexByte(b[:len(b)-1], '\n') + 1
	if len(b) < 200_000 || last >= 200_000 {
		t.Errorf("-size 200KB wrote %d bytes, the last card starting at %d: want the first card that reaches 200000 to be the last", len(b), last)
	}
	for _, line := range bytes.Split(b[:len(b)-1], []byte{'\n'}) {
		if !bytes.Contains(line, []byte(`"skills"`)) {
			t.Fatalf("-dialect a2a wrote a card without skills: %s", line)
		}
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"100MB": 100e6, "1.5 GB": 1.5e9, "512KiB": 512 << 10, "2mib": 2 << 20, "1000": 1000, "64B": 64} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "MB", "-5MB", "0", "ten", "1e30GB"} {
		if _, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) accepted", in)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"-n", "10", "-size", "1MB"},
		{"-dialect", "nope"},
		{"-kinds", "capability.id/nope"},
		{"-defects", "2"},
		{"-sample", "-seed", "2"},
		{"stray"},
		{"-size", "lots"},
	} {
		code, stderr := cardgen(t, args...)
		if code != exitUsage {
			t.Errorf("cardgen %v: exit %d, want %d", args, code, exitUsage)
		}
		if !strings.HasPrefix(stderr, "cardgen: error: ") && !strings.Contains(stderr, "Usage") {
			t.Errorf("cardgen %v: stderr %q lacks the error prefix", args, stderr)
		}
		if !strings.HasSuffix(stderr, "\n") || strings.HasSuffix(stderr, "\n\n") {
			t.Errorf("cardgen %v: stderr %q does not end in exactly one newline", args, stderr)
		}
	}
	if code, stderr := cardgen(t, "-o", filepath.Join(t.TempDir(), "no", "such", "dir.ndjson")); code != exitIO {
		t.Errorf("unwritable output: exit %d (%s), want %d", code, stderr, exitIO)
	}
}
