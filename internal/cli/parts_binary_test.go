package cli

import (
	"crypto/sha256"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestBinaryPartsSameOutput: the built binary's --cross-card findings and
// diff's records, from standard input, a file and a zstd file, are byte
// for byte the same at any -j, in memory or spilled (--memory 1KiB):
// Finish groups the claims, and diff indexes and compares the digests, in
// a part per job.
func TestBinaryPartsSameOutput(t *testing.T) {
	a, b, _ := crossDump(t, 1500)
	dir := t.TempDir()
	file := writeFile(t, filepath.Join(dir, "a.ndjson"), ndjson(a))
	zst := writeFile(t, filepath.Join(dir, "b.ndjson.zst"), zstdBytes(t, ndjson(b)))
	// Standard input holds a's cards again, each a dump.duplicate-card.
	stdin := ndjson(a)
	newDump := zstdBytes(t, ndjson(append(append(a[200:], b[:500]...), a[:100]...)))
	for _, tc := range []struct {
		name  string
		stdin []byte
		args  []string
		rule  string // in the output, so that it is not empty
	}{
		{"cross-card", stdin, []string{"--cross-card", "--progress", "never", "-", file, zst}, "dump.duplicate-card"},
		{"diff", newDump, []string{"diff", file, "-"}, "removed"},
	} {
		for _, format := range []string{"text", "jsonl"} {
			var want string
			var wantCode int
			for _, memory := range []string{"1GiB", "1KiB"} {
				for _, jobs := range []int{1, 2, 3, 7, 64} {
					args := append([]string{"--format", format, "--memory", memory, "-j", fmt.Sprint(jobs)}, tc.args...)
					if tc.name == "diff" {
						args = append([]string{"diff"}, append(args[:6:6], tc.args[1:]...)...)
					}
					r := runBinary(t, tc.stdin, args...)
					got := fmt.Sprintf("%x", sha256.Sum256([]byte(r.stdout)))
					if want == "" {
						if !strings.Contains(r.stdout, tc.rule) {
							t.Fatalf("%s %s: no %s in the output; the case tests nothing\n%.500s\n%s", tc.name, format, tc.rule, r.stdout, r.stderr)
						}
						want, wantCode = got, r.code
						continue
					}
					if got != want || r.code != wantCode {
						t.Errorf("%s %s, --memory %s -j %d: output sha256 %s, exit %d; want %s, exit %d (-j 1, 1GiB)",
							tc.name, format, memory, jobs, got, r.code, want, wantCode)
					}
				}
			}
		}
	}
}
