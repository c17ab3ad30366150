package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestFailOnWarningReportsTheCard: under --fail-on warning a card with a
// warning fails the run, so every format reports it as failing and it is
// copied to --invalid-out, not --valid-out.
func TestFailOnWarningReportsTheCard(t *testing.T) {
	lines := strings.Split(string(readFile(t, cardsFile)), "\n")
	warning, valid := lines[12], lines[0]
	input := valid + "\n" + warning + "\n"
	dir := t.TempDir()
	for _, tc := range []struct {
		format string
		want   string // on stdout
	}{
		{"jsonl", `"valid":false`},
		{"text", ": warning: "},
		{"github", "::warning file=<stdin>,line=2,"},
	} {
		v, i := filepath.Join(dir, tc.format+".valid"), filepath.Join(dir, tc.format+".invalid")
		r := run(t, input, "--fail-on", "warning", "--format", tc.format, "--valid-out", v, "--invalid-out", i, "--summary", filepath.Join(dir, "s.json"))
		if r.code != exitInvalid || !strings.Contains(r.stdout, tc.want) {
			t.Errorf("%s: exit %d, stdout %q; want 1 and %q", tc.format, r.code, r.stdout, tc.want)
		}
		if got := string(readFile(t, i)); got != warning+"\n" {
			t.Errorf("%s: --invalid-out holds %q, want the card with the warning", tc.format, got)
		}
		if got := string(readFile(t, v)); got != valid+"\n" {
			t.Errorf("%s: --valid-out holds %q, want only the valid card", tc.format, got)
		}
		if s := readSummary(t, filepath.Join(dir, "s.json")); s.Valid != 1 || s.Invalid != 1 {
			t.Errorf("%s: summary %d valid, %d invalid; want 1 and 1", tc.format, s.Valid, s.Invalid)
		}
	}
	// Without it, the same card passes and is copied as valid.
	v := filepath.Join(dir, "default.valid")
	if r := run(t, input, "--format", "jsonl", "--valid-out", v); r.code != exitOK || r.stdout != "" || len(readFile(t, v)) != len(input) {
		t.Errorf("--fail-on error: exit %d, stdout %q", r.code, r.stdout)
	}
}
