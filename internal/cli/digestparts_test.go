package cli

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDigestPartsMergedApart checks --digest-parts end to end: shards
// write their claims and diff digests split into P parts, P merges run
// apart (merge K reads part K of every shard, as the merge Job of a large
// crawl runs them), and the P merges' findings and diff records together
// are one run's, each once; their summaries add up with the shards' to one
// run's. A merge given parts of different numbers is refused.
func TestDigestPartsMergedApart(t *testing.T) {
	dir := t.TempDir()
	_, new := shardDumps(t, dir, 400)
	old, newDir := filepath.Join(dir, "old"), filepath.Join(dir, "new")
	oneSummary := filepath.Join(dir, "one-summary.json")
	one := run(t, "", append([]string{"--format", "jsonl", "--fail-on", "never", "--cross-card", "-j", "2",
		"--summary", oneSummary}, new...)...)
	if one.code != 0 {
		t.Fatalf("one run: %d %s", one.code, one.stderr)
	}
	_, oneFindings := splitFindings(one.stdout)
	slices.Sort(oneFindings)
	oneDiff := run(t, "", "diff", "--format", "jsonl", old, newDir)
	if oneDiff.code != 1 {
		t.Fatalf("one diff: %d %s", oneDiff.code, oneDiff.stderr)
	}
	oneDiffLines := sortedLines([]byte(oneDiff.stdout))

	const shards, parts = 3, 4
	sd := t.TempDir()
	var summaries []string
	for i := range shards {
		p := func(name string) string { return filepath.Join(sd, fmt.Sprintf("%s-%d", name, i)) }
		shard := fmt.Sprintf("%d/%d", i, shards)
		r := run(t, "", append([]string{"-q", "--fail-on", "never", "-j", "2", "--shard", shard,
			"--summary", p("summary"), "--digest-out", p("claims"), "--digest-parts", fmt.Sprint(parts)}, new...)...)
		if r.code != 0 {
			t.Fatalf("shard %d: %d %s", i, r.code, r.stderr)
		}
		d := run(t, "", "diff", "-j", "2", "--shard", shard, "--digest-out", p("diff"), "--digest-parts", fmt.Sprint(parts), old, newDir)
		if d.code != 0 {
			t.Fatalf("diff shard %d: %d %s", i, d.code, d.stderr)
		}
		summaries = append(summaries, p("summary"))
		for _, name := range []string{"claims", "diff"} {
			if fileExists(p(name)) {
				t.Errorf("--digest-parts %d wrote the unsplit %s", parts, p(name))
			}
		}
	}

	// part is every shard's file of part k of the set named name.
	part := func(name string, k int) []string {
		var files []string
		for i := range shards {
			files = append(files, filepath.Join(sd, fmt.Sprintf("%s-%d.part-%d-of-%d", name, i, k, parts)))
		}
		return files
	}
	var findings, diffLines []string
	nonEmpty := 0
	for k := range parts {
		sum := filepath.Join(sd, fmt.Sprintf("merge-summary-%d", k))
		m := run(t, "", append([]string{"merge", "--format", "jsonl", "--summary", sum}, part("claims", k)...)...)
		if m.code > 1 {
			t.Fatalf("merge of part %d: %d %s", k, m.code, m.stderr)
		}
		if m.stdout != "" {
			nonEmpty++
		}
		findings = append(findings, sortedLines([]byte(m.stdout))...)
		summaries = append(summaries, sum)
		md := run(t, "", append([]string{"merge", "--format", "jsonl"}, part("diff", k)...)...)
		if md.code > 1 {
			t.Fatalf("merge of diff part %d: %d %s", k, md.code, md.stderr)
		}
		diffLines = append(diffLines, sortedLines([]byte(md.stdout))...)
	}
	if nonEmpty < 2 {
		t.Errorf("the findings fell in %d of %d parts: the keys are not spread", nonEmpty, parts)
	}
	slices.Sort(findings)
	want := sortedLines([]byte(strings.Join(oneFindings, "")))
	if len(want) < 3 || !slices.Equal(findings, want) {
		t.Errorf("the %d parts' findings:\n%s\nwant one run's, each once:\n%s", parts, strings.Join(findings, "\n"), strings.Join(want, "\n"))
	}
	slices.Sort(diffLines)
	if len(oneDiffLines) < 10 || !slices.Equal(diffLines, oneDiffLines) {
		t.Errorf("the %d parts' diff records (%d) are not one diff's (%d), each once", parts, len(diffLines), len(oneDiffLines))
	}
	sm := run(t, "", append([]string{"summary", "merge"}, summaries...)...)
	if sm.code != 0 {
		t.Fatalf("summary merge: %d %s", sm.code, sm.stderr)
	}
	// 3 shards over 5 inputs slice by file: worst_inputs compare too.
	if got, want := comparableSummary(t, []byte(sm.stdout), false), comparableSummary(t, readFile(t, oneSummary), false); got != want {
		t.Errorf("shards and part merges add up to:\n%s\nwant one run's:\n%s", got, want)
	}

	mixed := append(part("claims", 0)[:1], part("claims", 1)[1:]...)
	m := run(t, "", append([]string{"merge"}, mixed...)...)
	if m.code != 3 || !strings.Contains(m.stderr, mixed[1]) {
		t.Errorf("merge of parts 0 and 1 together: %d %s, want 3 naming %s", m.code, m.stderr, mixed[1])
	}
}
