package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
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

// TestFindingsPastTheCapAreCounted: a card with more findings than the
// 100 listed says how many were left out, in every format.
func TestFindingsPastTheCapAreCounted(t *testing.T) {
	// Distinct ids: one repeated would fold into one finding with a count.
	var each []string
	for i := range 150 {
		each = append(each, fmt.Sprintf(`{"id":"Bad Id %d"}`, i))
	}
	caps := strings.Join(each, ",")
	card := `{"agent_id":"01HZQK3P8EMXR9V7T5N2W4J6C0","name":"x","version":"1.0","capabilities":[` + caps + `],"endpoint":{"protocol":"https","url":"https://a.example/"}}` + "\n"
	r := run(t, card, "--format", "jsonl", "--summary", "-")
	parts := strings.SplitN(r.stdout, "\n{\n", 2)
	vs := parseVerdicts(t, parts[0]+"\n")
	s := mustSummary(t, "{\n"+parts[1])
	if len(vs) != 1 || vs[0].ErrorsUnlisted == nil || vs[0].WarningsUnlisted == nil {
		t.Fatalf("verdicts %+v: want one with errors_unlisted and warnings_unlisted", vs)
	}
	v := vs[0]
	if int64(len(v.Errors)+*v.ErrorsUnlisted) != s.Errors || int64(len(v.Warnings)+*v.WarningsUnlisted) != s.Warnings || len(v.Errors)+len(v.Warnings) != 100 {
		t.Errorf("%d+%d errors and %d+%d warnings listed and unlisted; the summary counts %d and %d",
			len(v.Errors), *v.ErrorsUnlisted, len(v.Warnings), *v.WarningsUnlisted, s.Errors, s.Warnings)
	}
	note := fmt.Sprintf("%d more errors and %d more warnings not listed", *v.ErrorsUnlisted, *v.WarningsUnlisted)
	text := run(t, card)
	if lines := strings.Split(strings.TrimSuffix(text.stdout, "\n"), "\n"); len(lines) != 101 || lines[100] != "<stdin>:1:1: note: "+note {
		t.Errorf("text: %d lines, the last %q; want 101, the last naming what is not listed", len(lines), lines[len(lines)-1])
	}
	if gh := run(t, card, "--format", "github"); !strings.HasSuffix(gh.stdout, "::notice file=<stdin>,line=1,col=1::"+note+"\n") {
		t.Errorf("github: no notice of what is not listed")
	}
	// A card within the cap has no such keys or line.
	small := run(t, string(readFile(t, cardsFile)), "--format", "jsonl")
	if strings.Contains(small.stdout, "unlisted") {
		t.Errorf("a card within the cap has unlisted counts")
	}
}

// TestTyposOfSubcommands: a first argument that is no file but close to a
// subcommand is a usage error that names the subcommand; help is the
// usage.
func TestTyposOfSubcommands(t *testing.T) {
	for _, tc := range []struct{ arg, sub string }{{"sever", "serve"}, {"serv", "serve"}, {"fecth", "fetch"}, {"sumary", "summary"}} {
		r := run(t, "", tc.arg)
		if r.code != exitUsage || !strings.Contains(r.stderr, "did you mean "+tc.sub+"?") {
			t.Errorf("%s: exit %d, stderr %q", tc.arg, r.code, r.stderr)
		}
	}
	if r := run(t, "", "help"); r.code != exitOK || r.stdout != usage() {
		t.Errorf("help: exit %d, stdout %q", r.code, r.stdout)
	}
	// A file of that name is an input, and a name far from every
	// subcommand is a missing input.
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "sever"), []byte("{}\n"))
	if r := runIn(t, dir, "-q", "sever"); r.code != exitInvalid {
		t.Errorf("a file named sever: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := run(t, "", "cards.ndjson"); r.code != exitIO || !strings.Contains(r.stderr, "no such file") {
		t.Errorf("missing input: exit %d, stderr %q", r.code, r.stderr)
	}
}

// runIn runs cardscan in-process with dir as the working directory.
func runIn(t *testing.T, dir string, args ...string) result {
	t.Helper()
	t.Chdir(dir)
	return run(t, "", args...)
}

// TestWriteFailureOfInformation: --version, --help and --list-rules that
// cannot be written exit 3, not 0.
func TestWriteFailureOfInformation(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"--help"}, {"--list-rules"}, {"help"}} {
		var errOut bytes.Buffer
		code := Run(args, strings.NewReader(""), failingWriter{}, &errOut)
		if code != exitIO || !strings.Contains(errOut.String(), "cardscan: error: writing stdout: disk full") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut.String())
		}
	}
}

