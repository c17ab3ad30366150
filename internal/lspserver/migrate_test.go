package lspserver

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/migrate"
)

// applyEdits applies one document's edits as a client does: every range
// is in the text before any edit, so they are applied from the last.
func applyEdits(t *testing.T, text string, edits []TextEdit) string {
	t.Helper()
	sorted := slices.Clone(edits)
	slices.SortFunc(sorted, func(a, b TextEdit) int {
		if a.Range.Start.Line != b.Range.Start.Line {
			return b.Range.Start.Line - a.Range.Start.Line
		}
		return b.Range.Start.Character - a.Range.Start.Character
	})
	for i := 1; i < len(sorted); i++ {
		if e, next := sorted[i], sorted[i-1]; e.Range.End.Line > next.Range.Start.Line ||
			e.Range.End.Line == next.Range.Start.Line && e.Range.End.Character > next.Range.Start.Character {
			t.Fatalf("edits overlap: %+v and %+v", e, next)
		}
	}
	for _, e := range sorted {
		text = applyEdit(text, e)
	}
	return text
}

// actionsAt asks for the code actions at the card's first character.
func (c *client) actionsAt(uri string, only ...string) []CodeAction {
	c.t.Helper()
	ctx := map[string]any{"diagnostics": []Diagnostic{}}
	if len(only) > 0 {
		ctx["only"] = only
	}
	var actions []CodeAction
	c.call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri},
		"range": Range{}, "context": ctx}, &actions)
	return actions
}

func migrateActionsOf(actions []CodeAction) []CodeAction {
	var out []CodeAction
	for _, a := range actions {
		if strings.HasPrefix(a.Title, "Migrate this card to ") {
			out = append(out, a)
		}
	}
	return out
}

// judgeAs checks that text is a valid card that the a2a profile
// recognises as release and the release's own profile passes.
func judgeAs(t *testing.T, text, release string) {
	t.Helper()
	for _, profile := range []string{"a2a", release} {
		res := fastvalidate.MustNew(profile).Validate([]byte(text))
		if res.Profile != release || !res.Valid() {
			var fs []string
			for _, f := range res.Findings() {
				fs = append(fs, f.Rule()+" "+f.Path+": "+f.Message())
			}
			t.Errorf("under %s the card is judged %s, valid %v, want a valid %s: %v\n%s", profile, res.Profile, res.Valid(), release, fs, text)
		}
	}
}

// A 0.3 card goes to 1.0 through one action and back through another,
// and comes back byte for byte: the invoice card loses nothing on the way
// (internal/migrate's round-trip tests say which cards do). Its
// description holds characters of two and four bytes in UTF-8, one and
// two UTF-16 units, on a line no migration touches.
func TestMigrateActionRoundTrip(t *testing.T) {
	c := newClient(t, Config{MaxDocument: DefaultMaxDocument})
	uri := "file:///cards/a2a-0.3.json"
	orig := readCard(t, "a2a-0.3.json")
	if diags := c.open(uri, orig); len(diags) != 0 {
		t.Fatalf("the 0.3 card has findings: %+v", diags)
	}
	text := orig
	for i, step := range []struct{ title, release string }{
		{"Migrate this card to A2A 1.0", migrate.V10},
		{"Migrate this card to A2A 0.3", migrate.V03},
	} {
		actions := migrateActionsOf(c.actionsAt(uri))
		if len(actions) != 1 || actions[0].Title != step.title {
			t.Fatalf("step %d: migrate actions %+v, want one titled %q", i, actions, step.title)
		}
		a := actions[0]
		if a.Kind != "refactor.rewrite" || a.IsPreferred || len(a.Diagnostics) != 0 {
			t.Errorf("%q: kind %q, preferred %v, diagnostics %+v: a valid card's migration fixes nothing", a.Title, a.Kind, a.IsPreferred, a.Diagnostics)
		}
		edits := a.Edit.Changes[uri]
		if len(a.Edit.Changes) != 1 || len(edits) < 2 {
			t.Fatalf("%q: edits %+v, want several hunks of this document alone", a.Title, a.Edit.Changes)
		}
		descLine := strings.Count(text[:strings.Index(text, `"description": "Reads`)], "\n")
		for _, e := range edits {
			if e.Range.Start.Line <= descLine && e.Range.End.Line > descLine {
				t.Errorf("%q rewrites the description's line, which does not change: %+v", a.Title, e)
			}
		}
		text = applyEdits(t, text, edits)
		judgeAs(t, text, step.release)
		if diags := c.change(uri, i+2, text); len(diags) != 0 {
			t.Errorf("after %q the server reports %+v", a.Title, diags)
		}
	}
	if text != orig {
		t.Errorf("0.3 -> 1.0 -> 0.3 through the actions differs:\n--- got\n%s\n--- want\n%s", text, orig)
	}
}

