package cardhttp

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
)

// TestMiddleware_FramingConflict: a request that arrives with both
// Content-Length and Transfer-Encoding (a server other than net/http may
// hand both on) is the shape of request smuggling; it gets 400 and
// Connection: close, on any path and method, and never reaches the
// handler. A chunked request without Content-Length is judged as usual.
func TestMiddleware_FramingConflict(t *testing.T) {
	card := readTestdata(t, "valid.json")
	for _, c := range []struct {
		name          string
		method, path  string
		contentLength bool
		want          int
	}{
		{"card path", http.MethodPost, "/agents", true, http.StatusBadRequest},
		{"another path", http.MethodGet, "/metrics", true, http.StatusBadRequest},
		{"chunked alone", http.MethodPost, "/agents", false, http.StatusNoContent},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest(c.method, c.path, bytes.NewReader(card))
			r.Header.Set("Content-Type", MediaType)
			r.TransferEncoding = []string{"chunked"}
			r.ContentLength = -1
			if c.contentLength {
				r.Header.Set("Content-Length", strconv.Itoa(len(card)))
			}
			h := &recordingHandler{}
			rec := httptest.NewRecorder()
			mustMiddleware(t)(h).ServeHTTP(rec, r)
			if rec.Code != c.want {
				t.Fatalf("status %d, want %d; body %s", rec.Code, c.want, rec.Body)
			}
			if c.want != http.StatusBadRequest {
				return
			}
			if h.called {
				t.Error("the handler was called")
			}
			if got := rec.Header().Get("Connection"); got != "close" {
				t.Errorf("Connection: %q, want close", got)
			}
			p := decodeProblem(t, rec.Result(), rec.Body.Bytes())
			if p.Detail != errFramingConflict.Error() {
				t.Errorf("detail %q", p.Detail)
			}
		})
	}
}
