package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func migrateCard(t *testing.T) []byte {
	b, err := os.ReadFile("../migrate/testdata/cards/invoice-0.3-indent2.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// --write replaces a changed card and keeps FILE.orig; a second run finds
// nothing to change and touches nothing; --check then exits 0.
func TestMigrateWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "agent-card.json")
	src := migrateCard(t)
	if err := os.WriteFile(path, src, 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := Run([]string{"migrate", "--to", "a2a/1.0", "--check", path}, nil, &out, &errb); code != 1 {
		t.Fatalf("--check on a 0.3 card: exit %d, want 1: %s", code, errb.String())
	}
	if code := Run([]string{"migrate", "--to", "a2a/1.0", "--write", path}, nil, &out, &errb); code != 0 {
		t.Fatalf("--write: exit %d: %s", code, errb.String())
	}
	orig, _ := os.ReadFile(path + ".orig")
	now, _ := os.ReadFile(path)
	if !bytes.Equal(orig, src) || bytes.Equal(now, src) || !bytes.Contains(now, []byte("supportedInterfaces")) {
		t.Fatalf("want the card migrated and the original in .orig")
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("--write changed the file's mode to %v", st.Mode().Perm())
	}
	os.Remove(path + ".orig")
	old := time.Now().Add(-time.Hour)
	os.Chtimes(path, old, old)
	out.Reset()
	if code := Run([]string{"migrate", "--to", "a2a/1.0", "--write", path}, nil, &out, &errb); code != 0 {
		t.Fatalf("second --write: exit %d", code)
	}
	if st, _ := os.Stat(path); !st.ModTime().Equal(old) {
		t.Error("--write touched a file that did not change")
	}
	if _, err := os.Stat(path + ".orig"); err == nil {
		t.Error("--write kept a .orig of a file it did not change")
	}
	if !strings.Contains(out.String(), `"status":"unchanged"`) {
		t.Errorf("want an unchanged record, got %s", out.String())
	}
	if code := Run([]string{"migrate", "--to", "a2a/1.0", "--check", path}, nil, &out, &errb); code != 0 {
		t.Errorf("--check on a 1.0 card: exit %d", code)
	}
}

// An NDJSON dump gives one migrated card per line, in order.
func TestMigrateNDJSON(t *testing.T) {
	src := migrateCard(t)
	line := compact(src)
	dump := string(line) + "\n" + `{"not":"a card"}` + "\n" + string(line) + "\n"
	var out, errb bytes.Buffer
	code := Run([]string{"migrate", "--to", "a2a/1.0", "--report", filepath.Join(t.TempDir(), "r.jsonl")}, strings.NewReader(dump), &out, &errb)
	if code != 1 {
		t.Errorf("a refused line: exit %d, want 1", code)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 3 || lines[1] != `{"not":"a card"}` || !strings.Contains(lines[0], `"supportedInterfaces":[`) || lines[0] != lines[2] {
		t.Errorf("want three lines, the middle one as it was:\n%s", out.String())
	}
}

// -o may not name an input.
func TestMigrateClobber(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "agent.json")
	src := migrateCard(t)
	os.WriteFile(path, src, 0o644)
	var out, errb bytes.Buffer
	if code := Run([]string{"migrate", "--to", "a2a/1.0", "-o", path, path}, nil, &out, &errb); code != 2 {
		t.Errorf("-o over the input: exit %d, want 2", code)
	}
	if b, _ := os.ReadFile(path); !bytes.Equal(b, src) {
		t.Error("the input was changed")
	}
}
