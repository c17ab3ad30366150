package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/corpus"
)

// shardDumps writes an old and a new crawl, each of five inputs in several
// framings and compressions, with duplicates planted across inputs (the
// same card, one identity on other content), and the new crawl with cards
// removed, changed, broken and added. It returns the inputs of each.
func shardDumps(t *testing.T, dir string, n int) (old, new []string) {
	t.Helper()
	g, err := corpus.New(corpus.Options{Seed: 39, Dialects: corpus.Dialects(), DefectRate: 0.15})
	if err != nil {
		t.Fatal(err)
	}
	cards := make([][]byte, n)
	for i := range cards {
		cards[i] = slices.Clone(g.Next().JSON)
	}
	// Planted across inputs: a card again, and a card's identity on
	// other content (a description added to an A2A card's object).
	for i := 0; i < n/10; i++ {
		c := cards[i*7%n]
		cards = append(cards, c)
		if j := bytes.LastIndexByte(c, '}'); j > 0 && bytes.Contains(c, []byte(`"url"`)) {
			other := append(append(slices.Clone(c[:j]), `,"x-planted":`+fmt.Sprint(i)...), '}')
			cards = append(cards, other)
		}
	}
	write := func(prefix string, cards [][]byte) []string {
		names := []string{"a.ndjson", "b.ndjson.zst", "c.json", "d.jsonl.gz", "e.ndjson"}
		parts := make([][][]byte, len(names))
		for i, c := range cards {
			parts[i%len(names)] = append(parts[i%len(names)], c)
		}
		var paths []string
		for i, name := range names {
			var b []byte
			if strings.HasPrefix(name, "c.") {
				b = append([]byte("[\n"), bytes.Join(parts[i], []byte(",\n"))...)
				b = append(b, "\n]\n"...)
			} else {
				for _, c := range parts[i] {
					b = append(append(b, c...), '\n')
				}
			}
			switch {
			case strings.HasSuffix(name, ".zst"):
				b = zstdBytes(t, b)
			case strings.HasSuffix(name, ".gz"):
				b = gzipBytes(t, b)
			}
			paths = append(paths, writeFile(t, filepath.Join(dir, prefix, name), b))
		}
		return paths
	}
	old = write("old", cards)
	changed := slices.Clone(cards)
	for i := 0; i < len(changed); i += 11 {
		switch i % 3 {
		case 0: // removed
			changed[i] = nil
		case 1: // changed
			if j := bytes.LastIndexByte(changed[i], '}'); j > 0 {
				changed[i] = append(append(slices.Clone(changed[i][:j]), `,"x-changed":true`...), '}')
			}
		case 2: // broken
			changed[i] = append(slices.Clone(changed[i][:len(changed[i])/2]), '}')
		}
	}
	changed = slices.DeleteFunc(changed, func(c []byte) bool { return c == nil })
	for range 20 {
		changed = append(changed, slices.Clone(g.Next().JSON))
	}
	return old, write("new", changed)
}

// lines returns b's lines, sorted: a file as a multiset of records.
func sortedLines(b []byte) []string {
	l := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(l) == 1 && l[0] == "" {
		return nil
	}
	slices.Sort(l)
	return l
}

// comparableSummary is a summary as JSON without what depends on the
// machine and the number of runs: the seconds, the throughput, the count
// of shards, and a diff's sorted runs and spill.
//
// Sliced by record, every shard reads every input, and summary merge keeps
// each reading of an input apart in worst_inputs: perInput drops them.
func comparableSummary(t *testing.T, b []byte, perInput bool) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	drop := func(m map[string]any) {
		for _, k := range []string{"seconds", "mb_per_second", "shards", "partitions", "spill_bytes"} {
			delete(m, k)
		}
	}
	drop(m)
	if perInput {
		delete(m, "worst_inputs")
	}
	if d, ok := m["diff"].(map[string]any); ok {
		drop(d)
	}
	out, _ := json.MarshalIndent(m, "", " ")
	return string(out)
}

// splitFindings splits validation's jsonl stdout into the cards' verdicts
// and --cross-card's findings.
func splitFindings(out string) (verdicts, dumpFindings []string) {
	for _, l := range strings.SplitAfter(out, "\n") {
		if l == "" {
			continue
		}
		if strings.Contains(l, `"rule":"dump.`) {
			dumpFindings = append(dumpFindings, l)
		} else {
			verdicts = append(verdicts, l)
		}
	}
	slices.Sort(verdicts)
	return verdicts, dumpFindings
}

