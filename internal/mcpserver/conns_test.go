package mcpserver

import (
	"context"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cardscan/cardscan/internal/console"
)

// TestHTTPConnectionsCapped: connections that open and send nothing (or
// a header a byte at a time) are capped at connsPerRequest times the
// requests served at once; the rest wait in the listen backlog, where
// they cost the server nothing. Uncapped, each had a goroutine and
// buffers of its own, up to a 64 KiB header each.
func TestHTTPConnectionsCapped(t *testing.T) {
	cfg := Config{MaxInflight: 2}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- serveHTTP(ctx, New(cfg), &cfg, ln, console.New(io.Discard), io.Discard) }()
	defer func() {
		cancel()
		<-served
	}()
	capped := maxConns(&cfg)
	before := runtime.NumGoroutine()
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range 300 {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte("POST /mcp HTTP/1.1\r\n"))
		conns = append(conns, c)
	}
	time.Sleep(500 * time.Millisecond)
	if grew := runtime.NumGoroutine() - before; grew > capped+16 {
		t.Errorf("300 stalled connections took %d goroutines; want at most %d connections served", grew, capped)
	}
	// Once they go, the server serves.
	for _, c := range conns {
		c.Close()
	}
	conns = nil
	rctx, rcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer rcancel()
	req, _ := http.NewRequestWithContext(rctx, "POST", "http://"+ln.Addr().String()+Endpoint,
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_rules","arguments":{}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("a request after the stalled connections closed: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("a request after the stalled connections closed: status %d", resp.StatusCode)
	}
}
