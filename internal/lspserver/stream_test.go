package lspserver

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cardscan/cardscan/internal/cmderr"
)

// serveRaw runs a session over pipes with a --max-message of maxMessage,
// and returns the client's end, what the server writes, and its exit
// status once it ends.
func serveRaw(t *testing.T, maxMessage int64) (io.WriteCloser, *syncBuffer, chan error) {
	t.Helper()
	in, toServer := io.Pipe()
	fromServer, out := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Serve(t.Context(), Config{MaxDocument: 1 << 10}, in, out, maxMessage)
		out.Close()
	}()
	got := &syncBuffer{}
	go func() { _, _ = io.Copy(got, fromServer) }()
	t.Cleanup(func() { toServer.Close() })
	return toServer, got, done
}

// TestDeclaredLengthOverTheLimit: a header declaring more than
// --max-message is refused when read, with an answer saying so, before
// any buffer of that size is taken. The framing reserved the declared
// length (up to 1 GiB) and then waited for the body.
func TestDeclaredLengthOverTheLimit(t *testing.T) {
	for _, declared := range []string{"1073741823", "2147483648", "99999999999999999999999", strings.Repeat("9", 3000)} {
		toServer, got, done := serveRaw(t, 1<<12)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := io.WriteString(toServer, "Content-Length: "+declared+"\r\n\r\n{"); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-done:
			if status := cmderr.Status(err); status != 3 || !strings.Contains(fmt.Sprint(err), "Content-Length") {
				t.Errorf("Content-Length %s: exit status %d, %v; want 3 and an error naming the Content-Length", declared, status, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("Content-Length %s: the session waits for the body of a message over --max-message", declared)
		}
		runtime.ReadMemStats(&after)
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
			t.Errorf("Content-Length %s: allocated %d MiB", declared, grew>>20)
		}
		want := `"id":null,"error":{"code":-32600,"message":"a message of ` + declared[:min(len(declared), 40)] + ` bytes (Content-Length) is larger than --max-message 4KiB`
		if s := got.waitFor(want); !strings.Contains(s, want) {
			t.Errorf("Content-Length %s: the server wrote %q; want %s", declared, s, want)
		}
	}
}

