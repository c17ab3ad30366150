package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/internal/cmderr"
)

const (
	reportSummary = "../htmlreport/testdata/summary.json"
	reportDiff    = "../htmlreport/testdata/diff.jsonl"
)

// A run's summary becomes a report that names its hostile input as text.
func TestReportOfARun(t *testing.T) {
	dir := t.TempDir()
	hostile := filepath.Join(dir, `<script>alert("x").ndjson`)
	cards := readFile(t, cardsFile)
	if err := os.WriteFile(hostile, cards, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := filepath.Join(dir, "run.json")
	if r := run(t, "", "-q", "--fail-on", "never", "--summary", sum, hostile); r.code != cmderr.StatusOK {
		t.Fatalf("run: %d %s", r.code, r.stderr)
	}
	out := filepath.Join(dir, "report.html")
	r := run(t, "", "report", sum, "-o", out)
	if r.code != cmderr.StatusOK || r.stdout != "" || r.stderr != "" {
		t.Fatalf("report: %d %q %q", r.code, r.stdout, r.stderr)
	}
	page := string(readFile(t, out))
	if strings.Contains(page, "<script>") || !strings.Contains(page, `&lt;script&gt;alert(&#34;x&#34;).ndjson`) {
		t.Errorf("the report does not show the input's name as text")
	}
	if !strings.Contains(page, `id="verdicts"`) || strings.Contains(page, "written by an older cardscan") {
		t.Errorf("the report lacks the run's verdicts per profile")
	}
}

func TestReportArguments(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "report.html")
	notJSON := filepath.Join(dir, "diff.jsonl")
	os.WriteFile(notJSON, []byte(`{"change":"added","key":"a"}`+"\nnot json\n"), 0o644)
	for _, tc := range []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stdout string // a part of it
		stderr string // a part of it
	}{
		{"summary and diff", "", []string{"report", reportSummary, reportDiff, "-o", out}, cmderr.StatusOK, "", ""},
		{"to stdout", "", []string{"report", "-o", "-", reportSummary}, cmderr.StatusOK, `<h2>Top rules</h2>`, ""},
		{"summary on stdin", string(readFile(t, reportSummary)), []string{"report", "-", "--output", "-"}, cmderr.StatusOK, `id="inputs"`, ""},
		{"diff on stdin", string(readFile(t, reportDiff)), []string{"report", reportSummary, "-", "-o", "-"}, cmderr.StatusOK, `id="diff"`, ""},
		{"help", "", []string{"report", "--help"}, cmderr.StatusOK, "usage: cardscan report SUMMARY.json [DIFF.jsonl] -o report.html", ""},
		{"no file", "", []string{"report", "-o", out}, cmderr.StatusUsage, "", "want a summary file and at most one diff file, got 0"},
		{"three files", "", []string{"report", "-o", out, reportSummary, reportDiff, reportDiff}, cmderr.StatusUsage, "", "got 3"},
		{"no -o", "", []string{"report", reportSummary}, cmderr.StatusUsage, "", "-o FILE is required"},
		{"stdin twice", "", []string{"report", "-", "-", "-o", out}, cmderr.StatusUsage, "", "not both"},
		{"unknown flag", "", []string{"report", "--format", "pdf", reportSummary, "-o", out}, cmderr.StatusUsage, "", "format"},
		{"missing summary", "", []string{"report", filepath.Join(dir, "nope.json"), "-o", out}, cmderr.StatusIO, "", "nope.json: no such file or directory"},
		{"a diff given as summary", "", []string{"report", reportDiff, "-o", out}, cmderr.StatusIO, "", "diff.jsonl:1:2: not a cardscan summary: unknown member \"change\", at /change (it is cardscan diff's JSONL: give it to report after the summary)\n"},
		{"a summary given as diff", "", []string{"report", reportSummary, reportSummary, "-o", out}, cmderr.StatusIO, "", "summary.json:1:2: not a diff record: unexpected EOF"},
		{"a bad diff line", "", []string{"report", reportSummary, notJSON, "-o", out}, cmderr.StatusIO, "", "diff.jsonl:2:2: not a diff record: invalid character"},
		{"an unwritable -o", "", []string{"report", reportSummary, "-o", filepath.Join(dir, "no", "dir.html")}, cmderr.StatusIO, "", "-o " + filepath.Join(dir, "no", "dir.html")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, tc.stdin, tc.args...)
			if r.code != tc.code || !strings.Contains(r.stdout, tc.stdout) || !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("exit %d, stdout %.200q, stderr %q; want %d, %q, %q", r.code, r.stdout, r.stderr, tc.code, tc.stdout, tc.stderr)
			}
		})
	}
}

