package cli

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
)

// TestOnCorruptDrop flips bytes in zstd and gzip copies of a dump: with
// --on-corrupt drop no line that is not in the dump reaches --valid-out or
// --invalid-out, nor a verdict on stdout, and an intact input beside the
// corrupt one is written whole.
func TestOnCorruptDrop(t *testing.T) {
	// Cards and random lines, so that the streams do not compress to
	// nothing and a flipped byte lands anywhere in them.
	r0 := rand.New(rand.NewPCG(1, 2))
	var b bytes.Buffer
	for range 100 {
		b.Write(readFile(t, cardsFile))
		for range 20 {
			fmt.Fprintf(&b, "{\"r\":\"%x\"}\n", r0.Uint64())
		}
	}
	input := b.Bytes()
	original := map[string]bool{}
	for _, rec := range splitRecords(input) {
		original[strings.TrimRight(string(rec.raw), "\r\n")] = true
	}
	intactCards := readFile(t, cardsFile)
	dir := t.TempDir()
	intact := writeFile(t, filepath.Join(dir, "intact.ndjson.gz"), gzipBytes(t, intactCards))
	// A copy after the corrupted input: one file named twice is refused.
	intactAfter := writeFile(t, filepath.Join(dir, "intact2.ndjson.gz"), gzipBytes(t, intactCards))
	corrupted := 0
	for i := range 24 {
		r := rand.New(rand.NewPCG(uint64(i), 7))
		comp := zstdBytes(t, input)
		if i%2 == 1 {
			comp = gzipBytes(t, input)
		}
		for range 1 + r.IntN(3) {
			comp[20+r.IntN(len(comp)-40)] ^= byte(1 << r.IntN(8))
		}
		path := writeFile(t, filepath.Join(dir, fmt.Sprintf("c%d.ndjson.x", i)), comp)
		valid, invalid := filepath.Join(dir, "v.out"), filepath.Join(dir, "i.out")
		res := run(t, "", "--on-corrupt", "drop", "--format", "jsonl", "--all", "-j", "2", "--chunk-size", "4KiB",
			"--valid-out", valid, "--invalid-out", invalid, "--summary", filepath.Join(dir, "s.out"), intact, path, intactAfter)
		s := readSummary(t, filepath.Join(dir, "s.out"))
		out := append(outLines(readFile(t, valid)), outLines(readFile(t, invalid))...)
		if res.code == exitIO {
			corrupted++
			if !strings.Contains(res.stderr, "were not written (--on-corrupt drop)") && !strings.Contains(res.stderr, "offset 0 ") {
				t.Errorf("%d: stderr %q does not say what was dropped", i, res.stderr)
			}
			for _, v := range parseVerdicts(t, res.stdout) {
				if v.Input == path {
					t.Fatalf("%d: a verdict on the corrupt input was written", i)
				}
			}
			if want := 2 * len(splitRecords(intactCards)); len(out) != want || s.Records != int64(want) {
				t.Errorf("%d: %d lines and %d records written, want the intact inputs' %d", i, len(out), s.Records, want)
			}
		}
		for _, l := range out {
			if !original[strings.TrimSuffix(l, "\r")] && !bytes.Contains(intactCards, []byte(l)) {
				t.Fatalf("%d (exit %d): a line that is in no input was written: %.60q", i, res.code, l)
			}
		}
	}
	if corrupted < 12 {
		t.Errorf("only %d of 24 flipped streams failed: the test does not corrupt enough", corrupted)
	}
}

// TestOnCorruptDropIntact: an intact compressed input is written whole
// under --on-corrupt drop, as without it; a run that stops inside one
// (--max-invalid) writes none of it, since its checksums were not read.
func TestOnCorruptDropIntact(t *testing.T) {
	input := bigInput(t, 40)
	dir := t.TempDir()
	zst := writeFile(t, filepath.Join(dir, "a.ndjson.zst"), zstdBytes(t, input))
	plain := writeFile(t, filepath.Join(dir, "b.ndjson"), input)
	args := []string{"--format", "jsonl", "--all", "--chunk-size", "1KiB", "-j", "3"}
	keep := run(t, "", append(args, zst, plain)...)
	drop := run(t, "", append(args, "--on-corrupt", "drop", zst, plain)...)
	if keep.stdout != drop.stdout || keep.code != drop.code {
		t.Errorf("an intact stream gives other verdicts under --on-corrupt drop")
	}
	r := run(t, "", "--on-corrupt", "drop", "--max-invalid", "1", "--format", "jsonl", zst)
	if r.stdout != "" || !strings.Contains(r.stderr, "the run ended before the end of its compressed stream") {
		t.Errorf("stopped inside a held stream: stdout %q, stderr %q", r.stdout, r.stderr)
	}
	if r := run(t, "", "--on-corrupt", "maybe"); r.code != exitUsage {
		t.Errorf("--on-corrupt maybe: exit %d", r.code)
	}
}
