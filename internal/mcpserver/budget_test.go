package mcpserver_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/cardscan/cardscan/internal/mcpserver"
)

// validateMessage is a validate_card call of about size bytes.
func validateMessage(size int) string {
	head := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"validate_card","arguments":{"card":{"name":"`
	tail := `"}}}}`
	return head + strings.Repeat("x", size-len(head)-len(tail)) + tail
}

// TestHTTPBodiesInFlightBounded: the SDK decodes a message several times
// over, so a request holds several times its body while it is served;
// counting requests alone (4 * --max-inflight at once) let a flood of
// messages near --max-message hold gigabytes. The bodies of the requests
// served at once are bounded in bytes too, to --max-inflight messages of
// --max-message: past that a request gets 503 before its body is read,
// and small ones still get through.
func TestHTTPBodiesInFlightBounded(t *testing.T) {
	const maxMessage = 64 << 10
	cfg := mcpserver.Config{MaxMessage: maxMessage, MaxInflight: 1}
	srv := httptest.NewServer(mcpserver.NewHTTPHandler(mcpserver.New(cfg), &cfg))
	defer srv.Close()

	// A request that holds most of the budget: its body comes half now,
	// the rest when the test says.
	big := validateMessage(maxMessage - 4<<10)
	pr, pw := io.Pipe()
	req, _ := http.NewRequest("POST", srv.URL+mcpserver.Endpoint, pr)
	req.ContentLength = int64(len(big))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	held := make(chan int, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			held <- 0
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		held <- resp.StatusCode
	}()
	if _, err := io.WriteString(pw, big[:len(big)/2]); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // the server is reading it

	resp, body := postMCP(t, srv.URL, validateMessage(maxMessage-4<<10), nil)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a second large message while the first is read: status %d (%.200s), want 503 with Retry-After", resp.StatusCode, body)
	}
	small := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"explain_rule","arguments":{"rule":"field.required"}}}`
	if resp, body := postMCP(t, srv.URL, small, nil); resp.StatusCode != http.StatusOK {
		t.Errorf("a small message while the first is read: status %d (%.200s), want 200", resp.StatusCode, body)
	}

	io.WriteString(pw, big[len(big)/2:])
	pw.Close()
	if code := <-held; code != http.StatusOK {
		t.Fatalf("the held request: status %d", code)
	}
	// Its bytes are given back.
	if resp, body := postMCP(t, srv.URL, validateMessage(maxMessage-4<<10), nil); resp.StatusCode != http.StatusOK {
		t.Errorf("a large message after the first was served: status %d (%.200s)", resp.StatusCode, body)
	}
	// A body without a Content-Length is read as it comes, within
	// --max-message.
	for _, tc := range []struct {
		size int
		want int
	}{{maxMessage - 4<<10, http.StatusOK}, {maxMessage + 1, http.StatusRequestEntityTooLarge}} {
		req, _ := http.NewRequest("POST", srv.URL+mcpserver.Endpoint, io.MultiReader(strings.NewReader(validateMessage(tc.size))))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.want || tc.want == http.StatusRequestEntityTooLarge && !strings.Contains(string(b), "--max-message 64KiB") {
			t.Errorf("a chunked message of %d bytes: status %d (%.200s), want %d (naming --max-message)", tc.size, resp.StatusCode, b, tc.want)
		}
	}
	// A Content-Length over --max-message is refused before the body is
	// read, naming both.
	resp, body = postMCP(t, srv.URL, validateMessage(maxMessage+1), nil)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), fmt.Sprintf("a message of %d bytes is larger than --max-message 64KiB", maxMessage+1)) {
		t.Errorf("a message over --max-message: status %d (%.200s), want 413 naming the limit", resp.StatusCode, body)
	}
}

// TestHTTPDeclaredBytesAreNotHeld: a request holds of the budget the bytes
// it has sent, not those its Content-Length declares: taken up front, a
// client declaring --max-message and sending nothing held the budget of a
// whole message until the read timeout, and --max-inflight of them
// turned every other request away.
func TestHTTPDeclaredBytesAreNotHeld(t *testing.T) {
	const maxMessage = 64 << 10
	cfg := mcpserver.Config{MaxMessage: maxMessage, MaxInflight: 1}
	srv := httptest.NewServer(mcpserver.NewHTTPHandler(mcpserver.New(cfg), &cfg))
	defer srv.Close()
	pr, pw := io.Pipe()
	defer pw.Close()
	req, _ := http.NewRequest("POST", srv.URL+mcpserver.Endpoint, pr)
	req.ContentLength = maxMessage
	req.Header.Set("Content-Type", "application/json")
	go func() {
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	io.WriteString(pw, `{"jsonrpc":"2.0",`) // and nothing more
	time.Sleep(200 * time.Millisecond)
	if resp, body := postMCP(t, srv.URL, validateMessage(maxMessage/2), nil); resp.StatusCode != http.StatusOK {
		t.Errorf("a message while another declares --max-message and sends nothing: status %d (%.200s), want 200", resp.StatusCode, body)
	}
}
