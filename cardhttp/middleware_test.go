package cardhttp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/realcards"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// problem is the decoded shape of a problem response.
type problem struct {
	Type     string    `json:"type"`
	Title    string    `json:"title"`
	Status   int       `json:"status"`
	Detail   string    `json:"detail"`
	Profile  string    `json:"profile"`
	Errors   []finding `json:"errors"`
	Warnings []finding `json:"warnings"`
}

type finding struct {
	Rule    string `json:"rule"`
	Path    string `json:"path"`
	Message string `json:"message"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
}

func decodeProblem(t *testing.T, resp *http.Response, body []byte) problem {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != ProblemMediaType {
		t.Fatalf("Content-Type = %q, want %q", ct, ProblemMediaType)
	}
	// A problem quotes the card; a browser must not sniff it as HTML.
	if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("X-Content-Type-Options = %q, want nosniff", got)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var p problem
	if err := dec.Decode(&p); err != nil {
		t.Fatalf("problem body %q: %v", body, err)
	}
	if p.Status != resp.StatusCode {
		t.Errorf("problem status %d, response status %d", p.Status, resp.StatusCode)
	}
	if p.Title != statusTitle(resp.StatusCode) || p.Type != "about:blank" || p.Detail == "" {
		t.Errorf("problem type/title/detail = %q/%q/%q", p.Type, p.Title, p.Detail)
	}
	return p
}

// expectedFindings judges card directly, for comparison with what a problem
// response lists.
func expectedFindings(t *testing.T, profile string, card []byte) (errs, warns []finding, resultProfile string) {
	t.Helper()
	res := fastvalidate.MustNew(profile).Validate(card)
	for _, f := range res.Findings() {
		// The line and column of the finding in the body, as editors
		// count them.
		before := card[:f.Offset]
		lineStart := bytes.LastIndexByte(before, '\n') + 1
		x := finding{Rule: f.Rule(), Path: f.Path, Message: f.Message(),
			Line: 1 + bytes.Count(before, []byte("\n")), Column: 1 + utf8.RuneCount(before[lineStart:])}
		if f.Severity == fastvalidate.SeverityError {
			errs = append(errs, x)
		} else {
			warns = append(warns, x)
		}
	}
	return errs, warns, res.Profile
}

// recordingHandler remembers what the wrapped handler saw.
type recordingHandler struct {
	called bool
	body   []byte
	err    error
}

func (h *recordingHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.called = true
	h.body, h.err = io.ReadAll(r.Body)
	w.WriteHeader(http.StatusNoContent)
}

func mustMiddleware(t testing.TB, opts ...Option) func(http.Handler) http.Handler {
	t.Helper()
	mw, err := Middleware(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return mw
}

func post(body io.Reader, contentType string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/agents", body)
	r.Header.Set("Content-Type", contentType)
	return r
}

// onlyReader hides bytes.Reader's length so that the request is sent with
// an unknown length, as a chunked body would be.
type onlyReader struct{ io.Reader }

func TestMiddleware_ValidCardReachesHandlerIntact(t *testing.T) {
	card := readTestdata(t, "valid.json")
	for _, tc := range []struct {
		name string
		req  *http.Request
	}{
		{"content-length", post(bytes.NewReader(card), MediaType)},
		{"unknown-length", post(onlyReader{bytes.NewReader(card)}, "application/json; charset=utf-8")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "unknown-length" {
				tc.req.ContentLength = -1
			}
			h := &recordingHandler{}
			rec := httptest.NewRecorder()
			mustMiddleware(t)(h).ServeHTTP(rec, tc.req)
			if rec.Code != http.StatusNoContent || !h.called {
				t.Fatalf("status %d, handler called %v; body %s", rec.Code, h.called, rec.Body)
			}
			if h.err != nil || !bytes.Equal(h.body, card) {
				t.Fatalf("handler read %q, %v; want the card unchanged", h.body, h.err)
			}
		})
	}
}

func TestMiddleware_InvalidCardGets422Problem(t *testing.T) {
	card := readTestdata(t, "invalid.json")
	h := &recordingHandler{}
	rec := httptest.NewRecorder()
	mustMiddleware(t, WithProfile("agentcard"))(h).ServeHTTP(rec, post(bytes.NewReader(card), MediaType))
	resp := rec.Result()
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("status %d, want 422", resp.StatusCode)
	}
	if h.called {
		t.Fatal("the next handler saw an invalid card")
	}
	p := decodeProblem(t, resp, rec.Body.Bytes())
	errs, warns, profile := expectedFindings(t, "agentcard", card)
	if len(errs) == 0 {
		t.Fatal("testdata/invalid.json is valid; the test proves nothing")
	}
	if p.Profile != profile || !equalFindings(p.Errors, errs) || !equalFindings(p.Warnings, warns) {
		t.Fatalf("problem lists profile %q errors %v warnings %v;\nwant %q %v %v", p.Profile, p.Errors, p.Warnings, profile, errs, warns)
	}
}

// A card the strict scan rejects was still judged by the middleware's
// profile, and the problem says which.
func TestMiddleware_SyntaxErrorNamesProfile(t *testing.T) {
	for _, profile := range []string{"agentcard", "a2a/1.0", "ma2d"} {
		h := &recordingHandler{}
		rec := httptest.NewRecorder()
		mustMiddleware(t, WithProfile(profile))(h).ServeHTTP(rec, post(strings.NewReader(`{"name":`), MediaType))
		resp := rec.Result()
		if resp.StatusCode != http.StatusUnprocessableEntity || h.called {
			t.Fatalf("%s: status %d, handler called %v", profile, resp.StatusCode, h.called)
		}
		p := decodeProblem(t, resp, rec.Body.Bytes())
		if want := "the agent card fails profile " + profile + ": 1 error, 0 warnings"; p.Profile != profile || p.Detail != want {
			t.Errorf("%s: problem profile %q, detail %q; want %q, %q", profile, p.Profile, p.Detail, profile, want)
		}
		if len(p.Errors) != 1 || p.Errors[0].Rule != "json.syntax" {
			t.Errorf("%s: errors %v, want one json.syntax", profile, p.Errors)
		}
	}
}

func equalFindings(a, b []finding) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func TestMiddleware_OversizedBody(t *testing.T) {
	const limit = 1000
	big := bytes.Repeat([]byte(" "), 10*limit)
	t.Run("declared length is not read", func(t *testing.T) {
		body := &countingReader{r: bytes.NewReader(big)}
		r := post(body, MediaType)
		r.ContentLength = int64(len(big))
		h := &recordingHandler{}
		rec := httptest.NewRecorder()
		mustMiddleware(t, WithMaxBytes(limit))(h).ServeHTTP(rec, r)
		if rec.Code != http.StatusRequestEntityTooLarge || h.called {
			t.Fatalf("status %d, handler called %v", rec.Code, h.called)
		}
		if body.n != 0 {
			t.Fatalf("read %d bytes of a body declared too large", body.n)
		}
		decodeProblem(t, rec.Result(), rec.Body.Bytes())
	})
	t.Run("unknown length is read only up to the cap", func(t *testing.T) {
		body := &countingReader{r: bytes.NewReader(big)}
		r := post(body, MediaType)
		r.ContentLength = -1
		h := &recordingHandler{}
		rec := httptest.NewRecorder()
		mustMiddleware(t, WithMaxBytes(limit))(h).ServeHTTP(rec, r)
		if rec.Code != http.StatusRequestEntityTooLarge || h.called {
			t.Fatalf("status %d, handler called %v", rec.Code, h.called)
		}
		if body.n > limit+1 {
			t.Fatalf("read %d bytes, want at most the cap + 1 = %d", body.n, limit+1)
		}
		if rec.Header().Get("Connection") != "close" {
			t.Error("a 413 leaves the connection open with the rest of the body unread")
		}
	})
	t.Run("exactly the cap is accepted", func(t *testing.T) {
		card := readTestdata(t, "valid.json")
		padded := append(bytes.Repeat([]byte(" "), limit-len(card)), card...)
		r := post(onlyReader{bytes.NewReader(padded)}, MediaType)
		r.ContentLength = -1
		h := &recordingHandler{}
		rec := httptest.NewRecorder()
		mustMiddleware(t, WithMaxBytes(limit))(h).ServeHTTP(rec, r)
		if rec.Code != http.StatusNoContent || !bytes.Equal(h.body, padded) {
			t.Fatalf("status %d, handler body %d bytes; want 204 and %d bytes", rec.Code, len(h.body), len(padded))
		}
	})
}

// TestMiddleware_WhichRequestsAreChecked: a request the middleware cannot
// judge is refused on a checked method and path, not passed on; JSON in all
// its names is judged.
func TestMiddleware_WhichRequestsAreChecked(t *testing.T) {
	const (
		passed  = http.StatusNoContent
		judged  = http.StatusUnprocessableEntity
		refused = http.StatusUnsupportedMediaType
	)
	notACard := []byte("not json at all")
	for _, tc := range []struct {
		name   string
		opts   []Option
		method string
		path   string
		ctype  string
		noBody bool
		want   int
	}{
		{"GET", nil, http.MethodGet, "/agents", MediaType, false, passed},
		{"PUT", nil, http.MethodPut, "/agents", MediaType, false, judged},
		{"lower-case post", nil, "post", "/agents", MediaType, false, judged},
		{"media type case and parameters", nil, http.MethodPost, "/agents", " Application/JSON ; charset=utf-8", false, judged},
		{"text/json", nil, http.MethodPost, "/agents", "text/json", false, judged},
		{"+json", nil, http.MethodPost, "/agents", "application/vnd.api+json", false, judged},
		{"text/plain", nil, http.MethodPost, "/agents", "text/plain", false, refused},
		{"curl's default form type", nil, http.MethodPost, "/agents", "application/x-www-form-urlencoded", false, refused},
		{"no content type", nil, http.MethodPost, "/agents", "", false, refused},
		{"a list of types", nil, http.MethodPost, "/agents", "application/json, text/plain", false, refused},
		{"no content type and no body", nil, http.MethodPost, "/agents", "", true, passed},
		{"text/plain, others passed", []Option{WithRejectOtherTypes(false)}, http.MethodPost, "/agents", "text/plain", false, passed},
		{"no content type, others passed", []Option{WithRejectOtherTypes(false)}, http.MethodPost, "/agents", "", false, passed},
		{"+json, others passed", []Option{WithRejectOtherTypes(false)}, http.MethodPost, "/agents", "application/vnd.api+json", false, judged},
		{"other path", []Option{WithPaths("/register")}, http.MethodPost, "/agents", "text/plain", false, passed},
		{"exact path", []Option{WithPaths("/register")}, http.MethodPost, "/register", MediaType, false, judged},
		{"exact path is not a prefix", []Option{WithPaths("/register")}, http.MethodPost, "/register/x", MediaType, false, passed},
		{"subtree", []Option{WithPaths("/agents/")}, http.MethodPost, "/agents/7", MediaType, false, judged},
		{"custom method", []Option{WithMethods("DELETE")}, http.MethodPost, "/agents", MediaType, false, passed},
		{"custom content type", []Option{WithContentTypes("application/vnd.card")}, http.MethodPost, "/agents", "application/vnd.card", false, judged},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var body io.Reader = bytes.NewReader(notACard)
			if tc.noBody {
				body = nil
			}
			r := httptest.NewRequest(tc.method, tc.path, body)
			if tc.ctype != "" {
				r.Header.Set("Content-Type", tc.ctype)
			}
			h := &recordingHandler{}
			rec := httptest.NewRecorder()
			mustMiddleware(t, tc.opts...)(h).ServeHTTP(rec, r)
			if rec.Code != tc.want {
				t.Fatalf("status %d, want %d; body %s", rec.Code, tc.want, rec.Body)
			}
			switch tc.want {
			case passed:
				if !tc.noBody && !bytes.Equal(h.body, notACard) {
					t.Fatalf("unchecked request's body reached the handler as %q", h.body)
				}
			case refused:
				decodeProblem(t, rec.Result(), rec.Body.Bytes())
				if h.called || !strings.Contains(rec.Header().Get("Accept-Post"), "application/json") {
					t.Fatalf("handler called %v, Accept-Post %q", h.called, rec.Header().Get("Accept-Post"))
				}
			}
		})
	}
}

// TestMiddleware_ContentEncoding: a gzip body is judged decoded, within the
// cap, and reaches the handler as sent; an encoding that cannot be read is
// refused, not judged as a broken card.
func TestMiddleware_ContentEncoding(t *testing.T) {
	valid := readTestdata(t, "valid.json")
	invalid := readTestdata(t, "invalid.json")
	bomb := gzipped(t, bytes.Repeat([]byte(" "), 100_000))
	for _, tc := range []struct {
		name     string
		encoding string
		body     []byte
		want     int
	}{
		{"gzip, valid", "gzip", gzipped(t, valid), http.StatusNoContent},
		{"gzip, upper case", "GZIP", gzipped(t, valid), http.StatusNoContent},
		{"gzip, invalid", "gzip", gzipped(t, invalid), http.StatusUnprocessableEntity},
		{"gzip, not gzip", "gzip", valid, http.StatusBadRequest},
		{"gzip, truncated", "gzip", gzipped(t, valid)[:40], http.StatusBadRequest},
		{"gzip, decodes past the cap", "gzip", bomb, http.StatusRequestEntityTooLarge},
		{"identity", "identity", valid, http.StatusNoContent},
		{"br", "br", valid, http.StatusUnsupportedMediaType},
		{"two codings", "gzip, br", valid, http.StatusUnsupportedMediaType},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := post(bytes.NewReader(tc.body), MediaType)
			r.Header.Set("Content-Encoding", tc.encoding)
			h := &recordingHandler{}
			rec := httptest.NewRecorder()
			mustMiddleware(t, WithProfile("agentcard"), WithMaxBytes(4096))(h).ServeHTTP(rec, r)
			if rec.Code != tc.want {
				t.Fatalf("status %d, want %d; body %s", rec.Code, tc.want, rec.Body)
			}
			if tc.want == http.StatusNoContent {
				if !bytes.Equal(h.body, tc.body) {
					t.Fatalf("the handler got %q, want the body as sent", h.body)
				}
				return
			}
			p := decodeProblem(t, rec.Result(), rec.Body.Bytes())
			if tc.want == http.StatusUnsupportedMediaType && rec.Header().Get("Accept-Encoding") == "" {
				t.Error("a 415 for an encoding without Accept-Encoding")
			}
			if tc.want == http.StatusUnprocessableEntity {
				errs, _, _ := expectedFindings(t, "agentcard", invalid)
				if !equalFindings(p.Errors, errs) {
					t.Fatalf("the gzip card's findings %v, want %v", p.Errors, errs)
				}
			}
		})
	}
}

func TestMiddleware_RejectFunc(t *testing.T) {
	var got struct {
		status int
		rules  []string
	}
	mw := mustMiddleware(t, WithProfile("agentcard"), WithRejectFunc(func(w http.ResponseWriter, r *http.Request, rej *Rejection) {
		got.status = rej.Status
		for _, f := range rej.Result.Findings() {
			got.rules = append(got.rules, f.Rule())
		}
		w.Header().Set("X-Reason", "card")
		http.Error(w, "no", http.StatusTeapot)
	}))
	card := readTestdata(t, "invalid.json")
	rec := httptest.NewRecorder()
	mw(&recordingHandler{}).ServeHTTP(rec, post(bytes.NewReader(card), MediaType))
	if rec.Code != http.StatusTeapot || rec.Header().Get("X-Reason") != "card" {
		t.Fatalf("the reject func's response was not sent: %d %v", rec.Code, rec.Header())
	}
	errs, _, _ := expectedFindings(t, "agentcard", card)
	if got.status != http.StatusUnprocessableEntity || len(got.rules) < len(errs) {
		t.Fatalf("reject func saw status %d rules %v", got.status, got.rules)
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("connection reset") }

func TestMiddleware_UnreadableBody(t *testing.T) {
	r := post(failingReader{}, MediaType)
	r.ContentLength = -1
	h := &recordingHandler{}
	rec := httptest.NewRecorder()
	mustMiddleware(t)(h).ServeHTTP(rec, r)
	if rec.Code != http.StatusBadRequest || h.called {
		t.Fatalf("status %d, handler called %v", rec.Code, h.called)
	}
	p := decodeProblem(t, rec.Result(), rec.Body.Bytes())
	if strings.Contains(p.Detail, "reset") {
		t.Errorf("detail leaks the transport error: %q", p.Detail)
	}
}

func TestMiddleware_BodyUnusableAfterHandlerReturns(t *testing.T) {
	var kept io.ReadCloser
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { kept = r.Body })
	card := readTestdata(t, "valid.json")
	mustMiddleware(t)(next).ServeHTTP(httptest.NewRecorder(), post(bytes.NewReader(card), MediaType))
	if _, err := kept.Read(make([]byte, 10)); !errors.Is(err, http.ErrBodyReadAfterClose) {
		t.Fatalf("read after the handler returned: %v, want ErrBodyReadAfterClose", err)
	}
}

func TestMiddleware_UnknownProfile(t *testing.T) {
	if _, err := Middleware(WithProfile("no-such-profile")); !errors.Is(err, fastvalidate.ErrUnknownProfile) {
		t.Fatalf("err = %v, want ErrUnknownProfile", err)
	}
}

// TestMiddleware_RealCards sends every real-world card through the
// middleware: its verdict must be the validator's, and a passing card must
// arrive unchanged.
func TestMiddleware_RealCards(t *testing.T) {
	files := realcards.Files(t)
	mw := mustMiddleware(t)
	v := fastvalidate.MustNew("auto")
	for _, f := range files {
		card, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want := v.Validate(card).Valid()
		h := &recordingHandler{}
		rec := httptest.NewRecorder()
		mw(h).ServeHTTP(rec, post(bytes.NewReader(card), MediaType))
		switch {
		case want && (rec.Code != http.StatusNoContent || !bytes.Equal(h.body, card)):
			t.Errorf("%s: valid card got %d, body intact %v", filepath.Base(f), rec.Code, bytes.Equal(h.body, card))
		case !want && rec.Code != http.StatusUnprocessableEntity:
			t.Errorf("%s: invalid card got %d", filepath.Base(f), rec.Code)
		case !want:
			decodeProblem(t, rec.Result(), rec.Body.Bytes())
		}
	}
}

// resettableBody replays one card for every request of an allocation test.
type resettableBody struct{ bytes.Reader }

func (*resettableBody) Close() error { return nil }

// TestMiddleware_CheckAllocs asserts that reading and judging a valid card
// allocates nothing once the pools are warm, with and without a declared
// length.
func TestMiddleware_CheckAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items under the race detector")
	}
	card := readTestdata(t, "valid.json")
	cfg, pool, err := newConfig(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &checker{cfg: cfg, pool: pool}
	for _, declared := range []int64{int64(len(card)), -1} {
		body := &resettableBody{}
		r := post(body, MediaType)
		r.Body = body
		r.ContentLength = declared
		step := func() {
			body.Reset(card)
			st, ok := c.check(r)
			if !ok {
				t.Fatalf("valid card rejected with %d", st.rej.Status)
			}
			putState(st)
		}
		step()
		if n := testing.AllocsPerRun(1000, step); n != 0 {
			t.Errorf("declared length %d: %v allocations per valid card, want 0", declared, n)
		}
	}
}

// echoHandler answers with the body it read, so that a test can tell
// whether each request got its own bytes.
var echoHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Write(body)
})

// TestMiddleware_ConcurrentBodiesStayApart sends many distinct cards at
// once, straight to a handler and through a reverse proxy whose transport
// reads the body: pooled buffers must never carry one request's bytes into
// another's.
func TestMiddleware_ConcurrentBodiesStayApart(t *testing.T) {
	upstream := httptest.NewServer(echoHandler)
	defer upstream.Close()
	target, _ := url.Parse(upstream.URL)
	mw := mustMiddleware(t, WithProfile("agentcard"))
	for name, next := range map[string]http.Handler{
		"handler": echoHandler,
		"proxy":   httputil.NewSingleHostReverseProxy(target),
	} {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(mw(next))
			defer srv.Close()
			base := string(readTestdata(t, "valid.json"))
			var wg sync.WaitGroup
			errs := make(chan error, 16)
			for g := range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range 40 {
						// Cards of different lengths and contents.
						card := strings.Replace(base, "Summarises a month of ledger entries.", fmt.Sprintf("Card %d-%d %s", g, i, strings.Repeat("x", (g*40+i)%600)), 1)
						resp, err := http.Post(srv.URL+"/agents", MediaType, strings.NewReader(card))
						if err != nil {
							errs <- err
							return
						}
						got, _ := io.ReadAll(resp.Body)
						resp.Body.Close()
						if resp.StatusCode != http.StatusOK || string(got) != card {
							errs <- fmt.Errorf("status %d, body %q, want the card sent", resp.StatusCode, got)
							return
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		})
	}
}

// A server that caps bodies itself, with http.MaxBytesHandler, tells the
// client its body is too large: the middleware in front of the handler
// must say so with 413, not call the body unreadable.
func TestMiddleware_ServerBodyCap(t *testing.T) {
	card := readTestdata(t, "valid.json")
	limit := int64(len(card) / 2)
	h := &recordingHandler{}
	handler := http.MaxBytesHandler(mustMiddleware(t)(h), limit)
	r := post(onlyReader{bytes.NewReader(card)}, MediaType)
	r.ContentLength = -1
	rec := httptest.NewRecorder()
	handler.ServeHTTP(rec, r)
	if rec.Code != http.StatusRequestEntityTooLarge || h.called {
		t.Fatalf("a body over the server's cap got %d (handler called %v): %s", rec.Code, h.called, rec.Body)
	}
	p := decodeProblem(t, rec.Result(), rec.Body.Bytes())
	if want := fmt.Sprintf("the body exceeds the limit of %d bytes", limit); p.Detail != want {
		t.Errorf("detail %q, want %q", p.Detail, want)
	}
}

// Wrapping a nil handler is a mistake of the program's, found when it is
// made, as http.Handle finds it, not by the first card that passes.
func TestMiddleware_NilHandler(t *testing.T) {
	check := mustMiddleware(t)
	msg := func() (msg any) {
		defer func() { msg = recover() }()
		check(nil)
		return nil
	}()
	if s, ok := msg.(string); !ok || !strings.HasPrefix(s, "cardhttp: ") {
		t.Errorf("wrapping nil panics with %v, want a cardhttp message at wrap time", msg)
	}
}
