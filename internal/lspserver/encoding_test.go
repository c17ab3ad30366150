package lspserver

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/cardscan/cardscan/fastvalidate"
)

// TestPositionEncodingNegotiated: a client lists the position encodings
// it supports, most preferred first (LSP 3.17, general.positionEncodings);
// the server picks the first it supports too, else UTF-16, which every
// client must, and counts columns in it. It answered utf-16 whatever the
// client preferred.
func TestPositionEncodingNegotiated(t *testing.T) {
	text := readCard(t, "a2a-astral.json")
	var out bytes.Buffer
	cli := jsonlFindings(t, fastvalidate.MustNew("auto"), []byte(text), &out)
	for _, tc := range []struct {
		offered []string
		want    string
	}{
		{nil, "utf-16"},
		{[]string{"utf-8", "utf-16"}, "utf-8"},
		{[]string{"utf-32"}, "utf-32"},
		{[]string{"utf-16", "utf-8"}, "utf-16"},
		{[]string{"latin-1", "utf-32", "utf-8"}, "utf-32"},
		{[]string{"latin-1"}, "utf-16"},
	} {
		t.Run(strings.Join(tc.offered, ","), func(t *testing.T) {
			caps := map[string]any{}
			if tc.offered != nil {
				caps["general"] = map[string]any{"positionEncodings": tc.offered}
			}
			var init struct {
				Capabilities struct {
					PositionEncoding string `json:"positionEncoding"`
				} `json:"capabilities"`
			}
			c := newClientWith(t, Config{Profile: "auto", MaxDocument: DefaultMaxDocument}, map[string]any{"capabilities": caps}, &init)
			if got := init.Capabilities.PositionEncoding; got != tc.want {
				t.Fatalf("positionEncoding %q, want %q", got, tc.want)
			}
			want := map[string]string{}
			for _, f := range cli {
				line := []rune(strings.Split(text, "\n")[f.Line-1])[:f.Column-1]
				col := map[string]int{"utf-8": len(string(line)), "utf-16": len(utf16.Encode(line)), "utf-32": len(line)}[tc.want]
				want[f.Rule+" "+f.Path] = fmt.Sprintf("%d:%d", f.Line-1, col)
			}
			diags := c.open("file:///cards/a2a-astral.json", text)
			if len(diags) != len(want) {
				t.Fatalf("%d diagnostics, the CLI reports %d", len(diags), len(want))
			}
			for _, d := range diags {
				key := d.Code + " " + d.Data.Path
				if got := fmt.Sprintf("%d:%d", d.Range.Start.Line, d.Range.Start.Character); got != want[key] {
					t.Errorf("%s at %s in %s, want %s", key, got, tc.want, want[key])
				}
			}
			// A position in the client's encoding finds the member under
			// it: past two emoji, "description" on the line they are on.
			card := `{"name": "😀😀", "description": "d", "version": "1.0.0",` +
				` "supportedInterfaces": [{"url": "https://a.example/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],` +
				` "capabilities": {}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],` +
				` "skills": [{"id": "s", "name": "s", "description": "d", "tags": ["t"]}]}`
			c.open("file:///cards/hover.json", card)
			prefix := []rune(card[:strings.Index(card, `"description"`)+2])
			col := map[string]int{"utf-8": len(string(prefix)), "utf-16": len(utf16.Encode(prefix)), "utf-32": len(prefix)}[tc.want]
			h := c.hover("file:///cards/hover.json", Position{Line: 0, Character: col})
			if h == nil || !strings.Contains(h.Contents.Value, "**description**") {
				t.Errorf("no hover on description at column %d in %s: %+v", col, tc.want, h)
			}
		})
	}
}
