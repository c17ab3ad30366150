package lspserver

import (
	"io"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/cardscan/cardscan/internal/cmderr"
)

// applyEdit applies an LSP edit to text as a client does, counting columns
// in UTF-16 code units with the standard library's encoder.
func applyEdit(text string, e TextEdit) string {
	lines := strings.SplitAfter(text, "\n")
	offset := func(p Position) int {
		off := 0
		for _, l := range lines[:p.Line] {
			off += len(l)
		}
		units := utf16.Encode([]rune(lines[p.Line]))
		return off + len(string(utf16.Decode(units[:p.Character])))
	}
	return text[:offset(e.Range.Start)] + e.NewText + text[offset(e.Range.End):]
}

func TestCodeActionsMakeTheFindingGo(t *testing.T) {
	for _, tc := range []struct{ file, profile, code, title string }{
		{"a2a-astral.json", "auto", "a2a.field-name", "Rename to supportedInterfaces"},
		{"a2a-astral.json", "auto", "a2a.required", "Add the required member url"},
		{"agentcard-astral.json", "auto", "field.type", "Write 0.5 as a number"},
		{"agentcard-missing.json", "agentcard", "field.required", "Add the required member agent_id"},
	} {
		t.Run(tc.code, func(t *testing.T) {
			c := newClient(t, Config{Profile: tc.profile, MaxDocument: DefaultMaxDocument})
			uri := "file:///cards/" + tc.file
			text := readCard(t, tc.file)
			diags := c.open(uri, text)
			var target *Diagnostic
			for i := range diags {
				if diags[i].Code == tc.code {
					target = &diags[i]
					break
				}
			}
			if target == nil {
				t.Fatalf("no %s among %+v", tc.code, diags)
			}
			var actions []CodeAction
			c.call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri},
				"range": target.Range, "context": map[string]any{"diagnostics": []Diagnostic{*target}}}, &actions)
			var act *CodeAction
			for i := range actions {
				if actions[i].Title == tc.title {
					act = &actions[i]
				}
			}
			if act == nil {
				t.Fatalf("no action %q among %+v", tc.title, actions)
			}
			for _, e := range act.Edit.Changes[uri] {
				text = applyEdit(text, e)
			}
			for _, d := range c.change(uri, 2, text) {
				if d.Code == target.Code && d.Data.Path == target.Data.Path {
					t.Errorf("after %q the finding remains: %+v\n%s", tc.title, d, text)
				}
			}
		})
	}
}

func TestNoActionWhereNoFixRemovesTheFinding(t *testing.T) {
	// "abc" is no number: writing it bare would not be JSON.
	c := newClient(t, Config{Profile: "agentcard", MaxDocument: DefaultMaxDocument})
	text := strings.Replace(readCard(t, "agentcard-astral.json"), `"0.5"}]`, `"abc"}]`, 1)
	uri := "file:///cards/x.json"
	for _, d := range c.open(uri, text) {
		if d.Data.Path != "/goal_subscriptions/0/priority" {
			continue
		}
		var actions []CodeAction
		c.call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri},
			"range": d.Range, "context": map[string]any{"diagnostics": []Diagnostic{d}}}, &actions)
		if len(actions) != 0 {
			t.Errorf("actions for %q: %+v", "abc", actions)
		}
		return
	}
	t.Fatal("no finding at /goal_subscriptions/0/priority")
}

func TestBadMessagesGetAnErrorAndTheSessionGoesOn(t *testing.T) {
	in, toServer := io.Pipe()
	fromServer, out := io.Pipe()
	done := make(chan int, 1)
	go func() { done <- cmderr.Status(Serve(t.Context(), Config{MaxDocument: 1 << 10}, in, out, 1<<12)) }()
	frame := func(body string) {
		if _, err := io.WriteString(toServer, "Content-Length: "+itoa(len(body))+"\r\n\r\n"+body); err != nil {
			t.Error(err)
		}
	}
	got := make(chan string, 8)
	go func() {
		buf := make([]byte, 1<<16)
		for {
			n, err := fromServer.Read(buf)
			if n > 0 {
				got <- string(buf[:n])
			}
			if err != nil {
				close(got)
				return
			}
		}
	}()
	expect := func(want string) {
		t.Helper()
		select {
		case s := <-got:
			if !strings.Contains(s, want) {
				t.Fatalf("got %s, want %s in it", s, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no answer with %s", want)
		}
	}
	frame(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`)
	expect(`"id":0,"result":{`)
	frame(`{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {`)
	expect(`"id":null,"error":{"code":-32700`)
	frame(`{"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":[1]}`)
	expect(`"id":2,"error":{"code":-32602`)
	frame(`{"jsonrpc":"2.0","id":3,"method":"no/such","params":{}}`)
	expect(`"id":3,"error":{"code":-32601`)
	// Ambiguous messages, which readers may take differently: an id that
	// would be answered as "a\ufffd", and members given twice.
	frame(`{"jsonrpc":"2.0","id":"a\ud800","method":"no/such","params":{}}`)
	expect(`"id":null,"error":{"code":-32600,"message":"invalid request: id must be valid Unicode`)
	frame(`{"jsonrpc":"2.0","id":5,"method":"no/such","params":{},"id":6}`)
	expect(`"id":null,"error":{"code":-32600,"message":"invalid request: member \"id\" given twice`)
	frame(`{"jsonrpc":"2.0","id":4,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///a.json"},"position":{"line":0,"character":0}}}`)
	expect(`"id":4,"result":null`)
	// A message over --max-message ends the session: the rest of it
	// cannot be told from the next.
	// The server stops reading it midway, so it is written aside.
	go func() {
		_, _ = io.WriteString(toServer, "Content-Length: 50000\r\n\r\n"+strings.Repeat(" ", 50000))
	}()
	defer toServer.Close()
	select {
	case status := <-done:
		if status != 3 {
			t.Errorf("exit status %d after an oversized message, want 3", status)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the session went on after a message over --max-message")
	}
}

func TestDocumentOverTheLimitIsNotJudged(t *testing.T) {
	c := newClient(t, Config{MaxDocument: 64})
	diags := c.open("file:///big.json", `{"name": "`+strings.Repeat("x", 100)+`"}`)
	if len(diags) != 1 || diags[0].Code != "input.too-large" || !strings.Contains(diags[0].Message, "--max-document 64") {
		t.Fatalf("diagnostics %+v", diags)
	}
	// The limit is written as it is typed, 2KiB, not 2048.
	c = newClient(t, Config{MaxDocument: 2 << 10})
	diags = c.open("file:///bigger.json", `{"name": "`+strings.Repeat("x", 3000)+`"}`)
	if len(diags) != 1 || !strings.HasSuffix(diags[0].Message, "more than --max-document 2KiB") {
		t.Fatalf("diagnostics %+v", diags)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
