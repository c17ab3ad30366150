package fastvalidate

import (
	"encoding/json"
	"github.com/cardscan/cardscan/rule"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// testNow pins the clock for every table test: the date of the draft, so
// that its example agent_id lies in the past and a ULID one millisecond
// later than testNow lies in the future.
var testNow = time.Date(2026, 4, 23, 0, 0, 0, 0, time.UTC)

func fixedClock() time.Time { return testNow }

func newTestValidator(t testing.TB, profile string) *Validator {
	t.Helper()
	v, err := New(profile, WithClock(fixedClock))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// hit is what a table case expects of one finding: the rule ID and the JSON
// Pointer it names. Severity follows from the rule unless a case says more.
type hit struct{ rule, path string }

func (h hit) String() string { return h.rule + " at " + quotePath(h.path) }

func quotePath(p string) string {
	if p == "" {
		return `"" (the card)`
	}
	return `"` + p + `"`
}

func sortedHits(hs []hit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.String()
	}
	sort.Strings(out)
	return out
}

// hitsOf copies a Result's findings out of the Validator's buffers.
func hitsOf(r *Result) []hit {
	var hs []hit
	for _, f := range r.Findings() {
		hs = append(hs, hit{f.Code.String(), strings.Clone(f.Path)})
	}
	return hs
}

// checkHits fails unless the Result holds exactly the expected (rule, path)
// pairs, as a multiset, and its verdict follows from their severities.
func checkHits(t *testing.T, r *Result, want []hit) {
	t.Helper()
	got := sortedHits(hitsOf(r))
	exp := sortedHits(want)
	if !slices.Equal(got, exp) {
		t.Errorf("findings:\n got  %q\n want %q", got, exp)
	}
	wantValid := true
	for _, h := range want {
		if rule, ok := rule.Lookup(h.rule); !ok {
			t.Errorf("expected rule %q is not registered", h.rule)
		} else if severityIn(r.Profile, rule.Code) == SeverityError {
			wantValid = false
		}
	}
	if r.Valid() != wantValid {
		t.Errorf("Valid() = %v, want %v", r.Valid(), wantValid)
	}
	errs, warns := 0, 0
	for _, f := range r.Findings() {
		if sev := severityIn(r.Profile, f.Code); f.Severity != sev {
			t.Errorf("%s: severity %s, the rule's under %s is %s", f.Code, f.Severity, r.Profile, sev)
		}
		if f.Severity == SeverityError {
			errs++
		} else {
			warns++
		}
	}
	if errs != r.Errors() || warns != r.Warnings() {
		t.Errorf("Errors()/Warnings() = %d/%d, findings hold %d/%d", r.Errors(), r.Warnings(), errs, warns)
	}
}

// severityIn is a rule's severity in a card judged by profile: its
// default, but for a snake_case name in a 1.0 card, which the 1.0 spec
// alone forbids.
func severityIn(profile string, c Code) Severity {
	if c == CodeA2AFieldName && profile == "a2a/1.0" {
		return SeverityError
	}
	return c.Severity()
}

// Default member values of the cards the tables build: each is valid on its
// own, so a case changes exactly what it tests.
const (
	defAgentID      = `"01HZQK3P8EMXR9V7T5N2W4J6C0"`
	defName         = `"ResearchAnalyst"`
	defVersion      = `"1.2.0"`
	defCapabilities = `[{"id":"text.summarise","description":"Summarise a document."}]`
	defEndpoint     = `{"protocol":"https","url":"https://agents.example.com/api"}`
)

// omit, as a member value, leaves the member out of the card.
const omit = "\x00omit"

var memberOrder = []string{"agent_id", "name", "version", "capabilities", "endpoint", "pricing", "metadata", "goal_subscriptions"}

// card builds an agentcard from the defaults, with members replaced, added
// or (with omit) removed. Values are raw JSON text, written into the card
// byte for byte. Members outside memberOrder follow in sorted order.
func card(members map[string]string) string {
	all := map[string]string{
		"agent_id":     defAgentID,
		"name":         defName,
		"version":      defVersion,
		"capabilities": defCapabilities,
		"endpoint":     defEndpoint,
	}
	for k, v := range members {
		all[k] = v
	}
	var extra []string
	for k := range all {
		if !slices.Contains(memberOrder, k) {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	var b strings.Builder
	b.WriteByte('{')
	for _, k := range append(slices.Clone(memberOrder), extra...) {
		v, ok := all[k]
		if !ok || v == omit {
			continue
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.WriteString(jsonString(k))
		b.WriteByte(':')
		b.WriteString(v)
	}
	b.WriteByte('}')
	return b.String()
}

// jsonString encodes s as a JSON string without HTML escaping, so that the
// text stays as readable as the case that wrote it.
func jsonString(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// endpoint builds an endpoint object from a protocol and a URL, both as Go
// strings.
func endpoint(protocol, url string) string {
	return `{"protocol":` + jsonString(protocol) + `,"url":` + jsonString(url) + `}`
}
