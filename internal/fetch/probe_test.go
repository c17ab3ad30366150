package fetch

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"fmt"
	"io"
	mathbig "math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cardscan/cardscan/internal/cmderr"
	"github.com/cardscan/cardscan/internal/summary"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/emptypb"
)

// card10 is an A2A 1.0 card with the given interfaces (a JSON array) and
// capabilities (a JSON object).
func card10(interfaces, capabilities string) string {
	return `{"name":"Ledger","description":"Summarises ledgers.","supportedInterfaces":` + interfaces +
		`,"version":"1.0.0","capabilities":` + capabilities + `,"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[{"id":"summarise","name":"Summarise","description":"Summarises ledgers.","tags":["finance"]}]}`
}

func iface10(url, binding string) string {
	return `{"url":"` + url + `","protocolBinding":"` + binding + `","protocolVersion":"1.0"}`
}

// card03 is an A2A 0.3 card whose main interface is url.
func card03(url, transport string, extended bool) string {
	ext := ""
	if extended {
		ext = `,"supportsAuthenticatedExtendedCard":true`
	}
	return `{"name":"Ledger","description":"Summarises ledgers.","url":"` + url + `","preferredTransport":"` + transport + `","version":"1.0.0","protocolVersion":"0.3.0","capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[{"id":"summarise","name":"Summarise","description":"Summarises ledgers.","tags":["finance"]}]` + ext + `}`
}

// probeRecord is the part of a probe record the tests read.
type probeRecord struct {
	Input  string `json:"input"`
	Line   int    `json:"line"`
	Valid  bool   `json:"valid"`
	Errors []struct {
		Rule    string `json:"rule"`
		Path    string `json:"path"`
		Message string `json:"message"`
	} `json:"errors"`
	Warnings []struct {
		Rule    string `json:"rule"`
		Message string `json:"message"`
	} `json:"warnings"`
	Probe probeJSON `json:"probe"`
}

func (r probeRecord) rules() []string {
	var out []string
	for _, e := range r.Errors {
		out = append(out, e.Rule)
	}
	for _, w := range r.Warnings {
		out = append(out, w.Rule)
	}
	return out
}

// runProbeOn probes the cards of an NDJSON text and returns the records,
// the exit status and stderr.
func runProbeOn(t *testing.T, hooks *testHooks, cards string, args ...string) ([]probeRecord, int, string) {
	t.Helper()
	var out, errb bytes.Buffer
	status := runProbeExit(append(args, "-"), strings.NewReader(cards), &out, &errb, hooks)
	var recs []probeRecord
	for line := range strings.SplitSeq(strings.TrimSpace(out.String()), "\n") {
		if line == "" {
			continue
		}
		var r probeRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("record %q: %v", line, err)
		}
		recs = append(recs, r)
	}
	return recs, status, errb.String()
}

// fakeRPC is a hand-made JSON-RPC A2A server: it answers GetTask (or
// tasks/get, as release says) with -32001, and records every method.
type fakeRPC struct {
	oneX     bool
	extended int // status of the extended card's method: 0 unknown method, else 401 or 200
	mu       sync.Mutex
	methods  []string
}

