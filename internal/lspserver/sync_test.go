package lspserver

import (
	"strings"
	"testing"
)

// TestIncrementalChangeLeavesNoStaleAnswers sends what a client that
// ignores the server's textDocumentSync (1, full text) sends: a change
// with a range. The server cannot know the text it now holds, so it must
// neither judge nor edit the text it held before: a code action's edits,
// placed in the old text, would garble the new one when applied.
func TestIncrementalChangeLeavesNoStaleAnswers(t *testing.T) {
	c := newClient(t, Config{Profile: "auto", MaxDocument: DefaultMaxDocument})
	uri := "file:///cards/a2a-astral.json"
	text := readCard(t, "a2a-astral.json")
	if len(c.open(uri, text)) == 0 {
		t.Fatal("the card should have findings, whose fixes the test asks for")
	}
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []map[string]any{{"range": Range{End: Position{Line: 0}}, "text": "\n\n"}}})
	var actions []CodeAction
	c.call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri},
		"range": Range{End: Position{Line: 20}}, "context": map[string]any{"diagnostics": []Diagnostic{}}}, &actions)
	if len(actions) != 0 {
		t.Errorf("%d actions on text the client no longer has: %+v", len(actions), actions)
	}
	var h *hover
	c.call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": Position{Line: 3, Character: 4}}, &h)
	if h != nil {
		t.Errorf("hover on text the client no longer has: %+v", h)
	}
	p := c.nextDiagnostics()
	if p.Version == nil || *p.Version != 2 || len(p.Diagnostics) != 1 || !strings.Contains(p.Diagnostics[0].Message, "incremental") {
		t.Fatalf("diagnostics after the change: %+v", p)
	}
	// A full text brings the document back.
	if diags := c.change(uri, 3, text); len(diags) == 0 || strings.Contains(diags[0].Message, "incremental") {
		t.Errorf("after a full text: %+v", diags)
	}
}
