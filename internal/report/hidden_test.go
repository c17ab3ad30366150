package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/internal/visible"
)

// hiddenCard repeats hidden characters, raw, where each format quotes
// card text: a bad value's excerpt (got "..."), a member name in a
// pointer, and the input's name.
const hiddenCard = "{\"agent_id\":\"01ARZ3NDEKTSV4RRFFQ69G5FAV\",\"name\":\"Pay\u202eevil\",\"version\":\"v1\u202e2.0\u200b\u2066x\U000E0041\ufe0f\u0085\",\"capabilities\":[{\"id\":\"a\",\"description\":\"d\"}],\"endpoint\":{\"protocol\":\"https\",\"url\":\"https://example.com/a\"},\"x\u2067y\":{\"protocol\":7}}"

// TestFormatsShowHiddenCharacters holds every format that repeats card
// text to writing its hidden characters as code points.
func TestFormatsShowHiddenCharacters(t *testing.T) {
	vd := judge(t, hiddenCard)
	vd.Input = "in\u202eput.ndjson"
	var e Encoder
	for name, out := range map[string][]byte{
		"text":        e.AppendText(nil, &vd, Plain),
		"color":       e.AppendText(nil, &vd, Color),
		"github":      e.AppendGitHub(nil, &vd),
		"sarif":       e.AppendSARIF(nil, &vd),
		"codequality": codeQualityDescriptions(t, e.AppendCodeQuality(nil, &vd)),
		"junit":       e.AppendJUnit(nil, &vd, true),
	} {
		if visible.Has(out) {
			t.Errorf("%s: hidden characters left in:\n%s", name, out)
		}
		for _, cp := range []string{"<U+202E>", "<U+200B>", "<U+E0041>"} {
			if !strings.Contains(string(out), cp) && !strings.Contains(string(out), "&lt;"+cp[1:len(cp)-1]+"&gt;") {
				t.Errorf("%s: no %s in:\n%s", name, cp, out)
			}
		}
	}
}

// codeQualityDescriptions returns the descriptions of a Code Quality
// report, a line each: its location paths are the input's path as the
// repository has it, which GitLab must find, and so are not rewritten.
func codeQualityDescriptions(t *testing.T, out []byte) []byte {
	t.Helper()
	var issues []struct{ Description string }
	if err := json.Unmarshal([]byte("["+strings.TrimPrefix(string(out), ",")+"]"), &issues); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var b []byte
	for _, is := range issues {
		b = append(append(b, is.Description...), '\n')
	}
	return b
}

// TestJSONLEscapesHiddenCharacters holds the JSON records to writing each
// hidden character and C1 control of card text as a \u escape: a JSON
// reader gets the text as it is, while a person who reads the records in
// a terminal or a log sees what the text holds, and a U+202E cannot
// reorder the record's line there.
func TestJSONLEscapesHiddenCharacters(t *testing.T) {
	vd := judge(t, hiddenCard)
	vd.Input = "in\u202eput\u0085.ndjson"
	var e Encoder
	out := e.AppendJSONL(nil, &vd)
	if visible.Has(out) || strings.Contains(string(out), "\u0085") {
		t.Errorf("hidden characters left raw in:\n%s", out)
	}
	for _, esc := range []string{`in\u202eput\u0085.ndjson`, `v1\u202e2.0\u200b\u2066x\udb40\udc41\ufe0f`} {
		if !strings.Contains(string(out), esc) {
			t.Errorf("no %s in:\n%s", esc, out)
		}
	}
	var rec struct{ Input string }
	if err := json.Unmarshal(out, &rec); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if rec.Input != vd.Input {
		t.Errorf("input decodes to %q, want %q", rec.Input, vd.Input)
	}
}
