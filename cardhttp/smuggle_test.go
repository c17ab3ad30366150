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

// TestMiddleware_RepeatedHeaderLines: Content-Type names one type (RFC
// 9110, section 8.3), so a card request with two Content-Type lines is
// refused with 400 and never reaches the handler: reading the first, as
// net/http's Header.Get does, would judge one type while a proxy or
// handler that reads the last sees another. Content-Encoding is a list
// (section 8.4), so its lines are read together: "identity" then "gzip"
// is gzip after identity, one coding more than the middleware decodes.
func TestMiddleware_RepeatedHeaderLines(t *testing.T) {
	card := readTestdata(t, "valid.json")
	for _, c := range []struct {
		name     string
		types    []string
		encoding []string
		want     int
	}{
		{"two types, JSON first", []string{MediaType, "text/plain"}, nil, http.StatusBadRequest},
		{"two types, JSON last", []string{"text/plain", MediaType}, nil, http.StatusBadRequest},
		{"the same type twice", []string{MediaType, MediaType}, nil, http.StatusBadRequest},
		{"identity then gzip", []string{MediaType}, []string{"identity", "gzip"}, http.StatusUnsupportedMediaType},
		{"one of each", []string{MediaType}, []string{"identity"}, http.StatusNoContent},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/agents", bytes.NewReader(card))
			r.Header["Content-Type"] = c.types
			if c.encoding != nil {
				r.Header["Content-Encoding"] = c.encoding
			}
			h := &recordingHandler{}
			rec := httptest.NewRecorder()
			mustMiddleware(t)(h).ServeHTTP(rec, r)
			if rec.Code != c.want {
				t.Fatalf("status %d, want %d; body %s", rec.Code, c.want, rec.Body)
			}
			if c.want != http.StatusNoContent && h.called {
				t.Error("the handler was called")
			}
		})
	}
}