func (f *fakeRPC) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Method string `json:"method"`
	}
	if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&req) != nil {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}`)
		return
	}
	f.mu.Lock()
	f.methods = append(f.methods, req.Method)
	f.mu.Unlock()
	getTask, extended := rpcMethods(f.oneX)
	w.Header().Set("Content-Type", "application/json")
	switch {
	case req.Method == getTask:
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Task not found"}}`)
	case req.Method == extended && f.extended == 401:
		w.WriteHeader(401)
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"unauthenticated"}}`)
	case req.Method == extended && f.extended == 200:
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"name":"Ledger"}}`)
	default:
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`)
	}
}

// fakeREST is a hand-made HTTP+JSON server of the 1.0 paths.
type fakeREST struct{}

func (fakeREST) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/tasks/") {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(404)
		io.WriteString(w, `{"error":{"code":404,"status":"NOT_FOUND","message":"task not found"}}`)
		return
	}
	http.NotFound(w, r)
}

func TestProbe_AnswersAsDeclared(t *testing.T) {
	rpc := &fakeRPC{oneX: true}
	rpcSrv := httptest.NewServer(rpc)
	defer rpcSrv.Close()
	restSrv := httptest.NewServer(fakeREST{})
	defer restSrv.Close()
	rpc03 := &fakeRPC{}
	rpc03Srv := httptest.NewServer(rpc03)
	defer rpc03Srv.Close()
	cards := card10("["+iface10(rpcSrv.URL, "JSONRPC")+","+iface10(restSrv.URL, "HTTP+JSON")+"]", "{}") + "\n" +
		card03(rpc03Srv.URL, "JSONRPC", false) + "\n"
	recs, status, stderr := runProbeOn(t, nil, cards, "--allow-private")
	if status != cmderr.StatusOK || len(recs) != 3 {
		t.Fatalf("status %d, %d records; stderr %s", status, len(recs), stderr)
	}
	for _, r := range recs {
		if r.Probe.Class != classAnswering || len(r.rules()) != 0 || !r.Valid {
			t.Errorf("%s %s: %+v, rules %v", r.Probe.Binding, r.Probe.URL, r.Probe, r.rules())
		}
		if r.Probe.TTFBMS == nil {
			t.Errorf("%s: no time to first byte", r.Probe.URL)
		}
	}
	if recs[2].Line != 2 || recs[2].Probe.Pointer != "/url" {
		t.Errorf("0.3 record: line %d pointer %s", recs[2].Line, recs[2].Probe.Pointer)
	}
	// Only the reading methods were called.
	if !slices.Equal(rpc.methods, []string{"GetTask"}) || !slices.Equal(rpc03.methods, []string{"tasks/get"}) {
		t.Errorf("methods called: 1.0 %v, 0.3 %v", rpc.methods, rpc03.methods)
	}
	if !strings.Contains(stderr, "3 interfaces of 2 cards: 3 answering") {
		t.Errorf("stderr: %s", stderr)
	}
}

func TestProbe_WrongServers(t *testing.T) {
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<!doctype html><title>Ledger</title><p>Welcome")
	}))
	defer html.Close()
	notFound := httptest.NewServer(http.NotFoundHandler())
	defer notFound.Close()
	rest := httptest.NewServer(fakeREST{})
	defer rest.Close()
	rpc := httptest.NewServer(&fakeRPC{oneX: true})
	defer rpc.Close()
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "upstream down", http.StatusBadGateway)
	}))
	defer failing.Close()
	auth := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer auth.Close()
	var loopURL string
	loop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, loopURL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer loop.Close()
	loopURL = loop.URL
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer hang.Close()
	defer close(release)

	cases := []struct {
		name, url, binding, rule, class string
	}{
		{"html page", html.URL, "JSONRPC", "probe.html", classWrongBinding},
		{"404 page", notFound.URL, "HTTP+JSON", "probe.not-found", classWrongBinding},
		{"REST server declared JSONRPC", rest.URL, "JSONRPC", "probe.wrong-binding", classWrongBinding},
		{"JSON-RPC server declared HTTP+JSON", rpc.URL, "HTTP+JSON", "probe.wrong-binding", classWrongBinding},
		{"502", failing.URL, "JSONRPC", "probe.status", classWrongBinding},
		{"401", auth.URL, "JSONRPC", "probe.auth-required", classAuthRequired},
		{"redirect loop", loop.URL, "HTTP+JSON", "probe.redirect", classUnreachable},
		{"hangs", hang.URL, "JSONRPC", "probe.timeout", classUnreachable},
		{"custom binding", rpc.URL, "SLIMRPC", "probe.not-probed", classNotProbed},
		{"not http", "ws://agent.example/ws", "JSONRPC", "probe.not-probed", classNotProbed},
	}
	var list []string
	for _, c := range cases {
		list = append(list, iface10(c.url, c.binding))
	}
	recs, status, stderr := runProbeOn(t, nil, card10("["+strings.Join(list, ",")+"]", "{}")+"\n", "--allow-private", "--include-invalid", "--timeout", "500ms", "--retries", "0")
	if status != cmderr.StatusFailed || len(recs) != len(cases) {
		t.Fatalf("status %d, %d records; stderr %s", status, len(recs), stderr)
	}
	for i, c := range cases {
		r := recs[i]
		if !slices.Equal(r.rules(), []string{c.rule}) || r.Probe.Class != c.class {
			t.Errorf("%s: rules %v class %s (%+v), want %s %s", c.name, r.rules(), r.Probe.Class, r.Probe, c.rule, c.class)
		}
	}
}

func TestProbe_BlockedWithoutAllowPrivate(t *testing.T) {
	srv := httptest.NewServer(&fakeRPC{oneX: true})
	defer srv.Close()
	recs, status, _ := runProbeOn(t, nil, card10("["+iface10(srv.URL, "JSONRPC")+"]", "{}")+"\n")
	if status != cmderr.StatusFailed || len(recs) != 1 || !slices.Equal(recs[0].rules(), []string{"probe.blocked-address"}) {
		t.Fatalf("status %d, records %+v", status, recs)
	}
}

// testCA is a throwaway certificate authority.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pool *x509.CertPool
}

func newTestCA(t *testing.T) *testCA {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: mathbig.NewInt(1), Subject: pkix.Name{CommonName: "throwaway test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour * 365),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &testCA{cert: cert, key: key, pool: pool}
}

// issue makes a certificate for names, valid for lifetime from now.
func (ca *testCA) issue(t *testing.T, lifetime time.Duration, names ...string) tls.Certificate {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: mathbig.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: names[0]},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(lifetime),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	for _, n := range names {
		if ip := net.ParseIP(n); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, n)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

func tlsServer(t *testing.T, cert tls.Certificate, h http.Handler) *httptest.Server {
	srv := httptest.NewUnstartedServer(h)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

func TestProbe_TLS(t *testing.T) {
	ca := newTestCA(t)
	wrongHost := tlsServer(t, ca.issue(t, 90*24*time.Hour, "other.example"), &fakeRPC{oneX: true})
	right := tlsServer(t, ca.issue(t, 90*24*time.Hour, "127.0.0.1"), &fakeRPC{oneX: true})
	expiring := tlsServer(t, ca.issue(t, 10*24*time.Hour, "127.0.0.1"), &fakeRPC{oneX: true})
	hooks := &testHooks{rootCAs: ca.pool}
	cards := card10("["+iface10(wrongHost.URL, "JSONRPC")+","+iface10(right.URL, "JSONRPC")+","+iface10(expiring.URL, "JSONRPC")+"]", "{}") + "\n"
	recs, status, stderr := runProbeOn(t, hooks, cards, "--allow-private")
	if status != cmderr.StatusFailed || len(recs) != 3 {
		t.Fatalf("status %d, %d records; stderr %s", status, len(recs), stderr)
	}
	if r := recs[0]; !slices.Equal(r.rules(), []string{"probe.tls"}) || r.Probe.Class != classTLS || !strings.Contains(r.Errors[0].Message, "other.example") {
		t.Errorf("another host's certificate: %v %+v", r.rules(), r)
	}
	if r := recs[1]; len(r.rules()) != 0 || r.Probe.TLS == nil || !r.Probe.TLS.Verified || r.Probe.TLS.DaysLeft == nil || *r.Probe.TLS.DaysLeft < 88 || *r.Probe.TLS.DaysLeft > 90 {
		t.Errorf("a good certificate: %v %+v %+v", r.rules(), r.Probe, r.Probe.TLS)
	}
	if r := recs[2]; !slices.Equal(r.rules(), []string{"probe.tls-expiring"}) || r.Probe.Class != classAnswering || *r.Probe.TLS.DaysLeft != 9 {
		t.Errorf("a certificate expiring in 10 days: %v %+v", r.rules(), r.Probe.TLS)
	}
}

func TestProbe_ExtendedCardAndVersion(t *testing.T) {
	missing := httptest.NewServer(&fakeRPC{oneX: true})
	defer missing.Close()
	asks := httptest.NewServer(&fakeRPC{oneX: true, extended: 401})
	defer asks.Close()
	open := httptest.NewServer(&fakeRPC{oneX: true, extended: 200})
	defer open.Close()
	old := httptest.NewServer(&fakeRPC{oneX: false})
	defer old.Close()
	versioned := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("A2A-Version", "0.3")
		(&fakeRPC{oneX: true}).ServeHTTP(w, r)
	}))
	defer versioned.Close()
	cards := card10("["+iface10(missing.URL, "JSONRPC")+","+iface10(asks.URL, "JSONRPC")+","+iface10(open.URL, "JSONRPC")+"]", `{"extendedAgentCard":true}`) + "\n" +
		card10("["+iface10(old.URL, "JSONRPC")+","+iface10(versioned.URL, "JSONRPC")+"]", "{}") + "\n"
	recs, _, stderr := runProbeOn(t, nil, cards, "--allow-private")
	if len(recs) != 5 {
		t.Fatalf("%d records; stderr %s", len(recs), stderr)
	}
	want := [][]string{{"probe.extended-card-missing"}, nil, {"probe.extended-card-open"}, {"probe.version"}, {"probe.version"}}
	for i, w := range want {
		if !slices.Equal(recs[i].rules(), w) {
			t.Errorf("interface %d (%s): rules %v, want %v (%+v)", i, recs[i].Probe.URL, recs[i].rules(), w, recs[i].Probe)
		}
	}
	if recs[1].Probe.Extended != "asks for authentication (401)" {
		t.Errorf("extended card: %q", recs[1].Probe.Extended)
	}
}

func TestProbe_InvalidCardsSkippedUnlessAsked(t *testing.T) {
	srv := httptest.NewServer(&fakeRPC{oneX: true})
	defer srv.Close()
	invalid := strings.Replace(card10("["+iface10(srv.URL, "JSONRPC")+"]", "{}"), `"name":"Ledger",`, "", 1) + "\n"
	recs, _, stderr := runProbeOn(t, nil, invalid, "--allow-private")
	if len(recs) != 0 || !strings.Contains(stderr, "1 invalid cards not probed") {
		t.Fatalf("records %+v; stderr %s", recs, stderr)
	}
	recs, _, _ = runProbeOn(t, nil, invalid, "--allow-private", "--include-invalid")
	if len(recs) != 1 || recs[0].Probe.Class != classAnswering {
		t.Fatalf("--include-invalid: %+v", recs)
	}
}

func TestProbe_ResumeAndSummary(t *testing.T) {
	rpc := &fakeRPC{oneX: true}
	srv := httptest.NewServer(rpc)
	defer srv.Close()
	dir := t.TempDir()
	cardsPath := filepath.Join(dir, "cards.ndjson")
	var cards strings.Builder
	for range 5 {
		cards.WriteString(card10("["+iface10(srv.URL, "JSONRPC")+"]", "{}") + "\n")
	}
	os.WriteFile(cardsPath, []byte(cards.String()), 0o644)
	out := filepath.Join(dir, "probe.jsonl")
	// A first run stopped after two records, the second cut short.
	var first bytes.Buffer
	runProbeExit([]string{"--allow-private", cardsPath}, nil, &first, io.Discard, nil)
	lines := strings.SplitAfter(first.String(), "\n")
	os.WriteFile(out, []byte(lines[0]+lines[1][:20]), 0o644)
	calls := len(rpc.methods)
	sum := filepath.Join(dir, "summary.json")
	var errb bytes.Buffer
	if st := runProbeExit([]string{"--allow-private", "--resume", out, "--summary", sum, cardsPath}, nil, io.Discard, &errb, nil); st != cmderr.StatusOK {
		t.Fatalf("status %d: %s", st, errb.String())
	}
	if got := len(rpc.methods) - calls; got != 4 {
		t.Errorf("the resumed run probed %d interfaces, want 4", got)
	}
	b, _ := os.ReadFile(out)
	if n := strings.Count(string(b), "\n"); n != 5 || !strings.Contains(errb.String(), "cut off the damaged tail") {
		t.Errorf("%d records after resuming; stderr %s", n, errb.String())
	}
	sb, _ := os.ReadFile(sum)
	s, err := summary.Unmarshal(sb)
	if err != nil || s.Probes == nil || s.Probes.Interfaces != 4 || s.Probes.Answering != 4 {
		t.Fatalf("summary %s: %v", sb, err)
	}
}

func TestProbe_ReadsFetchRecords(t *testing.T) {
	srv := httptest.NewServer(&fakeRPC{oneX: true})
	defer srv.Close()
	card := card10("["+iface10(srv.URL, "JSONRPC")+"]", "{}")
	rec := `{"url":"https://ledger.example.org/","input":"https://ledger.example.org/.well-known/agent-card.json","line":1,"offset":0,"valid":true,"profile":"a2a/1.0","errors":[],"warnings":[],"card":` + card + "}\n" +
		`{"url":"https://gone.example.org/","input":"https://gone.example.org/","line":1,"offset":0,"valid":false,"profile":"","errors":[{"rule":"http.unreachable"}],"warnings":[],"card":null}` + "\n"
	recs, status, stderr := runProbeOn(t, nil, rec, "--allow-private")
	if status != cmderr.StatusOK || len(recs) != 1 || recs[0].Probe.CardURL != "https://ledger.example.org/" || recs[0].Probe.Class != classAnswering {
		t.Fatalf("status %d records %+v; stderr %s", status, recs, stderr)
	}
}

// a2aGRPC is a gRPC server with no generated code: every call reaches
// handle, which answers GetTask of service with NOT_FOUND, as an A2A
// server does for a task it does not have, and any other method with
// UNIMPLEMENTED. It records the methods called.
type a2aGRPC struct {
	service      string
	mu           sync.Mutex
	methods      []string
	requests     [][]byte // each call's request message, as sent
	contentTypes []string // each call's content-type
}

func (g *a2aGRPC) handle(_ any, stream grpc.ServerStream) error {
	method, _ := grpc.MethodFromServerStream(stream)
	// emptypb keeps every field it does not know: the message as sent.
	req := new(emptypb.Empty)
	if err := stream.RecvMsg(req); err != nil {
		return err
	}
	g.mu.Lock()
	g.methods = append(g.methods, method)
	g.requests = append(g.requests, req.ProtoReflect().GetUnknown())
	md, _ := metadata.FromIncomingContext(stream.Context())
	g.contentTypes = append(g.contentTypes, strings.Join(md.Get("content-type"), ", "))
	g.mu.Unlock()
	if method == "/"+g.service+"/GetTask" {
		return status.Error(codes.NotFound, "task not found")
	}
	return status.Error(codes.Unimplemented, "unknown method "+method)
}

// calls is what the server has been asked so far, read under its lock
// so that the test's reading is ordered after the handlers' writing.
func (g *a2aGRPC) calls() (methods []string, requests [][]byte, contentTypes []string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.methods), slices.Clone(g.requests), slices.Clone(g.contentTypes)
}

func startGRPC(t *testing.T, service string, opts ...grpc.ServerOption) (*a2aGRPC, string) {
	t.Helper()
	g := &a2aGRPC{service: service}
	srv := grpc.NewServer(append(opts, grpc.UnknownServiceHandler(g.handle))...)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	return g, lis.Addr().String()
}

func TestProbe_GRPC(t *testing.T) {
	v1, v1Addr := startGRPC(t, "lf.a2a.v1.A2AService")
	v03, v03Addr := startGRPC(t, "a2a.v1.A2AService")
	_, otherAddr := startGRPC(t, "example.Other")
	ca := newTestCA(t)
	_, tlsAddr := startGRPC(t, "lf.a2a.v1.A2AService", grpc.Creds(credentials.NewServerTLSFromCert(ptr(ca.issue(t, 90*24*time.Hour, "127.0.0.1")))))
	_, wrongHostAddr := startGRPC(t, "lf.a2a.v1.A2AService", grpc.Creds(credentials.NewServerTLSFromCert(ptr(ca.issue(t, 90*24*time.Hour, "other.example")))))
	httpSrv := httptest.NewServer(fakeREST{})
	defer httpSrv.Close()
	cards := card10("["+iface10("http://"+v1Addr, "GRPC")+","+iface10("http://"+v03Addr, "GRPC")+","+iface10("http://"+otherAddr, "GRPC")+","+
		iface10("https://"+tlsAddr, "GRPC")+","+iface10(wrongHostAddr, "GRPC")+","+iface10(httpSrv.URL, "GRPC")+"]", "{}") + "\n"
	recs, _, stderr := runProbeOn(t, &testHooks{rootCAs: ca.pool}, cards, "--allow-private", "--timeout", "2s")
	if len(recs) != 6 {
		t.Fatalf("%d records; stderr %s", len(recs), stderr)
	}
	want := []struct {
		class string
		rules []string
	}{
		{classAnswering, nil},
		{classAnswering, []string{"probe.version"}},
		{classWrongBinding, []string{"probe.not-found"}},
		{classAnswering, nil},
		{classTLS, []string{"probe.tls"}},
		{classWrongBinding, []string{"probe.wrong-binding"}},
	}
	for i, w := range want {
		if r := recs[i]; r.Probe.Class != w.class || !slices.Equal(r.rules(), w.rules) {
			t.Errorf("%s: class %s rules %v (%+v %+v), want %s %v", r.Probe.URL, r.Probe.Class, r.rules(), r.Probe, r.Errors, w.class, w.rules)
		}
	}
	if d := recs[3].Probe.TLS; d == nil || !d.Verified || d.DaysLeft == nil {
		t.Errorf("TLS of the gRPC interface: %+v", d)
	}
	v1Methods, v1Requests, v1Types := v1.calls()
	if !slices.Equal(v1Methods, []string{"/lf.a2a.v1.A2AService/GetTask"}) {
		t.Fatalf("methods called: %v", v1Methods)
	}
	// gRPC's own protobuf codec, with no subtype asked for, says this.
	if !slices.Equal(v1Types, []string{"application/grpc"}) {
		t.Errorf("content-type of the calls: %q, want application/grpc", v1Types)
	}
	// The 0.3 server is asked as 1.0 first (UNIMPLEMENTED), then as 0.3.
	v03Methods, v03Requests, _ := v03.calls()
	if !slices.Equal(v03Methods, []string{"/lf.a2a.v1.A2AService/GetTask", "/a2a.v1.A2AService/GetTask"}) {
		t.Fatalf("methods called of the 0.3 server: %v", v03Methods)
	}
	id := getTaskField(t, v1Requests[0], "id", 2)
	if !strings.HasPrefix(id, "cardscan-probe-") {
		t.Errorf("1.0 GetTaskRequest.id = %q, want a cardscan-probe- task id", id)
	}
	// Both ask for the same task.
	asked := getTaskField(t, v03Requests[0], "id", 2)
	if !strings.HasPrefix(asked, "cardscan-probe-") {
		t.Errorf("1.0 GetTaskRequest.id to the 0.3 server = %q, want a cardscan-probe- task id", asked)
	}
	if got := getTaskField(t, v03Requests[1], "name", 1); got != "tasks/"+asked {
		t.Errorf("0.3 GetTaskRequest.name = %q, want tasks/%s", got, asked)
	}
}

// getTaskField reads a GetTaskRequest as protobuf does, with a descriptor
// of the one string field the A2A .proto files give it (a2a-v1.0.1.proto:
// id = 2 beside tenant = 1; the 0.3 a2a.proto: name = 1), and returns that
// field. A message protobuf cannot read, or with anything else set, fails.
func getTaskField(t *testing.T, wire []byte, name string, number int32) string {
	t.Helper()
	fields := []*descriptorpb.FieldDescriptorProto{{Name: proto.String(name), Number: proto.Int32(number),
		Type: descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum(), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum()}}
	fd, err := protodesc.NewFile(&descriptorpb.FileDescriptorProto{Name: proto.String("test-get-task.proto"), Package: proto.String("test"),
		Syntax: proto.String("proto3"), MessageType: []*descriptorpb.DescriptorProto{{Name: proto.String("GetTaskRequest"), Field: fields}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	md := fd.Messages().ByName("GetTaskRequest")
	msg := dynamicpb.NewMessage(md)
	if err := proto.Unmarshal(wire, msg); err != nil {
		t.Fatalf("GetTaskRequest %x: %v", wire, err)
	}
	if u := msg.GetUnknown(); len(u) > 0 {
		t.Errorf("GetTaskRequest %x has fields other than %s: %x", wire, name, u)
	}
	return msg.Get(md.Fields().ByName(protoreflect.Name(name))).String()
}

func ptr[T any](v T) *T { return &v }

// TestProbe_SARIF writes the findings as a SARIF log whose rules are the
// probe rules that fired, documented.
func TestProbe_SARIF(t *testing.T) {
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html>")
	}))
	defer html.Close()
	var out, errb bytes.Buffer
	card := card10("["+iface10(html.URL, "JSONRPC")+"]", "{}") + "\n"
	if st := runProbeExit([]string{"--allow-private", "--format", "sarif", "-"}, strings.NewReader(card), &out, &errb, nil); st != cmderr.StatusFailed {
		t.Fatalf("status %d: %s", st, errb.String())
	}
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID string `json:"ruleId"`
			} `json:"results"`
			Tool struct {
				Driver struct {
					Rules []struct {
						ID   string                `json:"id"`
						Help struct{ Text string } `json:"help"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(out.Bytes(), &log); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	r := log.Runs[0]
	if len(r.Results) != 1 || r.Results[0].RuleID != "probe.html" || len(r.Tool.Driver.Rules) != 1 || r.Tool.Driver.Rules[0].ID != "probe.html" || r.Tool.Driver.Rules[0].Help.Text == "" {
		t.Errorf("SARIF run: %+v", r)
	}
}

