package serve

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/linger"
	"github.com/cardscan/cardscan/internal/realcards"
	"github.com/cardscan/cardscan/internal/report"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

const (
	validCard   = `{"agent_id":"01J0T5Y7ZK3M8Q2R4S6V9W1X3Y","name":"Ledger","version":"2.4.1","capabilities":[{"id":"ledger.summarise","description":"Summarises ledgers."}],"endpoint":{"protocol":"https","url":"https://ledger.example.org/agent"}}`
	invalidCard = `{"agent_id":"01J0T5Y7ZK3M8Q2R4S6V9W1X3Y","name":"Ledger","version":"2.4","capabilities":[{"id":"Ledger Summarise"}],"endpoint":{"protocol":"http","url":"http://ledger.example.org/agent"}}`
)

func testConfig() config {
	return config{
		listen:          "127.0.0.1:0",
		profile:         "agentcard",
		maxBytes:        4096,
		shutdownTimeout: 5 * time.Second,
		readTimeout:     readTimeout,
		writeTimeout:    writeTimeout,
		idleTimeout:     defaultIdleTimeout,

		maxInflight:      defaultMaxInflight,
		maxInflightBytes: defaultMaxInflightBytes,
		maxConns:         connsPerRequest * defaultMaxInflight,
		lingerBytes:      linger.DefaultMaxBytes,
		lingerTimeout:    linger.DefaultTimeout,
	}
}