// TestShardsEqualOneRun checks the shard contract end to end: for N shards
// by file and by record, the shards' valid and invalid outputs and
// verdicts are one run's as multisets, their summaries merged with the
// claims' merge are one run's, and cardscan merge of their digest files
// gives one run's --cross-card findings and diff records byte for byte.
func TestShardsEqualOneRun(t *testing.T) {
	dir := t.TempDir()
	_, new := shardDumps(t, dir, 400)
	oneDir := filepath.Join(dir, "one")
	os.MkdirAll(oneDir, 0o755)
	one := run(t, "", append([]string{"--format", "jsonl", "--all", "--cross-card", "-j", "2",
		"--valid-out", filepath.Join(oneDir, "valid.ndjson"), "--invalid-out", filepath.Join(oneDir, "invalid.ndjson"),
		"--summary", filepath.Join(oneDir, "summary.json")}, new...)...)
	if one.code > 1 {
		t.Fatalf("one run: %d %s", one.code, one.stderr)
	}
	oneVerdicts, oneFindings := splitFindings(one.stdout)
	if len(oneFindings) < 3 {
		t.Fatalf("the planted duplicates made %d findings: %s", len(oneFindings), one.stderr)
	}
	oneDiff := run(t, "", "diff", "--format", "jsonl", "--summary", filepath.Join(oneDir, "diff.json"), filepath.Join(dir, "old"), filepath.Join(dir, "new"))
	if oneDiff.code != 1 || strings.Count(oneDiff.stdout, "\n") < 10 {
		t.Fatalf("one diff: %d, %d records: %s", oneDiff.code, strings.Count(oneDiff.stdout, "\n"), oneDiff.stderr)
	}

	for _, tc := range []struct {
		n  int
		by string
	}{{1, "auto"}, {2, "auto"}, {3, "auto"}, {7, "auto"}, {16, "auto"}, {3, "record"}, {7, "file"}} {
		t.Run(fmt.Sprintf("%d-%s", tc.n, tc.by), func(t *testing.T) {
			sd := t.TempDir()
			byRecord := tc.by == "record" || tc.by == "auto" && tc.n > len(new)
			var verdicts, valid, invalid []string
			var digests, diffDigests, summaries []string
			for i := range tc.n {
				p := func(name string) string { return filepath.Join(sd, fmt.Sprintf("%s-%d", name, i)) }
				r := run(t, "", append([]string{"--format", "jsonl", "--all", "-j", "2", "--shard", fmt.Sprintf("%d/%d", i, tc.n), "--shard-by", tc.by,
					"--valid-out", p("valid"), "--invalid-out", p("invalid"), "--summary", p("summary"), "--digest-out", p("claims")}, new...)...)
				if r.code > 1 {
					t.Fatalf("shard %d: %d %s", i, r.code, r.stderr)
				}
				v, f := splitFindings(r.stdout)
				if len(f) > 0 {
					t.Fatalf("shard %d wrote dump findings: %s", i, f)
				}
				verdicts = append(verdicts, v...)
				valid = append(valid, sortedLines(readFile(t, p("valid")))...)
				invalid = append(invalid, sortedLines(readFile(t, p("invalid")))...)
				digests, summaries = append(digests, p("claims")), append(summaries, p("summary"))
				d := run(t, "", "diff", "-j", "2", "--shard", fmt.Sprintf("%d/%d", i, tc.n), "--shard-by", tc.by, "--digest-out", p("diff"),
					filepath.Join(dir, "old"), filepath.Join(dir, "new"))
				if d.code != 0 {
					t.Fatalf("diff shard %d: %d %s", i, d.code, d.stderr)
				}
				diffDigests = append(diffDigests, p("diff"))
			}
			slices.Sort(verdicts)
			slices.Sort(valid)
			slices.Sort(invalid)
			if !slices.Equal(verdicts, oneVerdicts) {
				t.Errorf("the shards' %d verdicts are not one run's %d", len(verdicts), len(oneVerdicts))
			}
			if !slices.Equal(valid, sortedLines(readFile(t, filepath.Join(oneDir, "valid.ndjson")))) {
				t.Errorf("the shards' valid records are not one run's")
			}
			if !slices.Equal(invalid, sortedLines(readFile(t, filepath.Join(oneDir, "invalid.ndjson")))) {
				t.Errorf("the shards' invalid records are not one run's")
			}

			m := run(t, "", append([]string{"merge", "--format", "jsonl", "--summary", filepath.Join(sd, "merge-summary")}, digests...)...)
			if m.code != 0 {
				t.Fatalf("merge: %d %s", m.code, m.stderr)
			}
			if m.stdout != strings.Join(oneFindings, "") {
				t.Errorf("merged findings:\n%s\nwant one run's:\n%s", m.stdout, strings.Join(oneFindings, ""))
			}
			sm := run(t, "", append([]string{"summary", "merge", filepath.Join(sd, "merge-summary")}, summaries...)...)
			if sm.code != 0 {
				t.Fatalf("summary merge: %d %s", sm.code, sm.stderr)
			}
			if got, want := comparableSummary(t, []byte(sm.stdout), byRecord), comparableSummary(t, readFile(t, filepath.Join(oneDir, "summary.json")), byRecord); got != want {
				t.Errorf("merged summary:\n%s\nwant one run's:\n%s", got, want)
			}

			md := run(t, "", append([]string{"merge", "--format", "jsonl", "--summary", filepath.Join(sd, "diff-summary")}, diffDigests...)...)
			if md.code != 1 {
				t.Fatalf("merge of diff digests: %d %s", md.code, md.stderr)
			}
			if md.stdout != oneDiff.stdout {
				t.Errorf("merged diff records are not one diff's:\n%s\nwant\n%s", md.stdout, oneDiff.stdout)
			}
			if got, want := comparableSummary(t, readFile(t, filepath.Join(sd, "diff-summary")), false), comparableSummary(t, readFile(t, filepath.Join(oneDir, "diff.json")), false); got != want {
				t.Errorf("merged diff summary:\n%s\nwant one diff's:\n%s", got, want)
			}
		})
	}
}

// TestDigestOutNotWrittenForUnreadInput checks a shard that could not read
// an input writes no digest file: its merge would miss the input's claims.
func TestDigestOutNotWrittenForUnreadInput(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, filepath.Join(dir, "a.ndjson"), []byte(`{"name":"x"}`+"\n"))
	digest := filepath.Join(dir, "claims.digest")
	r := run(t, "", "-q", "--fail-on", "never", "--shard", "0/1", "--digest-out", digest, good, filepath.Join(dir, "missing.ndjson"))
	if r.code != 3 {
		t.Errorf("exit %d, want 3: %s", r.code, r.stderr)
	}
	if fileExists(digest) {
		t.Errorf("a run that could not read an input wrote %s", digest)
	}
}