// TestFetchProbe fetches a card and probes its interfaces in one pass.
func TestFetchProbe(t *testing.T) {
	rpc := httptest.NewServer(&fakeRPC{oneX: true})
	defer rpc.Close()
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html>")
	}))
	defer html.Close()
	card := card10("["+iface10(rpc.URL, "JSONRPC")+","+iface10(html.URL, "JSONRPC")+"]", "{}")
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "max-age=3600")
		io.WriteString(w, card)
	}))
	defer site.Close()
	var out, errb bytes.Buffer
	status := runExit([]string{"--allow-private", "--probe", "--format", "cards", "--summary", "-", site.URL + "/.well-known/agent-card.json"}, nil, &out, &errb, nil)
	line, sum, _ := strings.Cut(out.String(), "\n")
	var rec struct {
		URL    string        `json:"url"`
		Valid  bool          `json:"valid"`
		Probes []probeRecord `json:"probes"`
	}
	if err := json.Unmarshal([]byte(line), &rec); err != nil {
		t.Fatalf("record %q: %v", line, err)
	}
	if status != cmderr.StatusFailed || !rec.Valid || len(rec.Probes) != 2 ||
		rec.Probes[0].Probe.Class != classAnswering || !slices.Equal(rec.Probes[1].rules(), []string{"probe.html"}) {
		t.Fatalf("status %d, record %+v; stderr %s", status, rec, errb.String())
	}
	s, err := summary.Unmarshal([]byte(sum))
	if err != nil || s.Probes == nil || s.Probes.Interfaces != 2 || s.Probes.Answering != 1 || s.Probes.WrongBinding != 1 {
		t.Fatalf("summary %s: %v", sum, err)
	}
}

