package lspserver

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf16"
)

// editorLines splits text into lines as the LSP specification has an
// editor do ("\n", "\r\n" and "\r" each end a line), by way of a regular
// expression rather than the server's own scan.
var editorLineEnd = regexp.MustCompile("\r\n|\r|\n")

func TestLineIndexEndsLinesAsTheEditorDoes(t *testing.T) {
	for _, text := range []string{
		"a\nbc\n😀d\n",
		"a\r\nbc\r\n😀d\r\n",
		"a\rbc\r😀d\r",
		"a\r\rb\n\r\nc\r",
		"\r",
		"x\r\n",
	} {
		for _, enc := range []positionEncoding{utf16Units, utf8Bytes, utf32CodePoints} {
			checkLineIndex(t, text, enc)
		}
	}
}

// checkLineIndex checks the index of text in enc against the editor's
// lines and the standard library's counts of each encoding.
func checkLineIndex(t *testing.T, text string, enc positionEncoding) {
	t.Helper()
	columns := func(s string) int {
		switch enc {
		case utf8Bytes:
			return len(s)
		case utf32CodePoints:
			return len([]rune(s))
		}
		return len(utf16.Encode([]rune(s)))
	}
	li := newLineIndex([]byte(text), enc)
	ends := editorLineEnd.FindAllStringIndex(text, -1)
	lineStart := 0
	for line := 0; line <= len(ends); line++ {
		lineEnd := len(text)
		if line < len(ends) {
			lineEnd = ends[line][0]
		}
		for off := lineStart; off <= lineEnd; off++ {
			if !utf8Start(text, off) {
				continue
			}
			want := Position{Line: line, Character: columns(text[lineStart:off])}
			if got := li.position(off); got != want {
				t.Errorf("%s %q: offset %d at %+v, the editor puts it at %+v", enc, text, off, got, want)
			}
			if got := li.offset(want); got != off {
				t.Errorf("%s %q: %+v at offset %d, want %d", enc, text, want, got, off)
			}
		}
		// A column past the line's end is its end, before the
		// line's terminator, as the specification says.
		if got := li.offset(Position{Line: line, Character: 1000}); got != lineEnd {
			t.Errorf("%s %q: line %d column 1000 at offset %d, want the line's end %d", enc, text, line, got, lineEnd)
		}
		if line < len(ends) {
			lineStart = ends[line][1]
		}
	}
}

func utf8Start(s string, i int) bool { return i == len(s) || s[i]&0xC0 != 0x80 }

// TestDiagnosticsWhateverTheLineEnds judges one card with each line end
// the LSP specification allows: a card saved on a system that ends lines
// with "\r" alone had every diagnostic on its first line.
func TestDiagnosticsWhateverTheLineEnds(t *testing.T) {
	text := readCard(t, "a2a-astral.json")
	c := newClient(t, Config{Profile: "auto", MaxDocument: DefaultMaxDocument})
	want := c.open("file:///cards/lf.json", text)
	if len(want) < 2 || want[1].Range.Start.Line == 0 {
		t.Fatalf("the card should have a finding past its first line: %+v", want)
	}
	for name, end := range map[string]string{"crlf": "\r\n", "cr": "\r"} {
		got := c.open("file:///cards/"+name+".json", strings.ReplaceAll(text, "\n", end))
		if len(got) != len(want) {
			t.Fatalf("%s: %d diagnostics, %d with \\n", name, len(got), len(want))
		}
		for i := range got {
			if got[i].Range != want[i].Range {
				t.Errorf("%s: %s at %+v, with \\n at %+v", name, got[i].Code, got[i].Range, want[i].Range)
			}
		}
	}
}

// editorApply applies edits to text as an editor does, with lines ended
// by "\n", "\r\n" or "\r" and columns in UTF-16 code units, the edits
// taken from the last to the first (they do not overlap).
func editorApply(t *testing.T, text string, edits []TextEdit) string {
	t.Helper()
	offset := func(p Position) int {
		starts := []int{0}
		for _, e := range editorLineEnd.FindAllStringIndex(text, -1) {
			starts = append(starts, e[1])
		}
		if p.Line >= len(starts) {
			t.Fatalf("%+v: past the last line", p)
		}
		line := text[starts[p.Line]:]
		if e := editorLineEnd.FindStringIndex(line); e != nil {
			line = line[:e[0]]
		}
		units := utf16.Encode([]rune(line))
		return starts[p.Line] + len(string(utf16.Decode(units[:min(p.Character, len(units))])))
	}
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		text = text[:offset(e.Range.Start)] + e.NewText + text[offset(e.Range.End):]
	}
	return text
}

