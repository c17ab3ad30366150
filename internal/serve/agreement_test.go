package serve

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/cardhttp"

	"github.com/cardscan/cardscan/internal/mediatype/encodingtest"
)

// TestServeAndMiddlewareAgree posts the same bodies to serve and through
// cardhttp's middleware, under the same profile and cap: a refusal must be
// the same problem document byte for byte, and a judgement the same
// verdict, profile name and findings (serve's verdict object against the
// middleware's 204 or 422 problem).
func TestServeAndMiddlewareAgree(t *testing.T) {
	type req struct {
		name, ctype, encoding, body string
	}
	reqs := []req{
		{"valid", "application/json", "", validCard},
		{"invalid", "application/agentcard+json", "", invalidCard},
		{"not json", "application/json", "", "hello"},
		{"empty", "application/json", "", ""},
		{"array", "text/json", "", "[1]"},
		{"empty object", "application/vnd.api+json", "", "{}"},
		{"gzip valid", "application/json", "gzip", gzipped(t, validCard)},
		{"gzip invalid", "application/json", "gzip", gzipped(t, invalidCard)},
		{"gzip not json", "application/json", "gzip", gzipped(t, "hello")},
		{"gzip broken", "application/json", "gzip", validCard},
		{"gzip past the cap", "application/json", "gzip", gzipped(t, strings.Repeat(" ", 5000))},
		{"past the cap", "application/json", "", validCard + strings.Repeat(" ", 5000)},
		{"br", "application/json", "br", validCard},
		{"UTF-16LE with BOM", "application/json", "", string(encodingtest.Encode(validCard, 2, binary.LittleEndian, true))},
		{"UTF-16BE", "application/json", "", string(encodingtest.Encode(invalidCard, 2, binary.BigEndian, false))},
		{"gzip UTF-32LE", "application/json", "gzip", gzipped(t, string(encodingtest.Encode(validCard, 4, binary.LittleEndian, false)))},
	}
	for _, profile := range []string{"auto", "agentcard", "agentcard-schema"} {
		cfg := testConfig()
		cfg.profile = profile
		srv := newTestServer(t, cfg)
		mw, err := cardhttp.Middleware(cardhttp.WithProfile(profile), cardhttp.WithMaxBytes(cfg.maxBytes))
		if err != nil {
			t.Fatal(err)
		}
		next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
		for _, tc := range reqs {
			t.Run(profile+"/"+tc.name, func(t *testing.T) {
				sreq, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/validate", strings.NewReader(tc.body))
				mreq := httptest.NewRequest(http.MethodPost, "/agents", strings.NewReader(tc.body))
				for _, r := range []*http.Request{sreq, mreq} {
					r.Header.Set("Content-Type", tc.ctype)
					if tc.encoding != "" {
						r.Header.Set("Content-Encoding", tc.encoding)
					}
				}
				resp, err := http.DefaultClient.Do(sreq)
				if err != nil {
					t.Fatal(err)
				}
				served, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				rec := httptest.NewRecorder()
				mw(next).ServeHTTP(rec, mreq)
				checked := rec.Body.Bytes()

				if resp.StatusCode != http.StatusOK {
					if rec.Code != resp.StatusCode || !bytes.Equal(checked, served) {
						t.Fatalf("serve: %d %s\nmiddleware: %d %s", resp.StatusCode, served, rec.Code, checked)
					}
					return
				}
				var vd struct {
					Valid    bool              `json:"valid"`
					Profile  string            `json:"profile"`
					Errors   []json.RawMessage `json:"errors"`
					Warnings []json.RawMessage `json:"warnings"`
				}
				if err := json.Unmarshal(served, &vd); err != nil {
					t.Fatalf("serve's verdict %s: %v", served, err)
				}
				if vd.Valid {
					if rec.Code != http.StatusNoContent {
						t.Fatalf("serve judged the card valid; the middleware answered %d %s", rec.Code, checked)
					}
					return
				}
				var p struct {
					Detail   string            `json:"detail"`
					Profile  string            `json:"profile"`
					Errors   []json.RawMessage `json:"errors"`
					Warnings []json.RawMessage `json:"warnings"`
				}
				if rec.Code != http.StatusUnprocessableEntity || json.Unmarshal(checked, &p) != nil {
					t.Fatalf("serve judged the card invalid; the middleware answered %d %s", rec.Code, checked)
				}
				if p.Profile != vd.Profile || !sameJSON(p.Errors, vd.Errors) || !sameJSON(p.Warnings, vd.Warnings) {
					t.Fatalf("serve: %s\nmiddleware: %s", served, checked)
				}
				if strings.Contains(p.Detail, "profile :") || vd.Profile != "" && !strings.Contains(p.Detail, "profile "+vd.Profile+":") {
					t.Fatalf("detail %q does not name profile %q", p.Detail, vd.Profile)
				}
			})
		}
	}
}

func sameJSON(a, b []json.RawMessage) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}
