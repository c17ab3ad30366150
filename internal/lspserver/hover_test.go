package lspserver

import (
	"slices"
	"strings"
	"testing"
)

// position is the LSP position of the first byte of needle in text (whose
// lines here hold ASCII only, so bytes and UTF-16 units agree).
func position(t *testing.T, text, needle string, into int) Position {
	t.Helper()
	i := strings.Index(text, needle)
	if i < 0 {
		t.Fatalf("%q is not in the card", needle)
	}
	i += into
	line := strings.Count(text[:i], "\n")
	return Position{Line: line, Character: i - (strings.LastIndex(text[:i], "\n") + 1)}
}

func (c *client) hover(uri string, at Position) *hover {
	c.t.Helper()
	var h *hover
	c.call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": at}, &h)
	return h
}

func (c *client) complete(uri string, at Position) completionList {
	c.t.Helper()
	var l completionList
	c.call("textDocument/completion", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": at}, &l)
	return l
}

func labels(l completionList) []string {
	var names []string
	for _, it := range l.Items {
		names = append(names, it.Label)
	}
	return names
}

const a2a10Card = `{
  "name": "Ledger",
  "description": "Summarises ledgers.",
  "version": "2.4.1",
  "supportedInterfaces": [
    {"url": "https://ledger.example.org/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
  ],
  "capabilities": {},
  "defaultInputModes": ["text/plain"],
  "defaultOutputModes": ["text/plain"],
  "skills": [{"id": "summarise", "name": "Summarise", "description": "Summarises.", "tags": ["ledger"]}]
}
`

const ma2dTestCard = `{
  "name": "weather-assistant",
  "version": "1.0.0",
  "skills": []
}
`

func TestHover_Member(t *testing.T) {
	for _, tc := range []struct {
		name, profile, card, key string
		want                     []string // in the hover's text
	}{
		{"a2a 1.0 wording", "a2a/1.0", a2a10Card, `"protocolBinding"`,
			[]string{"**protocolBinding** (required)", "The protocol binding supported at this URL."}},
		{"a2a 1.0 root", "a2a/1.0", a2a10Card, `"version"`,
			[]string{"**version** (required)", "The version of the agent."}},
		{"ma2d", "ma2d", ma2dTestCard, `"name"`,
			[]string{"**name** (required) \u2014 ma2d", "Agent identifier, must be unique within organization."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(t, Config{Profile: tc.profile, MaxDocument: DefaultMaxDocument})
			uri := "file:///cards/card.json"
			c.open(uri, tc.card)
			at := position(t, tc.card, tc.key, 2)
			h := c.hover(uri, at)
			if h == nil {
				t.Fatalf("no hover on %s", tc.key)
			}
			for _, w := range tc.want {
				if !strings.Contains(h.Contents.Value, w) {
					t.Errorf("hover on %s lacks %q:\n%s", tc.key, w, h.Contents.Value)
				}
			}
			start := position(t, tc.card, tc.key, 0)
			if h.Range == nil || h.Range.Start != start || h.Range.End.Character != start.Character+len(tc.key) {
				t.Errorf("hover range %+v, want the key at %+v", h.Range, start)
			}
		})
	}
}

func TestHover_Finding(t *testing.T) {
	c := newClient(t, Config{Profile: "ma2d", MaxDocument: DefaultMaxDocument})
	uri := "file:///cards/card.json"
	c.open(uri, ma2dTestCard)
	h := c.hover(uri, position(t, ma2dTestCard, "[]", 1))
	if h == nil {
		t.Fatal("no hover on the empty skills")
	}
	for _, w := range []string{"**ma2d.skills**", "```text\n"} {
		if !strings.Contains(h.Contents.Value, w) {
			t.Errorf("hover on the finding lacks %q:\n%s", w, h.Contents.Value)
		}
	}
}

func TestCompletion_Members(t *testing.T) {
	for _, tc := range []struct {
		name, profile, card, after string
		want, not                  []string
	}{
		// After the opening brace of the card: the root's members.
		{"ma2d root", "ma2d", ma2dTestCard, "{\n", []string{"name", "description", "skills", "author"}, nil},
		{"a2a 1.0 interface", "a2a/1.0", a2a10Card, `[
    {`, []string{"url", "protocolBinding", "protocolVersion", "tenant"}, []string{"skills"}},
		{"a2a 1.0 root", "a2a/1.0", a2a10Card, "{\n", []string{"supportedInterfaces", "signatures"}, []string{"id", "protocolBinding"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(t, Config{Profile: tc.profile, MaxDocument: DefaultMaxDocument})
			uri := "file:///cards/card.json"
			c.open(uri, tc.card)
			got := labels(c.complete(uri, position(t, tc.card, tc.after, len(tc.after))))
			for _, w := range tc.want {
				if !slices.Contains(got, w) {
					t.Errorf("completion lacks %q: %v", w, got)
				}
			}
			for _, n := range tc.not {
				if slices.Contains(got, n) {
					t.Errorf("completion offers %q, which the release does not define: %v", n, got)
				}
			}
		})
	}
}

func TestCompletion_EnumValues(t *testing.T) {
	card := `{"agent_id":"01J0T5Y7ZK3M8Q2R4S6V9W1X3Y","name":"Ledger","version":"2.4.1","capabilities":[{"id":"ledger.summarise","description":"Summarises ledgers."}],"endpoint":{"protocol":"","url":"https://ledger.example.org/agent"}}`
	c := newClient(t, Config{Profile: "agentcard", MaxDocument: DefaultMaxDocument})
	uri := "file:///cards/card.json"
	c.open(uri, card)
	l := c.complete(uri, position(t, card, `"protocol":""`, len(`"protocol":"`)))
	// draft-aevum-agentcard-00 section 2.5.1 lists the protocols.
	if got, want := labels(l), []string{"http", "https", "grpc", "stdio", "mcp"}; !slices.Equal(got, want) {
		t.Errorf("protocol values %v, want %v", got, want)
	}
}

// TestHover_FindingCardTextInert: the card text a finding quotes is
// shown as text in the hover's markdown: a link, an image, emphasis or a
// code fence in it renders as the characters written, not as markup
// speaking for cardscan.
func TestHover_FindingCardTextInert(t *testing.T) {
	card := strings.Replace(a2a10Card, `"https://ledger.example.org/a2a"`,
		"\"ledger [verified by cardscan](https://evil.example) ![x](https://evil.example/t.png) <img src=x> **ok** ```\"", 1)
	c := newClient(t, Config{Profile: "a2a/1.0", MaxDocument: DefaultMaxDocument})
	uri := "file:///cards/card.json"
	c.open(uri, card)
	h := c.hover(uri, position(t, card, `"ledger [`, 1))
	if h == nil || !strings.Contains(h.Contents.Value, "**a2a.url**") {
		t.Fatalf("no hover on the url's finding: %+v", h)
	}
	msg, _, _ := strings.Cut(h.Contents.Value, "\n")
	for _, bad := range []string{"[verified by cardscan](", "![x](", "<img", " **ok**", "```"} {
		if strings.Contains(msg, bad) {
			t.Errorf("the finding's line holds %q as markup:\n%s", bad, msg)
		}
	}
	// Every ASCII punctuation character is escaped, ':' too, so that not
	// even a bare URL is made a link.
	if !strings.Contains(msg, `\[verified by cardscan\]\(https\:\/\/evil\.example\)`) {
		t.Errorf("want the card text escaped, got:\n%s", msg)
	}
}
