package lspserver

import (
	"fmt"
	"strings"
	"testing"
)

// TestOpenDocumentsBounded: the documents a session keeps are bounded
// in bytes (64 times --max-document) and in number (maxDocuments); past
// either, a document is not kept and gets one diagnostic saying why,
// until others close. Each was kept up to --max-document, without end in
// their number.
func TestOpenDocumentsBounded(t *testing.T) {
	defer func(n int) { maxDocuments = n }(maxDocuments)
	maxDocuments = 100
	c := newClient(t, Config{MaxDocument: 1 << 10})
	text := `{"name":"` + strings.Repeat("a", 990) + `"}` // 1,001 bytes
	uri := func(i int) string { return fmt.Sprintf("file:///held/%d.json", i) }
	kept := 0
	for i := range 70 {
		diags := c.open(uri(i), text)
		if len(diags) == 1 && strings.Contains(diags[0].Message, "the open documents hold") {
			break
		}
		kept++
	}
	if want := 64 << 10 / len(text); kept != want {
		t.Errorf("kept %d documents of %d bytes under --max-document 1KiB; want %d", kept, len(text), want)
	}
	// Closing one makes room.
	c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri(0)}})
	c.nextDiagnostics()
	if diags := c.open(uri(0), text); len(diags) == 1 && strings.Contains(diags[0].Message, "the open documents hold") {
		t.Errorf("a document after one closed: %v", diags)
	}
	// In number: small documents past maxDocuments.
	for i := range maxDocuments {
		c.open(fmt.Sprintf("file:///small/%d.json", i), "{}")
	}
	if diags := c.open("file:///small/last.json", "{}"); len(diags) != 1 || !strings.Contains(diags[0].Message, "documents open") {
		t.Errorf("a document past %d open: %v; want one diagnostic saying it is not kept", maxDocuments, diags)
	}
}
