package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMergeExtremeFigures: summary merge adds whatever times its
// summaries hold; it fails only on counts that do not fit, naming them.
func TestMergeExtremeFigures(t *testing.T) {
	dir := t.TempDir()
	doc := func(name, members string) string {
		return writeFile(t, filepath.Join(dir, name), []byte(`{"records":1,"valid":1,"invalid":0,"bytes_decompressed":9000000,`+members+`}`))
	}
	// Two files of each, since one file named twice is refused.
	long, long2 := doc("long.json", `"seconds":1e308`), doc("long2.json", `"seconds":1e308`)
	short := doc("short.json", `"seconds":1e-320`)
	full, full2 := doc("full.json", `"seconds":1,"errors":9223372036854775807`), doc("full2.json", `"seconds":1,"errors":9223372036854775807`)
	for _, tc := range []struct {
		files  []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{long, long2}, exitOK, `"seconds": 1.7976931348623157e+308`, ""},
		{[]string{short}, exitOK, `"mb_per_second": 1000000000,`, ""},
		{[]string{full, full2}, exitIO, "", "full2.json: errors: the total does not fit a 64-bit integer"},
	} {
		r := run(t, "", append([]string{"summary", "merge"}, tc.files...)...)
		if r.code != tc.code || !strings.Contains(r.stdout, tc.stdout) || !strings.Contains(r.stderr, tc.stderr) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", tc.files, r.code, r.stdout, r.stderr)
		}
	}
}

// TestMergeSameDigestUnderAnotherName: a shard's digest file given twice,
// under any name (a copy, a hard link, ./x beside x, a symbolic link),
// is refused naming both, for claims and for diff digests: its records
// would each be counted twice. Shards' files, and a shard's empty file
// given beside another shard's, are merged as before.
func TestMergeSameDigestUnderAnotherName(t *testing.T) {
	dir := t.TempDir()
	old, new := shardDumps(t, dir, 120)
	newDir := filepath.Join(dir, "new")
	sd := t.TempDir()
	claims := func(i int) string { return filepath.Join(sd, fmt.Sprintf("claims-%d", i)) }
	diffs := func(i int) string { return filepath.Join(sd, fmt.Sprintf("diff-%d", i)) }
	for i := range 2 {
		shard := fmt.Sprintf("%d/2", i)
		if r := run(t, "", append([]string{"-q", "--fail-on", "never", "--shard", shard, "--digest-out", claims(i)}, new...)...); r.code != 0 {
			t.Fatalf("shard %d: %d %s", i, r.code, r.stderr)
		}
		if r := run(t, "", "diff", "--shard", shard, "--digest-out", diffs(i), filepath.Dir(old[0]), newDir); r.code != 0 {
			t.Fatalf("diff shard %d: %d %s", i, r.code, r.stderr)
		}
	}
	for _, set := range []func(int) string{claims, diffs} {
		if r := run(t, "", "merge", "--format", "jsonl", set(0), set(1)); r.code > 1 {
			t.Fatalf("merge of the shards: %d %s", r.code, r.stderr)
		}
		first := set(0)
		data, err := os.ReadFile(first)
		if err != nil {
			t.Fatal(err)
		}
		copied := first + ".copy"
		hard := first + ".hard"
		soft := first + ".soft"
		if err := os.WriteFile(copied, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(first, hard); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(first, soft); err != nil {
			t.Fatal(err)
		}
		dotted := filepath.Join(filepath.Dir(first), ".", filepath.Base(first))
		for _, again := range []string{copied, hard, soft, dotted} {
			r := run(t, "", "merge", "--format", "jsonl", first, set(1), again)
			if r.code != exitIO || !strings.Contains(r.stderr, again) || !strings.Contains(r.stderr, "twice") {
				t.Errorf("merge %s beside %s: exit %d, stderr %q; want 3 and an error naming it as given twice", again, first, r.code, r.stderr)
			}
		}
	}
}

// TestMergeClaimsLineCounts: the closing line said "1 digest files: 1
// errors"; each count now takes its noun's number.
func TestMergeClaimsLineCounts(t *testing.T) {
	dir := t.TempDir()
	_, new := shardDumps(t, dir, 120)
	digest := filepath.Join(t.TempDir(), "claims")
	if r := run(t, "", append([]string{"-q", "--fail-on", "never", "--digest-out", digest}, new...)...); r.code != 0 {
		t.Fatalf("%d %s", r.code, r.stderr)
	}
	r := run(t, "", "merge", "--format", "jsonl", digest)
	if !strings.Contains(r.stderr, "cardscan: 1 digest file: ") || strings.Contains(r.stderr, " 1 errors") || strings.Contains(r.stderr, " 1 warnings") {
		t.Errorf("exit %d, stderr %q; want \"1 digest file: \" and singular counts", r.code, r.stderr)
	}
}

// TestDiffLineCounts: diff's closing line said "1 old and 1 new
// records"; the count takes its noun's number, as merge's does.
func TestDiffLineCounts(t *testing.T) {
	dir := t.TempDir()
	card := `{"agent_id":"01ARZ3NDEKTSV4RRFFQ69G5FAV","name":"W","version":"1.2.0","capabilities":[{"id":"w.f","description":"d"}],"endpoint":{"protocol":"https","url":"https://w.example.com/a"}}` + "\n"
	old := writeFile(t, filepath.Join(dir, "old.ndjson"), []byte(card))
	new := writeFile(t, filepath.Join(dir, "new.ndjson"), []byte(card))
	r := run(t, "", "diff", old, new)
	if !strings.Contains(r.stderr, "cardscan: 1 old and 1 new record: ") {
		t.Errorf("exit %d, stderr %q; want \"1 old and 1 new record: \"", r.code, r.stderr)
	}
}
