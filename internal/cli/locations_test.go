package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// location is a 1-based line and column, columns in code points.
type location struct{ line, column int }

func (l location) String() string { return fmt.Sprintf("%d:%d", l.line, l.column) }

// locationOf counts the line and column of b[off] naively, rune by rune.
func locationOf(b []byte, off int) location {
	loc := location{1, 1}
	for _, r := range string(b[:off]) {
		if r == '\n' {
			loc.line++
			loc.column = 1
		} else {
			loc.column++
		}
	}
	return loc
}

// valueOffsets maps the JSON pointer of every value of the JSON text at
// the start of doc to the offset of its first byte, found with
// encoding/json's tokenizer rather than cardscan's scanner. It stops at
// the first syntax error and keeps the first of repeated member names.
func valueOffsets(doc []byte) map[string]int {
	type frame struct {
		object    bool
		expectKey bool
		key       string
		index     int
	}
	offsets := map[string]int{}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var stack []frame
	path := func() string {
		var b strings.Builder
		for _, f := range stack {
			b.WriteByte('/')
			if f.object {
				b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(f.key))
			} else {
				b.WriteString(strconv.Itoa(f.index))
			}
		}
		return b.String()
	}
	for {
		before := int(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return offsets
		}
		// The token starts past the white space, colon or comma before it.
		start := before
		for start < len(doc) && strings.IndexByte(" \t\r\n:,", doc[start]) >= 0 {
			start++
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return offsets
			}
			continue
		}
		if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].expectKey {
			stack[n-1].key, stack[n-1].expectKey = tok.(string), false
			continue
		}
		if n := len(stack); n > 0 && !stack[n-1].object {
			stack[n-1].index++
		}
		p := path()
		if _, seen := offsets[p]; !seen {
			offsets[p] = start
		}
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].expectKey = true // the next token is a member name
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, frame{object: true, expectKey: true})
		case json.Delim('['):
			stack = append(stack, frame{index: -1})
		}
		if len(stack) == 0 {
			return offsets
		}
	}
}

// TestLocations_RealCards checks the line and column of every rule
// finding on the pretty-printed real cards against the place of the value
// its pointer names, found by valueOffsets; for a missing member, of the
// object that should hold it.
func TestLocations_RealCards(t *testing.T) {
	if _, err := filepath.Glob(realCorpus); err != nil {
		t.Skip(err)
	}
	r := run(t, "", "--format", "jsonl", "--input", "json", realCorpus)
	if r.stdout == "" {
		t.Skipf("real corpus not available: %s", r.stderr)
	}
	checked := 0
	for _, vd := range parseVerdicts(t, r.stdout) {
		text := readFile(t, vd.Input)
		card := text[vd.Offset:]
		if len(card) > 0 && card[0] == '"' {
			continue // the embedded-string form: tested in fastvalidate
		}
		offsets := valueOffsets(card)
		for _, f := range append(vd.Errors, vd.Warnings...) {
			if strings.HasPrefix(f.Rule, "json.") {
				continue // syntax: TestLocations_SyntaxAgreesWithPython
			}
			// A pointer to a member the card lacks names the object
			// that should hold it.
			at, ok := offsets[f.Path]
			if missing := strings.HasPrefix(f.Message, "missing required member"); missing || !ok && f.Path != "" {
				at, ok = offsets[f.Path[:strings.LastIndexByte(f.Path, '/')]]
			}
			if !ok {
				t.Errorf("%s: %s at %s: no such value", vd.Input, f.Rule, f.Path)
				continue
			}
			want := locationOf(text, int(vd.Offset)+at)
			if got := (location{f.Line, f.Column}); got != want {
				t.Errorf("%s: %s at %s: %v, want %v", vd.Input, f.Rule, f.Path, got, want)
			}
			checked++
		}
	}
	t.Logf("%d findings checked", checked)
	if checked < 50 {
		t.Errorf("only %d findings checked", checked)
	}
}