// TestFixKeepsTheLineEnds: a fix that adds a member on a line of its own
// ends that line as the document ends its lines; in a CRLF card it ended
// it with "\n" alone, and in a card whose lines end in "\r" it put the
// member on the line of the brace.
func TestFixKeepsTheLineEnds(t *testing.T) {
	lf := readCard(t, "agentcard-missing.json")
	var want string
	for _, end := range []string{"\n", "\r\n", "\r"} {
		text := strings.ReplaceAll(lf, "\n", end)
		c := newClient(t, Config{Profile: "agentcard", MaxDocument: DefaultMaxDocument})
		uri := "file:///cards/missing.json"
		diags := c.open(uri, text)
		var actions []CodeAction
		c.call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri},
			"range": diags[0].Range, "context": map[string]any{"diagnostics": diags}}, &actions)
		if len(actions) == 0 || !strings.HasPrefix(actions[0].Title, "Add the required member") {
			t.Fatalf("%q: actions %+v", end, actions)
		}
		got := editorApply(t, text, actions[0].Edit.Changes[uri])
		if end == "\n" {
			want = got
			continue
		}
		if got != strings.ReplaceAll(want, "\n", end) {
			t.Errorf("%q: the fix made\n%q\nwant\n%q", end, got, strings.ReplaceAll(want, "\n", end))
		}
	}
}

// TestUnterminatedStringEndsAtItsLine: a member name being typed, an
// unterminated string, ends at the end of its line, whatever ends it. In
// a card whose lines end in "\r" it ran on to the next quote, and a
// completion, which replaces the string, swallowed the line break and
// the next line's opening quote.
func TestUnterminatedStringEndsAtItsLine(t *testing.T) {
	for _, end := range []string{"\n", "\r\n", "\r"} {
		card := strings.ReplaceAll("{\n  \"na\n  \"version\": \"1.0.0\"\n}\n", "\n", end)
		c := newClient(t, Config{Profile: "a2a/1.0", MaxDocument: DefaultMaxDocument})
		uri := "file:///cards/card.json"
		c.open(uri, card)
		items := c.complete(uri, Position{Line: 1, Character: 5}).Items
		if len(items) == 0 || items[0].TextEdit == nil {
			t.Fatalf("%q: no completion in the member name being typed", end)
		}
		if want := (Range{Start: Position{Line: 1, Character: 2}, End: Position{Line: 1, Character: 5}}); items[0].TextEdit.Range != want {
			t.Errorf("%q: the completion replaces %+v, want the name typed so far %+v", end, items[0].TextEdit.Range, want)
		}
	}
}

// TestCompletionAtAPositionPastItsLine: a completion between tokens is
// inserted at the cursor, which the answer named as the client sent it:
// a column past the line's end, or a negative one, came back as the
// range of the item's edit, which is no place in the document.
func TestCompletionAtAPositionPastItsLine(t *testing.T) {
	card := "{\n  \n}\n"
	c := newClient(t, Config{Profile: "a2a/1.0", MaxDocument: DefaultMaxDocument})
	uri := "file:///cards/card.json"
	c.open(uri, card)
	for _, at := range []Position{{Line: 1, Character: 1000}, {Line: 1, Character: -5}} {
		items := c.complete(uri, at).Items
		if len(items) == 0 || items[0].TextEdit == nil {
			t.Fatalf("%+v: no completion", at)
		}
		want := Position{Line: 1, Character: 2}
		if at.Character < 0 {
			want.Character = 0
		}
		if r := items[0].TextEdit.Range; r.Start != want || r.End != want {
			t.Errorf("at %+v the item's edit is at %+v, want the place in the line %+v", at, r, want)
		}
	}
}
