package fetch

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/cardscan/cardscan/internal/summary"
	"github.com/cardscan/cardscan/internal/visible"
	"github.com/klauspost/compress/zstd"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cardscan/cardscan/internal/cmderr"
)

// rawServer is a server on loopback that reads each request's head and
// lets respond write whatever bytes it likes, HTTP or not, on the
// connection; it returns the server's http:// URL.
func rawServer(t *testing.T, respond func(c net.Conn, head string)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				var head strings.Builder
				for {
					l, err := br.ReadString('\n')
					head.WriteString(l)
					if err != nil || l == "\r\n" {
						break
					}
				}
				respond(c, head.String())
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

// manyHeaders is a 200 answer holding a card after size bytes of tiny
// header lines.
func manyHeaders(size int, body string) []byte {
	var b bytes.Buffer
	b.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n")
	for b.Len() < size {
		b.WriteString("X: a\r\n")
	}
	b.WriteString("\r\n" + body)
	return b.Bytes()
}

// TestHugeHeadersRefused: net/http reads up to 10 MB of an answer's
// headers by default, and 10 MB of tiny header lines allocate some 160 MB
// (TestHeaderBoundCost), whatever --max-record says: a few such servers in a
// crawl's -j would exhaust the machine. Headers past maxHeaderBytes end
// the answer, named as such.
func TestHugeHeadersRefused(t *testing.T) {
	answer := manyHeaders(maxHeaderBytes+1024, a2aCard)
	u := rawServer(t, func(c net.Conn, _ string) { c.Write(answer) })
	code, out, errOut := runFetch(t, nil, "--format", "jsonl", u+"/card.json")
	recs := decodeRecords(t, out)
	if code != cmderr.StatusIO || len(recs) != 1 || !slices.Equal(rules(recs[0].Errors), []string{"http.unreachable"}) ||
		!strings.Contains(recs[0].Errors[0].Message, "headers exceeded") {
		t.Fatalf("fetch: exit %d, records %+v\n%s", code, recs, errOut)
	}

	card := card10("["+iface10(u+"/rpc", "JSONRPC")+"]", "{}")
	precs, _, errOut := runProbeOn(t, nil, card+"\n", "--allow-private")
	if len(precs) != 1 || precs[0].Probe.Class != classUnreachable || len(precs[0].Errors) != 1 || !strings.Contains(precs[0].Errors[0].Message, "headers exceeded") {
		t.Fatalf("probe: %+v\n%s", precs, errOut)
	}

	// Headers within the bound are read as ever.
	small := manyHeaders(maxHeaderBytes-1024, a2aCard)
	u = rawServer(t, func(c net.Conn, _ string) { c.Write(small) })
	if code, out, errOut := runFetch(t, nil, "--format", "jsonl", "--all", u+"/card.json"); code == cmderr.StatusIO {
		t.Fatalf("headers within the bound: exit %d\n%s%s", code, out, errOut)
	}
}

// TestSilentServerIsNotUnreachable: a server that takes the request and
// then says nothing, or hangs up, was reached; "cannot reach HOST: timed
// out" sent whoever reads the record to look for a firewall or a host
// that is down.
func TestSilentServerIsNotUnreachable(t *testing.T) {
	silent := rawServer(t, func(c net.Conn, _ string) { io.Copy(io.Discard, c) })
	hangUp := rawServer(t, func(net.Conn, string) {})
	for _, tc := range []struct {
		name, url, rule, fetchMsg, probeRule, probeMsg string
	}{
		{"silent", silent, "http.timeout", "took the request, then timed out: no answer within --timeout 1s", "probe.timeout", "took the request, then timed out: no answer within --timeout 1s"},
		{"hang up", hangUp, "http.unreachable", "took the request, then closed the connection without answering", "probe.unreachable", "took the request, then closed the connection without answering"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			host := strings.TrimPrefix(tc.url, "http://")
			_, out, errOut := runFetch(t, nil, "--timeout", "1s", "--format", "jsonl", tc.url+"/card.json")
			recs := decodeRecords(t, out)
			if want := host + " " + tc.fetchMsg; len(recs) != 1 || !slices.Equal(rules(recs[0].Errors), []string{tc.rule}) || recs[0].Errors[0].Message != want {
				t.Errorf("fetch: records %+v, want one %s: %q\n%s", recs, tc.rule, want, errOut)
			}
			card := card10("["+iface10(tc.url+"/rpc", "JSONRPC")+"]", "{}")
			precs, _, errOut := runProbeOn(t, nil, card+"\n", "--allow-private", "--timeout", "1s", "--retries", "0")
			if want := host + " " + tc.probeMsg; len(precs) != 1 || !slices.Equal(precs[0].rules(), []string{tc.probeRule}) || precs[0].Errors[0].Message != want {
				t.Errorf("probe: records %+v, want one %s: %q\n%s", precs, tc.probeRule, want, errOut)
			}
		})
	}
	// A port nothing listens on is still one that cannot be reached.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	_, out, _ := runFetch(t, nil, "--format", "jsonl", "http://"+closed+"/card.json")
	if recs := decodeRecords(t, out); len(recs) != 1 || !strings.HasPrefix(recs[0].Errors[0].Message, "cannot reach "+closed+": ") {
		t.Errorf("a closed port: %+v", recs)
	}
}

