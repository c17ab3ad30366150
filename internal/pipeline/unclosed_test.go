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

// TestMissingCommaAfterElement: an element whose value is whole but
// whose comma is missing (the next element starts on the next line) is
// reported where the comma was due, with a message that says so, whether
// the card itself is valid or not. A valid card's fault used to point at
// the card's first byte, and both said only "not exactly one RFC 8259
// JSON value".
func TestMissingCommaAfterElement(t *testing.T) {
	for _, first := range []string{card, `{"name":1}`} {
		input := "[" + first + "\n" + card + "]\n"
		var out bytes.Buffer
		st, err := Run(Config{Profile: "agentcard", Jobs: 1, All: true, Findings: jsonlTo(&out, true),
			Stdin: strings.NewReader(input)}, []Input{{Name: "in", Framing: FramingJSON}})
		if err != nil {
			t.Fatal(err)
		}
		var rec struct {
			Errors []struct {
				Rule, Message string
				Line, Column  int
			}
		}
		if err := json.Unmarshal([]byte(strings.SplitN(out.String(), "\n", 2)[0]), &rec); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, e := range rec.Errors {
			if e.Rule == "json.syntax" {
				found = true
				if e.Line != 1 || e.Column != 2+len(first) || !strings.Contains(e.Message, "missing comma") {
					t.Errorf("%.12q...: json.syntax at %d:%d, %q; want 1:%d, a missing comma", first, e.Line, e.Column, e.Message, 2+len(first))
				}
			}
		}
		if !found || st.Records != 2 || st.Invalid != 1 {
			t.Errorf("%.12q...: %d records, %d invalid, findings %+v", first, st.Records, st.Invalid, rec.Errors)
		}
	}
}
