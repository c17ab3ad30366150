package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/rule"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/cmderr"
	"github.com/cardscan/cardscan/internal/golden"
	"github.com/cardscan/cardscan/internal/ruledoc"
)

func TestExplain(t *testing.T) {
	r := run(t, "", "explain", "version.semver")
	if r.code != cmderr.StatusOK || r.stderr != "" {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
	golden.Check(t, "explain.golden", r.stdout)
	for _, rule := range rule.All() {
		if got := run(t, "", "explain", rule.ID); got.code != cmderr.StatusOK || got.stdout != ruledoc.Text(rule) {
			t.Errorf("explain %s: exit %d, not the rule's text", rule.ID, got.code)
		}
	}
}

func TestExplainJSON(t *testing.T) {
	r := run(t, "", "explain", "--format", "json", "a2a.mime")
	if r.code != cmderr.StatusOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var got struct {
		ID, Severity, Spec, Source, Fails, Passes, Fix string
		Profiles                                       []string
		HelpURI                                        string `json:"help_uri"`
		ExampleProfile                                 string `json:"example_profile"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatal(err)
	}
	d, _ := fastvalidate.CodeA2AMIME.Doc()
	if got.ID != "a2a.mime" || got.Severity != "warning" || got.Spec != d.Spec || got.Fails != d.Fail || got.Passes != d.Pass ||
		got.Fix != d.Fix || got.ExampleProfile != "a2a/1.0" || got.HelpURI != ruledoc.HelpURI("a2a.mime") {
		t.Errorf("explain json: %+v", got)
	}
	// The profiles that apply it, by name: every A2A release from 0.2, a2a and auto.
	want := []string{"a2a", "a2a/0.2", "a2a/0.3", "a2a/1.0", "auto"}
	if strings.Join(got.Profiles, " ") != strings.Join(want, " ") {
		t.Errorf("profiles %v, want %v", got.Profiles, want)
	}
}

func TestExplainUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"explain", "version.semvar"}, `unknown rule "version.semvar": did you mean version.semver?`},
		{[]string{"explain", "A2A.MINE"}, "did you mean a2a.mime?"},
		// A swap of neighbours is one slip, not two: Levenshtein distance
		// ties a2a.url with a2a.null here and suggested the wrong one.
		{[]string{"explain", "a2a.ulr"}, "did you mean a2a.url?"},
		{[]string{"explain", "no.such-rule-at-all"}, `unknown rule "no.such-rule-at-all" (cardscan --list-rules lists them)`},
		{[]string{"explain"}, "want one rule, got 0"},
		{[]string{"explain", "a", "b"}, "want one rule, got 2"},
		{[]string{"explain", "--format", "yaml", "a2a.mime"}, `--format "yaml": want text or json`},
		{[]string{"explian", "a2a.mime"}, "did you mean explain?"},
		// Flags read as every subcommand's do: a slip gets the flag meant,
		// a flag without its value says so, not only the usage line.
		{[]string{"explain", "--formt", "json", "a2a.mime"}, "unknown flag --formt: did you mean --format?"},
		{[]string{"explain", "a2a.mime", "--format"}, "flag needs an argument: --format"},
		{[]string{"explain", "--format=", "a2a.mime"}, `--format "": want text or json`},
	} {
		r := run(t, "", tc.args...)
		if r.code != cmderr.StatusUsage || !strings.Contains(r.stderr, tc.want) || r.stdout != "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

// --list-rules --profile P lists exactly the rules InProfile gives P, and
// without --profile (or with auto) every rule.
func TestListRulesProfile(t *testing.T) {
	all := run(t, "", "--list-rules")
	if n := strings.Count(all.stdout, "\n"); n != len(rule.All())+1 {
		t.Errorf("--list-rules: %d lines for %d rules", n, len(rule.All()))
	}
	for _, tc := range []struct {
		profile    string
		has, lacks []string
	}{
		{"agentcard", []string{"json.syntax", "version.semver", "field.required"}, []string{"a2a.mime", "ma2d.name", "schema.type", "http.status", "a2a.signature-invalid"}},
		{"a2a", []string{"json.syntax", "a2a.mime", "a2a.preferred-transport", "a2a.security-requirement", "a2a.signature-invalid"}, []string{"version.semver", "ma2d.name"}},
		{"a2a/0.3", []string{"a2a.preferred-transport", "a2a.required"}, []string{"a2a.security-requirement", "a2a.hybrid"}},
		{"ma2d", []string{"ma2d.name", "field.required"}, []string{"a2a.mime", "agent_id.format"}},
		{"agentcard-schema", []string{"schema.type", "json.syntax"}, []string{"field.required"}},
	} {
		r := run(t, "", "--list-rules", "--profile", tc.profile)
		if r.code != cmderr.StatusOK {
			t.Fatalf("%s: exit %d %s", tc.profile, r.code, r.stderr)
		}
		lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")[1:]
		ids := map[string]bool{}
		for _, l := range lines {
			ids[strings.Fields(l)[0]] = true
		}
		for _, id := range tc.has {
			if !ids[id] {
				t.Errorf("--profile %s lacks %s", tc.profile, id)
			}
		}
		for _, id := range tc.lacks {
			if ids[id] {
				t.Errorf("--profile %s lists %s", tc.profile, id)
			}
		}
	}
	if r := run(t, "", "--list-rules", "--profile", "nope"); r.code != cmderr.StatusUsage || !strings.Contains(r.stderr, `unknown profile "nope"`) {
		t.Errorf("unknown profile: exit %d, %s", r.code, r.stderr)
	}
}