// TestProbe_EnormousAnswer: an answer is read up to maxAnswer bytes. A
// JSON-RPC error longer than that was judged on its cut-off start, which
// parses as no JSON, and named "a body in no binding's shape": the record
// said something untrue of the server. It says the body was too large to
// judge; a large HTML page is still a page.
func TestProbe_EnormousAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/page") {
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<!doctype html><title>x</title>"+strings.Repeat("<p>filler</p>", maxAnswer/8))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"`+strings.Repeat("x", 2*maxAnswer)+`"}}`)
	}))
	t.Cleanup(srv.Close)
	card := card10("["+iface10(srv.URL+"/rpc", "JSONRPC")+","+iface10(srv.URL+"/page", "JSONRPC")+"]", "{}")
	recs, _, errOut := runProbeOn(t, nil, card+"\n", "--allow-private")
	if len(recs) != 2 {
		t.Fatalf("records %+v\n%s", recs, errOut)
	}
	if want := "GetTask answered 200 with a body larger than 64KiB, read no further"; !slices.Equal(recs[0].rules(), []string{"probe.status"}) || recs[0].Errors[0].Message != want {
		t.Errorf("an enormous error: %+v, want probe.status %q", recs[0], want)
	}
	if !slices.Equal(recs[1].rules(), []string{"probe.html"}) {
		t.Errorf("an enormous page: %+v, want probe.html", recs[1])
	}
}

// noDNS is hooks under which no name resolves.
func noDNS() *testHooks {
	return &testHooks{lookup: func(context.Context, string) ([]netip.Addr, error) {
		return nil, errors.New("no such host")
	}}
}

// TestRecordsNameTheURLAsListed: a URL that yielded no card was named in
// its record after escaping every byte past ASCII as \uXXXX text, before
// the record's own encoding: a JSON record's input read
// "https://b\\u00fccher.example/", a URL no one listed, and probe's
// messages alike. The encoders show hidden characters themselves; an IDN
// host is written as it is.
func TestRecordsNameTheURLAsListed(t *testing.T) {
	const idn = "https://bücher.example/card.json"
	const hidden = "https://a\u202eb.example/card.json"
	_, out, errOut := runFetchGuarded(t, noDNS(), "--format", "jsonl", idn, hidden)
	recs := decodeRecords(t, out)
	if len(recs) != 2 || recs[0].Input != idn || recs[1].Input != hidden ||
		!strings.Contains(recs[0].Errors[0].Message, "cannot reach bücher.example: ") {
		t.Errorf("jsonl: %+v\n%s", recs, errOut)
	}
	if visible.Has([]byte(out)) {
		t.Errorf("jsonl: hidden characters written raw:\n%s", out)
	}
	_, out, _ = runFetchGuarded(t, noDNS(), "--format", "text", idn, hidden)
	if !strings.HasPrefix(out, idn+":1:1: error: http.unreachable: ") || !strings.Contains(out, "https://a<U+202E>b.example/card.json:1:1:") || visible.Has([]byte(out)) {
		t.Errorf("text:\n%s", out)
	}

	card := card10("["+iface10("https://bücher.example/rpc", "JSONRPC")+"]", "{}")
	precs, _, errOut := runProbeOn(t, noDNS(), card+"\n", "--include-invalid")
	if len(precs) != 1 || len(precs[0].Errors) != 1 || !strings.HasPrefix(precs[0].Errors[0].Message, "cannot reach bücher.example: ") {
		t.Errorf("probe: %+v\n%s", precs, errOut)
	}
}

