package lspserver

import (
	"strings"
	"testing"

	"github.com/cardscan/cardscan/internal/visible"
)

// TestHiddenCardTextShown: a diagnostic's message and a hover quote card
// text, which may hold characters a reader does not see or that reorder
// the line they are on (a U+202E RIGHT-TO-LEFT OVERRIDE, a zero-width
// space). Every other output of cardscan writes them as their code points
// (<U+202E>); the editor's were written raw.
func TestHiddenCardTextShown(t *testing.T) {
	card := "{\"agent_id\": \"\u202eX\u200b\"}"
	c := newClient(t, Config{Profile: "agentcard", MaxDocument: DefaultMaxDocument})
	uri := "file:///cards/card.json"
	diags := c.open(uri, card)
	var quoted int
	for _, d := range diags {
		if visible.Has(d.Message) {
			t.Errorf("%s: hidden characters in the message %q", d.Code, d.Message)
		}
		if strings.Contains(d.Message, "<U+202E>") {
			quoted++
		}
	}
	if quoted == 0 {
		t.Fatalf("no diagnostic quotes the card's U+202E as <U+202E>: %+v", diags)
	}
	h := c.hover(uri, position(t, card, "\u202eX", 1))
	if h == nil || !strings.Contains(h.Contents.Value, "agent_id.format") {
		t.Fatalf("no hover on the agent_id finding: %+v", h)
	}
	if visible.Has(h.Contents.Value) || !strings.Contains(h.Contents.Value, `\<U\+202E\>`) {
		t.Errorf("hover: want <U+202E> as escaped markdown, got %q", h.Contents.Value)
	}
}
