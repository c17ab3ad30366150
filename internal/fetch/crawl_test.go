package fetch

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cardscan/cardscan/internal/cmderr"
	"github.com/cardscan/cardscan/internal/summary"
)

// handlerSite serves one handler per path, and counts requests per path.
type handlerSite struct {
	mu     sync.Mutex
	routes map[string]http.HandlerFunc
	hits   map[string]int
	order  []string
}

func (s *handlerSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.hits[r.URL.Path]++
	s.order = append(s.order, r.URL.Path)
	h := s.routes[r.URL.Path]
	s.mu.Unlock()
	if h == nil {
		http.NotFound(w, r)
		return
	}
	h(w, r)
}

func (s *handlerSite) requested() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.order)
}

func newHandlerSite(t *testing.T, routes map[string]http.HandlerFunc) (*handlerSite, *httptest.Server) {
	t.Helper()
	s := &handlerSite{routes: routes, hits: map[string]int{}}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv
}

func serve(ctype, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ctype)
		w.Header().Set("Cache-Control", "max-age=3600")
		fmt.Fprint(w, body)
	}
}

func redirect(to string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, to, http.StatusFound) }
}

// stall waits for the client to give up, writing first what head writes.
func stall(head func(w http.ResponseWriter)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if head != nil {
			head(w)
			w.(http.Flusher).Flush()
		}
		<-r.Context().Done()
	}
}

// trickle writes a byte of a JSON body every 20 ms, without end.
func trickle(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(`{"padding":"`))
	for {
		select {
		case <-r.Context().Done():
			return
		case <-time.After(20 * time.Millisecond):
		}
		if _, err := w.Write([]byte("x")); err != nil {
			return
		}
		w.(http.Flusher).Flush()
	}
}

// endless writes a JSON string as fast as the client reads it, without end.
func endless(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(`{"padding":"`))
	chunk := []byte(strings.Repeat("x", 32<<10))
	for r.Context().Err() == nil {
		if _, err := w.Write(chunk); err != nil {
			return
		}
	}
}

// big writes head, then n bytes of filler.
func big(ctype, head string, n int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ctype)
		w.Header().Set("Content-Length", fmt.Sprint(len(head)+n))
		w.Write([]byte(head))
		chunk := []byte(strings.Repeat("x", 64<<10))
		for n := n; n > 0; {
			k, err := w.Write(chunk[:min(n, len(chunk))])
			if err != nil {
				return
			}
			n -= k
		}
	}
}

const (
	html  = "<!doctype html><html><head><title>App</title></head><body><div id=root></div></body></html>"
	agent = "/.well-known/agentcard"
	a2a03 = "/.well-known/agent-card.json"
	a2a01 = "/.well-known/agent.json"
)

