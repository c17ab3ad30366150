package fastvalidate

import (
	"fmt"
	"strings"
	"testing"
)

// A card with more findings than the cap lists the first 100 and still
// counts every one, per rule, in Errors, Warnings and Unlisted.
func TestResult_CountsPastTheCap(t *testing.T) {
	// Distinct values: the same one repeated would fold into one finding.
	var each []string
	for i := range 150 {
		each = append(each, fmt.Sprintf(`"q%d"`, i))
	}
	langs := strings.Join(each, ",")
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

// A fault repeated with the same value (a mode in every skill) is one
// finding with a count, saying so in its message; the counts of the
// Result still hold every one, and so does the cap's budget: folded
// findings take no place in the list.
func TestResult_FoldsRepeatedValues(t *testing.T) {
	skills := make([]string, 120)
	for i := range skills {
		skills[i] = fmt.Sprintf(`{"id": "s%d", "name": "S", "description": "d", "tags": ["t"], "inputModes": ["text"], "outputModes": ["text", "json"]}`, i)
	}
	card := edited(t, a2aCard02, "/skills", "["+strings.Join(skills, ",")+"]")
	r := newTestValidator(t, "a2a/0.2").Validate([]byte(card))
	if !r.Valid() || r.Warnings() != 360 || len(r.Findings()) != 2 {
		t.Fatalf("valid %v, %d warnings, findings %v; want valid, 360 warnings in 2 findings", r.Valid(), r.Warnings(), r.Findings())
	}
	for i, want := range []struct {
		path, msg string
		count     int
	}{
		{"/skills/0/inputModes/0", `(got "text"); 240 times in the card, the first here`, 240},
		{"/skills/0/outputModes/1", `(got "json"); 120 times in the card, the first here`, 120},
	} {
		f := r.Findings()[i]
		if f.Code != CodeA2AMIME || f.Path != want.path || f.Count != want.count || !strings.HasSuffix(f.Message(), want.msg) {
			t.Errorf("finding %d: %s at %s, count %d, %q; want a2a.mime at %s, count %d, ending %q", i, f.Code, f.Path, f.Count, f.Message(), want.path, want.count, want.msg)
		}
	}
	// Values that differ stay apart, and so do findings that quote none.
	r = newTestValidator(t, "a2a/0.2").Validate([]byte(edited(t, a2aCard02, "/defaultInputModes", `["text", "txt"]`, "/capabilities/streaming", `"yes"`, "/capabilities/pushNotifications", `"no"`)))
	if got := hitsOf(r); len(got) != 4 {
		t.Errorf("findings %v, want 4", got)
	}
}
