package cardhttp

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"testing"
)

func gzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// upstreamReply is what the test upstream serves at one path.
type upstreamReply struct {
	status   int
	body     []byte
	encoding string
	chunked  bool
	ctype    string // "" for application/json, "-" for none
}

// proxyTo starts an upstream serving replies and a reverse proxy in front
// of it with the ModifyResponse hook, and returns the proxy's URL.
func proxyTo(t *testing.T, replies map[string]upstreamReply, opts ...Option) string {
	t.Helper()
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rep, ok := replies[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		switch rep.ctype {
		case "":
			h.Set("Content-Type", "application/json")
		case "-":
			h["Content-Type"] = nil // no sniffing either
		default:
			h.Set("Content-Type", rep.ctype)
		}
		h.Set("Cache-Control", "max-age=3600")
		h.Set("ETag", `"v1"`)
		if rep.encoding != "" {
			h.Set("Content-Encoding", rep.encoding)
		}
		if !rep.chunked {
			h.Set("Content-Length", strconv.Itoa(len(rep.body)))
		}
		w.WriteHeader(rep.status)
		if rep.chunked {
			// Two writes with a flush between force a chunked body.
			half := len(rep.body) / 2
			w.Write(rep.body[:half])
			w.(http.Flusher).Flush()
			rep.body = rep.body[half:]
		}
		w.Write(rep.body)
	}))
	t.Cleanup(upstream.Close)
	target, _ := url.Parse(upstream.URL)
	modify, err := ModifyResponse(opts...)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ModifyResponse = modify
	front := httptest.NewServer(proxy)
	t.Cleanup(front.Close)
	return front.URL
}

// fetchRaw GETs url without transparent decompression, so the test sees
// the bytes as the proxy sent them.
func fetchRaw(t *testing.T, u string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

func TestModifyResponse(t *testing.T) {
	valid := readTestdata(t, "valid.json")
	invalid := readTestdata(t, "invalid.json")
	replies := map[string]upstreamReply{
		"/.well-known/agentcard":            {status: 200, body: valid},
		"/.well-known/agent-card.json":      {status: 200, body: invalid},
		"/.well-known/agent.json":           {status: 200, body: valid, chunked: true},
		"/gz/.well-known/agentcard":         {status: 200, body: gzipped(t, valid), encoding: "gzip"},
		"/gz/.well-known/agent.json":        {status: 200, body: gzipped(t, invalid), encoding: "gzip"},
		"/br/.well-known/agentcard":         {status: 200, body: valid, encoding: "br"},
		"/notgz/.well-known/agentcard":      {status: 200, body: valid, encoding: "gzip"},
		"/docs/card.json":                   {status: 200, body: invalid},
		"/big/.well-known/agentcard":        {status: 200, body: append(bytes.Repeat([]byte(" "), 5000), valid...)},
		"/bigchunked/.well-known/agentcard": {status: 200, body: append(bytes.Repeat([]byte(" "), 5000), valid...), chunked: true},
	}
	front := proxyTo(t, replies, WithProfile("agentcard"), WithMaxBytes(4096), WithPaths(
		"/.well-known/agentcard", "/.well-known/agent-card.json", "/.well-known/agent.json",
		"/gz/.well-known/agentcard", "/gz/.well-known/agent.json", "/br/.well-known/agentcard",
		"/notgz/.well-known/agentcard", "/big/.well-known/agentcard", "/bigchunked/.well-known/agentcard",
	))
	for _, tc := range []struct {
		path        string
		wantStatus  int
		invalidCard bool // the upstream served invalid.json, so the problem lists its findings
	}{
		{"/.well-known/agentcard", 200, false},
		{"/.well-known/agent-card.json", 502, true},
		{"/.well-known/agent.json", 200, false},
		{"/gz/.well-known/agentcard", 200, false},
		{"/gz/.well-known/agent.json", 502, true},
		{"/br/.well-known/agentcard", 502, false},
		{"/notgz/.well-known/agentcard", 502, false},
		{"/docs/card.json", 200, false}, // not a card path: passed through unjudged
		{"/big/.well-known/agentcard", 502, false},
		{"/bigchunked/.well-known/agentcard", 502, false},
		{"/.well-known/missing", 404, false},
	} {
		t.Run(tc.path, func(t *testing.T) {
			resp, body := fetchRaw(t, front+tc.path)
			if resp.StatusCode != tc.wantStatus {
				t.Fatalf("status %d, want %d; body %s", resp.StatusCode, tc.wantStatus, body)
			}
			rep := replies[tc.path]
			switch tc.wantStatus {
			case 200:
				if !bytes.Equal(body, rep.body) {
					t.Fatalf("the proxy changed the card:\n got %q\nwant %q", body, rep.body)
				}
				if resp.Header.Get("ETag") != `"v1"` || resp.Header.Get("Cache-Control") != "max-age=3600" || resp.Header.Get("Content-Encoding") != rep.encoding {
					t.Fatalf("the proxy changed the card's headers: %v", resp.Header)
				}
			case 502:
				p := decodeProblem(t, resp, body)
				if resp.Header.Get("ETag") != "" || resp.Header.Get("Content-Encoding") != "" {
					t.Fatalf("the problem response kept the upstream card's headers: %v", resp.Header)
				}
				if tc.invalidCard {
					errs, _, _ := expectedFindings(t, "agentcard", invalid)
					if !equalFindings(p.Errors, errs) {
						t.Fatalf("problem errors %v, want %v", p.Errors, errs)
					}
				} else if p.Errors != nil {
					t.Fatalf("a card that was never judged has findings: %v", p.Errors)
				}
			}
		})
	}
}

// TestModifyResponse_StatusesAndTypes: what a client would read as the card
// is checked, whatever its 2xx status, and must be served as JSON.
func TestModifyResponse_StatusesAndTypes(t *testing.T) {
	valid := readTestdata(t, "valid.json")
	invalid := readTestdata(t, "invalid.json")
	for _, tc := range []struct {
		name  string
		reply upstreamReply
		want  int
	}{
		{"200 valid", upstreamReply{status: 200, body: valid}, 200},
		{"203 valid", upstreamReply{status: 203, body: valid}, 203},
		{"203 invalid", upstreamReply{status: 203, body: invalid}, 502},
		{"201 invalid", upstreamReply{status: 201, body: invalid}, 502},
		{"206 of a valid card", upstreamReply{status: 206, body: valid[:20]}, 502},
		{"204", upstreamReply{status: 204}, 204},
		{"404 page", upstreamReply{status: 404, body: []byte("<h1>no</h1>"), ctype: "text/html"}, 404},
		{"500", upstreamReply{status: 500, body: invalid}, 500},
		{"agentcard+json", upstreamReply{status: 200, body: valid, ctype: MediaType + "; charset=utf-8"}, 200},
		{"text/json", upstreamReply{status: 200, body: valid, ctype: "text/json"}, 200},
		{"valid card as text/html", upstreamReply{status: 200, body: valid, ctype: "text/html"}, 502},
		{"valid card as text/plain", upstreamReply{status: 200, body: valid, ctype: "text/plain"}, 502},
		{"valid card as octet-stream", upstreamReply{status: 200, body: valid, ctype: "application/octet-stream"}, 502},
		{"valid card with no type", upstreamReply{status: 200, body: valid, ctype: "-"}, 502},
		{"valid card as a list of types", upstreamReply{status: 200, body: valid, ctype: "application/json, text/html"}, 502},
	} {
		t.Run(tc.name, func(t *testing.T) {
			front := proxyTo(t, map[string]upstreamReply{"/.well-known/agentcard": tc.reply}, WithProfile("agentcard"))
			resp, body := fetchRaw(t, front+"/.well-known/agentcard")
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d, want %d; body %s", resp.StatusCode, tc.want, body)
			}
			if tc.want == 502 {
				decodeProblem(t, resp, body)
			} else if !bytes.Equal(body, tc.reply.body) {
				t.Fatalf("the proxy changed the body: %q", body)
			}
		})
	}
}