// A report that cannot be made leaves the one -o names as it was, and no
// temporary file beside it.
func TestReportKeepsOutputOnFailure(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "report.html")
	if r := run(t, "", "report", reportSummary, "-o", out); r.code != cmderr.StatusOK {
		t.Fatalf("%d %s", r.code, r.stderr)
	}
	before := readFile(t, out)
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte("{\n"), 0o644)
	if r := run(t, "", "report", reportSummary, bad, "-o", out); r.code != cmderr.StatusIO {
		t.Fatalf("a bad diff: exit %d", r.code)
	}
	if after := readFile(t, out); string(after) != string(before) {
		t.Error("a failed report changed the earlier one")
	}
	if r := run(t, "", "report", reportSummary, reportDiff, "-o", out); r.code != cmderr.StatusOK {
		t.Fatalf("%d %s", r.code, r.stderr)
	}
	if after := readFile(t, out); string(after) == string(before) || !strings.Contains(string(after), `id="diff"`) {
		t.Error("a second report did not replace the first")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("%d files in the directory, want report.html and bad.jsonl: %v", len(entries), entries)
	}
}

func TestReportSubcommandTypo(t *testing.T) {
	r := run(t, "", "reprot", "x.json")
	if r.code != cmderr.StatusUsage || !strings.Contains(r.stderr, "did you mean report?") {
		t.Errorf("exit %d, %q", r.code, r.stderr)
	}
}

// TestReportMalformedSummary: a summary that is not one is named with the
// line and column of the fault and the JSON Pointer of the value, in one
// plain line, not the JSON library's message with its escaped newlines.
func TestReportMalformedSummary(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "report.html")
	for _, tc := range []struct{ name, doc, want string }{
		{"a bad token", "{\"records\": 3,\n \"valid\": x}\n", "bad.json:2:11: not a cardscan summary: invalid character 'x' at start of value, at /valid"},
		{"a string for a count", "{\"records\": 3,\n  \"valid\": \"3\"}\n", "bad.json:2:12: not a cardscan summary: a JSON string where an integer belongs, at /valid"},
		{"an unknown member", "{\"records\": 3,\n \"vaild\": 3}\n", "bad.json:2:2: not a cardscan summary: unknown member \"vaild\", at /vaild"},
		{"cut short", "{\"records\": 3,\n \"valid\": 3", "bad.json:2:12: not a cardscan summary: unexpected EOF"},
		{"an array", "[]", "bad.json:1:1: not a cardscan summary: a JSON array where an object belongs"},
		{"a duplicate", "{\"records\": 3, \"records\": 3}", "bad.json:1:16: not a cardscan summary: duplicate object member name, at /records"},
		{"é before the fault", "{\"worst_inputs\": [{\"input\": \"é\", \"records\": -}]}", "bad.json:1:46: not a cardscan summary: invalid character '}' in number (expecting digit), at /worst_inputs/0/records"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := writeFile(t, filepath.Join(dir, "bad.json"), []byte(tc.doc))
			r := run(t, "", "report", bad, "-o", out)
			want := "cardscan: error: " + filepath.Join(dir, tc.want) + "\n"
			if r.code != cmderr.StatusIO || r.stderr != want {
				t.Errorf("exit %d, stderr\n%q\nwant\n%q", r.code, r.stderr, want)
			}
		})
	}
}

// TestSummaryFromNewerCardscan: a summary holding a member this cardscan
// does not know, which is otherwise a summary, was refused as "not a
// cardscan summary" with no hint that a newer cardscan likely wrote it.
// summary merge and report now name the member, the file, its line and
// column, and say so; a document that is no summary at all is still
// called none (TestReportMalformedSummary).
func TestSummaryFromNewerCardscan(t *testing.T) {
	good := string(readFile(t, reportSummary))
	for _, tc := range []struct{ name, after, insert, pointer string }{
		{"a new count", `"records": 12480,`, "\n  \"dialects\": {\"a2a\": 3},", "/dialects"},
		{"a new member of an object", `"signed": 640,`, ` "forged": 2,`, "/signatures/forged"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(good, tc.after) {
				t.Fatalf("%s holds no %s", reportSummary, tc.after)
			}
			doc := strings.Replace(good, tc.after, tc.after+tc.insert, 1)
			// Where the new member's name starts, counted as an editor does.
			at := strings.Index(doc, tc.after) + len(tc.after) + strings.IndexByte(tc.insert, '"')
			line := strings.Count(doc[:at], "\n") + 1
			col := at - strings.LastIndexByte(doc[:at], '\n')
			path := writeFile(t, filepath.Join(t.TempDir(), "newer.json"), []byte(doc))
			member := tc.pointer[strings.LastIndexByte(tc.pointer, '/')+1:]
			want := fmt.Sprintf("%s:%d:%d: unknown member %q, at %s: the summary may come from a newer cardscan than this one (%s)",
				path, line, col, member, tc.pointer, version())
			for _, args := range [][]string{
				{"summary", "merge", reportSummary, path},
				{"report", path, "-o", filepath.Join(t.TempDir(), "r.html")},
			} {
				r := run(t, "", args...)
				if r.code != cmderr.StatusIO || r.stderr != "cardscan: error: "+want+"\n" {
					t.Errorf("%s: exit %d, stderr\n%q\nwant\n%q", args[0], r.code, r.stderr, want)
				}
			}
		})
	}
}