// TestPortOutOfRange: url.Parse takes any run of digits for a port. Port
// 0 was looked up and dialled, and 99999 looked up, before the dial said
// "address 99999: invalid port"; such a URL names no server, and is
// refused as it is read, with no lookup.
func TestPortOutOfRange(t *testing.T) {
	var lookups atomic.Int32
	hooks := &testHooks{lookup: func(context.Context, string) ([]netip.Addr, error) {
		lookups.Add(1)
		return nil, errors.New("no such host")
	}}
	_, out, errOut := runFetchGuarded(t, hooks, "--format", "jsonl", "https://a.example:0/", "http://a.example:99999/card.json", "https://a.example:65536")
	recs := decodeRecords(t, out)
	if len(recs) != 3 {
		t.Fatalf("records %+v\n%s", recs, errOut)
	}
	for i, port := range []string{"0", "99999", "65536"} {
		if want := "port " + port + " is not 1 to 65535"; recs[i].Errors[0].Message != want {
			t.Errorf("%s: %q, want %q", recs[i].Input, recs[i].Errors[0].Message, want)
		}
	}
	if n := lookups.Load(); n != 0 {
		t.Errorf("%d lookups of a URL whose port names no server", n)
	}

	card := card10("["+iface10("https://a.example:0/rpc", "JSONRPC")+","+iface10("https://a.example:70000/", "GRPC")+"]", "{}")
	precs, _, errOut := runProbeOn(t, hooks, card+"\n", "--include-invalid")
	if len(precs) != 2 {
		t.Fatalf("probe: %+v\n%s", precs, errOut)
	}
	for i, port := range []string{"0", "70000"} {
		r := precs[i]
		if !slices.Equal(r.rules(), []string{"probe.not-probed"}) || r.Probe.Class != classNotProbed || !strings.HasSuffix(r.Warnings[0].Message, "port "+port+" is not 1 to 65535") {
			t.Errorf("probe: %+v", r)
		}
	}
}

