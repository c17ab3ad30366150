package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/internal/visible"
)

// hostileText is card text that would act on a terminal or a log rather
// than show itself: a bidi override, a zero-width space, a tag character,
// a C1 control and a line separator.
const hostileText = "x\u202eevil\u200b\U000E0041\u0085\u2028y"

// checkJSONShowsHidden requires JSON output to hold no hidden character
// or C1 control raw, to decode still, and to give want back where it
// held it.
func checkJSONShowsHidden(t *testing.T, what string, out []byte, want string) {
	t.Helper()
	if visible.Has(out) || strings.Contains(string(out), "\u0085") {
		t.Errorf("%s: hidden characters written raw:\n%s", what, out)
	}
	if !strings.Contains(string(out), `\u202e`) {
		t.Errorf("%s: no \\u202e escape:\n%s", what, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if !json.Valid([]byte(line)) && !json.Valid(out) {
			t.Fatalf("%s: not JSON:\n%s", what, out)
		}
	}
	if want != "" && !strings.Contains(decodeAll(t, out), want) {
		t.Errorf("%s: %q not decoded back from:\n%s", what, want, out)
	}
}

// decodeAll returns every string of the JSON texts in out, joined.
func decodeAll(t *testing.T, out []byte) string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(out)))
	var all []string
	for dec.More() {
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		all = appendStrings(all, v)
	}
	return strings.Join(all, "\n")
}

func appendStrings(dst []string, v any) []string {
	switch v := v.(type) {
	case string:
		return append(dst, v)
	case []any:
		for _, e := range v {
			dst = appendStrings(dst, e)
		}
	case map[string]any:
		for k, e := range v {
			dst = appendStrings(append(dst, k), e)
		}
	}
	return dst
}

// TestSummaryShowsHiddenCharacters: --summary names inputs (worst_inputs),
// whose names come from the crawl as the cards do.
func TestSummaryShowsHiddenCharacters(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, filepath.Join(dir, hostileText+".ndjson"), []byte(`{"name":1}`+"\n"))
	sum := filepath.Join(dir, "summary.json")
	if r := run(t, "", "--summary", sum, in); r.code != 1 {
		t.Fatalf("exit %d, want 1: %s", r.code, r.stderr)
	}
	checkJSONShowsHidden(t, "--summary", readFile(t, sum), in)
}

// TestMigrateRecordsShowHiddenCharacters: migrate's records repeat member
// names and values of the card.
func TestMigrateRecordsShowHiddenCharacters(t *testing.T) {
	dir := t.TempDir()
	card := map[string]any{
		"name": "A", "description": "d", "version": "1", "protocolVersion": "0.3.0",
		"url": "https://example.com/" + hostileText, "capabilities": map[string]any{},
		"defaultInputModes": []string{"text/plain"}, "defaultOutputModes": []string{"text/plain"},
		"skills":               []any{map[string]any{"id": "s", "name": "n", "description": "d", "tags": []string{"t"}}},
		"additionalInterfaces": []any{map[string]any{"url": "https://example.com/" + hostileText, "transport": "GRPC"}},
		"securitySchemes":      map[string]any{"k" + hostileText: map[string]any{"type": "apiKey", "in": "header", "name": "k"}},
	}
	b, err := json.Marshal(card)
	if err != nil {
		t.Fatal(err)
	}
	b = []byte(strings.NewReplacer(`\u2028`, "\u2028").Replace(string(b)))
	in := writeFile(t, filepath.Join(dir, "card.json"), b)
	r := run(t, "", "migrate", "--to", "a2a/1.0", "-o", filepath.Join(dir, "out.json"), in)
	if r.code > 1 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	checkJSONShowsHidden(t, "migrate records", []byte(r.stdout), "/securitySchemes/k"+hostileText)
}