// TestBadHeaders: a header block that cannot be read ends the session
// with an error naming what was wrong; one the framing allows goes on.
func TestBadHeaders(t *testing.T) {
	body := `{"jsonrpc":"2.0","id":1,"method":"no/such","params":{}}`
	for _, tc := range []struct{ head, want string }{
		{"Content-Length: -5\r\n\r\n", "Content-Length"},
		{"Content-Length: +5\r\n\r\n", "Content-Length"},
		{"Content-Length: 5\r\nContent-Length: 6\r\n\r\n", "Content-Length"},
		{"Content-Length\r\n\r\n", "header"},
		{"Content-Type: application/vscode-jsonrpc\r\n\r\n", "no Content-Length"},
		{"X-Long: " + strings.Repeat("a", 64<<10) + "\r\n\r\n", "header"},
		{strings.Repeat("X-Repeated: a\r\n", 2000) + "Content-Length: 5\r\n\r\n", "block is longer than 16384 bytes"},
	} {
		toServer, _, done := serveRaw(t, 1<<20)
		go func() { _, _ = io.WriteString(toServer, tc.head+body) }()
		select {
		case err := <-done:
			if status := cmderr.Status(err); status != 3 || !strings.Contains(fmt.Sprint(err), tc.want) {
				t.Errorf("%.40q: exit status %d, %v; want 3 and an error naming %s", tc.head, status, err, tc.want)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("%.40q: the session goes on", tc.head)
		}
	}
	for _, head := range []string{
		"content-length: " + itoa(len(body)) + "\n\n",
		"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length:" + itoa(len(body)) + "\r\n\r\n",
	} {
		toServer, got, _ := serveRaw(t, 1<<20)
		if _, err := io.WriteString(toServer, head+body); err != nil {
			t.Fatal(err)
		}
		want := `"id":1,"error":{"code":-32002` // before initialize
		if s := got.waitFor(want); !strings.Contains(s, want) {
			t.Errorf("%q: the server wrote %q; want %s", head, s, want)
		}
	}
}

// syncBuffer is a bytes.Buffer written by one goroutine and read by
// another.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// waitFor returns what was written once it holds want, or after 10 s.
func (b *syncBuffer) waitFor(want string) string {
	deadline := time.Now().Add(10 * time.Second)
	for {
		b.mu.Lock()
		s := b.buf.String()
		b.mu.Unlock()
		if strings.Contains(s, want) || time.Now().After(deadline) {
			return s
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestLifecycle holds the session to the LSP specification's order
// (section "Lifecycle Messages"): a request before initialize gets
// -32002 and a notification then is dropped; initialize is answered once;
// after shutdown a request gets -32600 (InvalidRequest); exit then ends
// the session with status 0. Requests were answered in any state.
func TestLifecycle(t *testing.T) {
	toServer, got, done := serveRaw(t, 1<<20)
	frame := func(body string) {
		t.Helper()
		if _, err := io.WriteString(toServer, "Content-Length: "+itoa(len(body))+"\r\n\r\n"+body); err != nil {
			t.Fatal(err)
		}
	}
	expect := func(want string) {
		t.Helper()
		if s := got.waitFor(want); !strings.Contains(s, want) {
			t.Fatalf("the server wrote %q; want %s in it", s, want)
		}
	}
	frame(`{"jsonrpc":"2.0","id":1,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///a.json"},"position":{"line":0,"character":0}}}`)
	expect(`"id":1,"error":{"code":-32002`)
	frame(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///early.json","languageId":"json","version":1,"text":"{}"}}}`)
	frame(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"capabilities":{}}}`)
	expect(`"id":2,"result":{`)
	// A null id, which JSON-RPC readers take for a request or for a
	// notification: it was run as a notification, its answer dropped.
	frame(`{"jsonrpc":"2.0","id":null,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///a.json"},"position":{"line":0,"character":0}}}`)
	expect(`"id":null,"error":{"code":-32600,"message":"invalid request: id must not be null`)
	frame(`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"capabilities":{}}}`)
	expect(`"id":3,"error":{"code":-32600`)
	frame(`{"jsonrpc":"2.0","id":4,"method":"shutdown"}`)
	expect(`"id":4,"result":null`)
	frame(`{"jsonrpc":"2.0","id":5,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///a.json"},"position":{"line":0,"character":0}}}`)
	expect(`"id":5,"error":{"code":-32600`)
	frame(`{"jsonrpc":"2.0","method":"exit"}`)
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after shutdown: %v, want status 0", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("exit did not end the session")
	}
	got.mu.Lock()
	defer got.mu.Unlock()
	if s := got.buf.String(); strings.Contains(s, "early.json") {
		t.Errorf("a document opened before initialize was judged: %s", s)
	}
}

// TestMessageAtTheLimit: a message of exactly --max-message bytes behind
// a header block near its bound is read whole, twice in a row.
func TestMessageAtTheLimit(t *testing.T) {
	const maxMessage = 1 << 12
	toServer, got, _ := serveRaw(t, maxMessage)
	head := `{"jsonrpc":"2.0","id":%d,"method":"no/such","params":{"pad":"`
	for id := 1; id <= 2; id++ {
		body := fmt.Sprintf(head, id)
		body += strings.Repeat("x", maxMessage-len(body)-3) + `"}}`
		fields := strings.Repeat("X-Pad: "+strings.Repeat("p", 90)+"\r\n", (maxHeader-40)/99)
		go func() { _, _ = io.WriteString(toServer, fields+"Content-Length: "+itoa(len(body))+"\r\n\r\n"+body) }()
		want := fmt.Sprintf(`"id":%d,"error":{"code":-32002`, id)
		if s := got.waitFor(want); !strings.Contains(s, want) {
			t.Fatalf("message %d of --max-message bytes: the server wrote %.300q; want %s", id, s, want)
		}
	}
}