// What the migrator cannot carry is named in the title, and the action
// that does not fix a finding is not one a client asking for quick fixes
// alone is offered.
func TestMigrateActionNamesWhatItDrops(t *testing.T) {
	for _, tc := range []struct{ name, text, title string }{
		{"0.3 with stateTransitionHistory", strings.Replace(readCard(t, "a2a-0.3.json"), `"streaming": true,`, `"streaming": true, "stateTransitionHistory": true,`, 1),
			"Migrate this card to A2A 1.0 (drops stateTransitionHistory)"},
		{"1.0 with tenant, device code and PKCE", readCard(t, "a2a-1.0.json"),
			"Migrate this card to A2A 0.3 (drops tenant, protocolVersion, dev and 1 more)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(t, Config{MaxDocument: DefaultMaxDocument})
			uri := "file:///cards/card.json"
			c.open(uri, tc.text)
			actions := migrateActionsOf(c.actionsAt(uri))
			if len(actions) != 1 || actions[0].Title != tc.title {
				t.Fatalf("migrate actions %+v, want one titled %q", actions, tc.title)
			}
			to := migrate.V10
			if strings.Contains(tc.title, "A2A 0.3") {
				to = migrate.V03
			}
			judgeAs(t, applyEdits(t, tc.text, actions[0].Edit.Changes[uri]), to)
			if got := migrateActionsOf(c.actionsAt(uri, "quickfix")); len(got) != 0 {
				t.Errorf("asked for quick fixes only, got %+v", got)
			}
			if got := migrateActionsOf(c.actionsAt(uri, "refactor")); len(got) != 1 {
				t.Errorf("asked for refactorings, got %+v", got)
			}
		})
	}
}

// A hybrid 1.0 card, which carries its 0.3 members too, draws the
// a2a.hybrid warning; migrating it to 0.3 ends the warning, so the action
// is a quick fix for it.
func TestMigrateActionIsAQuickFixWhenItEndsAFinding(t *testing.T) {
	m, err := migrate.New(migrate.Options{To: migrate.V10, KeepLegacy: true})
	if err != nil {
		t.Fatal(err)
	}
	var rec migrate.Record
	hybrid := string(m.Migrate(nil, []byte(readCard(t, "a2a-0.3.json")), &rec))
	c := newClient(t, Config{MaxDocument: DefaultMaxDocument})
	uri := "file:///cards/hybrid.json"
	diags := c.open(uri, hybrid)
	if len(diags) != 1 || diags[0].Code != "a2a.hybrid" {
		t.Fatalf("the hybrid card's diagnostics %+v, want a2a.hybrid alone", diags)
	}
	actions := migrateActionsOf(c.actionsAt(uri, "quickfix"))
	if len(actions) != 1 || actions[0].Kind != "quickfix" || len(actions[0].Diagnostics) != 1 || actions[0].Diagnostics[0].Code != "a2a.hybrid" {
		t.Fatalf("quick fixes %+v, want the migration to 0.3 fixing a2a.hybrid", actions)
	}
	text := applyEdits(t, hybrid, actions[0].Edit.Changes[uri])
	judgeAs(t, text, migrate.V03)
	for _, d := range c.change(uri, 2, text) {
		if d.Code == "a2a.hybrid" {
			t.Errorf("a2a.hybrid remains after %q", actions[0].Title)
		}
	}
}

