package fastvalidate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cardscan/cardscan/rule"
)

// rulesTable is docs/rules.md's rule table, as rule.All() has it; see
// TestRulesDoc (rulesmd_test.go), the one writer of that file.
func rulesTable() string {
	var table strings.Builder
	table.WriteString("| rule | severity | profiles | what it means |\n|---|---|---|---|\n")
	for _, r := range rule.All() {
		table.WriteString("| `" + r.ID + "` | " + r.Severity.String() + " | " + r.Profiles.String() + " | " + strings.ReplaceAll(r.Description, "|", `\|`) + " |\n")
	}
	return table.String()
}

// disagreementsTable is docs/rules.md's table of the draft's and the
// schema's disagreements, as disagreementList() has them.
func disagreementsTable() string {
	var table strings.Builder
	table.WriteString("| where | the value | passes | draft section | `agentcard` reports | `agentcard-schema` reports |\n|---|---|---|---|---|---|\n")
	for _, d := range disagreementList() {
		passes := "the schema"
		if !d.SchemaAllows {
			passes = "the draft"
		}
		cell := func(codes []Code) string {
			if len(codes) == 0 {
				return "nothing"
			}
			names := make([]string, len(codes))
			for k, c := range codes {
				names[k] = "`" + c.String() + "`"
				if c.Severity() == SeverityWarning {
					names[k] += " (a warning)"
				}
			}
			return strings.Join(names, ", ")
		}
		where := "the card itself"
		if d.Member != "" {
			where = "`" + strings.ReplaceAll(d.Member, ", ", "`, `") + "`"
		}
		row := []string{where, d.Value, passes, d.Section, cell(d.Draft), cell(d.Schema)}
		table.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
	return table.String()
}

// exampleless are the rules whose examples cannot be a short card judged
// by a profile: they judge HTTP responses, signatures against trusted
// keys, a whole dump, or sizes beyond a short example.
func exampleless(r rule.Rule) bool {
	return r.Profiles == rule.Fetch || r.Profiles == rule.Migrate || r.Profiles == rule.Probe || r.Profiles == rule.Signatures || r.Profiles == rule.CrossCard || r.Code == CodeJSONDepth || r.Code == CodeInputTooLarge
}

// TestRuleDocs holds every rule of the table to its documentation: what
// it rests on (a quoted sentence with its source, or a basis), how to fix
// it, and a failing and a passing example, each judged here by the
// rule's profile: the failing one must raise that rule and no other, the
// passing one must not raise it. A rule added without them fails here.
func TestRuleDocs(t *testing.T) {
	for _, r := range rule.All() {
		t.Run(r.ID, func(t *testing.T) {
			d, ok := r.Code.Doc()
			if !ok {
				t.Fatalf("%s has no documentation in rules_doc.go", r.ID)
			}
			if (d.Spec == "") == (d.Basis == "") || (d.Spec != "") != (d.Source != "") {
				t.Errorf("want either Spec with its Source, or Basis: %+v", d)
			}
			if d.Fix == "" {
				t.Error("no Fix")
			}
			if exampleless(r) {
				if d.Example == "" || d.Fail != "" || d.Pass != "" {
					t.Errorf("want Example only: %+v", d)
				}
				return
			}
			if d.Fail == "" || d.Pass == "" || d.Example != "" {
				t.Fatalf("want Fail and Pass, no Example: %+v", d)
			}
			profile := d.Profile
			if profile == "" {
				profile, _, _ = strings.Cut(r.Profiles.String(), ",")
				if profile == allProfiles.String() {
					profile = "agentcard"
				}
			}
			opts := []Option{WithClock(func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) })}
			if optIn(r.Code) {
				opts = append(opts, WithPolicy(PolicyProduction))
			}
			v, err := New(profile, opts...)
			if err != nil {
				t.Fatal(err)
			}
			res := v.Validate([]byte(d.Fail))
			fs := res.Findings()
			if len(fs) == 0 {
				t.Errorf("Fail raises nothing under %s", profile)
			}
			for _, f := range fs {
				if f.Code != r.Code {
					t.Errorf("Fail raises %s at %q under %s, want only %s", f.Code, f.Path, profile, r.ID)
				}
			}
			for _, f := range v.Validate([]byte(d.Pass)).Findings() {
				if f.Code == r.Code {
					t.Errorf("Pass raises %s at %q under %s", f.Code, f.Path, profile)
				}
			}
		})
	}
}

// TestRuleDocQuotes finds every quoted sentence in the specifications
// beside the checkout (../shared/specs), white space aside, so that no
// quote is paraphrased or made up.
func TestRuleDocQuotes(t *testing.T) {
	const dir = "../../shared/specs"
	var corpus strings.Builder
	err := filepath.WalkDir(dir, func(path string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		corpus.Write(b)
		corpus.WriteByte(' ')
		return err
	})
	if err != nil {
		t.Skipf("specifications not available: %v", err)
	}
	text := normalizeQuote(corpus.String())
	for _, r := range rule.All() {
		d, _ := r.Code.Doc()
		if d.Spec != "" && !strings.Contains(text, normalizeQuote(d.Spec)) {
			t.Errorf("%s: quote not found in %s: %q", r.ID, dir, d.Spec)
		}
	}
}

// normalizeQuote reduces text to its words: white space, markdown's ** and
// backquotes, and the // of comments continued over lines do not count.
func normalizeQuote(s string) string {
	s = strings.NewReplacer("**", "", "`", "").Replace(s)
	var words []string
	for _, w := range strings.Fields(s) {
		if w != "//" {
			words = append(words, w)
		}
	}
	return strings.Join(words, " ")
}