// TestDiscovery_RealServers fetches from servers that behave as real sites
// do: each yields one record, a card found where it is or the failure that
// names what every path answered.
func TestDiscovery_RealServers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		routes map[string]http.HandlerFunc
		args   []string
		// the card's path, or the failure's rule and a part of its message
		found, rule, detail string
		paths               []string // requested, in order; nil: not checked
	}{
		{name: "SPA fallback: HTML at every path but the card's",
			routes: map[string]http.HandlerFunc{agent: serve("text/html; charset=utf-8", html), a2a03: serve("application/json", a2aCard), a2a01: serve("text/html", html)},
			found:  a2a03, paths: []string{agent, a2a03}},
		{name: "HTML served as JSON is not a card either",
			routes: map[string]http.HandlerFunc{agent: serve("application/json", "\n  "+html), a2a03: serve("application/json", a2aCard)},
			found:  a2a03, paths: []string{agent, a2a03}},
		{name: "404 then 200 on the second path",
			routes: map[string]http.HandlerFunc{a2a03: serve("application/json", a2aCard)},
			found:  a2a03, paths: []string{agent, a2a03}},
		{name: "HTML at every path",
			routes: map[string]http.HandlerFunc{agent: serve("text/html", html), a2a03: serve("text/html", html), a2a01: serve("text/plain", html)},
			rule:   "http.not-a-card",
			detail: "no agent card found (/.well-known/agentcard: 200, served as text/html, not a card; /.well-known/agent-card.json: 200, served as text/html, not a card; /.well-known/agent.json: 200 with a body starting with '<', not a card)",
			paths:  []string{agent, a2a03, a2a01}},
		{name: "an empty 200 is not a card",
			routes: map[string]http.HandlerFunc{agent: serve("application/json", " \r\n"), a2a03: serve("application/json", "")},
			rule:   "http.not-a-card", detail: "/.well-known/agentcard: 200 with an empty body, not a card; /.well-known/agent-card.json: 200 with an empty body"},
		{name: "white space past --max-record is too large, not empty",
			routes: map[string]http.HandlerFunc{agent: serve("application/json", strings.Repeat(" ", 3<<20))},
			rule:   "http.too-large", detail: "/.well-known/agentcard: the body is larger than --max-record (2097152 bytes)", paths: []string{agent}},
		{name: "404 at every path",
			rule:   "http.status",
			detail: "no agent card found (/.well-known/agentcard: 404 Not Found; /.well-known/agent-card.json: 404 Not Found; /.well-known/agent.json: 404 Not Found)"},
		{name: "slow headers",
			routes: map[string]http.HandlerFunc{agent: stall(nil)},
			args:   []string{"--timeout", "300ms"},
			rule:   "http.timeout", detail: " took the request, then timed out: no answer within --timeout 300ms", paths: []string{agent}},
		{name: "headers, then a body that never comes",
			routes: map[string]http.HandlerFunc{agent: stall(func(w http.ResponseWriter) { w.Header().Set("Content-Type", "application/json") })},
			args:   []string{"--timeout", "300ms"},
			rule:   "http.timeout", detail: "/.well-known/agentcard: answered 200 (application/json), but its body did not end within --timeout 300ms", paths: []string{agent}},
		{name: "a body that trickles without end",
			routes: map[string]http.HandlerFunc{agent: trickle},
			args:   []string{"--timeout", "300ms"},
			rule:   "http.timeout", detail: "/.well-known/agentcard: answered 200 (application/json), but its body did not end within --timeout 300ms", paths: []string{agent}},
		{name: "a body that streams without end",
			routes: map[string]http.HandlerFunc{agent: endless},
			rule:   "http.too-large", detail: "/.well-known/agentcard: the body is larger than --max-record (2097152 bytes)", paths: []string{agent}},
		{name: "a 50 MB body",
			routes: map[string]http.HandlerFunc{a2a03: big("application/json", `{"padding":"`, 50<<20)},
			rule:   "http.too-large", detail: "/.well-known/agent-card.json: the body is larger than --max-record (2097152 bytes) (after /.well-known/agentcard: 404 Not Found)"},
		{name: "a 50 MB page that is not JSON costs its first bytes",
			routes: map[string]http.HandlerFunc{agent: big("text/plain", "<html>", 50<<20), a2a03: serve("application/json", a2aCard)},
			found:  a2a03},
		{name: "a redirect loop",
			routes: map[string]http.HandlerFunc{agent: redirect("/loop/a"), "/loop/a": redirect("/loop/b"), "/loop/b": redirect("/loop/a")},
			rule:   "http.redirect", detail: "/.well-known/agentcard: more than 3 redirects; /.well-known/agent-card.json: 404 Not Found"},
		{name: "a chain of three redirects",
			routes: map[string]http.HandlerFunc{agent: redirect("/c/1"), "/c/1": redirect("/c/2"), "/c/2": redirect("/c/card"), "/c/card": serve("application/agentcard+json", httpCard)},
			found:  "/c/card"},
		{name: "a redirect to another scheme",
			routes: map[string]http.HandlerFunc{agent: redirect("ftp://example.org/card")},
			rule:   "http.redirect", detail: `/.well-known/agentcard: refused redirect to a "ftp" URL`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, srv := newHandlerSite(t, tc.routes)
			start := time.Now()
			code, out, errOut := runFetch(t, nil, append([]string{"--format", "cards"}, append(tc.args, srv.URL)...)...)
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %v", d)
			}
			recs := decodeRecords(t, out)
			if len(recs) != 1 || recs[0].URL != srv.URL {
				t.Fatalf("exit %d, records %+v; stderr %s", code, recs, errOut)
			}
			r := recs[0]
			if tc.found != "" {
				if r.Input != srv.URL+tc.found || slices.ContainsFunc(r.Errors, func(f jsonFinding) bool { return f.Rule == "http.not-a-card" }) {
					t.Fatalf("found %s, want %s: %+v", r.Input, tc.found, r)
				}
			} else {
				if code != cmderr.StatusIO || r.Valid || string(r.Card) != "null" || len(r.Errors) != 1 || len(r.Warnings) != 0 {
					t.Fatalf("exit %d, record %+v", code, r)
				}
				if f := r.Errors[0]; f.Rule != tc.rule || !strings.Contains(f.Message, tc.detail) {
					t.Fatalf("failure %s %q, want %s containing %q", f.Rule, f.Message, tc.rule, tc.detail)
				}
				if !strings.Contains(errOut, "1 of 1 input served no card ("+tc.rule+" 1)") {
					t.Errorf("stderr summary: %s", errOut)
				}
			}
			if tc.paths != nil {
				if got := s.requested(); !slices.Equal(got, tc.paths) {
					t.Errorf("requested %v, want %v", got, tc.paths)
				}
			}
		})
	}
}