func newTestServer(t testing.TB, cfg config) *httptest.Server {
	t.Helper()
	h, err := newHandler(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// wantVerdict renders the verdict the CLI's encoder gives card, judged
// directly, for comparison with what the server answers; the card starts
// a line.
func wantVerdict(profile string, card []byte, line int, offset int64) []byte {
	return wantVerdictAt(profile, card, line, 1, offset)
}

func wantVerdictAt(profile string, card []byte, line, col int, offset int64) []byte {
	res := fastvalidate.MustNew(profile).Validate(card)
	vd := report.FromResult(inputName, line, col, offset, card, res)
	if vd.Profile == "" && profile != "auto" {
		vd.Profile = profile
	}
	var enc report.Encoder
	return enc.AppendJSONL(nil, &vd)
}

func postBody(t testing.TB, url, contentType string, body io.Reader) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.Post(url, contentType, body)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// postHeader posts body to url with header's lines, each as given (two
// lines of a field stay two), and returns the response and its body.
func postHeader(t testing.TB, url string, header http.Header, body string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	maps.Copy(req.Header, header)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

type problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail"`
}

func requireProblem(t *testing.T, resp *http.Response, body []byte, status int) problem {
	t.Helper()
	if resp.StatusCode != status {
		t.Fatalf("status %d, want %d; body %s", resp.StatusCode, status, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("Content-Type %q, want application/problem+json", ct)
	}
	requireNoSniff(t, resp)
	var p problem
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatalf("problem body %s: %v", body, err)
	}
	if p.Status != status || p.Detail == "" {
		t.Fatalf("problem %+v", p)
	}
	return p
}

// requireNoSniff fails unless resp forbids a browser to sniff its body:
// verdicts and problems quote the card, which may look like HTML.
func requireNoSniff(t *testing.T, resp *http.Response) {
	t.Helper()
	if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("%s: X-Content-Type-Options = %q, want nosniff", resp.Request.URL.Path, got)
	}
}

// Every body the server writes itself says nosniff: a single verdict, a
// stream of them, a problem, and /healthz.
func TestValidate_NoSniff(t *testing.T) {
	srv := newTestServer(t, testConfig())
	card := `{"name":"<script>alert(1)</script>"}`
	for _, contentType := range []string{"application/json", ndjsonType} {
		resp, body := postBody(t, srv.URL+"/v1/validate", contentType, strings.NewReader(card+"\n"))
		if resp.StatusCode != http.StatusOK || !bytes.HasPrefix(body, []byte(`{"input":"<request>"`)) {
			t.Fatalf("%s: status %d, body %s", contentType, resp.StatusCode, body)
		}
		requireNoSniff(t, resp)
	}
	resp, body := postBody(t, srv.URL+"/nowhere", "application/json", strings.NewReader(card))
	requireProblem(t, resp, body, http.StatusNotFound)
	resp, err := http.Get(srv.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	requireNoSniff(t, resp)
}

func TestValidate_SingleCard(t *testing.T) {
	srv := newTestServer(t, testConfig())
	for _, tc := range []struct {
		name, ctype, query, profile string
		card                        string
	}{
		{"valid", "application/json", "", "agentcard", validCard},
		{"invalid", "application/agentcard+json; charset=utf-8", "", "agentcard", invalidCard},
		{"not json", "application/json", "", "agentcard", "hello"},
		{"empty", "application/json", "", "agentcard", ""},
		{"leading blank lines", "application/json", "", "agentcard", "\n\n  " + invalidCard},
		{"profile query", "application/json", "?profile=agentcard-schema", "agentcard-schema", invalidCard},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := postBody(t, srv.URL+"/v1/validate"+tc.query, tc.ctype, strings.NewReader(tc.card))
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("status %d, type %q; body %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
			first := len(tc.card) - len(strings.TrimLeft(tc.card, " \n"))
			col := 1 + utf8.RuneCountInString(tc.card[strings.LastIndexByte(tc.card[:first], '\n')+1:first])
			want := wantVerdictAt(tc.profile, []byte(tc.card[first:]), 1+strings.Count(tc.card[:first], "\n"), col, int64(first))
			if !bytes.Equal(body, want) {
				t.Fatalf("verdict\n got %s\nwant %s", body, want)
			}
		})
	}
}

func TestValidate_MalformedRequests(t *testing.T) {
	srv := newTestServer(t, testConfig())
	url := srv.URL + "/v1/validate"
	t.Run("wrong content type", func(t *testing.T) {
		resp, body := postBody(t, url, "text/plain", strings.NewReader(validCard))
		requireProblem(t, resp, body, http.StatusUnsupportedMediaType)
		if !strings.Contains(resp.Header.Get("Accept-Post"), ndjsonType) {
			t.Errorf("Accept-Post = %q", resp.Header.Get("Accept-Post"))
		}
	})
	t.Run("no content type", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(validCard))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		requireProblem(t, resp, body, http.StatusUnsupportedMediaType)
	})
	t.Run("compressed, not gzip", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(validCard))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Content-Encoding", "br")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		requireProblem(t, resp, body, http.StatusUnsupportedMediaType)
		if resp.Header.Get("Accept-Encoding") != "gzip, identity" {
			t.Errorf("Accept-Encoding = %q", resp.Header.Get("Accept-Encoding"))
		}
	})
	t.Run("unknown profile", func(t *testing.T) {
		resp, body := postBody(t, url+"?profile=nope", "application/json", strings.NewReader(validCard))
		p := requireProblem(t, resp, body, http.StatusBadRequest)
		if !strings.Contains(p.Detail, "agentcard") {
			t.Errorf("detail %q does not list the profiles", p.Detail)
		}
	})
	// A parameter given twice, or one that does not parse, was read as
	// its first value, or left out: a proxy or log reading the last would
	// see another profile, or another origin trusted, than was judged.
	for _, q := range []string{"?profile=agentcard&profile=ma2d", "?from=https://a.example/&from=https://b.example/", "?profile=a2a%zz", "?profile=ma2d;from=https://a.example/"} {
		t.Run("query "+q, func(t *testing.T) {
			resp, body := postBody(t, url+q, "application/json", strings.NewReader(validCard))
			p := requireProblem(t, resp, body, http.StatusBadRequest)
			if !strings.Contains(p.Detail, "query") {
				t.Errorf("detail %q does not name the query", p.Detail)
			}
		})
	}
	t.Run("GET", func(t *testing.T) {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		requireProblem(t, resp, body, http.StatusMethodNotAllowed)
		if resp.Header.Get("Allow") != "POST" {
			t.Errorf("Allow = %q", resp.Header.Get("Allow"))
		}
	})
	t.Run("oversized, declared", func(t *testing.T) {
		big := validCard + strings.Repeat(" ", 5000)
		resp, body := postBody(t, url, "application/json", strings.NewReader(big))
		requireProblem(t, resp, body, http.StatusRequestEntityTooLarge)
	})
	t.Run("oversized, chunked", func(t *testing.T) {
		big := validCard + strings.Repeat(" ", 5000)
		resp, body := postBody(t, url, "application/json", io.MultiReader(strings.NewReader(big)))
		requireProblem(t, resp, body, http.StatusRequestEntityTooLarge)
	})
	t.Run("exactly the cap", func(t *testing.T) {
		card := validCard + strings.Repeat(" ", 4096-len(validCard))
		resp, body := postBody(t, url, "application/json", io.MultiReader(strings.NewReader(card)))
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d for a body of exactly the cap: %s", resp.StatusCode, body)
		}
	})
	t.Run("unknown path", func(t *testing.T) {
		resp, err := http.Get(srv.URL + "/v2/validate")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		requireProblem(t, resp, body, http.StatusNotFound)
	})
}