// TestMaxTime: --timeout bounds each request, but not what one URL or
// one interface costs in all: a site answering 503 with Retry-After at
// each well-known path, each redirect a request of its own, held a fetch
// for minutes (3 paths × (--retries + 1) tries, each up to --timeout per
// hop, and the waits between them); a card's 32 interfaces under fetch
// --probe are asked one after the other, each with its own retries. A
// URL, its probes included, and an interface under probe, end at
// --max-time, and the record says that is why.
func TestMaxTime(t *testing.T) {
	var calls atomic.Int32
	busy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(busy.Close)
	_, out, errOut := runFetch(t, nil, "--format", "jsonl", "--retries", "10", "--max-time", "2500ms", busy.URL)
	recs := decodeRecords(t, out)
	if len(recs) != 1 || !slices.Equal(rules(recs[0].Errors), []string{"http.timeout"}) ||
		!strings.Contains(recs[0].Errors[0].Message, "--max-time 2.5s ran out") {
		t.Errorf("fetch: %+v\n%s", recs, errOut)
	}
	if n := calls.Load(); n > 4 {
		t.Errorf("fetch: %d requests in 2.5 s at Retry-After 1", n)
	}

	calls.Store(0)
	card := card10("["+iface10(busy.URL+"/rpc", "JSONRPC")+"]", "{}")
	precs, _, errOut := runProbeOn(t, nil, card+"\n", "--allow-private", "--retries", "10", "--max-time", "2500ms")
	if len(precs) != 1 || !slices.Equal(precs[0].rules(), []string{"probe.timeout"}) ||
		!strings.Contains(precs[0].Errors[0].Message, "--max-time 2.5s ran out") {
		t.Errorf("probe: %+v\n%s", precs, errOut)
	}
	if n := calls.Load(); n > 4 {
		t.Errorf("probe: %d requests in 2.5 s at Retry-After 1", n)
	}

	// fetch --probe: the card's interfaces are asked one after the other
	// within the URL's --max-time; the one under way when it ends is cut,
	// and those after it are not asked.
	stall := rawServer(t, func(c net.Conn, _ string) { io.Copy(io.Discard, c) })
	cardSite := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, card10("["+iface10(stall+"/a", "JSONRPC")+","+iface10(stall+"/b", "JSONRPC")+","+iface10(stall+"/c", "JSONRPC")+"]", "{}"))
	}))
	t.Cleanup(cardSite.Close)
	_, out, errOut = runFetch(t, nil, "--format", "cards", "--probe", "--timeout", "2s", "--max-time", "3s", cardSite.URL+"/card.json")
	var rec struct {
		Probes []probeRecord `json:"probes"`
	}
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatalf("%v: %s%s", err, out, errOut)
	}
	want := []struct{ rule, msg string }{
		{"probe.timeout", "no answer within --timeout 2s"},
		{"probe.timeout", "--max-time 3s ran out"},
		{"probe.not-probed", "--max-time 3s ran out"},
	}
	if len(rec.Probes) != len(want) {
		t.Fatalf("fetch --probe: %+v", rec.Probes)
	}
	for i, w := range want {
		r := rec.Probes[i]
		msgs := ""
		for _, e := range r.Errors {
			msgs += e.Message
		}
		for _, e := range r.Warnings {
			msgs += e.Message
		}
		if !slices.Equal(r.rules(), []string{w.rule}) || !strings.Contains(msgs, w.msg) {
			t.Errorf("fetch --probe, interface %d: %+v, want %s %q", i, r, w.rule, w.msg)
		}
	}
}