// TestReportMalformedDiff: a diff line that is no diff record was named
// by its line alone; it is named by line and column, counted in
// characters, and by the JSON Pointer of the value at fault, as a
// summary's faults are.
func TestReportMalformedDiff(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "report.html")
	good := `{"change":"added","key":"k"}` + "\n"
	for _, tc := range []struct{ name, doc, want string }{
		{"a bad token", good + `{"change":"added","key":x}` + "\n", "diff.jsonl:2:25: not a diff record: invalid character 'x' at start of value, at /key"},
		{"a string for a line", good + good + `{"change":"broke","new":{"input":"a","line":"3"}}` + "\n", "diff.jsonl:3:45: not a diff record: a JSON string where an integer belongs, at /new/line"},
		{"é before the fault", `{"change":"added","key":"é","old":{"valid":1}}` + "\n", "diff.jsonl:1:44: not a diff record: a JSON number where true or false belongs, at /old/valid"},
		{"an array", good + "[1,2]\n", "diff.jsonl:2:1: not a diff record: a JSON array where an object belongs"},
		{"cut short", good + `{"change":"added",` + "\r\n", "diff.jsonl:2:19: not a diff record: unexpected EOF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := writeFile(t, filepath.Join(dir, "diff.jsonl"), []byte(tc.doc))
			r := run(t, "", "report", reportSummary, bad, "-o", out)
			want := "cardscan: error: " + filepath.Join(dir, tc.want) + "\n"
			if r.code != cmderr.StatusIO || r.stderr != want {
				t.Errorf("exit %d, stderr\n%q\nwant\n%q", r.code, r.stderr, want)
			}
		})
	}
}

// TestReportAndSchemaWriteThroughALink: -o naming a symbolic link (a
// report published by a link into a web root) replaced the link with a
// regular file and left the file it named as it was, where --summary and
// --format FILE write through the link to the file.
func TestReportAndSchemaWriteThroughALink(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string // in what is written
	}{
		{"report", []string{"report", reportSummary}, "<!DOCTYPE html>"},
		{"schema", []string{"schema", "ma2d"}, `"$schema"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			target := writeFile(t, filepath.Join(dir, "published"), []byte("old"))
			link := filepath.Join(dir, "link")
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			if r := run(t, "", append(tc.args, "-o", link)...); r.code != cmderr.StatusOK {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("-o %s is no longer a symbolic link (%v)", link, err)
			}
			if got := readFile(t, target); !strings.Contains(string(got), tc.want) {
				t.Errorf("the file the link names holds %.40q, want the new output", got)
			}
		})
	}
}

// TestNotASummaryNamesDiffFiles: diff's --summary, or its JSONL, given
// where a validation summary belongs was called "not a cardscan summary:
// unknown member", which does not say what the file is nor where it goes.
func TestNotASummaryNamesDiffFiles(t *testing.T) {
	dir := t.TempDir()
	diffSummary := writeFile(t, filepath.Join(dir, "diff-summary.json"), []byte("{\n  \"diff\": {\n    \"old_records\": 1\n  }\n}\n"))
	diffJSONL := writeFile(t, filepath.Join(dir, "d.jsonl"), []byte(`{"change":"added","key":"k"}`+"\n"))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"summary", "merge", diffSummary}, "cardscan diff's --summary"},
		{[]string{"report", diffSummary, "-o", filepath.Join(dir, "r.html")}, "cardscan diff's --summary"},
		{[]string{"report", diffJSONL, "-o", filepath.Join(dir, "r.html")}, "cardscan diff's JSONL: give it to report after the summary"},
	} {
		r := run(t, "", tc.args...)
		if r.code != exitIO || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}