// TestProbe_InterfacesPerCardBounded: a card is hostile input, and one
// card listing thousands of interfaces (a 2 MiB card holds some 20,000)
// made probe send as many requests, a flood from one line of a crawl.
// The first maxProbedInterfaces are asked; the others get a not-probed
// record each, saying why, and no request.
func TestProbe_InterfacesPerCardBounded(t *testing.T) {
	rpc := &fakeRPC{oneX: true}
	srv := httptest.NewServer(rpc)
	defer srv.Close()
	const n = 100
	ifaces := make([]string, n)
	for i := range ifaces {
		ifaces[i] = iface10(srv.URL+"/a2a/"+strconv.Itoa(i), "JSONRPC")
	}
	recs, _, stderr := runProbeOn(t, nil, card10("["+strings.Join(ifaces, ",")+"]", "{}")+"\n", "--allow-private")
	if len(recs) != n {
		t.Fatalf("%d records, want one per interface, %d; stderr %s", len(recs), n, stderr)
	}
	rpc.mu.Lock()
	calls := len(rpc.methods)
	rpc.mu.Unlock()
	if calls > maxProbedInterfaces {
		t.Errorf("%d requests for a card of %d interfaces, want at most %d", calls, n, maxProbedInterfaces)
	}
	skipped := 0
	for _, r := range recs[maxProbedInterfaces:] {
		if r.Probe.Class == classNotProbed && slices.Contains(r.rules(), "probe.not-probed") {
			skipped++
		}
	}
	if skipped != n-maxProbedInterfaces {
		t.Errorf("%d of the interfaces past the first %d not probed, want %d", skipped, maxProbedInterfaces, n-maxProbedInterfaces)
	}
}

