package fetch

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestUserinfoRedactedInFailures: a URL may carry a password in its
// userinfo (https://user:secret@host/). A fetched card's record names the
// URL with the password written as xxxxx; a URL that yielded no card named
// it whole, in the record's input and in the text format's location,
// which end up in CI logs and shared files.
func TestUserinfoRedactedInFailures(t *testing.T) {
	for _, format := range []string{"text", "jsonl", "github"} {
		// Loopback without --allow-private: refused before any request.
		_, out, errOut := runFetchGuarded(t, nil, "--format", format, "--all", "http://user:secret@127.0.0.1:1/x.json")
		if strings.Contains(out+errOut, "secret") || !strings.Contains(out, "user:xxxxx@") {
			t.Errorf("--format %s: the password shows, or the URL is not named:\n%s%s", format, out, errOut)
		}
	}
	// The MCP server's client says why it found no card in an error.
	c := NewClient(time.Second, 1<<20, blockAll{})
	_, err := c.Fetch(t.Context(), "http://user:secret@192.0.2.1/x.json", "auto", nil)
	if err == nil || strings.Contains(err.Error(), "secret") || !strings.Contains(err.Error(), "user:xxxxx@") {
		t.Errorf("Client.Fetch: %v", err)
	}
}

// blockAll is a transport that reaches nothing.
type blockAll struct{}

func (blockAll) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, errors.New("refused by the test")
}

// TestRedactPasswordAsTheStandardLibrary checks the hand-written
// redaction against url.URL.Redacted on URLs that parse, and that one
// that does not parse loses its password too.
func TestRedactPasswordAsTheStandardLibrary(t *testing.T) {
	for _, raw := range []string{
		"https://user:secret@a.example/x.json",
		"https://user:sec@ret@a.example:8443/p?q=@#f",
		"https://user@a.example/",
		"https://a.example/p@q",
		"https://a.example/?u=a:b@c",
		"http://:secret@a.example",
		"https://a.example",
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := redactPassword(raw), u.Redacted(); got != want {
			t.Errorf("redactPassword(%q) = %q, url.Redacted %q", raw, got, want)
		}
	}
	for raw, want := range map[string]string{
		"user:secret@a.example/x.json":      "user:xxxxx@a.example/x.json",
		"https://user:secret@a.example/%zz": "https://user:xxxxx@a.example/%zz",
	} {
		if got := redactPassword(raw); got != want {
			t.Errorf("redactPassword(%q) = %q, want %q", raw, got, want)
		}
	}
}

// TestUserinfoRedactedInProbes: a probe record names the card's URL, from
// a fetch record or from fetch --probe, as card_url; its password, too,
// is written xxxxx.
func TestUserinfoRedactedInProbes(t *testing.T) {
	rec := `{"url":"https://user:secret@a.example/card.json","card":` + card10("["+iface10("https://127.0.0.1:1/rpc", "JSONRPC")+"]", "{}") + "}\n"
	var out, errOut strings.Builder
	runProbeExit([]string{"--timeout", "2s"}, strings.NewReader(rec), &out, &errOut, nil)
	if strings.Contains(out.String()+errOut.String(), "secret") || !strings.Contains(out.String(), `"card_url":"https://user:xxxxx@a.example/card.json"`) {
		t.Errorf("probe record:\n%s%s", out.String(), errOut.String())
	}
}