func gzipped(t *testing.T, s string) string {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(s))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestValidate_TypesAndEncodings: the JSON family is judged as one card, a
// gzip body is judged decoded within the cap, and what cannot be judged is
// refused.
func TestValidate_TypesAndEncodings(t *testing.T) {
	srv := newTestServer(t, testConfig())
	single := wantVerdict("agentcard", []byte(invalidCard), 1, 0)
	stream := append(wantVerdict("agentcard", []byte(validCard), 1, 0), wantVerdict("agentcard", []byte(invalidCard), 2, int64(len(validCard)+1))...)
	for _, tc := range []struct {
		name, ctype, encoding, body string
		status                      int
		want                        []byte
	}{
		{"text/json", "text/json", "", invalidCard, 200, single},
		{"+json", "application/vnd.api+json", "", invalidCard, 200, single},
		{"a list of types", "application/json, text/plain", "", invalidCard, 415, nil},
		{"form", "application/x-www-form-urlencoded", "", invalidCard, 415, nil},
		{"gzip", "application/json", "gzip", gzipped(t, invalidCard), 200, single},
		{"gzip NDJSON", ndjsonType, "gzip", gzipped(t, validCard+"\n"+invalidCard+"\n"), 200, stream},
		{"gzip, not gzip", "application/json", "gzip", invalidCard, 400, nil},
		{"gzip, decodes past the cap", "application/json", "gzip", gzipped(t, strings.Repeat(" ", 100_000)), 413, nil},
		{"gzip NDJSON, not gzip", ndjsonType, "gzip", invalidCard, 400, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			header := http.Header{"Content-Type": {tc.ctype}}
			if tc.encoding != "" {
				header["Content-Encoding"] = []string{tc.encoding}
			}
			resp, body := postHeader(t, srv.URL+"/v1/validate", header, tc.body)
			if tc.status != 200 {
				requireProblem(t, resp, body, tc.status)
				return
			}
			if resp.StatusCode != 200 || !bytes.Equal(body, tc.want) {
				t.Fatalf("status %d\n got %s\nwant %s", resp.StatusCode, body, tc.want)
			}
		})
	}
}

// TestValidate_RepeatedHeaderLines: as cardhttp's middleware, serve
// refuses two Content-Type lines (one names a type; RFC 9110, section
// 8.3) and reads Content-Encoding lines as one list (section 8.4), so
// that "identity" then "gzip" is two codings, not the first alone.
func TestValidate_RepeatedHeaderLines(t *testing.T) {
	srv := newTestServer(t, testConfig())
	for _, tc := range []struct {
		name              string
		ctypes, encodings []string
		body              string
		status            int
	}{
		{"JSON then text", []string{"application/json", "text/plain"}, nil, invalidCard, 400},
		{"text then JSON", []string{"text/plain", "application/json"}, nil, invalidCard, 400},
		{"identity then gzip", []string{"application/json"}, []string{"identity", "gzip"}, gzipped(t, invalidCard), 415},
		{"gzip then identity", []string{"application/json"}, []string{"gzip", "identity"}, gzipped(t, invalidCard), 415},
		{"one of each", []string{"application/json"}, []string{"gzip"}, gzipped(t, invalidCard), 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			header := http.Header{"Content-Type": tc.ctypes}
			if tc.encodings != nil {
				header["Content-Encoding"] = tc.encodings
			}
			resp, body := postHeader(t, srv.URL+"/v1/validate", header, tc.body)
			if tc.status != 200 {
				requireProblem(t, resp, body, tc.status)
				return
			}
			if resp.StatusCode != 200 {
				t.Fatalf("status %d: %s", resp.StatusCode, body)
			}
		})
	}
}

