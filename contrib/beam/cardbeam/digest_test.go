package cardbeam

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	"github.com/cardscan/cardscan/corpus"
	"github.com/klauspost/compress/zstd"
)

// crawls writes an old and a new crawl of n generated cards (and the
// planted ones), each as five NDJSON files of several compressions, the
// cards dealt among them in turn: duplicates planted so that they land in
// other files than their originals (a card again, and an A2A card's
// identity on other content), and the new crawl with cards removed,
// changed, broken and added. It returns the crawls' directories.
func crawls(t *testing.T, dir string, n int) (old, new string) {
	t.Helper()
	g, err := corpus.New(corpus.Options{Seed: 39, Dialects: corpus.Dialects(), DefectRate: 0.15})
	if err != nil {
		t.Fatal(err)
	}
	cards := make([][]byte, n)
	for i := range cards {
		cards[i] = slices.Clone(g.Next().JSON)
	}
	for i := 0; i < n/10; i++ {
		c := cards[i*7%n]
		cards = append(cards, c)
		if j := bytes.LastIndexByte(c, '}'); j > 0 && bytes.Contains(c, []byte(`"url"`)) {
			cards = append(cards, append(append(slices.Clone(c[:j]), `,"x-planted":`+fmt.Sprint(i)...), '}'))
		}
	}
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
	old, new = filepath.Join(dir, "old"), filepath.Join(dir, "new")
	writeCrawl(t, old, cards)
	writeCrawl(t, new, changed)
	return old, new
}

