package fastvalidate

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"unicode/utf8"
)

// syntaxCase is a document with one json.syntax fault: the message it must
// get, and the offset (at: the text whose first byte the finding names, or
// "" for the end of the document; nth picks among equal texts, from 0).
type syntaxCase struct {
	doc, at string
	nth     int
	msg     string
}

var syntaxCases = []syntaxCase{
	{`{"a":1,}`, `}`, 0, `trailing comma: expected a member name in double quotes after ',', found '}'`},
	{`[1, ]`, `]`, 0, `trailing comma: expected a value after ',', found ']'`},
	{`{"a":1 "b":2}`, `"b"`, 0, `missing comma: expected ',' or '}' after the member, found '"'`},
	{`[1 2]`, `2`, 0, `missing comma: expected ',' or ']' after the element, found '2'`},
	{`[{} {}]`, `{}`, 1, `missing comma: expected ',' or ']' after the element, found '{'`},
	{`{"a" 1}`, `1`, 0, `missing colon: expected ':' after the member name, found '1'`},
	{`{"a"}`, `}`, 0, `missing colon: expected ':' after the member name, found '}'`},
	{`{"a":NaN}`, `NaN`, 0, `NaN and Infinity are not JSON numbers: expected a value, found 'NaN'`},
	{`[Infinity]`, `Infinity`, 0, `NaN and Infinity are not JSON numbers: expected a value or ']', found 'Infinity'`},
	{`[1,-Infinity]`, `-Infinity`, 0, `NaN and Infinity are not JSON numbers: expected a value, found '-Infinity'`},
	{`{"a":01}`, `1`, 0, `number with a leading zero: expected '.', 'e' or the end of the number after the 0, found '1'`},
	{`[-00]`, `0]`, 0, `number with a leading zero: expected '.', 'e' or the end of the number after the 0, found '0'`},
	{`[1.]`, `.`, 0, `number with no digit after '.': expected a digit, found ']'`},
	{`[1.e5]`, `.`, 0, `number with no digit after '.': expected a digit, found 'e5'`},
	{`[1e]`, `e`, 0, `number with no digit in its exponent: expected a digit, found ']'`},
	{`[1.5E-]`, `E`, 0, `number with no digit in its exponent: expected a digit, found ']'`},
	{`{"a":-}`, `-`, 0, `number with no digit after '-': expected a digit, found '}'`},
	{`[0x10]`, `x`, 0, `invalid number: expected the end of the number, found 'x10'`},
	{`[1.5.2]`, `.2`, 0, `invalid number: expected the end of the number, found '.'`},
	{"[\"a\tb\"]", "\t", 0, `unescaped control character in a string: expected \t, found U+0009 TAB`},
	{"{\"a\nb\":1}", "\n", 0, `unescaped control character in a string: expected \n, found U+000A LINE FEED`},
	{"[\"\x1f\"]", "\x1f", 0, `unescaped control character in a string: expected \u001f, found U+001F US`},
	{`["a\qb"]`, `\q`, 0, `invalid escape: expected one of \" \\ \/ \b \f \n \r \t \uXXXX, found '\q'`},
	{`["\u12G4"]`, `u12G4`, 0, `invalid escape: expected \u and four hex digits, found '\u12G4'`},
	{`{"a":"abc`, `"abc`, 0, `unterminated string: expected a closing '"', found the end of input`},
	{`{"abc`, `"abc`, 0, `unterminated string: expected a closing '"', found the end of input`},
	{`["abc\`, `"abc`, 0, `unterminated string: expected a closing '"', found the end of input`},
	{`{"a":1} // note`, `//`, 0, `comment: JSON has none; expected the end of input after the JSON value, found '//'`},
	{`{/* note */"a":1}`, `/*`, 0, `comment: JSON has none; expected a member name in double quotes or '}', found '/*'`},
	{`{'a':1}`, `'a'`, 0, `single-quoted string: expected a member name in double quotes or '}', found 'a'`},
	{`{"a":'b c'}`, `'b c'`, 0, `single-quoted string: expected a value, found 'b c'`},
	{"{\"a\":1}\n{\"a\":2}", `{"a":2}`, 0, `trailing data: this looks like NDJSON; use --input ndjson: expected the end of input after the JSON value, found '{' on a new line`},
	{"{\"a\":1}\r{\"a\":2}", `{"a":2}`, 0, `trailing data: this looks like lines ended by a lone CR, which ends no line; tr '\r' '\n' converts them: expected the end of input after the JSON value, found '{'`},
	{`{"a":1} {"a":2}`, `{"a":2}`, 0, `trailing data: expected the end of input after the JSON value, found '{'`},
	{`{"a":1},`, `,`, 0, `trailing data: expected the end of input after the JSON value, found ','`},
	{"\ufeff{}", "\ufeff", 0, `byte order mark: JSON text must not begin with one; expected a value, found U+FEFF BYTE ORDER MARK`},
	{``, ``, 0, `unexpected end of input: expected a value`},
	{`{"a":`, ``, 0, `unexpected end of input: expected a value`},
	{`[1,2`, ``, 0, `unexpected end of input: expected ',' or ']' after the element`},
	{`{"a"`, ``, 0, `unexpected end of input: expected ':' after the member name`},
	{`{`, ``, 0, `unexpected end of input: expected a member name in double quotes or '}'`},
	{`{"a":1]`, `]`, 0, `mismatched bracket: expected ',' or '}' after the member, found ']'`},
	{`[}`, `}`, 0, `mismatched bracket: expected a value or ']', found '}'`},
	{`{"a":True}`, `True`, 0, `expected a value, found 'True'`},
	{`[nul]`, `nul`, 0, `expected a value or ']', found 'nul'`},
	{`[1,+1]`, `+`, 0, `expected a value, found '+'`},
	{`{1:2}`, `1`, 0, `expected a member name in double quotes or '}', found '1'`},
	{"\v{}", "\v", 0, `expected a value, found U+000B VERTICAL TAB`},
	{"{\"a\":\u00e9}", "\u00e9", 0, `expected a value, found 'é'`},
	{"{\"a\":\xff}", "\xff", 0, `expected a value, found byte 0xFF`},
}

// offsetOf returns the offset a syntaxCase names.
func (c syntaxCase) offset() int {
	if c.at == "" {
		return len(c.doc)
	}
	i := -1
	for range c.nth + 1 {
		i += 1 + strings.Index(c.doc[i+1:], c.at)
	}
	return i
}

// TestSyntax_NamesTheFault holds each json.syntax fault to its message and
// offset, in the card as written and in its embedded-string form.
func TestSyntax_NamesTheFault(t *testing.T) {
	v := newTestValidator(t, "agentcard")
	for _, c := range syntaxCases {
		r := v.Validate([]byte(c.doc))
		f := r.Findings()
		if len(f) != 1 || f[0].Code != CodeJSONSyntax {
			t.Errorf("%q: findings %v, want one json.syntax", c.doc, f)
			continue
		}
		if got := f[0].Message(); got != c.msg {
			t.Errorf("%q: message\n %s\nwant\n %s", c.doc, got, c.msg)
		}
		if want := c.offset(); f[0].Offset != want {
			t.Errorf("%q: offset %d, want %d", c.doc, f[0].Offset, want)
		}
		if !strings.HasPrefix(c.doc, "{") || !utf8.ValidString(c.doc) {
			continue
		}
		form := jsonString(c.doc)
		r = v.Validate([]byte(form))
		if f := r.Findings(); len(f) != 1 || f[0].Message() != c.msg || f[0].Offset != offsetInString(form, c.doc, c.offset()) {
			t.Errorf("%q embedded: findings %v, want %q at %d", c.doc, f, c.msg, offsetInString(form, c.doc, c.offset()))
		}
	}
}

// TestSyntax_NoAllocation: naming a fault costs no allocation once the
// Validator's buffers have grown, and neither does formatting it.
func TestSyntax_NoAllocation(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation allocates")
	}
	v := newTestValidator(t, "agentcard")
	buf := make([]byte, 0, 1024)
	for _, c := range syntaxCases {
		doc := []byte(c.doc)
		testAllocs(t, c.doc, 0, func() {
			for _, f := range v.Validate(doc).Findings() {
				buf = f.AppendMessage(buf[:0])
			}
		})
	}
}