// pythonLocations returns, for each document, the line and column at which
// Python's json module reports it broken (NaN and Infinity refused, as
// fastvalidate's TestSyntax_OffsetsAgreeWithPython does), or none where
// Python reads it.
func pythonLocations(t *testing.T, docs []string) []*location {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	const script = `
import json, sys
from json import scanner
class Constant(Exception): pass
def refuse(name):
    raise Constant(sys._getframe(1).f_locals["idx"])
strict = json.JSONDecoder(parse_constant=refuse)
strict.scan_once = scanner.py_make_scanner(strict)
def where(doc):
    try:
        strict.decode(doc)
        return None
    except Constant as e:
        pos = e.args[0]
        return [doc.count("\n", 0, pos) + 1, pos - doc.rfind("\n", 0, pos)]
    except json.JSONDecodeError:
        pass
    try:
        json.loads(doc)
    except json.JSONDecodeError as e:
        return [e.lineno, e.colno]
json.dump([where(d) for d in json.load(sys.stdin)], sys.stdout)
`
	in, err := json.Marshal(docs)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, "-c", script)
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	var locs [][]int
	if err := json.Unmarshal(out, &locs); err != nil || len(locs) != len(docs) {
		t.Fatalf("python3 said %q (%v)", out, err)
	}
	res := make([]*location, len(docs))
	for i, l := range locs {
		if l != nil {
			res[i] = &location{l[0], l[1]}
		}
	}
	return res
}

// syntaxFaults are the json.syntax faults cardscan names, each as a
// replacement of the first match of old in a pretty-printed card.
var syntaxFaults = []struct{ name, old, new string }{
	{"trailing comma in object", "\n}", ",\n}"},
	{"trailing comma in array", "\n  ]", ",\n  ]"},
	{"missing comma", `",` + "\n", `"` + "\n"},
	{"missing colon", `"name":`, `"name"`},
	{"NaN", `"1.2.0"`, `NaN`},
	{"Infinity", `"1.2.0"`, `Infinity`},
	{"-Infinity", `"1.2.0"`, `-Infinity`},
	{"leading zero", `"1.2.0"`, `01`},
	{"no digit after '.'", `"1.2.0"`, `1.`},
	{"no digit after 'e'", `"1.2.0"`, `1e+`},
	{"tab in a string", `Weather`, "Wea\tther"},
	{"control character in a name", `"name"`, "\"na\x01me\""},
	{"invalid escape", `Weather`, `Wea\qther`},
	{"invalid \\u escape", `Weather`, `Wea\u00zther`},
	{"unterminated string", "\n}", "\n  \"note\": \"no end"},
	{"line comment", "\n}", "\n  // done\n}"},
	{"block comment", `"name":`, `/* n */ "name":`},
	{"single-quoted name", `"name"`, `'name'`},
	{"single-quoted value", `"1.2.0"`, `'1.2.0'`},
	{"byte order mark", `{`, "\ufeff{"},
	{"end of input", "\n}", ""},
	{"mismatched bracket", "\n  ]", "\n  }"},
	{"bare word", `"1.2.0"`, `True`},
	{"non-ASCII before the fault", `"Weather"`, `"Wéäther ☃", "x": 01`},
}

