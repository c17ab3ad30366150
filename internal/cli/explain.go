package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/cardscan/cardscan/rule"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/cmderr"
	"github.com/cardscan/cardscan/internal/console"
	"github.com/cardscan/cardscan/internal/ruledoc"
	"github.com/cardscan/cardscan/internal/suggest"
)

const explainUsage = "usage: cardscan explain [--format text|json] RULE"

// runExplain is `cardscan explain RULE`: the rule's documentation, as
// docs/rules.md has it, in text or as one JSON object.
func runExplain(args []string, stdout io.Writer, con *console.Console) error {
	format, id := "text", ""
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-h" || a == "--help":
			return writeOut(stdout, explainUsage+"\n")
		case a == "--format" && i+1 < len(args):
			format = args[i+1]
			i++
		case strings.HasPrefix(a, "--format="):
			format = strings.TrimPrefix(a, "--format=")
		case strings.HasPrefix(a, "-") || id != "":
			return cmderr.UsageStop(fmt.Errorf("%s", explainUsage))
		default:
			id = a
		}
	}
	if id == "" {
		return cmderr.UsageStop(fmt.Errorf("%s", explainUsage))
	}
	if format != "text" && format != "json" {
		return cmderr.UsageStop(fmt.Errorf("explain: --format %q: want text or json", format))
	}
	r, ok := rule.Lookup(id)
	if !ok {
		if near := suggest.Nearest(id, ruleIDs()); near != "" {
			return cmderr.UsageStop(fmt.Errorf("explain: unknown rule %q: did you mean %s? (cardscan --list-rules lists them)", id, near))
		}
		return cmderr.UsageStop(fmt.Errorf("explain: unknown rule %q (cardscan --list-rules lists them)", id))
	}
	if format == "text" {
		return writeOut(stdout, ruledoc.Text(r))
	}
	d, _ := r.Code.Doc()
	var profiles []string
	for _, p := range fastvalidate.Profiles() {
		if r.InProfile(p) {
			profiles = append(profiles, p)
		}
	}
	b, err := json.MarshalIndent(struct {
		ID          string   `json:"id"`
		Severity    string   `json:"severity"`
		Profiles    []string `json:"profiles"`
		Description string   `json:"description"`
		Spec        string   `json:"spec,omitempty"`
		Source      string   `json:"source,omitempty"`
		Basis       string   `json:"basis,omitempty"`
		Profile     string   `json:"example_profile,omitempty"`
		Fail        string   `json:"fails,omitempty"`
		Pass        string   `json:"passes,omitempty"`
		Example     string   `json:"example,omitempty"`
		Fix         string   `json:"fix"`
		HelpURI     string   `json:"help_uri"`
	}{r.ID, r.Severity.String(), profiles, r.Description, d.Spec, d.Source, d.Basis,
		exampleProfile(r, d), d.Fail, d.Pass, d.Example, d.Fix, ruledoc.HelpURI(r.ID)}, "", "  ")
	if err != nil {
		return cmderr.IOf("explain: %s", err)
	}
	return writeOut(stdout, string(b)+"\n")
}

func exampleProfile(r rule.Rule, d rule.Doc) string {
	if d.Fail == "" {
		return ""
	}
	return ruledoc.Profile(r)
}