// TestWireCodec: an answer is taken only if it is protobuf's wire format,
// as decoding it into a message with no known fields would take it.
func TestWireCodec(t *testing.T) {
	answers := []struct {
		wire []byte
		ok   bool
	}{
		{nil, true},
		{protowire.AppendString(protowire.AppendTag(nil, 7, protowire.BytesType), "a task"), true},
		{[]byte{0x0a, 0x05, 'a'}, false},                           // a string cut short
		{[]byte{0x08}, false},                                      // a tag without its varint
		{[]byte{0x0b, 0x10, 0x01}, false},                          // a group never ended
		{protowire.AppendTag(nil, 0, protowire.VarintType), false}, // field number 0
	}
	for _, a := range answers {
		var got wireMessage
		err := wireCodec{}.Unmarshal(a.wire, &got)
		if (err == nil) != a.ok {
			t.Errorf("answer %x: error %v, want ok %v", a.wire, err, a.ok)
		}
		if err == nil && !bytes.Equal(got, a.wire) {
			t.Errorf("answer %x read as %x", a.wire, got)
		}
		// protobuf itself, reading the same bytes into an empty message.
		if perr := proto.Unmarshal(a.wire, new(emptypb.Empty)); (perr == nil) != a.ok {
			t.Errorf("answer %x: protobuf says %v, the test wants ok %v", a.wire, perr, a.ok)
		}
	}
	if _, err := (wireCodec{}).Marshal("not a message"); err == nil {
		t.Error("encoding a string as a message: no error")
	}
}