// TestLocations_SyntaxAgreesWithPython checks the line and column of every
// json.syntax fault against Python's json module: in a pretty-printed
// card between good ones, as a .json file read as JSON, plain and
// compressed; and on a line of an NDJSON file.
func TestLocations_SyntaxAgreesWithPython(t *testing.T) {
	lines := strings.Split(string(readFile(t, cardsFile)), "\n")
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, []byte(lines[0]), "", "  "); err != nil {
		t.Fatal(err)
	}
	good := pretty.String()
	var docs, ndjson []string
	for _, f := range syntaxFaults {
		bad := strings.Replace(good, f.old, f.new, 1)
		if bad == good {
			t.Fatalf("%s: %q is not in the card", f.name, f.old)
		}
		docs = append(docs, bad)
		// On one line too, where the fault fits in one.
		if line := strings.Replace(lines[0], strings.ReplaceAll(f.old, "\n", ""), strings.ReplaceAll(f.new, "\n", ""), 1); line != lines[0] {
			ndjson = append(ndjson, line)
		}
	}
	ndjson = append(ndjson, lines[0]+" "+lines[0], lines[0]+",")
	want := pythonLocations(t, append(append([]string(nil), docs...), ndjson...))
	dir := t.TempDir()
	for i, f := range syntaxFaults {
		if want[i] == nil {
			t.Errorf("%s: Python reads it", f.name)
			continue
		}
		// The broken card is the second of three; Python saw it alone.
		text := good + "\n" + docs[i] + "\n" + good + "\n"
		offset := locationOf([]byte(text), len(good)+1).line - 1
		if strings.HasPrefix(docs[i], "\ufeff") {
			text, offset = docs[i]+"\n"+good+"\n", 0 // a BOM only starts a file
		}
		plain := writeFile(t, filepath.Join(dir, fmt.Sprint(i, ".json")), []byte(text))
		zst := writeFile(t, filepath.Join(dir, fmt.Sprint(i, ".json.zst")), zstdBytes(t, []byte(text)))
		for _, path := range []string{plain, zst} {
			got := syntaxLocation(t, run(t, "", "--format", "jsonl", path))
			if w := (location{want[i].line + offset, want[i].column}); got != w {
				t.Errorf("%s in %s: %v, Python says %v", f.name, filepath.Base(path), got, w)
			}
		}
	}
	for j, line := range ndjson {
		i := len(docs) + j
		if want[i] == nil {
			t.Errorf("NDJSON %q: Python reads it", line)
			continue
		}
		text := lines[0] + "\n" + line + "\n"
		got := syntaxLocation(t, run(t, text, "--format", "jsonl", "--input", "ndjson"))
		if w := (location{want[i].line + 1, want[i].column}); got != w {
			t.Errorf("NDJSON %q: %v, Python says %v", line, got, w)
		}
	}
}

// syntaxLocation returns where the one json.syntax finding of a run is.
func syntaxLocation(t *testing.T, r result) location {
	t.Helper()
	var found []location
	for _, vd := range parseVerdicts(t, r.stdout) {
		for _, f := range vd.Errors {
			if f.Rule == "json.syntax" {
				found = append(found, location{f.Line, f.Column})
			}
		}
	}
	if len(found) != 1 {
		t.Errorf("%d json.syntax findings in\n%s", len(found), r.stdout)
		return location{}
	}
	return found[0]
}

// The text and GitHub formats carry the same locations as jsonl.
func TestLocations_SameInEveryFormat(t *testing.T) {
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, readFile(t, cardsFile)[:bytes.IndexByte(readFile(t, cardsFile), '\n')], "", "\t"); err != nil {
		t.Fatal(err)
	}
	text := "[" + strings.Replace(pretty.String(), `"1.2.0"`, `"1.0"`, 1) + ", {\"é\": 1}]\n"
	var want []string
	for _, vd := range parseVerdicts(t, run(t, text, "--format", "jsonl").stdout) {
		for _, f := range append(vd.Errors, vd.Warnings...) {
			want = append(want, location{f.Line, f.Column}.String())
		}
	}
	if len(want) < 2 {
		t.Fatalf("only %d findings", len(want))
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(run(t, text, "--color", "never").stdout), "\n") {
		parts := strings.SplitN(l, ":", 4)
		got = append(got, parts[1]+":"+parts[2])
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("text: %v, jsonl: %v", got, want)
	}
	got = got[:0]
	for _, l := range strings.Split(strings.TrimSpace(run(t, text, "--format", "github").stdout), "\n") {
		var line, col int
		if _, err := fmt.Sscanf(l[strings.Index(l, ",line="):], ",line=%d,col=%d,", &line, &col); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		got = append(got, location{line, col}.String())
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("github: %v, jsonl: %v", got, want)
	}
}
