package pipeline

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestStringCutByNewlineKeepsTheNewline: a record broken by a raw
// newline in a string reports that newline (an unescaped control
// character, where Python's json and the other surfaces put it), not an
// unterminated string. Broken records drop their trailing white space,
// and that used to take the newline too, when nothing but white space
// followed it: `"` and a newline read "unterminated string" at 1:1.
func TestStringCutByNewlineKeepsTheNewline(t *testing.T) {
	for _, tc := range []struct {
		input        string
		line, column int
	}{
		{"\"\n", 1, 2},
		{"\"abc  \n", 1, 7},
		{"{\"a\":\"x\n", 1, 8},
		{"{\"a\":\"x\n\n  \n", 1, 8},
		{"[\"abc\n]", 1, 6},
		{"[{\"a\":\"x\n]", 1, 9},
		{"[{\"a\":\"x\n  ,{}]", 1, 9},
	} {
		var out bytes.Buffer
		_, err := Run(Config{Profile: "agentcard", Jobs: 1, All: true, Findings: jsonlTo(&out, true),
			Stdin: strings.NewReader(tc.input)}, []Input{{Name: "in", Framing: FramingJSON}})
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
			t.Fatalf("%q: %v in %q", tc.input, err, out.String())
		}
		if len(rec.Errors) == 0 {
			t.Errorf("%q: no error in %q", tc.input, out.String())
			continue
		}
		if e := rec.Errors[0]; e.Rule != "json.syntax" || e.Line != tc.line || e.Column != tc.column ||
			!strings.Contains(e.Message, "unescaped control character") {
			t.Errorf("%q: %s at %d:%d, %q; want an unescaped control character at %d:%d",
				tc.input, e.Rule, e.Line, e.Column, e.Message, tc.line, tc.column)
		}
	}
}

// TestBrokenRecordAtInputEndKeepsSpace: a broken record that runs to the
// end of the input is judged with its trailing white space, so that an
// end-of-input fault is where a parser of the whole input puts it
// (Python's json.loads gives each position below). It used to be judged
// trimmed: "{ " lacked a name at 1:2, where every other surface says 1:3.
func TestBrokenRecordAtInputEndKeepsSpace(t *testing.T) {
	for _, tc := range []struct {
		input        string
		line, column int
	}{
		{"{ ", 1, 3},
		{"{ \n", 2, 1},
		{"{\"a\": \n", 2, 1},
		{"{}\n{\"a\":  ", 2, 8},
		{"[{\"a\": \n", 2, 1},
	} {
		for _, chunk := range []int{0, 4} {
			var out bytes.Buffer
			_, err := Run(Config{Profile: "agentcard", Jobs: 1, All: true, ChunkSize: chunk, Findings: jsonlTo(&out, true),
				Stdin: strings.NewReader(tc.input)}, []Input{{Name: "in", Framing: FramingJSON}})
			if err != nil {
				t.Fatal(err)
			}
			var rec struct {
				Errors []struct {
					Rule, Message string
					Line, Column  int
				}
			}
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &rec); err != nil {
				t.Fatalf("%q: %v in %q", tc.input, err, out.String())
			}
			if len(rec.Errors) != 1 || rec.Errors[0].Rule != "json.syntax" ||
				rec.Errors[0].Line != tc.line || rec.Errors[0].Column != tc.column {
				t.Errorf("%q, chunk size %d: %+v; want json.syntax at %d:%d", tc.input, chunk, rec.Errors, tc.line, tc.column)
			}
		}
	}
}
