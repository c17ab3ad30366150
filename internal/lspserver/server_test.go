package lspserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"go.lsp.dev/jsonrpc2"

	"github.com/cardscan/cardscan/fastvalidate"
)

// client is a test's end of a session with a Server.
type client struct {
	t     *testing.T
	conn  jsonrpc2.Conn
	diags chan publishDiagnosticsParams
	logs  chan string
	done  chan error
}

func newClient(t *testing.T, cfg Config) *client {
	t.Helper()
	return newClientWith(t, cfg, map[string]any{"capabilities": map[string]any{}}, nil)
}

// newClientWith starts a session whose initialize sends initParams, and
// decodes the server's answer into initResult unless it is nil.
func newClientWith(t *testing.T, cfg Config, initParams, initResult any) *client {
	t.Helper()
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	c := &client{t: t, diags: make(chan publishDiagnosticsParams, 16), logs: make(chan string, 16), done: make(chan error, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		c.done <- Serve(ctx, cfg, toServer, fromServer, DefaultMaxMessage)
		fromServer.Close()
	}()
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(pipeRW{toClient, fromClient}))
	c.conn.Go(ctx, func(_ context.Context, req *jsonrpc2.Request) (any, error) {
		switch req.Method() {
		case "textDocument/publishDiagnostics":
			var p publishDiagnosticsParams
			if err := json.Unmarshal(req.Params(), &p); err != nil {
				t.Errorf("publishDiagnostics: %v", err)
			}
			c.diags <- p
		case "window/logMessage":
			var p logMessageParams
			_ = json.Unmarshal(req.Params(), &p)
			c.logs <- p.Message
		}
		return nil, nil
	})
	t.Cleanup(func() {
		fromClient.Close()
		cancel()
	})
	c.call("initialize", initParams, initResult)
	return c
}

type pipeRW struct {
	io.Reader
	io.WriteCloser
}

func (c *client) call(method string, params, result any) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.conn.Call(ctx, method, params, result); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

func (c *client) notify(method string, params any) {
	c.t.Helper()
	if err := c.conn.Notify(context.Background(), method, params); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

func (c *client) nextDiagnostics() publishDiagnosticsParams {
	c.t.Helper()
	select {
	case p := <-c.diags:
		return p
	case <-time.After(10 * time.Second):
		c.t.Fatal("no diagnostics within 10s")
		return publishDiagnosticsParams{}
	}
}

func (c *client) open(uri, text string) []Diagnostic {
	c.t.Helper()
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "json", "version": 1, "text": text}})
	return c.nextDiagnostics().Diagnostics
}

func (c *client) change(uri string, version int, text string) []Diagnostic {
	c.t.Helper()
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": version},
		"contentChanges": []map[string]any{{"text": text}}})
	return c.nextDiagnostics().Diagnostics
}

func readCard(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// utf16Column converts the CLI's 1-based column, in code points, of a
// line of text to LSP's 0-based column in UTF-16 code units, by way of
// the standard library's encoder rather than the server's own counting.
func utf16Column(text string, line, column int) int {
	l := strings.Split(text, "\n")[line-1]
	return len(utf16.Encode([]rune(l)[:column-1]))
}

// cliLocations judges text as the CLI does and returns "rule path" ->
// "line:column", converted to LSP's 0-based UTF-16 form.
func cliLocations(t *testing.T, profile, text string) map[string]string {
	t.Helper()
	var out bytes.Buffer
	// The report's renderer is the CLI's, and its jsonl carries each
	// finding's line and column.
	v := fastvalidate.MustNew(profile)
	locs := map[string]string{}
	for _, f := range jsonlFindings(t, v, []byte(text), &out) {
		locs[f.Rule+" "+f.Path] = fmt.Sprintf("%d:%d", f.Line-1, utf16Column(text, f.Line, f.Column))
	}
	return locs
}

func TestDiagnosticsAtTheCLIsPlaces(t *testing.T) {
	for _, tc := range []struct{ file, profile string }{
		{"a2a-astral.json", "auto"},
		{"agentcard-astral.json", "auto"},
		{"agentcard-missing.json", "agentcard"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			text := readCard(t, tc.file)
			want := cliLocations(t, tc.profile, text)
			c := newClient(t, Config{Profile: tc.profile, MaxDocument: DefaultMaxDocument})
			diags := c.open("file:///cards/"+tc.file, text)
			if len(diags) != len(want) || len(diags) == 0 {
				t.Fatalf("%d diagnostics, the CLI reports %d: %+v", len(diags), len(want), diags)
			}
			for _, d := range diags {
				key := d.Code + " " + d.Data.Path
				if got := fmt.Sprintf("%d:%d", d.Range.Start.Line, d.Range.Start.Character); got != want[key] {
					t.Errorf("%s at %s, the CLI says %s", key, got, want[key])
				}
				if d.CodeDescription == nil || !strings.HasSuffix(d.CodeDescription.Href, "docs/rules.md#"+strings.ReplaceAll(d.Code, ".", "")) {
					t.Errorf("%s: codeDescription %+v", key, d.CodeDescription)
				}
			}
		})
	}
}