// TestSummaryMergeHugeFile: a summary is kilobytes; summary merge read
// any file whole, so a huge one (or /dev/zero, which never ends) took as
// much memory as it held. It is refused past report's 64 MiB bound.
func TestSummaryMergeHugeFile(t *testing.T) {
	dir := t.TempDir()
	huge := filepath.Join(dir, "huge.json")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	// Sparse: no disk is written.
	if err := f.Truncate(maxSummary + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	r := run(t, "", "summary", "merge", huge)
	if r.code != exitIO || !strings.Contains(r.stderr, huge+": larger than 67108864 bytes") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestSummaryMergeOverflow: totals that do not fit an int64 are an error,
// not a negative count.
func TestSummaryMergeOverflow(t *testing.T) {
	dir := t.TempDir()
	doc := []byte(`{"records":9223372036854775806,"valid":9223372036854775806,"invalid":0}`)
	a := writeFile(t, filepath.Join(dir, "a.json"), doc)
	b := writeFile(t, filepath.Join(dir, "b.json"), doc)
	r := run(t, "", "summary", "merge", a, b)
	if r.code != exitIO || !strings.Contains(r.stderr, "does not fit") || r.stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// onceEOF is a terminal on which Ctrl-D was typed once: it reports the end
// of input, and would hand out a line if read again.
type onceEOF struct{ reads int }

func (r *onceEOF) Read(p []byte) (int, error) {
	r.reads++
	if r.reads == 2 {
		return copy(p, "{}\n"), nil
	}
	return 0, io.EOF
}

// TestEmptyStdinEndsAtOnce: one end of input ends an empty standard input.
func TestEmptyStdinEndsAtOnce(t *testing.T) {
	var out, errOut bytes.Buffer
	code := Run([]string{"--format", "jsonl", "--all"}, &onceEOF{}, &out, &errOut)
	if code != exitOK || out.Len() != 0 || !strings.Contains(errOut.String(), "cardscan: 0 records") {
		t.Errorf("exit %d, stdout %q, stderr %q: standard input was read past its end", code, out.String(), errOut.String())
	}
}

// TestControlCharactersInNames: an input name or URL-list entry holding
// control characters (here an OSC sequence that retitles a terminal)
// reaches no human-readable output raw, and in jsonl two names that
// differ only in bytes that are not UTF-8 stay distinct.
func TestControlCharactersInNames(t *testing.T) {
	dir := t.TempDir()
	osc := "a\x1b]0;owned\x07.ndjson"
	card := "{}\n"
	bad := writeFile(t, filepath.Join(dir, osc), []byte(card))
	missing := filepath.Join(dir, "b\x1b[2J.ndjson")
	for _, format := range []string{"text", "github", "jsonl"} {
		r := run(t, "", "--format", format, bad, missing)
		if r.code != exitIO || !strings.Contains(r.stdout, "owned") || !strings.Contains(r.stderr, "no such file") {
			t.Fatalf("%s: exit %d, stdout %q, stderr %q", format, r.code, r.stdout, r.stderr)
		}
		if strings.ContainsAny(r.stdout+r.stderr, "\x1b\x07") {
			t.Errorf("%s: a control character reached the output raw:\n%q\n%q", format, r.stdout, r.stderr)
		}
	}
	// The walk's note names the file escaped too.
	if r := run(t, "", "-q", "--valid-out", bad, dir); strings.ContainsAny(r.stderr, "\x1b\x07") || !strings.Contains(r.stderr, "not reading") {
		t.Errorf("walk: stderr %q", r.stderr)
	}

	a := writeFile(t, filepath.Join(dir, "u", "c\xff.ndjson"), []byte(card))
	b := writeFile(t, filepath.Join(dir, "u", "c\xfe.ndjson"), []byte(card))
	r := run(t, "", "--format", "jsonl", a, b)
	var seen []string
	for _, line := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
		var v struct {
			Input       string `json:"input"`
			InputBase64 []byte `json:"input_base64"`
		}
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		seen = append(seen, string(v.InputBase64))
	}
	if len(seen) != 2 || seen[0] != a || seen[1] != b {
		t.Errorf("jsonl names %q, want %q and %q", seen, a, b)
	}
	// A valid name has no such key.
	if r := run(t, card, "--format", "jsonl"); strings.Contains(r.stdout, "input_base64") {
		t.Errorf("valid UTF-8 name: %q", r.stdout)
	}

	// fetch reads URLs from a list; an entry is named in its record.
	list := writeFile(t, filepath.Join(dir, "urls.txt"), []byte("ftp://x\x1b]0;owned\x07/\n"))
	if r := run(t, "", "fetch", "--format", "text", "--urls", list); strings.ContainsAny(r.stdout+r.stderr, "\x1b\x07") || !strings.Contains(r.stdout, "owned") {
		t.Errorf("fetch: stdout %q, stderr %q", r.stdout, r.stderr)
	}
}
