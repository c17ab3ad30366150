package cardbeam

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestBlankLinesAsCardscan: lines of JSON white space only are skipped as
// cardscan skips them, neither records nor lost ones, and the records
// around them keep cardscan's line numbers and offsets: at the start, in
// the middle, at the end without a newline, CR alone, CRLF, a blank line
// longer than the read buffer, and white space JSON does not allow (form
// feed, NBSP), which is a record to both.
func TestBlankLinesAsCardscan(t *testing.T) {
	const card = `{"name":"x"}`
	for _, input := range []string{
		"\n\n" + card + "\n",
		card + "\n\n" + card + "\n \t \n" + card,
		card + "\r\n\r\n" + card + "\r\n",
		card + "\n\r\n\r\r\n" + card + "\n   ",
		card + "\n" + strings.Repeat(" ", 300<<10) + "\n" + card + "\n",
		card + "\n\f\n\u00a0\n" + card + "\n",
		"\n",
		"",
	} {
		path := filepath.Join(t.TempDir(), "in.ndjson")
		if err := os.WriteFile(path, []byte(input), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(cardscan(t), "--format", "jsonl", "--all", "--fail-on", "never", "--input", "ndjson", path).Output()
		if err != nil {
			t.Fatalf("cardscan on %.60q: %v", input, err)
		}
		var want [][2]int64
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			var rec struct{ Line, Offset int64 }
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				t.Fatalf("cardscan's jsonl: %v", err)
			}
			want = append(want, [2]int64{rec.Line, rec.Offset})
		}
		var got [][2]int64
		if _, err := eachLine(strings.NewReader(input), func(_ []byte, number, offset int64, _ bool) {
			got = append(got, [2]int64{number, offset})
		}); err != nil {
			t.Fatalf("%.60q: %v", input, err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%.60q: records at (line, offset) %v; cardscan's at %v", input, got, want)
		}
	}
}
