package fastvalidate

import (
	"encoding/json"
	"github.com/cardscan/cardscan/rule"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// citedRules is the set of rules a profile's schema cites in its
// descriptions: the rules whose faults the schema can show.
func citedRules(t *testing.T, profile string) map[string]bool {
	b, err := JSONSchema(profile)
	if err != nil {
		t.Fatal(err)
	}
	cited := map[string]bool{}
	for _, m := range regexp.MustCompile(`\(cardscan rules: ([^)]*)\)`).FindAllStringSubmatch(string(b), -1) {
		for _, id := range strings.Split(m[1], ", ") {
			cited[id] = true
		}
	}
	return cited
}

// beyondSchema renders the table of the error rules of each profile that
// its schema cannot express, from the rule registry and the schemas.
func beyondSchema(t *testing.T) (string, int) {
	var b strings.Builder
	b.WriteString("| rule | what it checks | profiles whose schema cannot say it |\n|---|---|---|\n")
	count := 0
	for _, r := range rule.All() {
		if r.Severity != SeverityError || r.Profiles == rule.Fetch || r.Profiles == rule.Signatures || r.Profiles == rule.CrossCard {
			continue
		}
		var in []string
		for _, p := range SchemaProfiles() {
			if r.InProfile(p) && !citedRules(t, p)[r.ID] {
				in = append(in, p)
			}
		}
		if len(in) == 0 {
			continue
		}
		count++
		b.WriteString("| `" + r.ID + "` | " + strings.ReplaceAll(r.Description, "|", `\|`) + " | " + strings.Join(in, ", ") + " |\n")
	}
	return b.String(), count
}

// TestSchemaDoc_BeyondSchema keeps the list in docs/schema.md of the rules
// no schema can express equal to the registry's (go test -update
// rewrites it).
func TestSchemaDoc_BeyondSchema(t *testing.T) {
	const path = "../docs/schema.md"
	const begin, end = "<!-- beyond-schema:begin -->\n", "<!-- beyond-schema:end -->\n"
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i, j := strings.Index(string(doc), begin), strings.Index(string(doc), end)
	if i < 0 || j < i {
		t.Fatalf("%s has no %q ... %q section", path, begin, end)
	}
	table, count := beyondSchema(t)
	section := "The schemas cannot express " + strconv.Itoa(count) + " of cardscan's error rules, wholly or in some profiles:\n\n" + table
	got := string(doc[:i+len(begin)]) + section + string(doc[j:])
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got != string(doc) {
		t.Errorf("%s: the rules beyond the schemas have changed (run go test -update after checking)", path)
	}
}

// TestSchemaStoreCatalog checks contrib/schemastore/catalog.json: the
// file names the docs promise, pointing at a golden schema of this
// repository, which TestJSONSchema_Golden keeps equal to the generator.
func TestSchemaStoreCatalog(t *testing.T) {
	b, err := os.ReadFile("../contrib/schemastore/catalog.json")
	if err != nil {
		t.Fatal(err)
	}
	var catalog struct {
		Schemas []struct {
			FileMatch []string `json:"fileMatch"`
			URL       string   `json:"url"`
		} `json:"schemas"`
	}
	if err := json.Unmarshal(b, &catalog); err != nil {
		t.Fatal(err)
	}
	if len(catalog.Schemas) != 1 {
		t.Fatalf("catalog has %d entries, want 1", len(catalog.Schemas))
	}
	e := catalog.Schemas[0]
	if want := []string{"agent-card.json", ".well-known/agent-card.json", "agent.json"}; !slices.Equal(e.FileMatch, want) {
		t.Errorf("fileMatch %q, want %q", e.FileMatch, want)
	}
	const prefix = "https://raw.githubusercontent.com/cardscan/cardscan/main/"
	rel, ok := strings.CutPrefix(e.URL, prefix)
	if !ok {
		t.Fatalf("url %s is not under %s", e.URL, prefix)
	}
	if _, err := os.Stat("../" + rel); err != nil || rel != "fastvalidate/testdata/jsonschema/a2a.schema.json" {
		t.Errorf("url %s names no golden a2a schema of the repository (%v)", e.URL, err)
	}
}
