package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/internal/golden"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// oddInput is cards.ndjson under a name that XML and JSON must escape,
// with a card whose strings hold what XML 1.0 cannot carry raw.
func oddInput(t *testing.T) string {
	t.Helper()
	odd := `{"agent_id":"nope","name":"a\u0001<b>&\"c\"\uFFFE","version":"1.0\u0007","capabilities":[{"id":"x y\u0085"}],"endpoint":{"protocol":"https","url":"https://a.example/"}}` + "\n"
	name := filepath.Join(t.TempDir(), `odd <&"'>.ndjson`)
	return writeFile(t, name, append(readFile(t, cardsFile), odd...))
}

// TestJUnitSchema: --format junit validates against the Jenkins xunit
// plugin's JUnit schema (testdata/schema/junit-10.xsd), checked by
// libxml2's xmllint, with and without --all, with a name and card text
// that need escaping, and with an input that cannot be read.
func TestJUnitSchema(t *testing.T) {
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("xmllint is not installed (Debian package libxml2-utils; make debian-packages installs it): the JUnit schema test is skipped")
	}
	odd := oddInput(t)
	for _, args := range [][]string{
		{"--format", "junit", cardsFile},
		{"--format", "junit", "--all", odd},
		{"--format", "junit", odd, filepath.Join(t.TempDir(), "missing.ndjson")},
		{"--format", "junit", filepath.Join(t.TempDir(), "empty.ndjson")},
	} {
		r := run(t, "", args...)
		if r.code == exitUsage {
			t.Fatalf("%v: %s", args, r.stderr)
		}
		out := filepath.Join(t.TempDir(), "out.xml")
		writeFile(t, out, []byte(r.stdout))
		cmd := exec.Command(xmllint, "--noout", "--schema", "testdata/schema/junit-10.xsd", out)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%v: xmllint: %v\n%s\n%s", args, err, b, r.stdout)
		}
	}
}

// TestJUnitGolden pins --format junit: a test case per card with
// findings, failed for an invalid card, the counts in the head.
func TestJUnitGolden(t *testing.T) {
	r := run(t, "", "--format", "junit", "--profile", "agentcard", cardsFile)
	if r.code != exitInvalid {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	golden.Check(t, "cards.junit.golden", r.stdout)
	if got := strings.Count(r.stdout, "<failure "); got != 7 || !strings.Contains(r.stdout, `tests="9" failures="7" errors="0"`) {
		t.Errorf("%d failures; head: %s", got, r.stdout[:200])
	}
}

func codeQualitySchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	s, err := c.Compile("testdata/schema/codequality.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

type codeQualityIssue struct {
	Description, CheckName, Fingerprint, Severity string
	Location                                      struct {
		Path  string
		Lines struct{ Begin int }
	}
}

// checkCodeQuality validates out against the schema written from GitLab's
// documentation of the format and decodes it.
func checkCodeQuality(t *testing.T, schema *jsonschema.Schema, out string) []codeQualityIssue {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(out))
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if err := schema.Validate(inst); err != nil {
		t.Fatalf("not a Code Quality report: %v\n%s", err, out)
	}
	var raw []map[string]any
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	var issues []codeQualityIssue
	for _, m := range raw {
		loc := m["location"].(map[string]any)
		var is codeQualityIssue
		is.Description, is.CheckName = m["description"].(string), m["check_name"].(string)
		is.Fingerprint, is.Severity = m["fingerprint"].(string), m["severity"].(string)
		is.Location.Path = loc["path"].(string)
		is.Location.Lines.Begin = int(loc["lines"].(map[string]any)["begin"].(float64))
		issues = append(issues, is)
	}
	return issues
}

// TestCodeQuality: --format codequality validates against GitLab's
// format, has an issue per finding of the jsonl verdicts at the same line,
// and fingerprints that are the same from run to run and one per finding,
// the same card twice in one input included.
func TestCodeQuality(t *testing.T) {
	schema := codeQualitySchema(t)
	dir := t.TempDir()
	cards := readFile(t, cardsFile)
	twice := writeFile(t, filepath.Join(dir, "twice.ndjson"), append(append([]byte(nil), cards...), cards...))
	odd := oddInput(t)
	for _, input := range []string{cardsFile, twice, odd} {
		first := run(t, "", "--format", "codequality", input)
		issues := checkCodeQuality(t, schema, first.stdout)
		if again := run(t, "", "--format", "codequality", input); again.stdout != first.stdout {
			t.Errorf("%s: a second run differs", input)
		}
		seen := map[string]bool{}
		for _, is := range issues {
			if seen[is.Fingerprint] {
				t.Errorf("%s: fingerprint %s twice", input, is.Fingerprint)
			}
			seen[is.Fingerprint] = true
		}
		jl := run(t, "", "--format", "jsonl", "--all", input)
		var want []string
		for _, line := range strings.Split(strings.TrimSpace(jl.stdout), "\n") {
			var rec struct{ Errors, Warnings []struct{ Rule string } }
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatal(err)
			}
			for _, f := range append(rec.Errors, rec.Warnings...) {
				want = append(want, f.Rule)
			}
		}
		if len(issues) != len(want) {
			t.Errorf("%s: %d issues, %d findings in jsonl", input, len(issues), len(want))
		}
	}
	// Paths are relative to the working directory, as GitLab resolves
	// them in the repository.
	abs, _ := filepath.Abs(cardsFile)
	for _, is := range checkCodeQuality(t, schema, run(t, "", "--format", "codequality", abs).stdout) {
		if is.Location.Path != cardsFile {
			t.Errorf("path %q, want %q", is.Location.Path, cardsFile)
		}
	}
	golden.Check(t, "cards.codequality.golden", run(t, "", "--format", "codequality", "--profile", "agentcard", cardsFile).stdout)
}

