package fetch

import (
	"bytes"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/cmderr"
	"github.com/cardscan/cardscan/internal/console"
	"github.com/cardscan/cardscan/internal/realcards"
)

const (
	// httpsCard and httpCard are valid agentcard cards whose endpoints use
	// https and plain http.
	httpsCard   = `{"agent_id":"01J0T5Y7ZK3M8Q2R4S6V9W1X3Y","name":"Ledger","version":"2.4.1","capabilities":[{"id":"ledger.summarise","description":"Summarises ledgers."}],"endpoint":{"protocol":"https","url":"https://ledger.example.org/agent"}}`
	httpCard    = `{"agent_id":"01J0T5Y7ZK3M8Q2R4S6V9W1X3Y","name":"Ledger","version":"2.4.1","capabilities":[{"id":"ledger.summarise","description":"Summarises ledgers."}],"endpoint":{"protocol":"http","url":"http://ledger.example.org/agent"}}`
	invalidCard = `{"agent_id":"01J0T5Y7ZK3M8Q2R4S6V9W1X3Y","name":"Ledger","version":"2.4","capabilities":[{"id":"Ledger Summarise","description":"x"}],"endpoint":{"protocol":"https","url":"https://ledger.example.org/agent"}}`
	// ma2dCard is an MA2D card (its invocation says so) with an https
	// endpoint.
	ma2dCard = `{"name":"weather","version":"1.0.0","invocation":{"protocol":"rest","endpoint":"https://weather.example.org/api"}}`
	// a2aCard is an A2A 0.3 card served over http with an https endpoint.
	a2aCard = `{"name":"Ledger","description":"Summarises ledgers.","url":"https://ledger.example.org/a2a","version":"1.0.0","protocolVersion":"0.3.0","capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[{"id":"summarise","name":"Summarise","description":"Summarises ledgers.","tags":["finance"]}]}`
)

// page is what a test site serves at one path.
type page struct {
	status   int
	body     string
	ctype    string // "-" for none
	cache    string // "-" for none
	location string
	delay    time.Duration
}

// site is a test web server that records the requests it gets.
type site struct {
	mu       sync.Mutex
	pages    map[string]page
	requests []*http.Request
}

func (s *site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests = append(s.requests, r.Clone(r.Context()))
	p, ok := s.pages[r.URL.Path]
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	if p.delay > 0 {
		select {
		case <-time.After(p.delay):
		case <-r.Context().Done():
			return
		}
	}
	if p.location != "" {
		http.Redirect(w, r, p.location, http.StatusFound)
		return
	}
	h := w.Header()
	switch p.ctype {
	case "-":
		h["Content-Type"] = nil // keep net/http from sniffing one
	case "":
		h.Set("Content-Type", "application/agentcard+json")
	default:
		h.Set("Content-Type", p.ctype)
	}
	switch p.cache {
	case "-":
	case "":
		h.Set("Cache-Control", "max-age=3600")
	default:
		h.Set("Cache-Control", p.cache)
	}
	if p.status != 0 {
		w.WriteHeader(p.status)
	}
	fmt.Fprint(w, p.body)
}

func (s *site) paths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, r := range s.requests {
		out = append(out, r.URL.Path)
	}
	return out
}

func newSite(t *testing.T, pages map[string]page) (*site, *httptest.Server) {
	t.Helper()
	s := &site{pages: pages}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv
}

func newTLSSite(t *testing.T, pages map[string]page) (*site, *httptest.Server) {
	t.Helper()
	s := &site{pages: pages}
	srv := httptest.NewTLSServer(s)
	t.Cleanup(srv.Close)
	return s, srv
}

// trusting returns hooks under which the fetcher trusts srv's certificate.
func trusting(srv *httptest.Server) *testHooks {
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	return &testHooks{rootCAs: pool}
}

// runFetch runs the command with --allow-private, as the test servers
// listen on 127.0.0.1, and hooks (nil for none).
func runFetch(t *testing.T, hooks *testHooks, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runFetchGuarded(t, hooks, append([]string{"--allow-private"}, args...)...)
}

