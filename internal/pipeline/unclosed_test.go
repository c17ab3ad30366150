package pipeline

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestUnclosedArrayMessage: an array of cards that the input ends inside
// gets a record with no bytes where its ']' was due, and that record's
// message says so. It used to read "expected a value", which is wrong
// after a whole element ("[{...}" wants ',' or ']').
func TestUnclosedArrayMessage(t *testing.T) {
	for _, input := range []string{"[" + card, "[" + card + ",", "[", "[" + card + "\n\n"} {
		var out bytes.Buffer
		st, err := Run(Config{Profile: "agentcard", Jobs: 1, All: true, Findings: jsonlTo(&out, true),
			Stdin: strings.NewReader(input)}, []Input{{Name: "in", Framing: FramingJSON}})
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		var last struct {
			Errors []struct{ Rule, Message string }
		}
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
			t.Fatal(err)
		}
		if st.Invalid != 1 || len(last.Errors) != 1 || last.Errors[0].Rule != "json.syntax" ||
			!strings.Contains(last.Errors[0].Message, "no closing ']'") {
			t.Errorf("%.12q...: %d invalid, last record %+v", input, st.Invalid, last)
		}
	}
}