// TestResumeURLNotUTF8: a cards record's url is the URL as listed, which
// --resume matches; a listed line that is not UTF-8 was written with
// U+FFFD for its bad bytes, matched nothing on the next run, and was
// fetched again and its record appended again on every resume.
func TestResumeURLNotUTF8(t *testing.T) {
	dir := t.TempDir()
	list, out := filepath.Join(dir, "urls.txt"), filepath.Join(dir, "cards.ndjson")
	if err := os.WriteFile(list, []byte("https://a.example/\xff.json\nhttps://a.example/\xfe.json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		runFetchGuarded(t, noDNS(), "--urls", list, "--resume", out)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte("\n")); n != 2 {
		t.Errorf("%d records for 2 URLs after a resume:\n%s", n, b)
	}
	var held []string
	for line := range bytes.Lines(b) {
		var rec struct {
			URLBase64 []byte `json:"url_base64"`
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		held = append(held, string(rec.URLBase64))
	}
	if want := []string{"https://a.example/\xff.json", "https://a.example/\xfe.json"}; !slices.Equal(held, want) {
		t.Errorf("the records' url_base64 hold %q, want %q", held, want)
	}
}

// TestProbeResumeInputNotUTF8: probe --resume keys a record by its
// input, line and pointer; an input whose name is not UTF-8 is written
// with U+FFFD for its bad bytes (and input_base64 beside it), matched
// nothing on the next run, and its interfaces were probed and appended
// again on every resume.
func TestProbeResumeInputNotUTF8(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "cards\xff.ndjson"), filepath.Join(dir, "probes.jsonl")
	card := card10("["+iface10("https://a.example/rpc", "JSONRPC")+"]", "{}")
	if err := os.WriteFile(in, []byte(card+"\n"), 0o644); err != nil {
		t.Skipf("the file system refuses a name that is not UTF-8: %v", err)
	}
	for range 2 {
		var o, e bytes.Buffer
		runProbeExit([]string{"--resume", out, in}, strings.NewReader(""), &o, &e, noDNS())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte("\n")); n != 1 {
		t.Errorf("%d records for 1 interface after a resume:\n%s", n, b)
	}
}

// TestRedirectOverPlainHTTP: a card fetched over https after a redirect
// served over plain http got no http.insecure-fetch warning, although
// anyone on the path could have sent that redirect to a host of their
// own, whose card would then be judged, and its signatures bound to it,
// as the site's.
func TestRedirectOverPlainHTTP(t *testing.T) {
	tlsSite, tlsSrv := newTLSSite(t, nil)
	tlsSite.pages = map[string]page{"/card.json": {body: a2aCard, ctype: "application/json"}}
	_, plain := newSite(t, map[string]page{"/start.json": {location: tlsSrv.URL + "/card.json"}})
	_, out, errOut := runFetch(t, trusting(tlsSrv), "--format", "jsonl", "--all", plain.URL+"/start.json", tlsSrv.URL+"/card.json")
	recs := decodeRecords(t, out)
	if len(recs) != 2 {
		t.Fatalf("records %+v\n%s", recs, errOut)
	}
	var found bool
	for _, w := range recs[0].Warnings {
		if w.Rule == "http.insecure-fetch" && strings.Contains(w.Message, plain.URL+"/start.json") {
			found = true
		}
	}
	if !found {
		t.Errorf("via a plain-http redirect: warnings %+v, want http.insecure-fetch naming %s", recs[0].Warnings, plain.URL+"/start.json")
	}
	if slices.Contains(rules(recs[1].Warnings), "http.insecure-fetch") {
		t.Errorf("https throughout: %+v", recs[1].Warnings)
	}
}

// TestProbeSendsNoCredentials: an interface URL may carry userinfo
// (https://user:secret@host/rpc). net/http turns it into an Authorization
// header, so probe sent a card's credentials to the interface, and its
// extended-card call, meant to show what a caller without credentials
// gets, carried them. Nor does the record repeat the password.
func TestProbeSendsNoCredentials(t *testing.T) {
	var mu sync.Mutex
	var auth []string
	rpc := &fakeRPC{oneX: true, extended: 200}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		rpc.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	withUser := strings.Replace(srv.URL, "http://", "http://user:secret@", 1) + "/rpc"
	card := card10("["+iface10(withUser, "JSONRPC")+"]", `{"extendedAgentCard":true}`)
	recs, _, errOut := runProbeOn(t, nil, card+"\n", "--allow-private", "--include-invalid")
	mu.Lock()
	defer mu.Unlock()
	if len(auth) == 0 || slices.ContainsFunc(auth, func(a string) bool { return a != "" }) {
		t.Errorf("Authorization headers sent: %q\n%s", auth, errOut)
	}
	if len(recs) != 1 || recs[0].Probe.URL != strings.Replace(withUser, "secret", "xxxxx", 1) {
		t.Errorf("records %+v", recs)
	}
}

// TestProbe_GRPCSilentServer: a gRPC interface whose server takes the
// connection and never speaks HTTP/2 was "cannot reach HOST: timed out",
// as if no connection had been made.
func TestProbe_GRPCSilentServer(t *testing.T) {
	silent := rawServer(t, func(c net.Conn, _ string) { io.Copy(io.Discard, c) })
	card := card10("["+iface10(silent, "GRPC")+"]", "{}")
	recs, _, errOut := runProbeOn(t, nil, card+"\n", "--allow-private", "--timeout", "1s")
	want := strings.TrimPrefix(silent, "http://") + " took the connection, then timed out: no answer within --timeout 1s"
	if len(recs) != 1 || !slices.Equal(recs[0].rules(), []string{"probe.timeout"}) || recs[0].Errors[0].Message != want {
		t.Errorf("records %+v, want one probe.timeout %q\n%s", recs, want, errOut)
	}
}

// TestUnaskedContentEncoding: fetch asks for gzip only, which net/http
// decodes. A card sent in another encoding anyway (zstd, or gzip twice)
// was "200 with a body starting with '('", which sent the reader looking
// for a broken card rather than at the server's encoding.
func TestUnaskedContentEncoding(t *testing.T) {
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	body := enc.EncodeAll([]byte(a2aCard), nil)
	enc.Close()
	u := rawServer(t, func(c net.Conn, _ string) {
		c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: zstd\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n"))
		c.Write(body)
	})
	_, out, errOut := runFetch(t, nil, "--format", "jsonl", u+"/card.json")
	recs := decodeRecords(t, out)
	if len(recs) != 1 || !slices.Equal(rules(recs[0].Errors), []string{"http.not-a-card"}) ||
		!strings.Contains(recs[0].Errors[0].Message, `200 with Content-Encoding "zstd", which was not asked for`) {
		t.Errorf("records %+v\n%s", recs, errOut)
	}
}

// brokenPipe is standard output whose reader has gone (cardscan fetch
// ... | head -1): every write after the first fails with err, EPIPE
// unless set.
type brokenPipe struct {
	writes int
	err    error
}

func (p *brokenPipe) Write(b []byte) (int, error) {
	if p.writes++; p.writes > 1 {
		return 0, cmp.Or(p.err, error(syscall.EPIPE))
	}
	return len(b), nil
}

// TestReaderGoneStopsTheRun: once standard output's reader has gone,
// no record can be written, but fetch went on fetching every URL of its
// list, and probe asking every interface: `cardscan fetch --urls
// million.txt | head -1` crawled the million. The run stops asking.
func TestReaderGoneStopsTheRun(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		time.Sleep(20 * time.Millisecond)
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodPost {
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"task not found"}}`)
			return
		}
		io.WriteString(w, a2aCard)
	}))
	t.Cleanup(srv.Close)
	const n = 200

	var urls strings.Builder
	for i := range n {
		fmt.Fprintf(&urls, "%s/card-%d.json\n", srv.URL, i)
	}
	var errOut bytes.Buffer
	runExit([]string{"--allow-private", "--urls", "-", "--format", "jsonl", "--all"}, strings.NewReader(urls.String()), &brokenPipe{}, &errOut, nil)
	if got := hits.Load(); got > n/4 {
		t.Errorf("fetch: %d of %d URLs fetched after the reader went\n%s", got, n, errOut.String())
	}

	hits.Store(0)
	var cards strings.Builder
	for range n {
		cards.WriteString(card10("["+iface10(srv.URL+"/rpc", "JSONRPC")+"]", "{}") + "\n")
	}
	errOut.Reset()
	runProbeExit([]string{"--allow-private", "-"}, strings.NewReader(cards.String()), &brokenPipe{}, &errOut, nil)
	if got := hits.Load(); got > n/4 {
		t.Errorf("probe: %d of %d interfaces asked after the reader went\n%s", got, n, errOut.String())
	}

	// A full disk stops the run too, and is an error of its own.
	hits.Store(0)
	errOut.Reset()
	code := runExit([]string{"--allow-private", "--urls", "-", "--format", "jsonl", "--all"}, strings.NewReader(urls.String()), &brokenPipe{err: syscall.ENOSPC}, &errOut, nil)
	if got := hits.Load(); code != cmderr.StatusIO || got > n/4 || !strings.Contains(errOut.String(), "writing the records: no space left on device") {
		t.Errorf("fetch to a full disk: exit %d, %d of %d URLs fetched\n%s", code, got, n, errOut.String())
	}
}

// TestProbe_VersionNotAHeaderValue: a 1.x interface's requests carry its
// declared protocolVersion's MAJOR.MINOR as A2A-Version. A card declaring
// "1.0\r\nX-Injected: 1" (probed under --include-invalid) had net/http
// refuse the request, which the record named "cannot reach HOST", a
// failure of the host's; a version that is not MAJOR.MINOR is sent as
// 1.0, as an interface declaring none is.
func TestProbe_VersionNotAHeaderValue(t *testing.T) {
	var mu sync.Mutex
	var got []http.Header
	rpc := &fakeRPC{oneX: true}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Clone())
		mu.Unlock()
		rpc.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	for _, version := range []string{`1.0\r\nX-Injected: 1`, `1.\u00e9`, `1.0 beta`} {
		got = nil
		card := card10(`[{"url":"`+srv.URL+`/rpc","protocolBinding":"JSONRPC","protocolVersion":"`+version+`"}]`, "{}")
		recs, _, errOut := runProbeOn(t, nil, card+"\n", "--allow-private", "--include-invalid")
		mu.Lock()
		if len(recs) != 1 || recs[0].Probe.Class != classAnswering || len(got) != 1 || got[0].Get("A2A-Version") != "1.0" || got[0].Get("X-Injected") != "" {
			t.Errorf("protocolVersion %s: records %+v, headers %v\n%s", version, recs, got, errOut)
		}
		mu.Unlock()
	}
}

// TestRedirectToNoURL: a redirect whose Location is no URL made
// net/http's client fail the request ("failed to parse Location
// header"), which ended the discovery as a host that could not be
// reached; it is a redirect refused, like one to another scheme, and the
// next path is asked.
func TestRedirectToNoURL(t *testing.T) {
	u := rawServer(t, func(c net.Conn, head string) {
		if strings.HasPrefix(head, "GET /.well-known/agent-card.json ") {
			c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(a2aCard)) + "\r\n\r\n" + a2aCard))
			return
		}
		c.Write([]byte("HTTP/1.1 302 Found\r\nLocation: http://a b/%zz\r\nContent-Length: 0\r\n\r\n"))
	})
	_, out, errOut := runFetch(t, nil, "--format", "jsonl", "--all", u+"/", u+"/x.json")
	recs := decodeRecords(t, out)
	if len(recs) != 2 || recs[0].Input != u+"/.well-known/agent-card.json" {
		t.Errorf("the next path was not asked: %+v\n%s", recs, errOut)
	}
	if len(recs) == 2 && (!slices.Equal(rules(recs[1].Errors), []string{"http.redirect"}) || !strings.Contains(recs[1].Errors[0].Message, `refused redirect to "http://a b/%zz", not a URL`)) {
		t.Errorf("a direct URL: %+v", recs[1])
	}
}

// TestProbe_LongRecordCounted: a record longer than --max-record is named
// on stderr and not probed, but the summary counted it nowhere: not in
// records, not in input_errors, so that a run that skipped a card read as
// one that had none to skip.
func TestProbe_LongRecordCounted(t *testing.T) {
	long := `{"name":"` + strings.Repeat("x", 2000) + `"}` + "\n"
	card := card10("["+iface10("https://a.example/rpc", "JSONRPC")+"]", "{}") + "\n"
	sum := filepath.Join(t.TempDir(), "summary.json")
	var out, errOut bytes.Buffer
	runProbeExit([]string{"--max-record", "1KiB", "--summary", sum, "-"}, strings.NewReader(long+card), &out, &errOut, noDNS())
	b, err := os.ReadFile(sum)
	if err != nil {
		t.Fatal(err)
	}
	var s summary.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if s.Records != 1 || s.InputErrors != 1 || !strings.Contains(errOut.String(), "; 1 record longer than --max-record (input errors)") {
		t.Errorf("records %d, input_errors %d, want 1 and 1\n%s", s.Records, s.InputErrors, errOut.String())
	}
}

// TestProbe_RPCWithoutResult: a JSON-RPC response whose error member is
// no error object (a string, null) or that has neither result nor error
// was taken for a result: GetTask "answered a result", and the extended
// card "served without authentication", a finding against a server that
// served nothing.
func TestProbe_RPCWithoutResult(t *testing.T) {
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"error":"task not found"}`,
		`{"jsonrpc":"2.0","id":1,"error":null}`,
		`{"jsonrpc":"2.0","id":1}`,
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, body)
		}))
		card := card10("["+iface10(srv.URL+"/rpc", "JSONRPC")+"]", `{"extendedAgentCard":true}`)
		recs, _, errOut := runProbeOn(t, nil, card+"\n", "--allow-private")
		srv.Close()
		if len(recs) != 1 {
			t.Fatalf("%s: records %+v\n%s", body, recs, errOut)
		}
		r := recs[0]
		if !slices.Equal(r.rules(), []string{"probe.unexpected"}) || r.Probe.Answer != "neither a result nor an error object" || r.Probe.Extended == "served without authentication" {
			t.Errorf("%s: %+v", body, r)
		}
	}
}

