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
	// Each holds its text, its URI and the file path made of it.
	want, held := 0, 0
	for held+len(text)+2*len(uri(want))-len("file://") <= 64<<10 {
		held += len(text) + 2*len(uri(want)) - len("file://")
		want++
	}
	if kept != want {
		t.Errorf("kept %d documents of %d bytes under --max-document 1KiB; want %d", kept, len(text), want)
	}
	// Closing one makes room.
	c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri(0)}})
	c.nextDiagnostics()
	if diags := c.open(uri(0), text); len(diags) == 1 && strings.Contains(diags[0].Message, "the open documents hold") {
		t.Errorf("a document after one closed: %v", diags)
	}
	// In number: small documents past maxDocuments, once the large
	// ones closed.
	for i := range kept {
		c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri(i)}})
		c.nextDiagnostics()
	}
	for i := range maxDocuments {
		c.open(fmt.Sprintf("file:///small/%d.json", i), "{}")
	}
	if diags := c.open("file:///small/last.json", "{}"); len(diags) != 1 || !strings.Contains(diags[0].Message, "documents open") {
		t.Errorf("a document past %d open: %v; want one diagnostic saying it is not kept", maxDocuments, diags)
	}
}

// TestLongURIsCountAgainstTheBound: a document's URI (and the file path
// made of it) are held as long as it is open, so they count against the
// bytes the open documents may hold. Only the text counted, so a client
// could keep 4,096 documents of empty text under URIs of up to
// --max-message bytes each: gigabytes.
func TestLongURIsCountAgainstTheBound(t *testing.T) {
	c := newClient(t, Config{MaxDocument: 1 << 10}) // the documents hold 64 KiB
	long := func(i int) string { return fmt.Sprintf("file:///%d/%s.json", i, strings.Repeat("u", 8<<10)) }
	kept := 0
	for i := range 20 {
		diags := c.open(long(i), "{}")
		if len(diags) == 1 && strings.Contains(diags[0].Message, "the open documents hold") {
			break
		}
		kept++
	}
	if kept == 0 || kept*len(long(0)) > 64<<10 {
		t.Errorf("kept %d documents under URIs of %d bytes; want at least one, and their URIs within 64 KiB", kept, len(long(0)))
	}
	// Closing them gives their bytes back.
	for i := range kept {
		c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": long(i)}})
		c.nextDiagnostics()
	}
	if diags := c.open(long(99), "{}"); len(diags) == 1 && strings.Contains(diags[0].Message, "the open documents hold") {
		t.Errorf("a document after the others closed: %v", diags)
	}
}
