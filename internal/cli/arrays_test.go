package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestArrayWithBrokenElementCounts checks the counts cardscan prints for
// an array of four cards, one of them broken (first, in the middle,
// last), one per line and as jq -s . writes it: each element is one
// record, the commas and the ']' none.
func TestArrayWithBrokenElementCounts(t *testing.T) {
	const card = `{"agent_id":"01ARZ3NDEKTSV4RRFFQ69G5FAV","name":"n","version":"1.0.0","capabilities":[{"id":"a","description":"d"}],"endpoint":{"protocol":"https","url":"https://example.com/a"}}`
	pretty := func(c string) string {
		var b bytes.Buffer
		if err := json.Indent(&b, []byte(c), "  ", "  "); err != nil {
			t.Fatal(err)
		}
		return "  " + b.String()
	}
	dir := t.TempDir()
	for _, layout := range []struct {
		name    string
		element func(string) string
		join    string
	}{{"one per line", func(c string) string { return c }, ",\n"}, {"pretty", pretty, ",\n"}} {
		for _, defect := range []struct {
			name  string
			apply func(string) string
		}{
			{"unterminated string", func(e string) string { return strings.Replace(e, `"n",`, `"n,`, 1) }},
			{"missing bracket", func(e string) string { return strings.Replace(e, "]", "", 1) }},
			{"stray bracket", func(e string) string { return strings.Replace(e, `"1.0.0"`, `"1.0.0"]`, 1) }},
			{"garbage after it", func(e string) string { return e + " xyz" }},
		} {
			for _, bad := range []int{0, 1, 3} {
				elems := make([]string, 4)
				for i := range elems {
					elems[i] = layout.element(card)
					if i == bad {
						elems[i] = defect.apply(elems[i])
					}
				}
				path := writeFile(t, filepath.Join(dir, "cards.json"), []byte("[\n"+strings.Join(elems, layout.join)+"\n]\n"))
				r := run(t, "", path)
				if !strings.Contains(r.stderr, "cardscan: 4 records: 3 valid, 1 invalid;") || r.code != exitInvalid {
					t.Errorf("%s, %s in element %d: exit %d, stderr %q", layout.name, defect.name, bad, r.code, r.stderr)
				}
			}
		}
	}
}
