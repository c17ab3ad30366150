package fetch

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/internal/cmderr"
	"github.com/cardscan/cardscan/internal/golden"
)

// hostsTransport serves each host from its own site, in process, so that
// records name fixed URLs.
type hostsTransport map[string]*site

func (h hostsTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	s := h[req.URL.Host]
	if s == nil {
		s = &site{}
	}
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}

// TestRender_Golden pins every output format's bytes on cards with
// findings of the profile and of the serving rules, text that needs
// escaping, and the records of URLs without a card (over the size limit,
// missing, not a card).
func TestRender_Golden(t *testing.T) {
	padded := strings.Replace(httpsCard, `"name":"Ledger"`, `"name":"Ledger","pad":"`+strings.Repeat("x", 2048)+`"`, 1)
	sites := hostsTransport{
		"good.example":  {pages: map[string]page{"/.well-known/agentcard": {body: httpsCard}}},
		"plain.example": {pages: map[string]page{"/.well-known/agentcard": {body: httpsCard, cache: "-"}}},
		"odd.example": {pages: map[string]page{"/.well-known/agentcard": {
			body:  strings.Replace(invalidCard, `"2.4"`, "\"2.4\u2028\x7f\"", 1),
			ctype: `text/plain; charset="%s%d"`, cache: "-",
		}}},
		"big.example":  {pages: map[string]page{"/.well-known/agentcard": {body: padded}}},
		"none.example": {pages: map[string]page{}},
		"a2a.example":  {pages: map[string]page{"/.well-known/agent-card.json": {body: a2aCard, ctype: "application/json", cache: "-"}}},
		"str.example":  {pages: map[string]page{"/.well-known/agentcard": {body: `"{\"a\":1}"`, ctype: "-"}}},
		"bad.example":  {pages: map[string]page{"/x/card.json": {body: "not json"}}},
	}
	urls := []string{
		"https://good.example", "http://plain.example", "https://odd.example", "https://big.example",
		"https://none.example", "https://a2a.example/", "https://str.example", "https://bad.example/x/card.json",
	}
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"fetch.text.golden", []string{"--color", "never"}},
		{"fetch.text-all-color.golden", []string{"--all", "--color", "always"}},
		{"fetch.jsonl.golden", []string{"--format", "jsonl"}},
		{"fetch.jsonl-all.golden", []string{"--format", "jsonl", "--all"}},
		{"fetch.github.golden", []string{"--format", "github"}},
		{"fetch.cards.golden", []string{"--format", "cards"}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			args := append([]string{"--max-record", "1KiB"}, tc.args...)
			code, out, _ := runFetch(t, &testHooks{transport: sites}, append(args, urls...)...)
			// The URLs that serve no card are records; the invalid
			// cards make the status.
			if code != cmderr.StatusFailed {
				t.Errorf("exit %d, want %d", code, cmderr.StatusFailed)
			}
			golden.Check(t, tc.golden, out)
		})
	}
}
