package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// A migrate whose --report cannot be created ends with exit status 3 and
// leaves no file open: the -o file it had created first is closed.
func TestMigrateReportFailureClosesOutput(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("skipped: no /proc/self/fd to count open files")
	}
	dir := t.TempDir()
	card := filepath.Join(dir, "card.json")
	if err := os.WriteFile(card, []byte(`{"name":"a","url":"https://a.example/","version":"1","protocolVersion":"0.3.0"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	open := func() int {
		fds, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(fds)
	}
	before := open()
	r := run(t, "", "migrate", "--to", "a2a/1.0", "-o", filepath.Join(dir, "out.json"),
		"--report", filepath.Join(dir, "missing", "report.jsonl"), card)
	if r.code != exitIO {
		t.Fatalf("status %d, want %d; stderr %q", r.code, exitIO, r.stderr)
	}
	if after := open(); after != before {
		t.Errorf("%d files open after the run, %d before", after, before)
	}
}