// TestSeveralOutputs: one run writes each --format FORMAT=FILE as a run
// of that format alone writes stdout, beside stdout's own format.
func TestSeveralOutputs(t *testing.T) {
	dir := t.TempDir()
	formats := []string{"jsonl", "github", "sarif", "junit", "codequality", "text"}
	args := []string{"--format", "text", "--color", "never"}
	for _, f := range formats {
		args = append(args, "--format", f+"="+filepath.Join(dir, "out."+f))
	}
	// A compressed input under --on-corrupt drop holds every output's
	// verdicts until its checksums have passed.
	gz := writeFile(t, filepath.Join(t.TempDir(), "cards.ndjson.gz"), gzipBytes(t, readFile(t, cardsFile)))
	for _, input := range []string{cardsFile, oddInput(t), gz} {
		all := run(t, "", append(args, "--on-corrupt", "drop", input)...)
		alone := run(t, "", "--color", "never", input)
		if all.code != alone.code || all.stdout != alone.stdout {
			t.Errorf("%s: stdout differs from a text run: exit %d, want %d", input, all.code, alone.code)
		}
		for _, f := range formats {
			want := run(t, "", "--format", f, "--color", "never", input).stdout
			if got := string(readFile(t, filepath.Join(dir, "out."+f))); got != want {
				t.Errorf("%s: --format %s=FILE differs from --format %s:\n%s\nwant\n%s", input, f, f, got, want)
			}
		}
	}
	// -q quiets stdout, not the files.
	q := run(t, "", "-q", "--format", "jsonl="+filepath.Join(dir, "q.jsonl"), cardsFile)
	if q.stdout != "" || !bytes.Contains(readFile(t, filepath.Join(dir, "q.jsonl")), []byte(`"valid":false`)) {
		t.Errorf("-q: stdout %q", q.stdout)
	}
}

