package pipeline

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLongBlankLineTooLarge: a line of white space alone is no record while
// it fits in --max-record, and one longer is input.too-large like any other
// line, however it is read. A line is found too large before its end has
// arrived (it may never end), so its content cannot decide it; the
// pipeline used to skip a long blank line that came whole in one chunk and
// report one that crossed chunks, so the verdict hung on --chunk-size.
func TestLongBlankLineTooLarge(t *testing.T) {
	maxRecord := len(card) + 2
	short := strings.Repeat(" \t", maxRecord/2) + "\r" // one byte too large with its \r
	fits := strings.Repeat(" ", maxRecord)
	input := card + "\n" + fits + "\n" + short + "\n" + card + "\n" + strings.Repeat("\t", 3*maxRecord) + "\n" + card
	wantInvalid := short + "\n" + strings.Repeat("\t", 3*maxRecord) + "\n"
	// The same lines in a file large enough to be mapped with two workers.
	pad := bytes.Repeat([]byte(card+"\n"), (1<<20)/(len(card)+1)+1)
	path := filepath.Join(t.TempDir(), "cards.ndjson")
	if err := os.WriteFile(path, append(pad, input...), 0o644); err != nil {
		t.Fatal(err)
	}
	padLines := bytes.Count(pad, []byte("\n"))
	for _, chunk := range []int{16, 64, 1 << 20} {
		for _, jobs := range []int{1, 2} {
			for _, fromFile := range []bool{false, true} {
				var out, invalid bytes.Buffer
				cfg := Config{Profile: "agentcard", Jobs: jobs, ChunkSize: chunk, MaxRecord: maxRecord,
					All: true, Findings: jsonlTo(&out, true), InvalidOut: &invalid}
				in, firstLine := Input{Name: "in", Framing: FramingNDJSON}, 0
				if fromFile {
					in.Path, firstLine = path, padLines
				} else {
					cfg.Stdin = strings.NewReader(input)
				}
				st, err := Run(cfg, []Input{in})
				if err != nil {
					t.Fatal(err)
				}
				where := fmt.Sprintf("chunk %d, -j %d, file %v", chunk, jobs, fromFile)
				if want := int64(firstLine + 5); st.Records != want || st.Invalid != 2 {
					t.Errorf("%s: %d records, %d invalid, want %d and 2", where, st.Records, st.Invalid, want)
				}
				for _, line := range []int{3, 5} {
					want := fmt.Sprintf(`"line":%d,`, firstLine+line)
					if !strings.Contains(out.String(), want+`"offset"`) || !strings.Contains(out.String(), `"rule":"input.too-large"`) {
						t.Errorf("%s: no too-large verdict at line %d in %.1000s", where, firstLine+line, out.String())
					}
				}
				if invalid.String() != wantInvalid {
					t.Errorf("%s: --invalid-out holds %.300q, want %.300q", where, invalid.String(), wantInvalid)
				}
			}
		}
	}
}
