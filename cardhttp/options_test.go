package cardhttp

import (
	"bytes"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/fastvalidate"
)

// A card with a plain-http endpoint (a warning by default, an error under
// the production policy) and a nesting depth of 4.
const httpEndpointCard = `{"agent_id":"01J0T5Y7ZK3M8Q2R4S6V9W1X3Y","name":"Ledger","version":"2.4.1",` +
	`"capabilities":[{"id":"ledger.summarise","description":"Summarises ledgers.","x":{"y":{}}}],` +
	`"endpoint":{"protocol":"http","url":"http://ledger.example.org/agent"}}`

// TestWithValidatorOptions requires the validator's options to reach the
// validators of both Middleware and ModifyResponse: the card passes as it
// is, and fails under the production policy or a nesting limit of 3.
func TestWithValidatorOptions(t *testing.T) {
	for _, tc := range []struct {
		name      string
		opts      []Option
		wantValid bool
		wantRule  string
	}{
		{"defaults", nil, true, ""},
		{"policy", []Option{WithValidatorOptions(fastvalidate.WithPolicy(fastvalidate.PolicyProduction))}, false, "endpoint.insecure"},
		{"max depth", []Option{WithValidatorOptions(fastvalidate.WithMaxDepth(3))}, false, "json.depth"},
		{"calls add up", []Option{
			WithValidatorOptions(fastvalidate.WithMaxDepth(3)),
			WithValidatorOptions(fastvalidate.WithPolicy(fastvalidate.PolicyProduction)),
		}, false, "json.depth"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := append([]Option{WithProfile("agentcard")}, tc.opts...)

			h := &recordingHandler{}
			rec := httptest.NewRecorder()
			mustMiddleware(t, opts...)(h).ServeHTTP(rec, post(strings.NewReader(httpEndpointCard), MediaType))
			if h.called != tc.wantValid {
				t.Fatalf("middleware: handler called %v, status %d, body %s", h.called, rec.Code, rec.Body)
			}
			if !tc.wantValid {
				p := decodeProblem(t, rec.Result(), rec.Body.Bytes())
				if rec.Code != http.StatusUnprocessableEntity || len(p.Errors) == 0 || p.Errors[0].Rule != tc.wantRule {
					t.Errorf("middleware: status %d, errors %v; want 422 and %s", rec.Code, p.Errors, tc.wantRule)
				}
			}

			front := proxyTo(t, map[string]upstreamReply{
				"/.well-known/agentcard": {status: http.StatusOK, body: []byte(httpEndpointCard)},
			}, opts...)
			resp, body := fetchRaw(t, front+"/.well-known/agentcard")
			switch {
			case tc.wantValid && (resp.StatusCode != http.StatusOK || !bytes.Equal(body, []byte(httpEndpointCard))):
				t.Errorf("proxy: status %d, body %s; want the card", resp.StatusCode, body)
			case !tc.wantValid:
				p := decodeProblem(t, resp, body)
				if resp.StatusCode != http.StatusBadGateway || len(p.Errors) == 0 || p.Errors[0].Rule != tc.wantRule {
					t.Errorf("proxy: status %d, errors %v; want 502 and %s", resp.StatusCode, p.Errors, tc.wantRule)
				}
			}
		})
	}
}

// An option chosen at run time is often nil when not wanted: both
// constructors skip it rather than calling it.
func TestOptions_NilSkipped(t *testing.T) {
	var none Option
	for name, build := range map[string]func() error{
		"Middleware":     func() error { _, err := Middleware(none, WithProfile("agentcard")); return err },
		"ModifyResponse": func() error { _, err := ModifyResponse(WithProfile("agentcard"), none); return err },
	} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s with a nil option panics: %v", name, r)
				}
			}()
			if err := build(); err != nil {
				t.Errorf("%s with a nil option: %v", name, err)
			}
		}()
	}
}

// Middleware reads its methods, paths and types on every request; a
// caller that reuses the slices it passed must not change what is checked.
func TestOptions_KeepTheirOwnSlices(t *testing.T) {
	methods, paths, types := []string{"POST"}, []string{"/agents"}, []string{"text/plain"}
	check := mustMiddleware(t, WithMethods(methods...), WithPaths(paths...), WithContentTypes(types...))
	methods[0], paths[0], types[0] = "GET", "/other", "text/csv"
	r := httptest.NewRequest(http.MethodPost, "/agents", strings.NewReader(`{}`))
	r.Header.Set("Content-Type", "text/plain")
	h := &recordingHandler{}
	rec := httptest.NewRecorder()
	check(h).ServeHTTP(rec, r)
	if rec.Code != http.StatusUnprocessableEntity || h.called {
		t.Errorf("a POST of an invalid text/plain card to /agents got %d (handler called %v), want 422", rec.Code, h.called)
	}
}

// A cap as large as an int64 holds ("no practical limit") must let a body
// of unknown length through, not overflow into refusing every one.
func TestWithMaxBytes_Largest(t *testing.T) {
	card := readTestdata(t, "valid.json")
	r := post(onlyReader{bytes.NewReader(card)}, MediaType)
	r.ContentLength = -1
	h := &recordingHandler{}
	rec := httptest.NewRecorder()
	mustMiddleware(t, WithMaxBytes(math.MaxInt64))(h).ServeHTTP(rec, r)
	if !h.called || !bytes.Equal(h.body, card) {
		t.Fatalf("a valid card of unknown length under the largest cap got %d: %s", rec.Code, rec.Body)
	}
}

// Middleware and ModifyResponse fail as fastvalidate.New does, for a
// validator option it refuses as for an unknown profile.
func TestOptions_RefusedValidatorOption(t *testing.T) {
	bad := WithValidatorOptions(fastvalidate.WithSeverity(fastvalidate.CodeJSONSyntax, fastvalidate.SeverityOff))
	if _, err := Middleware(bad); !errors.Is(err, fastvalidate.ErrOverride) {
		t.Errorf("Middleware: error %v, want one wrapping ErrOverride", err)
	}
	if _, err := ModifyResponse(bad); !errors.Is(err, fastvalidate.ErrOverride) {
		t.Errorf("ModifyResponse: error %v, want one wrapping ErrOverride", err)
	}
}

// A list of methods or paths read from configuration may come empty, as
// nil or as an empty slice alike; neither may switch the checks off.
func TestOptions_EmptyListsKeepTheDefault(t *testing.T) {
	for name, opt := range map[string]Option{
		"WithMethods()":           WithMethods(),
		"WithMethods(empty...)":   WithMethods([]string{}...),
		"WithPaths(empty...)":     WithPaths([]string{}...),
		"WithContentTypes(empty)": WithContentTypes([]string{}...),
	} {
		r := httptest.NewRequest(http.MethodPost, "/agents", strings.NewReader(`{}`))
		r.Header.Set("Content-Type", MediaType)
		h := &recordingHandler{}
		rec := httptest.NewRecorder()
		mustMiddleware(t, opt)(h).ServeHTTP(rec, r)
		if rec.Code != http.StatusUnprocessableEntity || h.called {
			t.Errorf("%s: an invalid card posted got %d (handler called %v), want 422", name, rec.Code, h.called)
		}
	}
}
