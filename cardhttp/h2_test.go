package cardhttp

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"strings"
	"testing"
	"time"
)

// h2cServer serves h over HTTP/2 without TLS, and returns a client that
// speaks only that.
func h2cServer(t *testing.T, h http.Handler) (*httptest.Server, *http.Client) {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Config.Protocols = new(http.Protocols)
	srv.Config.Protocols.SetUnencryptedHTTP2(true)
	srv.Start()
	t.Cleanup(srv.Close)
	tr := &http.Transport{Protocols: new(http.Protocols)}
	tr.Protocols.SetUnencryptedHTTP2(true)
	t.Cleanup(tr.CloseIdleConnections)
	// The timeout keeps a hung response from hanging the test.
	return srv, &http.Client{Transport: tr, Timeout: 10 * time.Second}
}

// Over HTTP/2 a body left unread costs only its stream, which the server
// resets: a 413 must not close the connection, which carries other
// clients' requests through a proxy, nor hold the handler to drain a body
// the client has stopped sending.
func TestMiddleware_HTTP2TooLargeKeepsConnection(t *testing.T) {
	// Long past the client's timeout, short enough that a server drain
	// still under way ends before the test's.
	lingerLong := func(c *config) { c.drainTimeout = 20 * time.Second }
	check := mustMiddleware(t, WithMaxBytes(64), lingerLong)
	returned := make(chan int, 4)
	srv, client := h2cServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		check(&recordingHandler{}).ServeHTTP(w, r)
		returned <- r.ProtoMajor
	}))

	var reused []bool
	post := func(body io.Reader) int {
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/agents", body)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", MediaType)
		trace := &httptrace.ClientTrace{GotConn: func(ci httptrace.GotConnInfo) { reused = append(reused, ci.Reused) }}
		resp, err := client.Do(req.WithContext(httptrace.WithClientTrace(req.Context(), trace)))
		if err != nil {
			t.Fatal(err)
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("reading the response: %v (the handler held the stream open to drain the body)", err)
		}
		if resp.ProtoMajor != 2 {
			t.Fatalf("response over %s, want HTTP/2", resp.Proto)
		}
		return resp.StatusCode
	}
	waitHandler := func() {
		t.Helper()
		select {
		case <-returned:
		case <-time.After(30 * time.Second):
			t.Fatal("the handler still drains a rejected HTTP/2 body")
		}
	}

	// A client that sends more than the cap and then stalls.
	pr, pw := io.Pipe()
	defer pw.Close()
	go pw.Write([]byte(strings.Repeat(" ", 200)))
	if code := post(pr); code != http.StatusRequestEntityTooLarge {
		t.Fatalf("oversized body: status %d, want 413", code)
	}
	waitHandler()
	if code := post(strings.NewReader(strings.Repeat(" ", 200))); code != http.StatusRequestEntityTooLarge {
		t.Fatalf("oversized body: status %d, want 413", code)
	}
	waitHandler()
	if len(reused) != 2 || !reused[1] {
		t.Fatalf("connection reuse per request %v: a 413 closed the HTTP/2 connection", reused)
	}
}
