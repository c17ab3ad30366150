package rule_test

import (
	"fmt"

	_ "github.com/cardscan/cardscan/fastvalidate" // registers the card profiles' rules
	"github.com/cardscan/cardscan/rule"
)

// List the rules that every profile applies, the strict JSON layer.
func ExampleAll() {
	for _, r := range rule.All() {
		if r.Profiles == rule.AllProfiles {
			fmt.Printf("%-20s %s\n", r.ID, r.Severity)
		}
	}
	r, _ := rule.Lookup("pricing.landauer")
	fmt.Println(r.Description)
	// Output:
	// json.syntax          error
	// json.utf8            error
	// json.duplicate-key   error
	// json.depth           error
	// json.number-range    error
	// input.too-large      error
	// card.type            error
	// content.bidi-control warning
	// content.invisible    warning
	// content.tag-character warning
	// content.variation-selector warning
	// content.private-use  warning
	// content.unassigned   warning
	// content.mixed-script warning
	// content.injection    warning
	// content.hidden-markup warning
	// content.link-scheme  warning
	// content.link-userinfo warning
	// content.link-ip-host warning
	// content.idn-host     warning
	// content.link-origin  warning
	// pricing.base_cost_joules is neither 0 nor >= 2.854e-21 (the Landauer limit at 300 K)
}