// TestProbe_FetchRecordWithoutCard: a fetch record of a URL that yielded
// no card was counted as one invalid card of profile "none", silently. It
// is no card: an input error, named on stderr, as fetch counts that URL;
// and a run that read no card at all exits 3, as fetch does when no URL
// yielded one.
func TestProbe_FetchRecordWithoutCard(t *testing.T) {
	srv := httptest.NewServer(&fakeRPC{oneX: true})
	defer srv.Close()
	card := card10("["+iface10(srv.URL, "JSONRPC")+"]", "{}")
	withCard := `{"url":"https://ledger.example.org/","input":"https://ledger.example.org/.well-known/agent-card.json","line":1,"offset":0,"valid":true,"profile":"a2a/1.0","errors":[],"warnings":[],"card":` + card + "}\n"
	without := `{"url":"https://gone.example.org/","input":"https://gone.example.org/","line":1,"offset":0,"valid":false,"profile":"","errors":[{"rule":"http.unreachable"}],"warnings":[],"card":null}` + "\n"
	for _, tc := range []struct {
		name, records string
		status        int
		cards, valid  int64
	}{
		{"beside a card", withCard + without, cmderr.StatusOK, 1, 1},
		{"alone", without, cmderr.StatusIO, 0, 0},
	} {
		sum := filepath.Join(t.TempDir(), "summary.json")
		var out, errb bytes.Buffer
		status := runProbeExit([]string{"--allow-private", "--summary", sum, "-"}, strings.NewReader(tc.records), &out, &errb, nil)
		stderr := errb.String()
		if status != tc.status {
			t.Errorf("%s: status %d, want %d; stderr %s", tc.name, status, tc.status, stderr)
		}
		line := strings.Count(tc.records, "\n")
		if want := fmt.Sprintf("probe: <stdin>:%d: the fetch record of https://gone.example.org/ holds no card", line); !strings.Contains(stderr, want) {
			t.Errorf("%s: stderr %q does not say %q", tc.name, stderr, want)
		}
		if want := fmt.Sprintf("of %s: ", plural(tc.cards, "card")); !strings.Contains(stderr, want) || !strings.Contains(stderr, "1 fetch record without a card") {
			t.Errorf("%s: stderr %q; want %q and the record without a card counted apart", tc.name, stderr, want)
		}
		b, err := os.ReadFile(sum)
		if err != nil {
			t.Fatal(err)
		}
		s, err := summary.Unmarshal(b)
		if err != nil {
			t.Fatal(err)
		}
		if s.Records != tc.cards || s.Valid != tc.valid || s.Invalid != 0 || s.Profiles["none"] != 0 || s.InputErrors != 1 {
			t.Errorf("%s: records %d valid %d invalid %d profiles %v input_errors %d; want %d, %d, 0, no none, 1",
				tc.name, s.Records, s.Valid, s.Invalid, s.Profiles, s.InputErrors, tc.cards, tc.valid)
		}
	}
}

// TestProbe_LongRecordNamesTheLimitAsTyped: a record over --max-record
// was reported as "longer than --max-record (1024 bytes)".
func TestProbe_LongRecordNamesTheLimitAsTyped(t *testing.T) {
	long := `{"name":"` + strings.Repeat("x", 2000) + `"}` + "\n"
	_, _, stderr := runProbeOn(t, nil, long, "--max-record", "1KiB")
	if want := "probe: <stdin>:1: longer than --max-record 1KiB; its interfaces are not probed"; !strings.Contains(stderr, want) {
		t.Errorf("stderr %q; want %q", stderr, want)
	}
}
