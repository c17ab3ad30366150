package fastvalidate

import (
	"errors"
	"fmt"
	"github.com/cardscan/cardscan/rule"
	"strings"
	"testing"
)

// outcome is what a card's Result says, in a form a table can spell.
type outcome struct {
	valid            bool
	errors, warnings int
	findings         []string // "rule severity" per listed finding, in order
}

func outcomeOf(r *Result) outcome {
	o := outcome{valid: r.Valid(), errors: r.Errors(), warnings: r.Warnings()}
	for _, f := range r.Findings() {
		o.findings = append(o.findings, f.Code.String()+" "+f.Severity.String())
	}
	return o
}

func TestWithSeverity(t *testing.T) {
	badVersion := card(map[string]string{"version": `"1"`})
	noDescription := card(map[string]string{"capabilities": `[{"id":"a"},{"id":"b"}]`})
	plainHTTP := card(map[string]string{"endpoint": `{"protocol":"http","url":"http://a.example"}`})
	// Three capabilities with the same bad id: one finding that counts
	// three times (Result.addValue's folding).
	sameBadID := card(map[string]string{"capabilities": `[{"id":"A","description":"d"},{"id":"A","description":"d"},{"id":"A","description":"d"}]`})
	cases := []struct {
		name string
		card string
		opts []Option
		want outcome
	}{
		{"no override", badVersion, nil,
			outcome{false, 1, 0, []string{"version.semver error"}}},
		{"error to warning", badVersion, []Option{WithSeverity(CodeVersionSemver, SeverityWarning)},
			outcome{true, 0, 1, []string{"version.semver warning"}}},
		{"error off", badVersion, []Option{WithSeverity(CodeVersionSemver, SeverityOff)},
			outcome{true, 0, 0, nil}},
		{"warning to error", noDescription, []Option{WithSeverity(CodeCapabilityDescriptionMissing, SeverityError)},
			outcome{false, 2, 0, []string{"capability.description-missing error", "capability.description-missing error"}}},
		{"warning off", noDescription, []Option{WithSeverity(CodeCapabilityDescriptionMissing, SeverityOff)},
			outcome{true, 0, 0, nil}},
		{"later override wins", badVersion, []Option{WithSeverity(CodeVersionSemver, SeverityOff), WithSeverity(CodeVersionSemver, SeverityWarning)},
			outcome{true, 0, 1, []string{"version.semver warning"}}},
		{"other rules untouched", badVersion, []Option{WithSeverity(CodeNameLength, SeverityOff)},
			outcome{false, 1, 0, []string{"version.semver error"}}},
		{"production policy raises", plainHTTP, []Option{WithPolicy(PolicyProduction)},
			outcome{false, 1, 0, []string{"endpoint.insecure error"}}},
		{"override beats the policy", plainHTTP, []Option{WithPolicy(PolicyProduction), WithSeverity(CodeEndpointInsecure, SeverityWarning)},
			outcome{true, 0, 1, []string{"endpoint.insecure warning"}}},
		{"folded finding lowered", sameBadID, []Option{WithSeverity(CodeCapabilityID, SeverityWarning)},
			outcome{true, 0, 3, []string{"capability.id warning"}}},
		{"folded finding off", sameBadID, []Option{WithSeverity(CodeCapabilityID, SeverityOff)},
			outcome{true, 0, 0, nil}},
		{"missing member off", card(map[string]string{"name": omit}), []Option{WithSeverity(CodeFieldRequired, SeverityOff)},
			outcome{true, 0, 0, nil}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := New("agentcard", append([]Option{WithClock(fixedClock)}, c.opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			got := outcomeOf(v.Validate([]byte(c.card)))
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("got %+v\nwant %+v", got, c.want)
			}
		})
	}
}

