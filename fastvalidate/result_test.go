package fastvalidate

import (
	"strings"
	"testing"
)

// A card with more findings than the cap lists the first 100 and still
// counts every one, per rule, in Errors, Warnings and Unlisted.
func TestResult_CountsPastTheCap(t *testing.T) {
	langs := strings.TrimSuffix(strings.Repeat(`"xx",`, 150), ",")
	card := edited(t, ma2dCard, "/capabilities/languages", "["+langs+"]", "/metadata/created_at", `"yesterday"`)
	v := newTestValidator(t, "ma2d")
	r := v.Validate([]byte(card))
	if r.Errors() != 151 || r.Warnings() != 0 || len(r.Findings()) != maxFindings {
		t.Fatalf("errors %d, warnings %d, listed %d; want 151, 0, %d", r.Errors(), r.Warnings(), len(r.Findings()), maxFindings)
	}
	perRule := map[Code]int{}
	for _, f := range r.Findings() {
		perRule[f.Code]++
	}
	for _, u := range r.Unlisted() {
		if u.Severity != SeverityError {
			t.Errorf("unlisted %v has severity %v", u.Code, u.Severity)
		}
		perRule[u.Code] += u.Count
	}
	if perRule[CodeMA2DLanguage] != 150 || perRule[CodeMA2DTimestamp] != 1 || len(perRule) != 2 {
		t.Errorf("findings per rule, listed and unlisted: %v; want 150 ma2d.language and 1 ma2d.timestamp", perRule)
	}
	// The next card starts from nothing.
	if r := v.Validate([]byte(ma2dCard)); len(r.Unlisted()) != 0 || !r.Valid() {
		t.Errorf("a valid card after it: unlisted %v, valid %v", r.Unlisted(), r.Valid())
	}
}
