package fastvalidate

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"
)

var updateReadme = flag.Bool("update-readme", false, "rewrite the rule table in ../README.md from Rules()")

// The README's rule table is the documentation users read; it must say
// exactly what Rules() says, or the two drift apart silently.
func TestReadmeRuleTable(t *testing.T) {
	const path = "../README.md"
	readme, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- rules:begin -->\n", "<!-- rules:end -->"
	i, j := bytes.Index(readme, []byte(begin)), bytes.Index(readme, []byte(end))
	if i < 0 || j < i {
		t.Fatalf("%s has no %q ... %q block", path, begin, end)
	}
	var table strings.Builder
	table.WriteString("| rule | severity | profiles | what it means |\n|---|---|---|---|\n")
	for _, r := range Rules() {
		table.WriteString("| `" + r.ID + "` | " + r.Severity.String() + " | " + r.Profiles + " | " + strings.ReplaceAll(r.Description, "|", `\|`) + " |\n")
	}
	got := string(readme[i+len(begin) : j])
	if got == table.String() {
		return
	}
	if *updateReadme {
		out := append(append(append([]byte{}, readme[:i+len(begin)]...), table.String()...), readme[j:]...)
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README rule table differs from Rules(); run: go test ./fastvalidate -run TestReadmeRuleTable -update-readme\nwant:\n%s", table.String())
}
