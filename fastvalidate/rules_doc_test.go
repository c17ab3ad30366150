package fastvalidate

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"
)

var updateRules = flag.Bool("update-rules", false, "rewrite the rule table in ../docs/rules.md from Rules()")

// docs/rules.md is the rule reference users read; it must say exactly what
// Rules() says, or the two drift apart silently.
func TestRulesDocTable(t *testing.T) {
	const path = "../docs/rules.md"
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- rules:begin -->\n", "<!-- rules:end -->"
	i, j := bytes.Index(doc, []byte(begin)), bytes.Index(doc, []byte(end))
	if i < 0 || j < i {
		t.Fatalf("%s has no %q ... %q block", path, begin, end)
	}
	var table strings.Builder
	table.WriteString("| rule | severity | profiles | what it means |\n|---|---|---|---|\n")
	for _, r := range Rules() {
		table.WriteString("| `" + r.ID + "` | " + r.Severity.String() + " | " + r.Profiles + " | " + strings.ReplaceAll(r.Description, "|", `\|`) + " |\n")
	}
	got := string(doc[i+len(begin) : j])
	if got == table.String() {
		return
	}
	if *updateRules {
		out := append(append(append([]byte{}, doc[:i+len(begin)]...), table.String()...), doc[j:]...)
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s rule table differs from Rules(); run: go test ./fastvalidate/ -run TestRulesDocTable -update-rules\nwant:\n%s", path, table.String())
}
