package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/cmderr"
)

func TestSchema_WritesEachProfile(t *testing.T) {
	dir := t.TempDir()
	for _, p := range fastvalidate.SchemaProfiles() {
		want, err := fastvalidate.JSONSchema(p)
		if err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		if code := Run([]string{"schema", p}, strings.NewReader(""), &stdout, &stderr); code != cmderr.StatusOK || !bytes.Equal(stdout.Bytes(), want) {
			t.Errorf("schema %s: exit %d, stdout differs from JSONSchema: %v; stderr %s", p, code, !bytes.Equal(stdout.Bytes(), want), stderr.String())
		}
		file := filepath.Join(dir, strings.ReplaceAll(p, "/", "-")+".json")
		stdout.Reset()
		if code := Run([]string{"schema", "-o", file, p}, strings.NewReader(""), &stdout, &stderr); code != cmderr.StatusOK {
			t.Fatalf("schema -o: exit %d: %s", code, stderr.String())
		}
		if got, err := os.ReadFile(file); err != nil || !bytes.Equal(got, want) || stdout.Len() != 0 {
			t.Errorf("schema -o %s: file differs or stdout written (%v)", file, err)
		}
	}
}

func TestSchema_List(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := Run([]string{"schema", "--list"}, strings.NewReader(""), &stdout, &stderr); code != cmderr.StatusOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if got, want := stdout.String(), strings.Join(fastvalidate.SchemaProfiles(), "\n")+"\n"; got != want {
		t.Errorf("--list wrote %q, want %q", got, want)
	}
}

func TestSchema_UsageErrors(t *testing.T) {
	for _, args := range [][]string{{"schema"}, {"schema", "auto"}, {"schema", "nope"}, {"schema", "--list", "ma2d"}, {"schema", "ma2d", "agentcard"}} {
		var stdout, stderr bytes.Buffer
		code := Run(args, strings.NewReader(""), &stdout, &stderr)
		if code != cmderr.StatusUsage || stdout.Len() != 0 || !strings.HasPrefix(stderr.String(), "cardscan: error: ") || !strings.HasSuffix(stderr.String(), "usage\n") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want a usage error", args, code, stdout.String(), stderr.String())
		}
	}
}

// A schema that cannot be written leaves the file as it was.
func TestSchema_FailedWriteKeepsFile(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := Run([]string{"schema", "-o", filepath.Join(dir, "missing", "s.json"), "ma2d"}, strings.NewReader(""), &stdout, &stderr)
	if code != cmderr.StatusIO || !strings.Contains(stderr.String(), "-o ") {
		t.Errorf("exit %d, stderr %q; want an I/O error naming -o", code, stderr.String())
	}
}