func TestDiscovery_Refused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	for _, tc := range []struct{ url, rule, detail string }{
		{dead, "http.unreachable", "cannot reach " + strings.TrimPrefix(dead, "http://") + ": connect: connection refused"},
		{"ftp://example.org/", "http.unreachable", "not an http or https URL"},
		{"http://[::1", "http.unreachable", "not a URL"},
	} {
		code, out, _ := runFetch(t, nil, "--format", "jsonl", tc.url)
		recs := decodeRecords(t, out)
		if code != cmderr.StatusIO || len(recs) != 1 || recs[0].Input != tc.url || len(recs[0].Errors) != 1 ||
			recs[0].Errors[0].Rule != tc.rule || recs[0].Errors[0].Message != tc.detail {
			t.Errorf("%s: exit %d, records %+v", tc.url, code, recs)
		}
	}
}

// TestRetries: 429 and 503 are asked again after Retry-After, within
// bounds; a wait too long is a failure at once.
func TestRetries(t *testing.T) {
	var calls atomic.Int32
	flaky := func(status int, after string, failures int32) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if calls.Add(1) <= failures {
				switch after {
				case "":
				case "date":
					// Whole seconds: the wait is 1 to 2 s.
					w.Header().Set("Retry-After", time.Now().Add(2*time.Second).UTC().Format(http.TimeFormat))
				default:
					w.Header().Set("Retry-After", after)
				}
				w.WriteHeader(status)
				return
			}
			serve("application/json", a2aCard)(w, r)
		}
	}
	for _, tc := range []struct {
		name      string
		h         http.HandlerFunc
		args      []string
		calls     int32
		rule      string // "" for the card found
		minTime   time.Duration
		maxTime   time.Duration
		detailHas string
	}{
		{name: "429 with Retry-After: 1", h: flaky(429, "1", 1), calls: 2, minTime: time.Second, maxTime: 4 * time.Second},
		{name: "503 with a date two seconds ahead", h: flaky(503, "date", 1), calls: 2, minTime: 500 * time.Millisecond, maxTime: 4 * time.Second},
		{name: "503 without Retry-After backs off", h: flaky(503, "", 2), calls: 3, maxTime: 2 * time.Second},
		{name: "more failures than retries", h: flaky(429, "0", 10), calls: 3, rule: "http.status", detailHas: "429 Too Many Requests", maxTime: 2 * time.Second},
		{name: "--retries 0", h: flaky(429, "0", 10), args: []string{"--retries", "0"}, calls: 1, rule: "http.status", maxTime: 2 * time.Second},
		{name: "Retry-After past --max-retry-wait", h: flaky(429, "3600", 10), calls: 1, rule: "http.status",
			detailHas: "429 Too Many Requests (Retry-After 1h0m0s is longer than 30s: not retried)", maxTime: 2 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls.Store(0)
			_, srv := newHandlerSite(t, map[string]http.HandlerFunc{a2a03: tc.h})
			start := time.Now()
			_, out, errOut := runFetch(t, &testHooks{backoff: 10 * time.Millisecond}, append(tc.args, "--format", "cards", srv.URL+a2a03)...)
			d := time.Since(start)
			recs := decodeRecords(t, out)
			if len(recs) != 1 {
				t.Fatalf("records %+v; stderr %s", recs, errOut)
			}
			r := recs[0]
			if tc.rule == "" && (string(r.Card) == "null" || r.Input != srv.URL+a2a03) {
				t.Fatalf("no card: %+v", r)
			}
			if tc.rule != "" && (len(r.Errors) != 1 || r.Errors[0].Rule != tc.rule || !strings.Contains(r.Errors[0].Message, tc.detailHas)) {
				t.Fatalf("record %+v, want %s with %q", r, tc.rule, tc.detailHas)
			}
			if got := calls.Load(); got != tc.calls {
				t.Errorf("%d requests, want %d", got, tc.calls)
			}
			if d < tc.minTime || d > tc.maxTime {
				t.Errorf("took %v, want %v to %v", d, tc.minTime, tc.maxTime)
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		v    string
		want time.Duration
		ok   bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{" 7 ", 7 * time.Second, true},
		{"-3", 0, false},
		{"99999999999999999", 24 * time.Hour, true},
		{"soon", 0, false},
		{"Fri, 02 Jan 2026 03:04:15 GMT", 10 * time.Second, true},
		{"Fri, 02 Jan 2026 03:00:00 GMT", 0, true}, // in the past: now
	} {
		if got, ok := retryAfter(tc.v, now); got != tc.want || ok != tc.ok {
			t.Errorf("retryAfter(%q) = %v, %v; want %v, %v", tc.v, got, ok, tc.want, tc.ok)
		}
	}
}

// TestManners: the User-Agent names cardscan, and --per-host bounds the
// requests in flight to each host while -j fetches from several at once.
func TestManners(t *testing.T) {
	var mu sync.Mutex
	inFlight, peak := map[string]int{}, map[string]int{}
	total, peakTotal := 0, 0
	var agents sync.Map
	_, srv := newHandlerSite(t, nil)
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		agents.Store(r.Header.Get("User-Agent"), true)
		host := r.Host
		mu.Lock()
		inFlight[host]++
		total++
		peak[host] = max(peak[host], inFlight[host])
		peakTotal = max(peakTotal, total)
		mu.Unlock()
		time.Sleep(40 * time.Millisecond)
		mu.Lock()
		inFlight[host]--
		total--
		mu.Unlock()
		serve("application/json", a2aCard)(w, r)
	})
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	hooks := &testHooks{lookup: func(ctx context.Context, host string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}}
	var urls []string
	for i := range 24 {
		urls = append(urls, fmt.Sprintf("http://host%d.test:%d%s", i%3, port, a2a03))
	}
	code, out, errOut := runFetch(t, hooks, append([]string{"-j", "24", "--per-host", "2", "--format", "cards"}, urls...)...)
	if recs := decodeRecords(t, out); code != cmderr.StatusOK || len(recs) != len(urls) {
		t.Fatalf("exit %d, %d records; stderr %s", code, len(recs), errOut)
	}
	for host, n := range peak {
		if n > 2 {
			t.Errorf("%s: %d requests at once, --per-host 2", host, n)
		}
	}
	if len(peak) != 3 || peakTotal < 4 {
		t.Errorf("peaks %v, %d in all: -j 24 did not fetch from the hosts at once", peak, peakTotal)
	}
	agents.Range(func(k, _ any) bool {
		if ua := k.(string); !strings.HasPrefix(ua, "cardscan/") {
			t.Errorf("User-Agent %q does not name cardscan", ua)
		}
		return true
	})
	_, _, _ = runFetch(t, hooks, "--user-agent", "registry-bot/2 (+https://registry.example)", urls[0])
	if _, ok := agents.Load("registry-bot/2 (+https://registry.example)"); !ok {
		t.Errorf("--user-agent was not sent")
	}
}

