package cli

import (
	"encoding/json"
	"maps"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/rule"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/cardscan/cardscan/internal/cmderr"
	"github.com/cardscan/cardscan/internal/golden"
	"github.com/cardscan/cardscan/internal/report"
	"github.com/cardscan/cardscan/internal/ruledoc"
)

// sarifLog is the part of a SARIF log these tests read.
type sarifLog struct {
	Runs []struct {
		ColumnKind         string `json:"columnKind"`
		OriginalURIBaseIDs map[string]struct {
			URI string `json:"uri"`
		} `json:"originalUriBaseIds"`
		Tool struct {
			Driver struct {
				Name  string `json:"name"`
				Rules []struct {
					ID      string `json:"id"`
					HelpURI string `json:"helpUri"`
					Help    struct {
						Text string `json:"text"`
					} `json:"help"`
					Default struct {
						Level string `json:"level"`
					} `json:"defaultConfiguration"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Results     []sarifResult `json:"results"`
		Invocations []struct {
			Successful bool `json:"executionSuccessful"`
			ExitCode   int  `json:"exitCode"`
			Overrides  []struct {
				Descriptor struct {
					ID    string `json:"id"`
					Index int    `json:"index"`
				} `json:"descriptor"`
				Configuration struct {
					Level string `json:"level"`
				} `json:"configuration"`
			} `json:"ruleConfigurationOverrides"`
			Notifications []struct {
				Level   string `json:"level"`
				Message struct {
					Text string `json:"text"`
				} `json:"message"`
			} `json:"toolExecutionNotifications"`
		} `json:"invocations"`
	} `json:"runs"`
}

type sarifResult struct {
	RuleID  string `json:"ruleId"`
	Level   string `json:"level"`
	Message struct {
		Text string `json:"text"`
	} `json:"message"`
	Locations []struct {
		Physical struct {
			Artifact struct {
				URI       string `json:"uri"`
				URIBaseID string `json:"uriBaseId"`
			} `json:"artifactLocation"`
			Region struct {
				StartLine   int `json:"startLine"`
				StartColumn int `json:"startColumn"`
			} `json:"region"`
		} `json:"physicalLocation"`
	} `json:"locations"`
	Related []struct {
		ID       int `json:"id"`
		Physical struct {
			Artifact struct {
				URI string `json:"uri"`
			} `json:"artifactLocation"`
			Region struct {
				StartLine int `json:"startLine"`
			} `json:"region"`
		} `json:"physicalLocation"`
	} `json:"relatedLocations"`
	Fingerprints map[string]string `json:"partialFingerprints"`
	Properties   struct {
		Pointer string `json:"pointer"`
	} `json:"properties"`
}

// sarifSchema compiles the official SARIF 2.1.0 schema vendored in
// testdata/sarif (see its README).
func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open("testdata/sarif/sarif-schema-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	const url = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// checkSARIF validates out against the schema and decodes it.
func checkSARIF(t *testing.T, schema *jsonschema.Schema, out string) sarifLog {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(out))
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if err := schema.Validate(inst); err != nil {
		t.Fatalf("not SARIF 2.1.0: %v", err)
	}
	var log sarifLog
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatal(err)
	}
	if len(log.Runs) != 1 {
		t.Fatalf("%d runs, want 1", len(log.Runs))
	}
	return log
}

// realCorpusDir returns the real cards beside the checkout, skipping the
// test, saying so, where they are absent.
func realCorpusDir(t *testing.T) string {
	if st, err := os.Stat(realCorpus); err != nil || !st.IsDir() {
		t.Skipf("real corpus not available: %v", err)
	}
	return realCorpus
}

// TestSARIFMatchesJSONL runs the golden CLI cases in SARIF and checks each
// log against the official schema, and each result against the jsonl
// verdicts of the same run: the same findings, in the same order, at the
// same line and column, with the rule's level, a descriptor in rules[]
// for exactly the rules that fired, and a fingerprint.
func TestSARIFMatchesJSONL(t *testing.T) {
	schema := sarifSchema(t)
	pretty := writeFile(t, filepath.Join(t.TempDir(), "pretty.json"), []byte("{\n  \"agent_id\": \"nope\",\n  \"name\": \"Ünïcode ✓\", \"version\": \"1\"\n}\n"))
	abs, err := filepath.Abs(cardsFile)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
	}{
		{"cards", []string{"--profile", "agentcard", cardsFile}},
		{"cards-fail-on-warning", []string{"--profile", "agentcard", "--fail-on", "warning", cardsFile}},
		{"absolute-inside", []string{"--profile", "agentcard", abs}},
		{"pretty-outside", []string{"--profile", "agentcard", pretty}},
		{"real", []string{realCorpus}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// Only this case reads outside the repository; the others
			// run on any checkout.
			if tc.name == "real" {
				realCorpusDir(t)
			}
			s := run(t, "", append([]string{"--format", "sarif"}, tc.args...)...)
			j := run(t, "", append([]string{"--format", "jsonl", "--all"}, tc.args...)...)
			if s.code != j.code {
				t.Errorf("exit %d, jsonl's %d", s.code, j.code)
			}
			log := checkSARIF(t, schema, s.stdout)
			r := log.Runs[0]
			if r.ColumnKind != "unicodeCodePoints" {
				t.Errorf("columnKind %q", r.ColumnKind)
			}
			if len(r.Invocations) != 1 || r.Invocations[0].ExitCode != s.code || !r.Invocations[0].Successful {
				t.Errorf("invocations %+v, want one, successful, exit %d", r.Invocations, s.code)
			}
			var want []finding
			var inputs []string
			for _, v := range parseVerdicts(t, j.stdout) {
				for _, f := range v.Errors {
					want = append(want, f)
					inputs = append(inputs, v.Input)
				}
				for _, f := range v.Warnings {
					want = append(want, f)
					inputs = append(inputs, v.Input)
				}
			}
			if len(r.Results) != len(want) || len(want) == 0 {
				t.Fatalf("%d results, jsonl has %d findings", len(r.Results), len(want))
			}
			fired := map[string]bool{}
			for i, res := range r.Results {
				// jsonl lists a card's errors before its warnings, SARIF
				// its findings in the validator's order: match by card.
				f := findIn(want, inputs, inputs[i], res)
				if f == nil {
					t.Errorf("result %d %+v has no jsonl finding", i, res)
					continue
				}
				fired[res.RuleID] = true
				rule, _ := rule.Lookup(res.RuleID)
				if res.Level != rule.Severity.String() {
					t.Errorf("%s: level %q, want %q", res.RuleID, res.Level, rule.Severity)
				}
				if len(res.Fingerprints["cardscanFinding/v1"]) != 16 {
					t.Errorf("%s: fingerprints %v", res.RuleID, res.Fingerprints)
				}
				loc := res.Locations[0].Physical
				wantURI, wantBase := filepath.ToSlash(inputs[i]), report.SARIFBase
				switch {
				case inputs[i] == abs:
					wantURI = cardsFile
				case inputs[i] == pretty, strings.HasPrefix(inputs[i], ".."):
					// Outside the working directory: where it is.
					p, _ := filepath.Abs(inputs[i])
					wantURI, wantBase = "file://"+filepath.ToSlash(p), ""
				}
				if loc.Artifact.URI != wantURI || loc.Artifact.URIBaseID != wantBase {
					t.Errorf("%s: artifact %+v, want %q under %q", res.RuleID, loc.Artifact, wantURI, wantBase)
				}
			}
			var got []string
			for _, d := range r.Tool.Driver.Rules {
				got = append(got, d.ID)
				if !fired[d.ID] {
					t.Errorf("rules[] has %s, which did not fire", d.ID)
				}
				if d.HelpURI != ruledoc.HelpURI(d.ID) || d.Help.Text == "" {
					t.Errorf("%s: helpUri %q, help %q", d.ID, d.HelpURI, d.Help.Text)
				}
			}
			if len(got) != len(fired) {
				t.Errorf("rules[] %v, fired %v", got, fired)
			}
		})
	}
}

// findIn finds the jsonl finding of input that res reports: same rule,
// pointer, line and column.
func findIn(fs []finding, inputs []string, input string, res sarifResult) *finding {
	loc := res.Locations[0].Physical.Region
	for i := range fs {
		f := &fs[i]
		if inputs[i] == input && f.Rule == res.RuleID && f.Path == res.Properties.Pointer &&
			f.Line == loc.StartLine && f.Column == loc.StartColumn && strings.HasSuffix(sarifPlain(res.Message.Text), f.Message) {
			return f
		}
	}
	return nil
}

// sarifPlain reads a SARIF plain text message as a viewer shows it: a
// backslash before a square bracket or a backslash stands for that
// character (SARIF 2.1.0, section 3.11.6).
func sarifPlain(text string) string {
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		if text[i] == '\\' && i+1 < len(text) && strings.IndexByte(`[]\`, text[i+1]) >= 0 {
			i++
		}
		b.WriteByte(text[i])
	}
	return b.String()
}

// TestSARIFGolden pins the whole log of the golden cards; the version and
// the working directory, which vary by build and checkout, are masked.
func TestSARIFGolden(t *testing.T) {
	r := run(t, "", "--format", "sarif", "--profile", "agentcard", cardsFile)
	if r.code != cmderr.StatusFailed {
		t.Errorf("exit %d, want %d", r.code, cmderr.StatusFailed)
	}
	checkSARIF(t, sarifSchema(t), r.stdout)
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	out := strings.Replace(r.stdout, `"version":"`+version()+`"`, `"version":"VERSION"`, 1)
	out = strings.Replace(out, `"uri":"file://`+filepath.ToSlash(wd)+`/"`, `"uri":"file:///WORKDIR/"`, 1)
	golden.Check(t, "cards.sarif.golden", out)
}

// TestSARIFFingerprintsIgnoreLines inserts lines above every card: each
// result moves down, and keeps its fingerprint.
func TestSARIFFingerprintsIgnoreLines(t *testing.T) {
	schema := sarifSchema(t)
	dir := t.TempDir()
	cards := readFile(t, cardsFile)
	t.Chdir(dir)
	writeFile(t, "a.ndjson", cards)
	before := checkSARIF(t, schema, run(t, "", "--format", "sarif", "--profile", "agentcard", "a.ndjson").stdout)
	writeFile(t, "a.ndjson", append([]byte("\n\n\n"), cards...))
	after := checkSARIF(t, schema, run(t, "", "--format", "sarif", "--profile", "agentcard", "a.ndjson").stdout)
	b, a := before.Runs[0].Results, after.Runs[0].Results
	if len(a) != len(b) || len(a) == 0 {
		t.Fatalf("%d results, then %d", len(b), len(a))
	}
	seen := map[string]bool{}
	for i := range a {
		if a[i].Locations[0].Physical.Region.StartLine != b[i].Locations[0].Physical.Region.StartLine+3 {
			t.Errorf("result %d did not move down 3 lines", i)
		}
		fp := a[i].Fingerprints["cardscanFinding/v1"]
		if fp != b[i].Fingerprints["cardscanFinding/v1"] {
			t.Errorf("result %d: fingerprint %s became %s", i, b[i].Fingerprints, a[i].Fingerprints)
		}
		seen[fp] = true
	}
	// Rule and pointer tell the findings of the one input apart, but for
	// the same rule at the same pointer of two cards.
	pairs := map[string]bool{}
	for _, r := range a {
		pairs[r.RuleID+" "+r.Properties.Pointer] = true
	}
	if len(seen) != len(pairs) {
		t.Errorf("%d fingerprints for %d rule and pointer pairs", len(seen), len(pairs))
	}
	// Another input name, another fingerprint.
	writeFile(t, "b.ndjson", cards)
	other := checkSARIF(t, schema, run(t, "", "--format", "sarif", "--profile", "agentcard", "b.ndjson").stdout)
	if fp := other.Runs[0].Results[0].Fingerprints["cardscanFinding/v1"]; seen[fp] {
		t.Errorf("b.ndjson's first result shares a's fingerprint %s", fp)
	}
}

// TestSARIFStdinAndOutside: standard input has no URI, and a file outside
// the working directory an absolute file URI without a base.
func TestSARIFStdinAndOutside(t *testing.T) {
	schema := sarifSchema(t)
	cards := string(readFile(t, cardsFile))
	log := checkSARIF(t, schema, run(t, cards, "--format", "sarif", "--profile", "agentcard").stdout)
	for _, r := range log.Runs[0].Results {
		if a := r.Locations[0].Physical.Artifact; a.URI != "" || a.URIBaseID != "" {
			t.Fatalf("stdin result has artifact %+v", a)
		}
	}
	outside := writeFile(t, filepath.Join(t.TempDir(), "x y.ndjson"), []byte(cards))
	t.Chdir(t.TempDir())
	log = checkSARIF(t, schema, run(t, "", "--format", "sarif", "--profile", "agentcard", outside).stdout)
	a := log.Runs[0].Results[0].Locations[0].Physical.Artifact
	if want := "file://" + strings.ReplaceAll(filepath.ToSlash(outside), " ", "%20"); a.URI != want || a.URIBaseID != "" {
		t.Errorf("artifact %+v, want uri %s and no base", a, want)
	}
}

// TestSARIFColonInFirstSegment names inputs whose first path segment
// holds a colon: written bare, "c:1.ndjson" would parse as a URI of
// scheme "c" (RFC 3986, section 4.2), an absolute URI that %SRCROOT%
// cannot resolve, so a reader would place the finding in no file of the
// repository (or, read as a drive letter, in another one).
func TestSARIFColonInFirstSegment(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a file name cannot hold a colon on Windows")
	}
	schema := sarifSchema(t)
	cards := readFile(t, cardsFile)
	t.Chdir(t.TempDir())
	for _, name := range []string{"c:1.ndjson", "https:x.ndjson", "d/e:f.ndjson"} {
		writeFile(t, name, cards)
		log := checkSARIF(t, schema, run(t, "", "--format", "sarif", "--profile", "agentcard", name).stdout)
		if len(log.Runs[0].Results) == 0 {
			t.Fatalf("%s: no results", name)
		}
		a := log.Runs[0].Results[0].Locations[0].Physical.Artifact
		u, err := url.Parse(a.URI)
		if err != nil {
			t.Fatalf("%s: uri %q: %v", name, a.URI, err)
		}
		if u.Scheme != "" || u.Opaque != "" || a.URIBaseID != "%SRCROOT%" {
			t.Errorf("%s: artifact %+v parses as scheme %q, opaque %q; want a relative reference on %%SRCROOT%%", name, a, u.Scheme, u.Opaque)
			continue
		}
		if got := path.Clean(u.Path); got != name {
			t.Errorf("%s: uri %q resolves to %q", name, a.URI, got)
		}
	}
}

// TestSARIFNotificationShowsHidden: an input that cannot be read is named
// in the run's notifications, which code scanning shows a person as it
// shows results, so a bidi override in the name is written <U+202E>, as
// in a result's message, and cannot reorder the text around it.
func TestSARIFNotificationShowsHidden(t *testing.T) {
	schema := sarifSchema(t)
	missing := filepath.Join(t.TempDir(), "evil\u202etxt.exe.ndjson")
	r := run(t, "", "--format", "sarif", missing)
	if r.code != exitIO {
		t.Fatalf("exit %d, want %d; stderr %q", r.code, exitIO, r.stderr)
	}
	inv := checkSARIF(t, schema, r.stdout).Runs[0].Invocations
	if len(inv) != 1 || len(inv[0].Notifications) != 1 {
		t.Fatalf("invocations %+v, want one notification", inv)
	}
	text := inv[0].Notifications[0].Message.Text
	if strings.ContainsRune(text, '\u202e') || !strings.Contains(text, "evil<U+202E>txt.exe.ndjson") {
		t.Errorf("notification %q, want the name with its override written <U+202E>", text)
	}
}

// TestSARIFOverLimit writes every result of a run past GitHub's limit,
// and says so on stderr and in the run's notifications.
func TestSARIFOverLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("judges 20,000 cards")
	}
	path := writeFile(t, filepath.Join(t.TempDir(), "big.ndjson"), bigInput(t, 2200))
	r := run(t, "", "--format", "sarif", "--profile", "agentcard", path)
	var log sarifLog
	if err := json.Unmarshal([]byte(r.stdout), &log); err != nil {
		t.Fatal(err)
	}
	n := len(log.Runs[0].Results)
	if n <= report.SARIFResultLimit {
		t.Fatalf("%d results: the input is too small for this test", n)
	}
	if !strings.Contains(r.stderr, "GitHub code scanning accepts at most 25000") {
		t.Errorf("stderr says nothing of the limit: %s", r.stderr)
	}
	notes := log.Runs[0].Invocations[0].Notifications
	if len(notes) != 1 || notes[0].Level != "warning" || !strings.Contains(notes[0].Message.Text, "accepts at most 25000") {
		t.Errorf("notifications %+v", notes)
	}
}

// TestSARIFRuleOverrides turns one rule that fires as a warning into an
// error and one that fires as an error into a warning: rules[] keeps
// their default levels, the invocation's ruleConfigurationOverrides says
// what the run made of each, and the results carry the new levels.
func TestSARIFRuleOverrides(t *testing.T) {
	schema := sarifSchema(t)
	plain := checkSARIF(t, schema, run(t, "", "--format", "sarif", cardsFile).stdout)
	flip := map[string]string{"endpoint.insecure": "error", "version.semver": "warning"}
	for _, r := range plain.Runs[0].Tool.Driver.Rules {
		if lvl, ok := flip[r.ID]; ok && r.Default.Level == lvl {
			t.Fatalf("%s is already at level %s", r.ID, lvl)
		}
	}
	if n := len(plain.Runs[0].Tool.Driver.Rules); n == 0 {
		t.Fatal("no rule fired")
	}
	args := []string{"--format", "sarif"}
	for id, lvl := range flip {
		args = append(args, "--rule", id+"="+lvl)
	}
	r := run(t, "", append(args, cardsFile)...)
	if r.code != exitInvalid {
		t.Fatalf("%v: exit %d, stderr %q", args, r.code, r.stderr)
	}
	log := checkSARIF(t, schema, r.stdout)
	rules := log.Runs[0].Tool.Driver.Rules
	got := map[string]string{}
	for _, o := range log.Runs[0].Invocations[0].Overrides {
		if o.Descriptor.Index >= len(rules) || rules[o.Descriptor.Index].ID != o.Descriptor.ID {
			t.Errorf("override of %s names index %d", o.Descriptor.ID, o.Descriptor.Index)
		}
		got[o.Descriptor.ID] = o.Configuration.Level
	}
	if !maps.Equal(got, flip) {
		t.Errorf("overrides %v, want %v", got, flip)
	}
	for _, r := range rules {
		if lvl, ok := flip[r.ID]; ok && r.Default.Level == lvl {
			t.Errorf("rule %s: defaultConfiguration says %s, the override's level", r.ID, lvl)
		}
	}
	for _, res := range log.Runs[0].Results {
		if lvl, ok := flip[res.RuleID]; ok && res.Level != lvl {
			t.Errorf("a %s result at level %s, want %s", res.RuleID, res.Level, lvl)
		}
	}
}

// TestGitHubAnnotatesUnreadableInput: in a workflow, annotations are what
// a pull request shows; an input that could not be read gets an error
// annotation beside stderr's line and the exit status, its name's hidden
// characters written visibly and its line breaks escaped as the runner
// unescapes them.
func TestGitHubAnnotatesUnreadableInput(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, filepath.Join(dir, "good.ndjson"), []byte(`{"name":1}`+"\n"))
	missing := filepath.Join(dir, "evil\u202etxt\nexe.ndjson")
	r := run(t, "", "--format", "github", good, missing)
	if r.code != exitIO {
		t.Fatalf("exit %d, want %d; stderr %q", r.code, exitIO, r.stderr)
	}
	var notes []string
	for line := range strings.Lines(r.stdout) {
		if strings.HasPrefix(line, "::error title=cardscan::") {
			notes = append(notes, line)
		}
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "evil<U+202E>txt%0Aexe.ndjson") || strings.ContainsRune(notes[0], '\u202e') {
		t.Fatalf("annotations of the run %q in stdout:\n%s", notes, r.stdout)
	}
	if !strings.Contains(r.stdout, "::error file="+strings.ReplaceAll(good, ":", "%3A")) {
		t.Errorf("the readable input's finding is missing:\n%s", r.stdout)
	}
}