func TestModifyResponse_DefaultPathsAndMethods(t *testing.T) {
	invalid := readTestdata(t, "invalid.json")
	replies := map[string]upstreamReply{
		"/.well-known/agentcard":       {status: 200, body: invalid},
		"/.well-known/agent-card.json": {status: 200, body: invalid},
		"/.well-known/agent.json":      {status: 200, body: invalid},
		"/agent.json":                  {status: 200, body: invalid},
	}
	front := proxyTo(t, replies, WithProfile("agentcard"))
	for path := range replies {
		resp, _ := fetchRaw(t, front+path)
		want := http.StatusBadGateway
		if path == "/agent.json" {
			want = http.StatusOK
		}
		if resp.StatusCode != want {
			t.Errorf("GET %s: status %d, want %d", path, resp.StatusCode, want)
		}
	}
	// A HEAD response has no body to judge.
	resp, err := http.Head(front + "/.well-known/agentcard")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("HEAD: status %d, want 200", resp.StatusCode)
	}
}

// A header on several lines is one list (RFC 9110, section 5.3), and the
// client reads it whole: a hook that reads only the first line judges a
// card other than the one the client gets. A Content-Type on two lines
// is no one type (a browser takes the last, text/html here), and codings
// on two lines are applied in turn, of which only gzip alone is judged.
func TestModifyResponse_HeaderOnSeveralLines(t *testing.T) {
	card := readTestdata(t, "valid.json")
	hook, err := ModifyResponse()
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		header http.Header
		body   []byte
	}{
		"two types":     {http.Header{"Content-Type": {"application/json", "text/html"}}, card},
		"two encodings": {http.Header{"Content-Type": {"application/json"}, "Content-Encoding": {"gzip", "br"}}, gzipped(t, card)},
	} {
		req := httptest.NewRequest(http.MethodGet, "http://upstream.example/.well-known/agentcard", nil)
		resp := &http.Response{StatusCode: http.StatusOK, Header: tc.header, Body: io.NopCloser(bytes.NewReader(tc.body)), ContentLength: int64(len(tc.body)), Request: req}
		if err := hook(resp); err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusBadGateway || resp.Header.Get("Content-Type") != ProblemMediaType {
			t.Errorf("%s: forwarded as %d %v, want a 502 problem", name, resp.StatusCode, resp.Header)
		}
		resp.Body.Close()
	}
}
