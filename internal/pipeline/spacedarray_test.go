package pipeline

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// TestArraySpaceAfterElement: white space longer than MaxRecord between
// an element of the array of cards and its comma or ']' is no part of
// any record. The element waited for its comma as the record in
// progress, so the space made it look too large, and the cutter panicked
// (slice bounds out of range) when the comma ended, at the element's
// last byte, a record whose first bytes it had passed on.
func TestArraySpaceAfterElement(t *testing.T) {
	const maxRecord = 1024
	big := `{"padding":"` + strings.Repeat("x", 2*maxRecord) + `"}`
	space := strings.Repeat(" ", 3*maxRecord)
	for _, tc := range []struct {
		name, input     string
		records, tooBig int64
	}{
		{"before a comma", "[" + card + space + "," + card + "]\n", 2, 0},
		{"before the ]", "[" + card + "," + card + "\n" + space + "]\n", 2, 0},
		{"after a too-large element", "[" + big + space + "," + card + "]\n", 2, 1},
	} {
		for _, chunk := range []int{1024, 1 << 20} {
			var out, valid, invalid bytes.Buffer
			st, err := Run(Config{Profile: "agentcard", Jobs: 1, ChunkSize: chunk, MaxRecord: maxRecord,
				All: true, Findings: jsonlTo(&out, true), ValidOut: &valid, InvalidOut: &invalid,
				Stdin: strings.NewReader(tc.input)}, []Input{{Name: "in", Framing: FramingJSON}})
			if err != nil {
				t.Fatal(err)
			}
			where := fmt.Sprintf("%s, chunk %d", tc.name, chunk)
			if st.Records != tc.records || strings.Count(out.String(), `"input.too-large"`) != int(tc.tooBig) {
				t.Errorf("%s: %d records, want %d with %d too large:\n%.600s", where, st.Records, tc.records, tc.tooBig, out.String())
			}
			if n := int64(strings.Count(valid.String(), card+"\n")); n != st.Valid {
				t.Errorf("%s: %d valid, %d cards in --valid-out", where, st.Valid, n)
			}
		}
	}
}