// pythonOffsets returns, for each document, the byte offset at which
// Python's json module reports it broken, or -1 where Python reads it.
// Python accepts NaN and Infinity: for those its pure-Python scanner is
// asked to refuse them, at the offset where it meets them.
func pythonOffsets(t *testing.T, docs []string) []int {
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
    # The pure-Python scanner calls this from _scan_once(string, idx).
    raise Constant(sys._getframe(1).f_locals["idx"])
strict = json.JSONDecoder(parse_constant=refuse)
strict.scan_once = scanner.py_make_scanner(strict)
def offset(doc):
    try:
        strict.decode(doc)
        return len(doc) + 1
    except Constant as e:
        return e.args[0]
    except json.JSONDecodeError:
        pass
    # The first fault is no constant: the module's own scanner, which
    # accepts them, reports it as it always does.
    try:
        json.loads(doc)
    except json.JSONDecodeError as e:
        return e.pos
    return len(doc) + 1
out = []
for doc in json.load(sys.stdin):
    pos = offset(doc)
    out.append(-1 if pos > len(doc) else len(doc[:pos].encode("utf-8")))
json.dump(out, sys.stdout)
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
	var offsets []int
	if err := json.Unmarshal(out, &offsets); err != nil || len(offsets) != len(docs) {
		t.Fatalf("python3 said %q (%v)", out, err)
	}
	return offsets
}

