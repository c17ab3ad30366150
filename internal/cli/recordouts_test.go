package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecordOutputsReplacedWhole: --valid-out and --invalid-out were
// truncated and written in place in a run that was not sharded, so a run
// that failed to write them (a full disk) left neither the earlier file
// nor a whole new one. They are written beside and renamed over, as
// --summary is: a hard link to the earlier file keeps its content.
func TestRecordOutputsReplacedWhole(t *testing.T) {
	for _, flag := range []string{"--valid-out", "--invalid-out"} {
		for _, name := range []string{"out.ndjson", "out.ndjson.zst"} {
			t.Run(flag+"/"+name, func(t *testing.T) {
				sub := t.TempDir()
				out := writeFile(t, filepath.Join(sub, name), []byte("earlier"))
				keep := filepath.Join(sub, "keep")
				if err := os.Link(out, keep); err != nil {
					t.Skip(err)
				}
				if r := run(t, "", "-q", flag, out, cardsFile); r.code > 1 {
					t.Fatalf("exit %d: %s", r.code, r.stderr)
				}
				if got := readFile(t, out); string(got) == "earlier" {
					t.Errorf("%s was not written", flag)
				}
				if got := readFile(t, keep); string(got) != "earlier" {
					t.Errorf("the earlier %s was rewritten in place: a link to it now holds %.60q", flag, got)
				}
				left, _ := filepath.Glob(filepath.Join(sub, ".*"))
				if len(left) != 0 {
					t.Errorf("temporary files left beside the output: %v", left)
				}
			})
		}
	}
}

// TestRecordOutputsKeepTheirMode: an output renamed over a file kept
// private stays private, and a new one has the mode os.Create gives under
// the umask (a sharded run's were 0600, the temporary file's mode).
func TestRecordOutputsKeepTheirMode(t *testing.T) {
	for _, sharded := range []bool{false, true} {
		dir := t.TempDir()
		private := writeFile(t, filepath.Join(dir, "v.ndjson"), []byte("earlier"))
		if err := os.Chmod(private, 0o600); err != nil {
			t.Fatal(err)
		}
		fresh := filepath.Join(dir, "i.ndjson")
		args := []string{"-q", "--valid-out", private, "--invalid-out", fresh, cardsFile}
		if sharded {
			args = append([]string{"--shard", "0/2"}, args...)
		}
		if r := run(t, "", args...); r.code > 1 {
			t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
		}
		// What os.Create gives a new file under this process's umask.
		probe, err := os.Create(filepath.Join(dir, "probe"))
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := probe.Stat()
		probe.Close()
		for path, want := range map[string]os.FileMode{private: 0o600, fresh: fi.Mode().Perm() &^ 0o111} {
			if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
				t.Errorf("sharded %v: %s: mode %v (%v), want %v", sharded, filepath.Base(path), fi.Mode().Perm(), err, want)
			}
		}
		if got := readFile(t, private); strings.HasPrefix(string(got), "earlier") {
			t.Errorf("sharded %v: --valid-out was not written", sharded)
		}
	}
}
