package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/internal/cmderr"
)

// TestFormatFileOverInputNamedAsTyped: a --format FORMAT=FILE that is also
// an input was named "--format jsonl cards.ndjson", a flag and a word the
// user never typed together; the refusal names it as typed.
func TestFormatFileOverInputNamedAsTyped(t *testing.T) {
	input := writeFile(t, filepath.Join(t.TempDir(), "cards.ndjson"), []byte("{}\n"))
	r := run(t, "", "--format", "jsonl="+input, input)
	want := "--format jsonl=" + input + " is also an input"
	if r.code != cmderr.StatusUsage || !strings.Contains(r.stderr, want) {
		t.Errorf("exit %d, stderr %q; want status %d and %q", r.code, r.stderr, cmderr.StatusUsage, want)
	}
}

// TestWalkSkipsFormatFileNamedAsFlag: a directory walk that finds a
// --format FORMAT=FILE output leaves it unread and says which output it
// is, by the flag and format, without the "=" the refusal above joins
// the file to.
func TestWalkSkipsFormatFileNamedAsFlag(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.ndjson"), []byte("{}\n"))
	out := writeFile(t, filepath.Join(dir, "out.jsonl"), nil)
	r := run(t, "", "-q", "--format", "jsonl="+out, dir)
	want := "note: not reading " + out + ": it is the --format jsonl file"
	if !strings.Contains(r.stderr, want) {
		t.Errorf("stderr %q; want %q", r.stderr, want)
	}
}

// TestChunkSizeBoundNamedAsTyped: a --chunk-size past its bound was named
// in bytes ("--chunk-size 2147483648"), a number the user did not type and
// has to convert to see the mistake; it is written in units, as --help
// writes sizes.
func TestChunkSizeBoundNamedAsTyped(t *testing.T) {
	r := run(t, "{}\n", "--chunk-size", "2GiB")
	want := "--chunk-size 2GiB: want 1KiB to 1GiB"
	if r.code != cmderr.StatusUsage || !strings.Contains(r.stderr, want) {
		t.Errorf("exit %d, stderr %q; want status %d and %q", r.code, r.stderr, cmderr.StatusUsage, want)
	}
}
