package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/cardscan/cardscan/rule"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/cmderr"
	"github.com/cardscan/cardscan/internal/cmdflag"
	"github.com/cardscan/cardscan/internal/console"
	"github.com/cardscan/cardscan/internal/ruledoc"
	"github.com/cardscan/cardscan/internal/suggest"
)

const explainUsage = `usage: cardscan explain [--format text|json] RULE

What RULE checks, why, and how to fix a card it fails, as docs/rules.md
has it (cardscan --list-rules lists the rules).

exit status: 0 written, 2 usage error (an unknown rule among them).

flags:
`

func newExplainFlagSet(format *string) *cmdflag.Set {
	var fs cmdflag.Set
	fs.String(format, "--format FORMAT", "text", "text or json")
	return &fs
}

// runExplain is `cardscan explain RULE`: the rule's documentation, as
// docs/rules.md has it, in text or as one JSON object.
func runExplain(args []string, stdout io.Writer, con *console.Console) error {
	var format string
	fs := newExplainFlagSet(&format)
	operands, err := fs.Parse(args)
	if err == nil && len(operands) != 1 {
		err = fmt.Errorf("want one rule, got %d", len(operands))
	}
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return writeOut(stdout, explainUsage+fs.Help())
		}
		return cmderr.Usage("cardscan explain", err)
	}
	id := operands[0]
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