// A card is offered each migration the migrator makes (0.2 and 0.3 to
// 1.0, 1.0 to 0.3) and none where it refuses (a signed card, whose
// signatures it would break), where the card is in the release already,
// where the result would be invalid, or for a card that is not A2A. The
// unsigned card beside the signed one shows the action is otherwise there.
func TestWhichMigrateActionsAreOffered(t *testing.T) {
	card03 := readCard(t, "a2a-0.3.json")
	signed := strings.Replace(card03, `"supportsAuthenticatedExtendedCard": false`,
		`"supportsAuthenticatedExtendedCard": false,
  "signatures": [{"protected": "eyJhbGciOiJFUzI1NiIsImtpZCI6ImsxIn0", "signature": "c2lnbmF0dXJl"}]`, 1)
	// A skill without tags fails either release: migrated, it is still
	// invalid.
	untagged := strings.Replace(card03, `"tags": [
        "finance"
      ],`, "", 1)
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"unsigned 0.3", card03, []string{"Migrate this card to A2A 1.0"}},
		{"0.2", strings.Replace(card03, `"0.3.0"`, `"0.2.5"`, 1), []string{"Migrate this card to A2A 1.0"}},
		{"signed 0.3", signed, nil},
		{"1.0", readCard(t, "a2a-1.0.json"), []string{"Migrate this card to A2A 0.3 (drops tenant, protocolVersion, dev and 1 more)"}},
		{"not A2A", readCard(t, "agentcard-astral.json"), nil},
		{"invalid under 1.0", untagged, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if signed == card03 || untagged == card03 || !strings.Contains(card03, `"0.3.0"`) {
				t.Fatal("an edit of the 0.3 card did not apply")
			}
			c := newClient(t, Config{MaxDocument: DefaultMaxDocument})
			uri := "file:///cards/card.json"
			c.open(uri, tc.text)
			var got []string
			for _, a := range migrateActionsOf(c.actionsAt(uri)) {
				got = append(got, a.Title)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("migrate actions %q, want %q", got, tc.want)
			}
		})
	}
}

// lineEdits turns any text into any other, through edits of whole lines
// that a client applies in UTF-16 columns; beyond its table's bound it
// replaces the changed middle at once.
func TestLineEdits(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"a\n", "b\n", "é\n", "🧾\n", "{\n", "}", "", "\r\n", "x🧾y\n"}
	gen := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(words[r.IntN(len(words))])
		}
		return b.String()
	}
	check := func(old, new string) []TextEdit {
		t.Helper()
		edits := lineEdits(newLineIndex([]byte(old), utf16Units), []byte(old), []byte(new))
		if got := applyEdits(t, old, edits); got != new {
			t.Fatalf("edits %+v turn %q into %q, want %q", edits, old, got, new)
		}
		return edits
	}
	for range 500 {
		check(gen(r.IntN(12)), gen(r.IntN(12)))
	}
	if edits := check("a\nb\nc\nd\ne\n", "a\nB\nc\nd\nE\n"); len(edits) != 2 {
		t.Errorf("two changed lines apart: %d edits, want 2: %+v", len(edits), edits)
	}
	if edits := check("same\n", "same\n"); len(edits) != 0 {
		t.Errorf("no change: edits %+v", edits)
	}
	var old, new strings.Builder
	for i := range 1100 {
		fmt.Fprintf(&old, "%d\n", i)
		fmt.Fprintf(&new, "%d\n", i+1)
	}
	if edits := check("head\n"+old.String()+"tail\n", "head\n"+new.String()+"tail\n"); len(edits) != 1 || edits[0].Range.Start.Line != 1 {
		t.Errorf("past the bound: edits from line %v, want one from line 1", edits)
	}
}