// runFetchGuarded runs the command as it is given.
func runFetchGuarded(t *testing.T, hooks *testHooks, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = runExit(args, strings.NewReader(""), &out, &errb, hooks)
	if errb.Len() > 0 && (!strings.HasSuffix(errb.String(), "\n") || strings.HasSuffix(errb.String(), "\n\n")) {
		t.Errorf("stderr does not end in exactly one newline: %q", errb.String())
	}
	return code, out.String(), errb.String()
}

// jsonRecord is the decoded shape of a jsonl or cards line.
type jsonRecord struct {
	URL      string          `json:"url"`
	Input    string          `json:"input"`
	Line     int             `json:"line"`
	Offset   int64           `json:"offset"`
	Valid    bool            `json:"valid"`
	Profile  string          `json:"profile"`
	Errors   []jsonFinding   `json:"errors"`
	Warnings []jsonFinding   `json:"warnings"`
	SignedBy []string        `json:"signed_by"`
	Card     json.RawMessage `json:"card"`
}

type jsonFinding struct {
	Rule    string `json:"rule"`
	Path    string `json:"path"`
	Message string `json:"message"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
}

func decodeRecords(t *testing.T, out string) []jsonRecord {
	t.Helper()
	var recs []jsonRecord
	for _, line := range strings.SplitAfter(out, "\n") {
		if line == "" {
			continue
		}
		if !strings.HasSuffix(line, "\n") {
			t.Fatalf("unterminated line %q", line)
		}
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		var r jsonRecord
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		recs = append(recs, r)
	}
	return recs
}

func rules(fs []jsonFinding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Rule)
	}
	return out
}

func TestDiscovery_OrderAndAccept(t *testing.T) {
	for _, tc := range []struct {
		name  string
		pages map[string]page
		want  []string // paths requested
		found string
	}{
		{"agentcard first", map[string]page{
			"/.well-known/agentcard":       {body: httpCard},
			"/.well-known/agent-card.json": {body: a2aCard, ctype: "application/json"},
		}, []string{"/.well-known/agentcard"}, "/.well-known/agentcard"},
		{"A2A 0.3 path second", map[string]page{
			"/.well-known/agent-card.json": {body: a2aCard, ctype: "application/json"},
			"/.well-known/agent.json":      {body: httpCard},
		}, []string{"/.well-known/agentcard", "/.well-known/agent-card.json"}, "/.well-known/agent-card.json"},
		{"A2A legacy path last", map[string]page{
			"/.well-known/agent.json": {body: a2aCard, ctype: "application/json"},
		}, []string{"/.well-known/agentcard", "/.well-known/agent-card.json", "/.well-known/agent.json"}, "/.well-known/agent.json"},
		{"an error status moves on", map[string]page{
			"/.well-known/agentcard":  {status: 500, body: "oops", ctype: "text/plain"},
			"/.well-known/agent.json": {body: httpCard},
		}, []string{"/.well-known/agentcard", "/.well-known/agent-card.json", "/.well-known/agent.json"}, "/.well-known/agent.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, srv := newSite(t, tc.pages)
			code, out, errOut := runFetch(t, nil, "--format", "jsonl", "--all", srv.URL)
			if code != cmderr.StatusOK && code != cmderr.StatusFailed {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if got := s.paths(); !slices.Equal(got, tc.want) {
				t.Fatalf("requested %v, want %v", got, tc.want)
			}
			for _, r := range s.requests {
				if r.Header.Get("Accept") != "application/agentcard+json, application/json" {
					t.Errorf("Accept = %q", r.Header.Get("Accept"))
				}
			}
			recs := decodeRecords(t, out)
			if len(recs) != 1 || recs[0].Input != srv.URL+tc.found {
				t.Fatalf("records %+v, want one for %s", recs, tc.found)
			}
		})
	}
}

func TestDiscovery_BasePathAndDirectURLs(t *testing.T) {
	s, srv := newSite(t, map[string]page{
		"/tenants/7/.well-known/agentcard": {body: httpCard},
		"/cards/ledger.json":               {body: httpCard},
	})
	code, _, errOut := runFetch(t, nil, srv.URL+"/tenants/7/", srv.URL+"/cards/ledger.json")
	if code != cmderr.StatusOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got := s.paths()
	slices.Sort(got) // fetched concurrently
	if want := []string{"/cards/ledger.json", "/tenants/7/.well-known/agentcard"}; !slices.Equal(got, want) {
		t.Fatalf("requested %v, want %v", got, want)
	}
}

func TestDiscovery_Redirects(t *testing.T) {
	_, plain := newSite(t, map[string]page{
		"/.well-known/agentcard": {body: httpCard},
	})
	tlsSite, tlsSrv := newTLSSite(t, nil)
	tlsSite.pages = map[string]page{
		// Three hops are allowed.
		"/three/.well-known/agentcard": {location: "/hop1"},
		"/hop1":                        {location: "/hop2"},
		"/hop2":                        {location: "/card"},
		"/card":                        {body: httpsCard},
		// Four are not; the next well-known path is tried.
		"/four/.well-known/agentcard":       {location: "/h1"},
		"/h1":                               {location: "/h2"},
		"/h2":                               {location: "/h3"},
		"/h3":                               {location: "/card"},
		"/four/.well-known/agent-card.json": {body: httpsCard},
		// A downgrade to http is never followed.
		"/down/.well-known/agentcard": {location: plain.URL + "/.well-known/agentcard"},
	}
	hooks := trusting(tlsSrv)

	code, out, errOut := runFetch(t, hooks, "--format", "jsonl", "--all", tlsSrv.URL+"/three/")
	if code != cmderr.StatusOK {
		t.Fatalf("three redirects: exit %d: %s", code, errOut)
	}
	if recs := decodeRecords(t, out); len(recs) != 1 || recs[0].Input != tlsSrv.URL+"/card" {
		t.Fatalf("three redirects: %+v", recs)
	}

	code, out, errOut = runFetch(t, hooks, "--format", "jsonl", "--all", tlsSrv.URL+"/four/")
	if code != cmderr.StatusOK {
		t.Fatalf("four redirects: exit %d: %s", code, errOut)
	}
	if recs := decodeRecords(t, out); len(recs) != 1 || recs[0].Input != tlsSrv.URL+"/four/.well-known/agent-card.json" {
		t.Fatalf("four redirects: the card behind them was used: %+v", recs)
	}

	code, out, _ = runFetch(t, hooks, "--format", "jsonl", tlsSrv.URL+"/down/")
	recs := decodeRecords(t, out)
	if code != cmderr.StatusIO || len(recs) != 1 || !slices.Equal(rules(recs[0].Errors), []string{"http.redirect"}) ||
		!strings.Contains(recs[0].Errors[0].Message, "/.well-known/agentcard: refused redirect from https to http") {
		t.Fatalf("downgrade: exit %d, records %+v", code, recs)
	}
}

func TestServingChecks(t *testing.T) {
	_, srv := newSite(t, map[string]page{
		"/good/.well-known/agentcard":      {body: httpCard},
		"/json/.well-known/agentcard":      {body: httpCard, ctype: "application/json; charset=utf-8"},
		"/plain/.well-known/agentcard":     {body: httpCard, ctype: "text/plain"},
		"/none/.well-known/agentcard":      {body: httpCard, ctype: "-"},
		"/nocache/.well-known/agentcard":   {body: httpCard, cache: "-"},
		"/scheme/.well-known/agentcard":    {body: httpsCard},
		"/a2a/.well-known/agent-card.json": {body: a2aCard, ctype: "application/json"},
		"/embedded/.well-known/agentcard":  {body: mustJSONString(httpsCard)},
		"/a2a-http/.well-known/agent.json": {body: strings.Replace(a2aCard, "https://", "http://", 1), ctype: "application/json"},
		"/ma2d/.well-known/agent.json":     {body: ma2dCard, ctype: "application/json"},
	})
	for _, tc := range []struct {
		path                string
		wantErrs, wantWarns []string
	}{
		{"/good/", nil, []string{"endpoint.insecure"}},
		{"/json/", nil, []string{"endpoint.insecure"}},
		{"/plain/", nil, []string{"http.content-type", "endpoint.insecure"}},
		{"/none/", nil, []string{"http.content-type", "endpoint.insecure"}},
		{"/nocache/", nil, []string{"http.cache-control", "endpoint.insecure"}},
		{"/scheme/", []string{"http.endpoint-scheme"}, nil},
		{"/embedded/", []string{"http.endpoint-scheme"}, nil},
		// Section 8.5 binds AgentCards; an A2A or MA2D card over http is
		// a warning whatever its endpoints' schemes.
		{"/a2a/", nil, []string{"http.insecure-fetch"}},
		{"/a2a-http/", nil, []string{"http.insecure-fetch"}},
		{"/ma2d/", nil, []string{"http.insecure-fetch"}},
	} {
		t.Run(tc.path, func(t *testing.T) {
			code, out, errOut := runFetch(t, nil, "--format", "jsonl", "--all", "--profile", "auto", srv.URL+tc.path)
			recs := decodeRecords(t, out)
			if len(recs) != 1 {
				t.Fatalf("exit %d, %d records; stderr %s", code, len(recs), errOut)
			}
			r := recs[0]
			gotErrs, gotWarns := rules(r.Errors), rules(r.Warnings)
			// The a2a card's own findings depend on the profile; only the
			// serving rules are pinned for it.
			if tc.path == "/a2a/" || tc.path == "/a2a-http/" || tc.path == "/ma2d/" {
				gotErrs = slices.DeleteFunc(gotErrs, func(s string) bool { return !strings.HasPrefix(s, "http.") })
				gotWarns = slices.DeleteFunc(gotWarns, func(s string) bool { return !strings.HasPrefix(s, "http.") })
			}
			if !slices.Equal(gotErrs, tc.wantErrs) || !slices.Equal(gotWarns, tc.wantWarns) {
				t.Fatalf("errors %v warnings %v, want %v %v", gotErrs, gotWarns, tc.wantErrs, tc.wantWarns)
			}
			if wantCode := map[bool]int{true: cmderr.StatusOK, false: cmderr.StatusFailed}[r.Valid]; code != wantCode || r.Valid != (len(r.Errors) == 0) {
				t.Fatalf("exit %d, valid %v, errors %v", code, r.Valid, r.Errors)
			}
			for _, f := range append(r.Errors, r.Warnings...) {
				if f.Rule == "http.endpoint-scheme" && f.Path == "" {
					t.Errorf("%s has no path", f.Rule)
				}
			}
		})
	}
}

func mustJSONString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestBodyCap(t *testing.T) {
	big := httpCard[:len(httpCard)-1] + `,"padding":"` + strings.Repeat("x", 4096) + `"}`
	_, srv := newSite(t, map[string]page{"/.well-known/agentcard": {body: big}})
	code, out, _ := runFetch(t, nil, "--format", "cards", "--max-record", "2KiB", srv.URL)
	recs := decodeRecords(t, out)
	if code != cmderr.StatusIO || len(recs) != 1 || !slices.Equal(rules(recs[0].Errors), []string{"http.too-large"}) || string(recs[0].Card) != "null" {
		t.Fatalf("exit %d, records %+v", code, recs)
	}
	code, _, errOut := runFetch(t, nil, "--max-record", "8KiB", srv.URL)
	if code != cmderr.StatusOK {
		t.Fatalf("under a larger cap: exit %d: %s", code, errOut)
	}
}

// TestURLsFile crawls a list concurrently: the output keeps the list's
// order although later URLs answer first, and carries each card.
func TestURLsFile(t *testing.T) {
	pages := map[string]page{}
	var list strings.Builder
	_, srv := newSite(t, pages)
	list.WriteString("# a crawl\n\n")
	const n = 12
	for i := range n {
		body := httpCard
		if i%3 == 1 {
			body = invalidCard
		}
		pages[fmt.Sprintf("/a%d/.well-known/agentcard", i)] = page{body: "  \n" + body + "\n", delay: time.Duration(n-i) * 15 * time.Millisecond}
		fmt.Fprintf(&list, "%s/a%d\n", srv.URL, i)
	}
	fmt.Fprintf(&list, "%s/missing\n", srv.URL)
	file := filepath.Join(t.TempDir(), "urls.txt")
	if err := os.WriteFile(file, []byte(list.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runFetch(t, nil, "--urls", file, "-j", "6")
	if code != cmderr.StatusFailed {
		t.Fatalf("exit %d, want 1 for the invalid cards (the missing one is a record); stderr %s", code, errOut)
	}
	recs := decodeRecords(t, out)
	if len(recs) != n+1 {
		t.Fatalf("%d records, want %d", len(recs), n+1)
	}
	if r := recs[n]; r.URL != srv.URL+"/missing" || r.Valid || string(r.Card) != "null" ||
		!slices.Equal(rules(r.Errors), []string{"http.status"}) || !strings.HasPrefix(r.Errors[0].Message, "no agent card found (") {
		t.Fatalf("the URL without a card: %+v", r)
	}
	for i, r := range recs[:n] {
		wantValid := i%3 != 1
		if r.URL != fmt.Sprintf("%s/a%d", srv.URL, i) || r.Valid != wantValid || r.Line != 2 || r.Offset != 3 {
			t.Fatalf("record %d: %+v", i, r)
		}
		want := httpCard
		if !wantValid {
			want = invalidCard
		}
		if string(r.Card) != want {
			t.Fatalf("record %d carries card %s, want %s", i, r.Card, want)
		}
	}
}

func TestURLsFromStdin(t *testing.T) {
	_, srv := newSite(t, map[string]page{"/.well-known/agentcard": {body: httpCard}})
	var out, errb bytes.Buffer
	code := runExit([]string{"--allow-private", "--urls", "-", "--format", "jsonl", "--all"}, strings.NewReader(srv.URL+"\n"), &out, &errb, nil)
	if code != cmderr.StatusOK || len(decodeRecords(t, out.String())) != 1 {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}

func TestFormats(t *testing.T) {
	_, srv := newSite(t, map[string]page{
		"/.well-known/agentcard": {body: invalidCard, ctype: "text/plain", cache: "-"},
	})
	input := srv.URL + "/.well-known/agentcard"
	code, out, _ := runFetch(t, nil, "--profile", "agentcard", srv.URL)
	if code != cmderr.StatusFailed {
		t.Fatalf("exit %d", code)
	}
	// Every line is "INPUT:LINE:COLUMN: SEVERITY: RULE: POINTER: MESSAGE",
	// by position: the serving rules' findings, placed at the card's start,
	// first.
	var gotRules []string
	located := regexp.MustCompile(`^:1:[0-9]+: `)
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		rest, ok := strings.CutPrefix(line, input)
		loc := located.FindString(rest)
		parts := strings.SplitN(rest[len(loc):], ": ", 4)
		if !ok || loc == "" || len(parts) != 4 {
			t.Fatalf("text line %q", line)
		}
		gotRules = append(gotRules, parts[1])
	}
	want := []string{"http.content-type", "http.cache-control", "http.endpoint-scheme", "version.semver", "capability.id"}
	if !slices.Equal(gotRules, want) {
		t.Fatalf("text rules %v, want %v", gotRules, want)
	}

	_, out, _ = runFetch(t, nil, "--profile", "agentcard", "--format", "github", srv.URL)
	escaped := strings.ReplaceAll(input, ":", "%3A")
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if !strings.HasPrefix(line, "::error file="+escaped+",line=1,col=") && !strings.HasPrefix(line, "::warning file="+escaped+",line=1,col=") {
			t.Fatalf("github line %q", line)
		}
	}
	if !strings.Contains(out, "::warning file="+escaped+",line=1,col=1,title=http.cache-control::") {
		t.Fatalf("github output lacks the serving findings:\n%s", out)
	}

	// jsonl: nothing for a valid card without --all.
	_, okSrv := newSite(t, map[string]page{"/.well-known/agentcard": {body: httpCard}})
	code, out, _ = runFetch(t, nil, "--format", "jsonl", okSrv.URL)
	if code != cmderr.StatusOK || out != "" {
		t.Fatalf("jsonl without --all: exit %d, printed %q for a valid card", code, out)
	}
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"--format", "xml", "http://x"},
		{"-j", "0", "http://x"},
		{"--profile", "nope", "http://x"},
		{"--timeout", "0s", "http://x"},
		{"--max-record", "lots", "http://x"},
		{"--no-such-flag"},
	} {
		code, out, errOut := runFetch(t, nil, args...)
		if code != cmderr.StatusUsage || out != "" || !strings.HasPrefix(errOut, "cardscan: error: ") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
	code, out, _ := runFetch(t, nil, "--help")
	if code != cmderr.StatusOK || !strings.Contains(out, "usage: cardscan fetch") {
		t.Errorf("--help: exit %d, %q", code, out)
	}
	for _, f := range newFlagSet(&options{}).Missing(out) {
		t.Errorf("--help does not show --%s as declared", f.Long)
	}
	if _, _, errOut := runFetch(t, nil, "http://x", "--bogus"); !strings.HasPrefix(errOut, "cardscan: error: unknown flag --bogus\n") {
		t.Errorf("stderr %q does not name --bogus as typed", errOut)
	}
	for _, args := range [][]string{{"-j4", "http://x"}, {"http://x", "--jobs=4"}, {"--jobs", "4", "http://x"}} {
		if o, err := parseArgs(args); err != nil || o.jobs != 4 || !slices.Equal(o.urls, []string{"http://x"}) {
			t.Errorf("%q: %+v, %v; want 4 jobs and the URL", args, o, err)
		}
	}
	var errb bytes.Buffer
	if code := runExit([]string{"--urls", filepath.Join(t.TempDir(), "absent")}, nil, &bytes.Buffer{}, &errb, nil); code != cmderr.StatusIO {
		t.Errorf("missing --urls file: exit %d, stderr %q", code, errb.String())
	}
}

// TestRealCards serves every real-world card at an A2A well-known path
// over TLS and fetches it: the profile's findings must be those of judging
// the file directly, plus nothing but serving rules.
func TestRealCards(t *testing.T) {
	files := realcards.Files(t)
	v := fastvalidate.MustNew("auto")
	pages := map[string]page{}
	var urls []string
	want := map[string][]string{}
	tlsSite, srv := newTLSSite(t, nil)
	for i, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		path := fmt.Sprintf("/c%d/.well-known/agent-card.json", i)
		pages[path] = page{body: string(b), ctype: "application/json"}
		urls = append(urls, fmt.Sprintf("%s/c%d", srv.URL, i))
		var ids []string
		for _, fd := range v.Validate(b).Findings() {
			ids = append(ids, fd.Severity.String()+":"+fd.Rule())
		}
		want[srv.URL+path] = ids
	}
	tlsSite.pages = pages
	list := filepath.Join(t.TempDir(), "urls")
	os.WriteFile(list, []byte(strings.Join(urls, "\n")), 0o644)
	_, out, errOut := runFetch(t, trusting(srv), "--urls", list, "-j", "8")
	recs := decodeRecords(t, out)
	if len(recs) != len(files) {
		t.Fatalf("%d records for %d cards; stderr %s", len(recs), len(files), errOut)
	}
	for _, r := range recs {
		var got []string
		for _, f := range r.Errors {
			if !strings.HasPrefix(f.Rule, "http.") {
				got = append(got, "error:"+f.Rule)
			}
		}
		for _, f := range r.Warnings {
			if !strings.HasPrefix(f.Rule, "http.") {
				got = append(got, "warning:"+f.Rule)
			}
		}
		w := want[r.Input]
		slices.Sort(got)
		w = slices.Clone(w)
		slices.Sort(w)
		if !slices.Equal(got, w) {
			t.Errorf("%s: findings %v, want %v", r.Input, got, w)
		}
	}
}

// runExit runs `cardscan fetch args` to its exit status, saying its error
// on stderr as cardscan does.
func runExit(args []string, stdin io.Reader, stdout, stderr io.Writer, hooks *testHooks) int {
	return cmderr.Exit(run(args, stdin, stdout, stderr, hooks), console.New(stderr))
}

// runProbeExit is runExit for `cardscan probe args`.
func runProbeExit(args []string, stdin io.Reader, stdout, stderr io.Writer, hooks *testHooks) int {
	return cmderr.Exit(runProbe(args, stdin, stdout, stderr, hooks), console.New(stderr))
}
