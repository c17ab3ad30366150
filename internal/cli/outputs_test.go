package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputIsAnInput: an output that is also an input would be truncated
// before it is read; the run is refused and the file left as it was,
// whether the input is named, reached through a link, or standard input.
func TestOutputIsAnInput(t *testing.T) {
	cards := readFile(t, cardsFile)
	dir := t.TempDir()
	data := writeFile(t, filepath.Join(dir, "data.ndjson"), cards)
	link := filepath.Join(dir, "link.ndjson")
	if err := os.Link(data, link); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"-q", "--invalid-out", data, data},
		{"-q", "--valid-out", data, data},
		{"-q", "--summary", data, data},
		{"-q", "--invalid-out", link, data},
		{"-q", "--invalid-out", dir + "/./data.ndjson", cardsFile, data},
	} {
		r := run(t, "", args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, "is also an input") {
			t.Errorf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
		if got := readFile(t, data); !bytes.Equal(got, cards) {
			t.Fatalf("%v: the input now holds %d bytes, want %d", args, len(got), len(cards))
		}
	}
	f, err := os.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out, errOut bytes.Buffer
	if code := Run([]string{"-q", "--invalid-out", data}, f, &out, &errOut); code != exitUsage || !strings.Contains(errOut.String(), "standard input") {
		t.Errorf("stdin: exit %d, stderr %q", code, errOut.String())
	}
	if got := readFile(t, data); !bytes.Equal(got, cards) {
		t.Errorf("stdin: the input now holds %d bytes", len(got))
	}
}

// TestOutputInsideWalkedDirectory: a second run over a directory that
// holds the first run's output does not read that output back.
func TestOutputInsideWalkedDirectory(t *testing.T) {
	dir := t.TempDir()
	for i := range 5 {
		writeFile(t, filepath.Join(dir, "d", "part"+string(rune('a'+i))+".ndjson"), bigInput(t, 2))
	}
	out := filepath.Join(dir, "d", "out.ndjson")
	var first []byte
	for i := range 2 {
		r := run(t, "", "-q", "-j", "1", "--fail-on", "never", "--valid-out", out, filepath.Join(dir, "d"))
		if r.code != exitOK || !strings.Contains(r.stderr, "cardscan: 110 records:") {
			t.Fatalf("run %d: exit %d, stderr %q", i+1, r.code, r.stderr)
		}
		if i == 0 {
			first = readFile(t, out)
			continue
		}
		if !strings.Contains(r.stderr, "cardscan: note: not reading "+out+": it is the --valid-out file") {
			t.Errorf("run 2: stderr %q does not say the output was skipped", r.stderr)
		}
		if got := readFile(t, out); !bytes.Equal(got, first) {
			t.Errorf("run 2 wrote %d bytes, run 1 %d", len(got), len(first))
		}
	}
}

// TestOutputsNameOneFile: two outputs that are one file, however spelled,
// are refused before either is created.
func TestOutputsNameOneFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink(dir, filepath.Join(dir, "alias")); err != nil {
		t.Skip(err)
	}
	v := filepath.Join(dir, "v.ndjson")
	existing := writeFile(t, filepath.Join(dir, "e.ndjson"), []byte("keep\n"))
	if err := os.Link(existing, filepath.Join(dir, "e2.ndjson")); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--valid-out", v, "--invalid-out", filepath.Join(dir, ".", "v.ndjson")},
		{"--valid-out", v, "--invalid-out", filepath.Join(dir, "alias", "v.ndjson")},
		{"--valid-out", v, "--summary", v},
		{"--invalid-out", existing, "--summary", filepath.Join(dir, "e2.ndjson")},
	} {
		r := run(t, string(readFile(t, cardsFile)), append([]string{"-q"}, args...)...)
		if r.code != exitUsage || !strings.Contains(r.stderr, "name the same file") {
			t.Errorf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
	if _, err := os.Stat(v); err == nil {
		t.Error("a refused run created its output")
	}
	if got := string(readFile(t, existing)); got != "keep\n" {
		t.Errorf("a refused run truncated an existing file: %q", got)
	}
	// Devices are not files that records could be lost in.
	if r := run(t, "{}\n", "-q", "--valid-out", os.DevNull, "--invalid-out", os.DevNull); r.code != exitInvalid {
		t.Errorf("two outputs to %s: exit %d, stderr %q", os.DevNull, r.code, r.stderr)
	}
}

// unreadInput fails no read but remembers whether one was made.
type unreadInput struct{ read bool }

func (r *unreadInput) Read([]byte) (int, error) { r.read = true; return 0, io.EOF }

// TestUnwritableOutputFoundFirst: an output that cannot be created is
// reported before the first record is read (on a 2 GB dump, not after
// it), for every output of validation and diff.
func TestUnwritableOutputFoundFirst(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no", "such")
	for _, args := range [][]string{
		{"--summary", missing + "/s.json", "-"},
		{"--valid-out", missing + "/v.ndjson", "-"},
		{"--invalid-out", missing + "/i.ndjson", "-"},
		{"--format", "text", "--format", "sarif=" + missing + "/r.sarif", "-"},
		{"--format", "junit=" + missing + "/r.xml", "-"},
		{"diff", "--summary", missing + "/s.json", "-", cardsFile},
	} {
		in := &unreadInput{}
		var out, errOut bytes.Buffer
		code := Run(args, in, &out, &errOut)
		if code != exitIO || in.read || !strings.Contains(errOut.String(), "no such file or directory") {
			t.Errorf("%v: exit %d, input read %v, stderr %q", args, code, in.read, errOut.String())
		}
	}
}

// TestSummaryReplacedWhole: --summary is written beside its path and
// renamed over it, leaving no temporary file behind.
func TestSummaryReplacedWhole(t *testing.T) {
	dir := t.TempDir()
	sum := writeFile(t, filepath.Join(dir, "s.json"), []byte("earlier"))
	for _, args := range [][]string{
		{"-q", "--summary", sum, cardsFile},
		{"diff", "--summary", sum, cardsFile, cardsFile},
	} {
		r := run(t, "", args...)
		if r.code == exitIO || r.code == exitUsage {
			t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
		}
		if b := readFile(t, sum); !bytes.HasPrefix(b, []byte("{")) {
			t.Errorf("%v: summary %q", args, b)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 1 {
			t.Errorf("%v: %d entries in the directory, want the summary alone", args, len(ents))
		}
	}
}
