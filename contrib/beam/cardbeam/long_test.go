package cardbeam

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestLongLinesAsCardscan: a line longer than MaxRecord is one invalid
// record of rule input.too-large, as cardscan counts it, and the lines
// after it are judged; a line of white space only is skipped however long
// it is. cardscan's --summary of each input is the reference: the counts
// of records, verdicts, rules and profiles, and no input error.
func TestLongLinesAsCardscan(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cardscan")
	}
	const card = `{"name":"x"}`
	huge := `{"a":"` + strings.Repeat("x", MaxRecord) + `"}`
	exact := `{"a":"` + strings.Repeat("x", MaxRecord-8) + `"}`
	for _, tc := range []struct{ name, input string }{
		{"a long line between cards", card + "\n" + huge + "\n" + card + "\n"},
		{"a long line last, without a newline", card + "\n" + huge},
		{"one byte past the bound, last, without a newline", card + "\n" + exact + "x"},
		{"exactly the bound", card + "\n" + exact + "\n" + card},
		{"exactly the bound with CRLF", exact + "\r\n" + card + "\r\n"},
		{"a long line of white space", card + "\n" + strings.Repeat(" ", MaxRecord+10) + "\n" + card + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "in.ndjson")
			if err := os.WriteFile(path, []byte(tc.input), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(cardscan(t), "-q", "--fail-on", "never", "--input", "ndjson", "--summary", "-", path).Output()
			if err != nil {
				t.Fatalf("cardscan: %v", err)
			}
			var want Summary
			if err := json.Unmarshal(out, &want); err != nil {
				t.Fatalf("cardscan's summary: %v", err)
			}

			f := judgeFileFn{Profile: "auto"}
			if err := f.Setup(); err != nil {
				t.Fatal(err)
			}
			got := newSummary()
			in := InputCount{Input: path}
			if err := f.judge(strings.NewReader(tc.input), &got, &in, &digestSink{}, func(string) {}, func(string) {}); err != nil {
				t.Errorf("judge: %v (cardscan counts no input error)", err)
			}
			type counts struct {
				Records, Valid, Invalid, Errors int64
				Rules, Profiles                 map[string]int64
				Verdicts                        map[string]Verdicts
			}
			g := counts{got.Records, got.Valid, got.Invalid, got.Errors, got.Rules, got.Profiles, got.ProfileVerdicts}
			w := counts{want.Records, want.Valid, want.Invalid, want.Errors, want.Rules, want.Profiles, want.ProfileVerdicts}
			if !reflect.DeepEqual(g, w) {
				t.Errorf("judged %+v\ncardscan %+v", g, w)
			}
			if got.BytesDecompressed != want.BytesDecompressed {
				t.Errorf("read %d bytes, cardscan %d", got.BytesDecompressed, want.BytesDecompressed)
			}
		})
	}
}