// TestFormatUsage: a format no output has, two formats for stdout, a
// file that is an input or another output, are usage errors, with the
// files left as they were.
func TestFormatUsage(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, filepath.Join(dir, "in.ndjson"), readFile(t, cardsFile))
	other := writeFile(t, filepath.Join(dir, "other.json"), []byte("keep"))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--format", "xml"}, `--format "xml": want text, jsonl, github, sarif, junit or codequality`},
		{[]string{"--format", "xml=" + other}, `want text, jsonl`},
		{[]string{"--format", "junit="}, `want a file name`},
		{[]string{"--format", "text", "--format", "jsonl"}, "only one format can go to stdout"},
		{[]string{"--format", "text", "--format", "jsonl=-"}, "only one format can go to stdout"},
		{[]string{"--format", "sarif=" + in}, "is also an input"},
		{[]string{"--format", "sarif=" + other, "--format", "junit=" + other}, "name the same file"},
		{[]string{"--format", "sarif=" + other, "--summary", other}, "name the same file"},
		{[]string{"--cross-card", "--format", "junit"}, "--cross-card writes"},
		{[]string{"--list-rules", "--format", "sarif"}, `--list-rules: --format "sarif": want text or jsonl`},
	} {
		r := run(t, "", append(tc.args, in)...)
		if r.code != exitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
	if string(readFile(t, other)) != "keep" || !bytes.Equal(readFile(t, in), readFile(t, cardsFile)) {
		t.Error("a refused run changed a file")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("%d entries in the directory, want 2", len(ents))
	}
}

// TestListRulesJSONL: --list-rules --format jsonl prints a JSON object
// per rule, as the table has a row per rule.
func TestListRulesJSONL(t *testing.T) {
	table := run(t, "", "--list-rules", "--profile", "agentcard")
	r := run(t, "", "--list-rules", "--profile", "agentcard", "--format", "jsonl")
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	rows := strings.Split(strings.TrimSuffix(table.stdout, "\n"), "\n")[1:]
	if len(lines) != len(rows) {
		t.Fatalf("%d lines, %d rows in the table", len(lines), len(rows))
	}
	for i, line := range lines {
		var rule struct {
			ID, Severity, Description string
			Profiles                  []string
		}
		if err := json.Unmarshal([]byte(line), &rule); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		if f := strings.Fields(rows[i]); rule.ID != f[0] || rule.Severity != f[1] || strings.Join(rule.Profiles, ",") != f[2] || rule.Description == "" {
			t.Errorf("line %q for row %q", line, rows[i])
		}
	}
}

// TestMaxWarnings: more warnings than --max-warnings fail the run, as
// ESLint's does, and the summary line says so.
func TestMaxWarnings(t *testing.T) {
	lines := strings.Split(string(readFile(t, cardsFile)), "\n")
	warned := lines[7] + "\n" + lines[12] + "\n" // two valid cards, a warning each
	for _, tc := range []struct {
		max  string
		code int
	}{{"-1", exitOK}, {"2", exitOK}, {"1", exitInvalid}, {"0", exitInvalid}} {
		r := run(t, warned, "--max-warnings", tc.max)
		says := strings.Contains(r.stderr, "2 warnings, more than --max-warnings "+tc.max)
		if r.code != tc.code || says != (tc.code == exitInvalid) {
			t.Errorf("--max-warnings %s: exit %d, want %d; stderr %q", tc.max, r.code, tc.code, r.stderr)
		}
	}
	if r := run(t, "", "--max-warnings", "-2"); r.code != exitUsage {
		t.Errorf("--max-warnings -2: exit %d", r.code)
	}
}

// TestStdinFilename: findings on piped input name --stdin-filename's
// NAME, in every format that names the input.
func TestStdinFilename(t *testing.T) {
	cards := string(readFile(t, cardsFile))
	for _, format := range []string{"text", "jsonl", "github", "sarif", "junit", "codequality"} {
		named := run(t, cards, "--format", format, "--color", "never", "--stdin-filename", cardsFile)
		file := run(t, "", "--format", format, "--color", "never", cardsFile)
		if named.stdout != file.stdout {
			t.Errorf("%s: piped with --stdin-filename differs from the file:\n%s\nwant\n%s", format, named.stdout, file.stdout)
		}
	}
}