func TestValidate_NDJSON(t *testing.T) {
	srv := newTestServer(t, testConfig())
	long := `{"name":"` + strings.Repeat("x", 5000) + `"}`
	lines := []string{validCard, "", invalidCard + "\r", "  ", long, "[1,2]", "not json", invalidCard}
	body := strings.Join(lines, "\n") // the last line has no newline
	resp, got := postBody(t, srv.URL+"/v1/validate", "application/x-ndjson", strings.NewReader(body))
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != ndjsonType {
		t.Fatalf("status %d, type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var want []byte
	offset := int64(0)
	for i, l := range lines {
		rec := strings.TrimSuffix(l, "\r")
		switch {
		case len(l) > 4096:
			vd := report.TooLarge(inputName, i+1, 1, offset, 4096)
			vd.Profile = "agentcard"
			var enc report.Encoder
			want = enc.AppendJSONL(want, &vd)
		case strings.TrimSpace(rec) != "":
			want = append(want, wantVerdict("agentcard", []byte(rec), i+1, offset)...)
		}
		offset += int64(len(l)) + 1
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("verdicts\n got %s\nwant %s", got, want)
	}
	var rec map[string]json.RawMessage
	if err := json.Unmarshal(bytes.SplitN(got, []byte("\n"), 2)[0], &rec); err != nil || len(rec) != 7 {
		t.Fatalf("first verdict is not a 7-key object: %v %v", rec, err)
	}
}

// TestValidate_NDJSONStreamsBothWays sends each card only after reading the
// verdict on the previous one: the server must answer as cards arrive,
// not after the body ends, from the first.
func TestValidate_NDJSONStreamsBothWays(t *testing.T) {
	srv := newTestServer(t, testConfig())
	pr, pw := io.Pipe()
	defer pw.Close()
	// On failure, dropping the connection lets the handler, and so the
	// server's Close, finish.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/v1/validate", pr)
	req.Header.Set("Content-Type", ndjsonType)
	respc := make(chan *http.Response, 1)
	errc := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			errc <- err
			return
		}
		respc <- resp
	}()
	// The first line is shorter than the 4 bytes that tell a UTF-16 or
	// UTF-32 body from UTF-8 in general: its own 3 tell already, and the
	// server must not wait for a fourth.
	cards := []string{"{}", validCard, invalidCard, validCard}
	var br *bufio.Reader
	var resp *http.Response
	for i, card := range cards {
		if _, err := io.WriteString(pw, card+"\n"); err != nil {
			t.Fatal(err)
		}
		if resp == nil {
			select {
			case resp = <-respc:
				defer resp.Body.Close()
				br = bufio.NewReader(resp.Body)
			case err := <-errc:
				t.Fatal(err)
			case <-time.After(10 * time.Second):
				t.Fatal("no response headers after the first card")
			}
		}
		line, err := br.ReadBytes('\n')
		if err != nil {
			t.Fatalf("verdict %d: %v", i+1, err)
		}
		var vd struct {
			Line  int  `json:"line"`
			Valid bool `json:"valid"`
		}
		if err := json.Unmarshal(line, &vd); err != nil || vd.Line != i+1 || vd.Valid != (card == validCard) {
			t.Fatalf("verdict %d: %s (%v)", i+1, line, err)
		}
	}
	pw.Close()
	if rest, _ := io.ReadAll(br); len(rest) != 0 {
		t.Fatalf("unexpected output after the last card: %q", rest)
	}
}

