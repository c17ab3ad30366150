package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFindConfigBrokenLink: a policy file that is a symbolic link to
// nothing (its target moved) or a loop was skipped without a word, and the
// search went on to a policy file higher up, or to none: a run meant to
// be held to one policy was held to another. It is refused by name.
func TestFindConfigBrokenLink(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, ".cardscan.yaml"), []byte("policy: default\n"))
	for _, c := range []struct{ name, target string }{
		{"dangling", "moved-away.yaml"},
		{"loop", ".cardscan.yml"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(root, c.name)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			link := filepath.Join(dir, ".cardscan.yml")
			if err := os.Symlink(c.target, link); err != nil {
				t.Skip(err)
			}
			got, err := findConfig(dir)
			if err == nil || !strings.Contains(err.Error(), link) {
				t.Errorf("findConfig(%s) = %q, %v; want an error naming %s", dir, got, err, link)
			}
		})
	}
}

// TestPolicyErrorsQuoteLongValues: an unknown key, or a wrong profile or
// format value, of a 900 KB scalar made a 900 KB error line in a CI log.
// The error quotes its start and its size.
func TestPolicyErrorsQuoteLongValues(t *testing.T) {
	long := strings.Repeat("x", 900_000)
	for _, policy := range []string{
		long + ": 1\n",
		"profile: " + long + "\n",
		"format: " + long + "\n",
		"fail-on: " + long + "\n",
		"rules:\n  " + long + ": off\n",
		"rules:\n  version.semver: " + long + "\n",
	} {
		t.Run(strings.ReplaceAll(policy[:min(len(policy), 20)], "x", ""), func(t *testing.T) {
			dir := repoWithPolicy(t, ".cardscan.yaml", policy)
			r := runIn(t, dir, "cards.ndjson")
			if r.code != exitUsage {
				t.Errorf("exit %d, want %d", r.code, exitUsage)
			}
			if len(r.stderr) > 2000 || !strings.Contains(r.stderr, "900000 bytes") {
				t.Errorf("%d bytes of errors, want the value's start and its size: %.300q", len(r.stderr), r.stderr)
			}
		})
	}
}
