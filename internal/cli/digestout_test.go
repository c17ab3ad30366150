package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDigestOutUnwritableFailsFirst: --digest-out naming a directory, or
// a file in a directory that does not exist, failed only after the whole
// run, naming a temporary file. Like every other output it is refused
// before the first record is read, by the path the user gave.
func TestDigestOutUnwritableFailsFirst(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, path, want string
	}{
		{"directory", dir, "is a directory"},
		{"missing-dir", filepath.Join(dir, "missing", "d.dig"), "no such file or directory"},
	} {
		for _, sub := range [][]string{{}, {"diff", cardsFile}} {
			t.Run(tc.name+strings.Join(sub[:min(len(sub), 1)], ""), func(t *testing.T) {
				args := append(sub, "--digest-out", tc.path, cardsFile)
				if len(sub) > 0 {
					args = append(args, "--shard", "0/2")
				} else {
					args = append([]string{"-q"}, args...)
				}
				r := run(t, "", args...)
				if r.code != exitIO {
					t.Fatalf("%v: exit %d, want %d: %s", args, r.code, exitIO, r.stderr)
				}
				if !strings.Contains(r.stderr, "--digest-out "+tc.path+": ") || !strings.Contains(r.stderr, tc.want) {
					t.Errorf("%v: %q; want --digest-out %s named with %q", args, r.stderr, tc.path, tc.want)
				}
				if strings.Contains(r.stderr, "records:") || strings.Contains(r.stderr, "valid,") {
					t.Errorf("%v: the run went on before refusing the output: %q", args, r.stderr)
				}
				left, _ := filepath.Glob(filepath.Join(dir, ".*"))
				beside, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), "."+filepath.Base(dir)+".*"))
				left = append(left, beside...)
				if len(left) != 0 {
					t.Errorf("temporary files left: %v", left)
				}
			})
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing directory was made")
	}
}