// An override reaches the findings past the per-card cap, which only
// their counts record.
func TestWithSeverity_Unlisted(t *testing.T) {
	caps := make([]string, 150)
	for i := range caps {
		caps[i] = fmt.Sprintf(`{"id":"BAD %d","description":"d"}`, i)
	}
	c := []byte(card(map[string]string{"capabilities": "[" + strings.Join(caps, ",") + "]"}))
	for _, sev := range []Severity{SeverityWarning, SeverityOff} {
		v, err := New("agentcard", WithClock(fixedClock), WithSeverity(CodeCapabilityID, sev))
		if err != nil {
			t.Fatal(err)
		}
		r := v.Validate(c)
		want := 150
		if sev == SeverityOff {
			want = 0
		}
		if !r.Valid() || r.Errors() != 0 || r.Warnings() != want {
			t.Errorf("%s: valid %v, %d errors, %d warnings; want valid, 0, %d", sev, r.Valid(), r.Errors(), r.Warnings(), want)
		}
		for _, u := range r.Unlisted() {
			if u.Severity != SeverityWarning {
				t.Errorf("%s: unlisted %v", sev, u)
			}
		}
	}
}

func TestWithSeverity_Refused(t *testing.T) {
	cases := []struct {
		name string
		opt  Option
		want string
	}{
		{"json.syntax off", WithSeverity(CodeJSONSyntax, SeverityOff), "json.syntax cannot be off"},
		{"json.utf8 warning", WithSeverity(CodeJSONUTF8, SeverityWarning), "json.utf8 cannot be warning"},
		{"json.duplicate-key off", WithSeverity(CodeJSONDuplicateKey, SeverityOff), "json.duplicate-key cannot be off"},
		{"json.depth off", WithSeverity(CodeJSONDepth, SeverityOff), "json.depth cannot be off"},
		{"input.too-large off", WithSeverity(CodeInputTooLarge, SeverityOff), "input.too-large cannot be off"},
		{"unknown code", WithSeverity(Code(maxCode-1), SeverityOff), "no rule with code 511"},
		{"zero code", WithSeverity(codeInvalid, SeverityOff), "no rule with code 0"},
		{"bad severity", WithSeverity(CodeVersionSemver, Severity(9)), "version.semver: severity 9"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := New("agentcard", c.opt)
			if !errors.Is(err, ErrOverride) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("New: %v; want ErrOverride saying %q", err, c.want)
			}
			if _, err := NewPool("agentcard", c.opt); !errors.Is(err, ErrOverride) {
				t.Errorf("NewPool: %v; want ErrOverride", err)
			}
		})
	}
	// Raising them to error, what they are, is no change and allowed.
	if _, err := New("agentcard", WithSeverity(CodeJSONSyntax, SeverityError)); err != nil {
		t.Errorf("json.syntax=error: %v", err)
	}
}

func TestParseSeverity(t *testing.T) {
	for _, s := range []string{"error", "warning", "off"} {
		sev, ok := rule.ParseSeverity(s)
		if !ok || sev.String() != s {
			t.Errorf("rule.ParseSeverity(%q) = %v, %v", s, sev, ok)
		}
	}
	for _, s := range []string{"", "Error", "info", "none"} {
		if _, ok := rule.ParseSeverity(s); ok {
			t.Errorf("rule.ParseSeverity(%q) accepted", s)
		}
	}
}

// Overrides cost a valid card nothing, and a card whose findings are all
// turned off no more than a valid one.
func TestWithSeverity_ZeroAllocs(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation allocates")
	}
	opts := []Option{WithClock(fixedClock),
		WithSeverity(CodeVersionSemver, SeverityWarning),
		WithSeverity(CodeCapabilityDescriptionMissing, SeverityOff),
		WithSeverity(CodeCapabilityID, SeverityOff),
		WithSeverity(CodeEndpointInsecure, SeverityError)}
	v, err := New("agentcard", opts...)
	if err != nil {
		t.Fatal(err)
	}
	many := make([]string, 500)
	for i := range many {
		many[i] = `{"id":"BAD ` + fmt.Sprint(i) + `"}`
	}
	cards := map[string][]byte{
		"valid":          []byte(draftExample),
		"1.7 KB":         sizedCard(4),
		"lowered":        []byte(card(map[string]string{"version": `"1"`})),
		"500 turned off": []byte(card(map[string]string{"capabilities": "[" + strings.Join(many, ",") + "]"})),
	}
	for name, c := range cards {
		if r := v.Validate(c); !r.Valid() {
			t.Fatalf("%s: not valid: %v", name, r.Findings())
		}
		testAllocs(t, name, 0, func() { v.Validate(c) })
	}
}