func TestHealthz(t *testing.T) {
	srv := newTestServer(t, testConfig())
	resp, err := http.Get(srv.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(body) != "ok\n" {
		t.Fatalf("healthz: %d %q", resp.StatusCode, body)
	}
}

func TestMetrics(t *testing.T) {
	srv := newTestServer(t, testConfig())
	url := srv.URL + "/v1/validate"
	postBody(t, url, "application/json", strings.NewReader(validCard))
	postBody(t, url, "application/json", strings.NewReader(invalidCard))
	postBody(t, url, ndjsonType, strings.NewReader(invalidCard+"\n"+validCard+"\n"+invalidCard+"\n"))
	postBody(t, url, "text/plain", strings.NewReader(validCard))
	postBody(t, url+"?profile=auto", "application/json", strings.NewReader("not json"))

	// What the metrics must say, from judging the same cards directly.
	wantRules := map[string]float64{}
	v := fastvalidate.MustNew("agentcard")
	for _, c := range []string{validCard, invalidCard, invalidCard, validCard, invalidCard} {
		for _, f := range v.Validate([]byte(c)).Findings() {
			wantRules[f.Rule()+"/"+f.Severity.String()]++
		}
	}
	for _, f := range fastvalidate.MustNew("auto").Validate([]byte("not json")).Findings() {
		wantRules[f.Rule()+"/"+f.Severity.String()]++
	}
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("/metrics is not Prometheus text format: %v", err)
	}
	value := func(name string, labels map[string]string) float64 {
		mf := families[name]
		if mf == nil {
			t.Fatalf("no metric %s", name)
		}
	metrics:
		for _, m := range mf.GetMetric() {
			have := map[string]string{}
			for _, l := range m.GetLabel() {
				have[l.GetName()] = l.GetValue()
			}
			for k, v := range labels {
				if have[k] != v {
					continue metrics
				}
			}
			if h := m.GetHistogram(); h != nil {
				return float64(h.GetSampleCount())
			}
			return m.GetCounter().GetValue()
		}
		return 0
	}
	if got := value("cardscan_cards_total", map[string]string{"profile": "agentcard", "valid": "true"}); got != 2 {
		t.Errorf("valid cards = %v, want 2", got)
	}
	if got := value("cardscan_cards_total", map[string]string{"profile": "agentcard", "valid": "false"}); got != 3 {
		t.Errorf("invalid cards = %v, want 3", got)
	}
	if got := value("cardscan_cards_total", map[string]string{"profile": "none", "valid": "false"}); got != 1 {
		t.Errorf("cards no profile judged = %v, want 1", got)
	}
	if len(wantRules) == 0 {
		t.Fatal("the test cards have no findings")
	}
	for key, want := range wantRules {
		rule, sev, _ := strings.Cut(key, "/")
		if got := value("cardscan_findings_total", map[string]string{"rule": rule, "severity": sev}); got != want {
			t.Errorf("findings of %s = %v, want %v", key, got, want)
		}
	}
	if got := value("cardscan_http_requests_total", map[string]string{"handler": "/v1/validate", "code": "200"}); got != 4 {
		t.Errorf("200 requests = %v, want 4", got)
	}
	if got := value("cardscan_http_requests_total", map[string]string{"handler": "/v1/validate", "code": "415"}); got != 1 {
		t.Errorf("415 requests = %v, want 1", got)
	}
	if got := value("cardscan_http_request_duration_seconds", map[string]string{"handler": "/v1/validate", "code": "200"}); got != 4 {
		t.Errorf("latency samples = %v, want 4", got)
	}
}

// TestValidate_RealCards posts every real-world card and compares the
// verdict with the CLI encoder's rendering of a direct judgement.
func TestValidate_RealCards(t *testing.T) {
	files := realcards.Files(t)
	cfg := testConfig()
	cfg.profile = "auto"
	cfg.maxBytes = 2 << 20
	srv := newTestServer(t, cfg)
	var ndjson, want bytes.Buffer
	for i, f := range files {
		card, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		card = bytes.TrimSpace(card)
		resp, got := postBody(t, srv.URL+"/v1/validate", "application/json", bytes.NewReader(card))
		if w := wantVerdict(cfg.profile, card, 1, 0); resp.StatusCode != 200 || !bytes.Equal(got, w) {
			t.Errorf("%s: %d\n got %s\nwant %s", filepath.Base(f), resp.StatusCode, got, w)
		}
		if !bytes.Contains(card, []byte("\n")) {
			want.Write(wantVerdict(cfg.profile, card, i+1, int64(ndjson.Len())))
			fmt.Fprintf(&ndjson, "%s\n", card)
		} else {
			compact := new(bytes.Buffer)
			if json.Compact(compact, card) == nil {
				want.Write(wantVerdict(cfg.profile, compact.Bytes(), i+1, int64(ndjson.Len())))
				fmt.Fprintf(&ndjson, "%s\n", compact)
			} else {
				ndjson.WriteString("\n") // keep line numbers aligned with files
			}
		}
	}
	resp, got := postBody(t, srv.URL+"/v1/validate", ndjsonType, &ndjson)
	if resp.StatusCode != 200 || !bytes.Equal(got, want.Bytes()) {
		t.Errorf("NDJSON of the real cards: status %d, verdicts differ from the CLI encoder's", resp.StatusCode)
	}
}