// TestHostLimiter_Forgets: hosts with nothing in flight hold no memory.
func TestHostLimiter_Forgets(t *testing.T) {
	_, srv := newHandlerSite(t, map[string]http.HandlerFunc{"/": serve("text/plain", "ok")})
	l := newHostLimiter(http.DefaultTransport, 1, 10*time.Second)
	client := &http.Client{Transport: l}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			resp, err := client.Get(srv.URL + "/")
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
		})
	}
	wg.Wait()
	if n := l.inFlight(); n != 0 {
		t.Fatalf("%d hosts still held", n)
	}
}

// TestOneRecordPerURL: in every format each URL is reported, the failures
// as one error line each; cards and jsonl --all hold one line per URL in
// the list's order whatever -j.
func TestOneRecordPerURL(t *testing.T) {
	_, srv := newHandlerSite(t, map[string]http.HandlerFunc{
		"/ok" + agent:       serve("application/agentcard+json", httpCard),
		"/bad" + agent:      serve("application/agentcard+json", invalidCard),
		"/spa" + agent:      serve("text/html", html),
		"/spa" + a2a03:      serve("text/html", html),
		"/spa" + a2a01:      serve("text/html", html),
		"/slow" + agent:     stall(nil),
		"/late" + a2a03:     serve("application/json", a2aCard),
		"/secret/leak.json": serve("text/plain", "top secret"),
		"/redirect" + agent: redirect("/secret/leak.json"),
		"/redirect" + a2a03: redirect("/secret/leak.json"),
		"/redirect" + a2a01: redirect("/secret/leak.json"),
		"/too-big" + agent:  big("application/json", "{", 8<<10),
	})
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := "http://" + ln.Addr().String()
	ln.Close()
	list := []string{srv.URL + "/ok", srv.URL + "/missing", srv.URL + "/bad", dead, srv.URL + "/spa", srv.URL + "/slow",
		srv.URL + "/late", srv.URL + "/redirect", srv.URL + "/too-big", "http://x\x1b[31m.test/"}
	wantRule := []string{"", "http.status", "", "http.unreachable", "http.not-a-card", "http.timeout", "", "http.not-a-card", "http.too-large", "http.unreachable"}
	file := writeList(t, list)
	hooks := &testHooks{lookup: func(ctx context.Context, host string) ([]netip.Addr, error) {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}}
	common := []string{"--urls", file, "-j", "4", "--timeout", "300ms", "--max-record", "4KiB"}
	for _, format := range []string{"cards", "jsonl", "text", "github"} {
		t.Run(format, func(t *testing.T) {
			code, out, errOut := runFetch(t, hooks, append(common, "--format", format, "--all")...)
			if code != cmderr.StatusFailed {
				t.Errorf("exit %d, want 1: one card is invalid, and URLs that failed do not fail the run; stderr %s", code, errOut)
			}
			if strings.Contains(out, "top secret") {
				t.Errorf("a body that is not a card reached the output:\n%s", out)
			}
			if strings.Contains(out, "\x1b") {
				t.Errorf("a control character from the list reached the output raw:\n%q", out)
			}
			if !strings.Contains(errOut, "cardscan: 3 records: 2 valid, 1 invalid") {
				t.Errorf("stderr summary does not count the three cards: %s", errOut)
			}
			if !strings.Contains(errOut, "; 7 of 10 inputs served no card (http.not-a-card 2, http.unreachable 2, http.status 1, http.timeout 1, http.too-large 1)") {
				t.Errorf("stderr summary does not count the failures by rule: %s", errOut)
			}
			switch format {
			case "cards", "jsonl":
				recs := decodeRecords(t, out)
				if len(recs) != len(list) {
					t.Fatalf("%d records for %d URLs", len(recs), len(list))
				}
				for i, r := range recs {
					if format == "cards" && r.URL != list[i] {
						t.Errorf("record %d is for %q, want %q", i, r.URL, list[i])
					}
					got := ""
					if len(r.Errors) == 1 && strings.HasPrefix(r.Errors[0].Rule, "http.") {
						got = r.Errors[0].Rule
					}
					if got != wantRule[i] {
						t.Errorf("record %d (%s): rule %q, want %q: %+v", i, list[i], got, wantRule[i], r)
					}
				}
			default:
				lines := strings.Split(out, "\n")
				for i, rule := range wantRule {
					if rule == "" {
						continue
					}
					prefix := printable(list[i]) + ":1:1: error: " + rule + ": " + printable(list[i]) + ": "
					if format == "github" {
						// The runner's escaping of a property: ':' and ',' (and
						// %, CR, LF, which these URLs lack).
						file := strings.NewReplacer(":", "%3A", ",", "%2C").Replace(printable(list[i]))
						prefix = "::error file=" + file + ",line=1,col=1,title=" + rule + "::"
					}
					if n := len(slices.DeleteFunc(slices.Clone(lines), func(l string) bool { return !strings.HasPrefix(l, prefix) })); n != 1 {
						t.Errorf("%d lines start %q, want 1:\n%s", n, prefix, out)
					}
				}
			}
		})
	}
}