func writeCrawl(t *testing.T, dir string, cards [][]byte) {
	t.Helper()
	names := []string{"a.ndjson", "b.ndjson.zst", "c.ndjson", "d.jsonl.gz", "e.ndjson"}
	parts := make([][]byte, len(names))
	for i, c := range cards {
		k := i % len(names)
		parts[k] = append(append(parts[k], c...), '\n')
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for k, name := range names {
		b := parts[k]
		switch {
		case strings.HasSuffix(name, ".zst"):
			w, err := zstd.NewWriter(nil)
			if err != nil {
				t.Fatal(err)
			}
			b = w.EncodeAll(b, nil)
		case strings.HasSuffix(name, ".gz"):
			b = gzipped(b)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// runCLI runs cardscan, failing the test on an exit status above max.
func runCLI(t *testing.T, bin string, max int, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if code := cmd.ProcessState.ExitCode(); code < 0 || code > max {
		t.Fatalf("cardscan %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return string(out)
}

func execute(t *testing.T, p *beam.Pipeline) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	_, err := prism.Execute(ctx, p)
	return err
}

func glob(t *testing.T, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(pattern)
	if err != nil || len(m) == 0 {
		t.Fatalf("%s: %v, %d files", pattern, err, len(m))
	}
	return m
}

// TestDigestsMergeAsOneRun runs the validation pipeline with digests and
// the diff pipeline on Prism over two generated crawls with duplicates
// planted across files, and checks that the pipeline's valid and invalid
// records (as multisets) and summary are one cardscan run's, and that
// cardscan merge of its digest files gives that run's --cross-card
// findings and cardscan diff's records byte for byte, and with the
// merge's summary, that run's summary.
func TestDigestsMergeAsOneRun(t *testing.T) {
	dir := t.TempDir()
	oldDir, newDir := crawls(t, dir, 400)
	inputs := glob(t, filepath.Join(newDir, "*"))
	bin := cardscan(t)
	one, out := filepath.Join(dir, "one"), filepath.Join(dir, "beam")
	for _, d := range []string{one, out} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	oneRun := runCLI(t, bin, 1, append([]string{"--format", "jsonl", "--cross-card", "--input", "ndjson",
		"--valid-out", filepath.Join(one, "valid.ndjson"), "--invalid-out", filepath.Join(one, "invalid.ndjson"),
		"--summary", filepath.Join(one, "summary.json")}, inputs...)...)
	var oneFindings string
	for _, l := range strings.SplitAfter(oneRun, "\n") {
		if strings.Contains(l, `"rule":"dump.`) {
			oneFindings += l
		}
	}
	if strings.Count(oneFindings, "\n") < 3 {
		t.Fatalf("the planted duplicates made %d findings", strings.Count(oneFindings, "\n"))
	}
	oneDiff := runCLI(t, bin, 1, "diff", "--format", "jsonl", oldDir, newDir)
	if strings.Count(oneDiff, "\n") < 10 {
		t.Fatalf("the planted changes made %d diff records", strings.Count(oneDiff, "\n"))
	}

	p, s := beam.NewPipelineWithRoot()
	o := Options{Inputs: filepath.Join(newDir, "*"), ValidOut: filepath.Join(out, "valid.ndjson"),
		InvalidOut: filepath.Join(out, "invalid.ndjson"), Summary: filepath.Join(out, "summary.json"),
		Digest: filepath.Join(out, "claims")}
	if err := Build(s.Scope("validate"), o); err != nil {
		t.Fatal(err)
	}
	// The same claims again, two shards of inputs to a digest file, and
	// each file in two parts by key hash.
	if err := Build(s.Scope("shards"), Options{Inputs: o.Inputs, Digest: filepath.Join(out, "sharded"), DigestShards: 2, DigestParts: 2}); err != nil {
		t.Fatal(err)
	}
	// Three shards of each crawl, spilling at 4 KiB.
	if err := BuildDiff(s.Scope("diff"), DiffOptions{Old: filepath.Join(oldDir, "*"), New: filepath.Join(newDir, "*"),
		Digest: filepath.Join(out, "diff"), DigestShards: 3, Memory: 4 << 10}); err != nil {
		t.Fatal(err)
	}
	if err := execute(t, p); err != nil {
		t.Fatalf("prism: %v", err)
	}

	for _, name := range []string{"valid.ndjson", "invalid.ndjson"} {
		got, want := sortedLines(t, filepath.Join(out, name)), sortedLines(t, filepath.Join(one, name))
		if len(want) < 50 || !slices.Equal(got, want) {
			t.Errorf("%s: the pipeline's %d records are not cardscan's %d", name, len(got), len(want))
		}
	}
	claims := glob(t, filepath.Join(out, "claims-*"))
	if len(claims) != len(inputs) {
		t.Errorf("%d claims digest files for %d inputs: %s", len(claims), len(inputs), claims)
	}
	mergeSum := filepath.Join(out, "merge-summary.json")
	if got := runCLI(t, bin, 1, append([]string{"merge", "--format", "jsonl", "--summary", mergeSum}, claims...)...); got != oneFindings {
		t.Errorf("cardscan merge of the pipeline's claims:\n%s\nwant one run's --cross-card findings:\n%s", got, oneFindings)
	}
	// A merge per part: together, the lines of one run's findings.
	var partsMerged string
	for k := range 2 {
		sharded := glob(t, filepath.Join(out, fmt.Sprintf("sharded-shard-*-of-00002.part-%d-of-2", k)))
		if len(sharded) != 2 {
			t.Errorf("%d claims digest files of part %d for 2 shards: %s", len(sharded), k, sharded)
		}
		partsMerged += runCLI(t, bin, 1, append([]string{"merge", "--format", "jsonl"}, sharded...)...)
	}
	if got, want := lineSet(partsMerged), lineSet(oneFindings); !slices.Equal(got, want) {
		t.Errorf("cardscan merge of each part of the pipeline's sharded claims, together:\n%s\nwant one run's --cross-card findings:\n%s",
			partsMerged, oneFindings)
	}
	merged := runCLI(t, bin, 0, "summary", "merge", mergeSum, o.Summary)
	if got, want := comparable(t, []byte(merged)), comparable(t, readFile(t, filepath.Join(one, "summary.json"))); got != want {
		t.Errorf("the pipeline's summary merged with the claims':\n%s\nwant one run's:\n%s", got, want)
	}
	diffs := glob(t, filepath.Join(out, "diff-*"))
	if len(diffs) != 2*3 {
		t.Errorf("%d diff digest files for 3 shards of each crawl: %s", len(diffs), diffs)
	}
	if got := runCLI(t, bin, 1, append([]string{"merge", "--format", "jsonl"}, diffs...)...); got != oneDiff {
		t.Errorf("cardscan merge of the pipeline's diff digests:\n%s\nwant cardscan diff's:\n%s", got, oneDiff)
	}
}

// lineSet is s's lines, sorted: output as a multiset of lines.
func lineSet(s string) []string {
	l := strings.SplitAfter(s, "\n")
	if l[len(l)-1] == "" {
		l = l[:len(l)-1]
	}
	slices.Sort(l)
	return l
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDigestNotWrittenForUnreadInput checks that an input that cannot be
// read whole gets no digest file, that one an earlier run wrote for it is
// removed (a merge would take it for the input's records), and that the
// pipeline fails, as cardscan exits 3 without --digest-out then; the
// inputs read whole get theirs.
func TestDigestNotWrittenForUnreadInput(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	g, err := corpus.New(corpus.Options{Seed: 7, Dialects: corpus.Dialects()})
	if err != nil {
		t.Fatal(err)
	}
	var whole []byte
	for range 50 {
		whole = append(append(whole, g.Next().JSON...), '\n')
	}
	cut := gzipped(whole)
	for _, d := range []string{in, out} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, b := range map[string][]byte{"a.ndjson": whole, "b.ndjson.gz": cut[:len(cut)/2], "c.ndjson": whole} {
		if err := os.WriteFile(filepath.Join(in, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stale := filepath.Join(out, "claims-00001-of-00003")
	if err := os.WriteFile(stale, []byte("an earlier run's"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, s := beam.NewPipelineWithRoot()
	sum := filepath.Join(out, "summary.json")
	if err := Build(s, Options{Inputs: filepath.Join(in, "*"), Digest: filepath.Join(out, "claims"), Summary: sum}); err != nil {
		t.Fatal(err)
	}
	err = execute(t, p)
	if err == nil || !strings.Contains(err.Error(), "1 of 3 inputs could not be read completely, and have no digest file: "+filepath.Join(in, "b.ndjson.gz")+": ") {
		t.Errorf("prism: %v, want the unread input named", err)
	}
	// The summary is written before the pipeline fails.
	if b, err := os.ReadFile(sum); err != nil || !bytes.Contains(b, []byte(`"input_errors": 1,`)) {
		t.Errorf("summary: %v\n%s", err, b)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the unread input's digest file of an earlier run is still there: %v", err)
	}
	if got := glob(t, filepath.Join(out, "claims-*")); len(got) != 2 {
		t.Errorf("digest files %s, want the two inputs read whole", got)
	}
}

// TestDigestOptionsRefused checks that digest options a pipeline cannot
// honour are refused when it is built, naming the option.
func TestDigestOptionsRefused(t *testing.T) {
	dir := t.TempDir()
	in, digest := filepath.Join(dir, "*"), filepath.Join(dir, "claims")
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Inputs: in, DigestShards: 2}, "no digest path"},
		{Options{Inputs: in, DigestParts: 4}, "no digest path"},
		{Options{Inputs: in, Digest: digest, DigestParts: MaxDigestParts + 1}, "digest parts 257: want 1 to 256"},
		{Options{Inputs: in, Digest: digest, DigestShards: -1}, "digest shards -1"},
		{Options{Inputs: in, Digest: digest, Memory: 100}, "memory 100: want at least 1KiB"},
		{Options{Inputs: in, Digest: dir + "/"}, "not a directory"},
	} {
		_, s := beam.NewPipelineWithRoot()
		if err := Build(s, tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error saying %q", tc.o, err, tc.want)
		}
	}
	for _, tc := range []struct {
		o    DiffOptions
		want string
	}{
		{DiffOptions{Old: in, New: in, Digest: digest, Key: "url"}, `key "url": want auto, source or id`},
		{DiffOptions{Old: in, Digest: digest}, "old and the new dump's globs"},
		{DiffOptions{Old: in, New: in}, "a digest path"},
	} {
		_, s := beam.NewPipelineWithRoot()
		if err := BuildDiff(s, tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error saying %q", tc.o, err, tc.want)
		}
	}
}