// TestHeldAgainstHostileServers pins what held: answers that are bounded
// or named already.
func TestHeldAgainstHostileServers(t *testing.T) {
	var bomb bytes.Buffer
	zw := gzip.NewWriter(&bomb)
	zw.Write([]byte("{"))
	zw.Write(bytes.Repeat([]byte(" "), 100<<20))
	zw.Close()
	for _, tc := range []struct {
		name   string
		answer string
		rule   string // "" for a card judged
		has    string
	}{
		{"a gzip bomb", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: " + strconv.Itoa(bomb.Len()) + "\r\n\r\n" + bomb.String(),
			"http.too-large", "larger than --max-record"},
		{"50 informational answers", strings.Repeat("HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n", 50) +
			"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(a2aCard)) + "\r\n\r\n" + a2aCard, "", ""},
		{"204", "HTTP/1.1 204 No Content\r\n\r\n", "http.status", "204 No Content"},
		{"a chunk of no length", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"a\":\r\nzz\r\n",
			"http.unreachable", "answered 200 (application/json), but reading its body failed"},
		{"cut mid-body", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"a\":",
			"http.unreachable", "reading its body failed: unexpected EOF"},
		{"a CR in Location", "HTTP/1.1 302 Found\r\nLocation: /x\r\x1b[31m\r\nContent-Length: 0\r\n\r\n",
			"http.unreachable", `malformed MIME header line: "Location: /x\r\x1b[31m"`},
		{"an array", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 4\r\n\r\n[{}]", "http.not-a-card", "a body starting with '['"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := rawServer(t, func(c net.Conn, _ string) { io.WriteString(c, tc.answer) })
			_, out, errOut := runFetch(t, nil, "--format", "jsonl", "--all", u+"/card.json")
			recs := decodeRecords(t, out)
			if len(recs) != 1 {
				t.Fatalf("records %+v\n%s", recs, errOut)
			}
			if tc.rule == "" {
				if recs[0].Profile == "" {
					t.Errorf("no card judged: %+v", recs[0])
				}
				return
			}
			if !slices.Equal(rules(recs[0].Errors), []string{tc.rule}) || !strings.Contains(recs[0].Errors[0].Message, tc.has) {
				t.Errorf("%+v, want %s with %q", recs[0].Errors, tc.rule, tc.has)
			}
		})
	}
}

// TestHeaderBoundCost measures what net/http's own bound on an answer's
// headers (10 MB) costs when a server fills it with tiny lines, against
// maxHeaderBytes: the number docs/cli.md quotes (run with -v).
func TestHeaderBoundCost(t *testing.T) {
	answer := manyHeaders(10<<20-1024, "{}")
	u := rawServer(t, func(c net.Conn, _ string) { c.Write(answer) })
	cost := func(maxHeader int64) uint64 {
		client := &http.Client{Transport: &http.Transport{MaxResponseHeaderBytes: maxHeader, DisableKeepAlives: true}}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		resp, err := client.Get(u + "/card.json")
		if err == nil {
			resp.Body.Close()
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	stock, bounded := cost(0), cost(maxHeaderBytes)
	t.Logf("10 MB of tiny header lines: %d MB allocated under net/http's bound, %d KB under %d KiB", stock>>20, bounded>>10, maxHeaderBytes>>10)
	if stock < 20*bounded {
		t.Errorf("net/http's bound cost %d bytes, ours %d: the bound buys little", stock, bounded)
	}
}