func writeList(t *testing.T, urls []string) string {
	t.Helper()
	file := t.TempDir() + "/urls.txt"
	var b strings.Builder
	for _, u := range urls {
		b.WriteString(u + "\n")
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestSummaryFile checks --summary: the counts of the stderr line, with
// the URLs without a card by rule, and summaries of a list's halves that
// add up (summary.Add, as summary merge does) to the whole list's.
func TestSummaryFile(t *testing.T) {
	_, srv := newHandlerSite(t, map[string]http.HandlerFunc{
		"/ok" + agent:  serve("application/agentcard+json", httpsCard),
		"/bad" + agent: serve("application/agentcard+json", invalidCard),
		"/a2a" + a2a03: serve("application/json", a2aCard),
		"/spa" + agent: serve("text/html", html),
		"/spa" + a2a03: serve("text/html", html),
		"/spa" + a2a01: serve("text/html", html),
	})
	list := []string{srv.URL + "/ok", srv.URL + "/missing", srv.URL + "/bad", srv.URL + "/spa", srv.URL + "/a2a", srv.URL + "/ok", srv.URL + "/missing"}
	dir := t.TempDir()
	fetchSummary := func(name string, urls []string) *summary.Summary {
		t.Helper()
		path := filepath.Join(dir, name)
		code, _, errOut := runFetch(t, nil, "--urls", writeList(t, urls), "--format", "jsonl", "--summary", path)
		if code != cmderr.StatusFailed {
			t.Fatalf("exit %d, want 1 (one card is invalid); stderr %s", code, errOut)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		s, err := summary.Unmarshal(b)
		if err != nil {
			t.Fatalf("%v in %s", err, b)
		}
		return s
	}
	whole := fetchSummary("whole.json", list)
	// httpsCard served over http breaks section 8.5.
	want := summary.Summary{Counts: summary.Counts{Records: 4, Valid: 1, Invalid: 3, Profiles: map[string]int64{"agentcard": 3, "a2a/0.3": 1}},
		Inputs: 7, InputErrors: 3,
		FetchFailures: map[string]int64{"http.status": 2, "http.not-a-card": 1}}
	got := *whole
	got.Errors, got.Warnings, got.Rules, got.Framings, got.BytesRead, got.BytesDecompressed, got.Seconds, got.MBPerSecond, got.Shards = 0, 0, nil, nil, 0, 0, 0, 0, 0
	if !reflect.DeepEqual(got, want) {
		t.Errorf("summary\n%+v\nwant\n%+v", got, want)
	}
	if whole.Invalid > 0 && (whole.Errors == 0 || len(whole.Rules) == 0) || whole.Shards != 1 || whole.BytesRead == 0 {
		t.Errorf("summary counts no findings, bytes or shard: %+v", whole)
	}

	var sum summary.Summary
	for i, half := range [][]string{list[:3], list[3:]} {
		if err := sum.Add(fetchSummary(fmt.Sprintf("half%d.json", i), half)); err != nil {
			t.Fatal(err)
		}
	}
	if sum.Shards != 2 {
		t.Errorf("%d shards, want 2", sum.Shards)
	}
	sum.Seconds, sum.MBPerSecond, sum.Shards = 0, 0, 0
	whole.Seconds, whole.MBPerSecond, whole.Shards = 0, 0, 0
	if !reflect.DeepEqual(&sum, whole) {
		t.Errorf("halves add up to\n%+v\nthe whole list gives\n%+v", sum, *whole)
	}

	// The summary must not replace the list it reads or the records.
	file := writeList(t, list)
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--urls", file, "--summary", file}, {"--resume", file, "--summary", link, srv.URL}} {
		code, _, errOut := runFetch(t, nil, args...)
		if code != cmderr.StatusUsage || !strings.Contains(errOut, "--summary") {
			t.Errorf("%q: exit %d, stderr %q", args, code, errOut)
		}
	}
	if b, _ := os.ReadFile(file); strings.Count(string(b), "\n") != len(list) {
		t.Errorf("the list was changed: %q", b)
	}
	// An unwritable summary is a failed run.
	code, _, errOut := runFetch(t, nil, "--summary", filepath.Join(dir, "no", "such.json"), srv.URL+"/ok")
	if code != cmderr.StatusIO || !strings.Contains(errOut, "--summary") {
		t.Errorf("unwritable summary: exit %d, stderr %q", code, errOut)
	}
}

// TestPerHost_OtherHostsGoOn lists many URLs of a slow host before a few
// of a fast one, with -j 8 and --per-host 1: the fast host's URLs must not
// wait for the slow host's turns, as they would if fetches waiting for a
// slow host's slot held all of -j. Records stay in the list's order.
func TestPerHost_OtherHostsGoOn(t *testing.T) {
	const nSlow, nFast = 24, 8
	var slowDone atomic.Int64
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(100 * time.Millisecond):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/agentcard+json")
		fmt.Fprint(w, httpCard)
		slowDone.Add(1)
	}))
	t.Cleanup(slow.Close)
	var mu sync.Mutex
	var seen []int64 // slow responses done when each fast request came
	fast := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, slowDone.Load())
		mu.Unlock()
		w.Header().Set("Content-Type", "application/agentcard+json")
		fmt.Fprint(w, httpCard)
	}))
	t.Cleanup(fast.Close)
	var list []string
	for i := range nSlow {
		list = append(list, fmt.Sprintf("%s/s%02d", slow.URL, i))
	}
	for i := range nFast {
		list = append(list, fmt.Sprintf("%s/f%02d", fast.URL, i))
	}
	code, out, errOut := runFetch(t, nil, "--urls", writeList(t, list), "-j", "8", "--per-host", "1", "--format", "cards")
	if code != cmderr.StatusOK {
		t.Fatalf("exit %d; stderr %s", code, errOut)
	}
	recs := decodeRecords(t, out)
	if len(recs) != len(list) {
		t.Fatalf("%d records for %d URLs", len(recs), len(list))
	}
	for i, r := range recs {
		if r.URL != list[i] || len(r.Card) == 0 {
			t.Errorf("record %d is for %q (card %q), want %q's card", i, r.URL, r.Card, list[i])
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != nFast {
		t.Fatalf("the fast host got %d requests, want %d", len(seen), nFast)
	}
	// The fast host's URLs are 8 fetches; the slow host serves one URL
	// per 100 ms. Had they waited behind the slow host's queue, at least
	// nSlow-8+1 slow URLs would be done before the last fast request.
	if last := slices.Max(seen); last >= nSlow/2 {
		t.Errorf("the fast host's last request came after %d of the slow host's %d URLs were done (%v)", last, nSlow, seen)
	}
}