// TestSyntax_OffsetsAgreeWithPython checks the offset of every syntax
// fault against Python's json module, in the compact documents above and
// placed in a pretty-printed card, where they fall on later lines.
func TestSyntax_OffsetsAgreeWithPython(t *testing.T) {
	var docs []string
	for _, c := range syntaxCases {
		if !utf8.ValidString(c.doc) {
			continue // Python reads text, not bytes that are not UTF-8
		}
		docs = append(docs, c.doc)
		if c.doc == "" || strings.HasPrefix(c.doc, "\ufeff") {
			continue
		}
		// As the value of a member of a card, and as the card's last
		// member, cut off there.
		docs = append(docs, strings.Replace(draftExample, `"1.2.0"`, c.doc, 1))
		cut := strings.Index(draftExample, `"1.2.0"`)
		docs = append(docs, draftExample[:cut]+c.doc)
	}
	docs = append(docs,
		"\ufeff"+draftExample,
		draftExample+"\n"+draftExample,
		draftExample+"\n\n  // done\n",
		strings.Replace(draftExample, `"1.2.0"`, `"1.2.0",`, 1)[:len(draftExample)-2]+"\n}",
		strings.Replace(draftExample, "\n  ]", ",\n  ]", 1),
		strings.Replace(draftExample, "ResearchAnalyst", "Research\tAnalyst", 1),
		strings.Replace(draftExample, "\n  \"name\"", "\n  'name'", 1),
	)
	want := pythonOffsets(t, docs)
	v := newTestValidator(t, "agentcard")
	for i, doc := range docs {
		r := v.Validate([]byte(doc))
		var syntax []Finding
		for _, f := range r.Findings() {
			if f.Code == CodeJSONSyntax {
				syntax = append(syntax, f)
			}
		}
		switch {
		case want[i] < 0:
			t.Errorf("%q: Python reads it", doc)
		case len(syntax) != 1:
			t.Errorf("%q: findings %v, want one json.syntax", doc, r.Findings())
		case syntax[0].Offset != want[i]:
			t.Errorf("%q: offset %d (%q), Python says %d (%q)", doc, syntax[0].Offset, doc[syntax[0].Offset:], want[i], doc[want[i]:])
		}
	}
}
