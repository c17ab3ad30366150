package fetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cardscan/cardscan/internal/cmderr"
	"github.com/klauspost/compress/zstd"
)

// flakyRPC answers the JSON-RPC POSTs to each path as its script says:
// the first len(script) POSTs get the scripted status (with Retry-After
// when retryAfter is set), the rest a JSON-RPC server's answer. It notes
// when each POST came.
type flakyRPC struct {
	mu      sync.Mutex
	scripts map[string]flakyScript
	posts   map[string][]time.Time
}

type flakyScript struct {
	statuses   []int
	retryAfter string
	always     int // a status answered to every POST, 0 for none
}

func (f *flakyRPC) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	f.mu.Lock()
	n := len(f.posts[r.URL.Path])
	f.posts[r.URL.Path] = append(f.posts[r.URL.Path], time.Now())
	s := f.scripts[r.URL.Path]
	f.mu.Unlock()
	status := s.always
	if n < len(s.statuses) {
		status = s.statuses[n]
	}
	if status == 0 {
		(&fakeRPC{oneX: true}).ServeHTTP(w, r)
		return
	}
	if s.retryAfter != "" {
		w.Header().Set("Retry-After", s.retryAfter)
	}
	http.Error(w, http.StatusText(status), status)
}

// TestProbe_RetriesOnlyOn429And503 asks interfaces whose servers answer
// 429 or 503 before answering, and others that answer another error:
// probe tries again only after 429 and 503, waits as Retry-After says (or
// backs off without it), at most --retries more times, and takes a
// Retry-After longer than --max-retry-wait as the answer.
func TestProbe_RetriesOnlyOn429And503(t *testing.T) {
	f := &flakyRPC{posts: map[string][]time.Time{}, scripts: map[string]flakyScript{
		"/429-then-ok":       {statuses: []int{429}, retryAfter: "0"},
		"/503-wait-1s":       {statuses: []int{503}, retryAfter: "1"},
		"/503-no-header":     {statuses: []int{503, 503}},
		"/503-always":        {always: 503, retryAfter: "0"},
		"/429-too-long":      {always: 429, retryAfter: "3600"},
		"/500":               {always: 500, retryAfter: "0"},
		"/502":               {always: 502, retryAfter: "0"},
		"/504":               {always: 504, retryAfter: "0"},
		"/408":               {always: 408, retryAfter: "0"},
		"/500-then-would-ok": {statuses: []int{500}},
	}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	cases := []struct {
		path  string
		posts int
		class string
	}{
		{"/429-then-ok", 2, classAnswering},
		{"/503-wait-1s", 2, classAnswering},
		{"/503-no-header", 3, classAnswering},
		{"/503-always", 3, classWrongBinding},
		{"/429-too-long", 1, classWrongBinding},
		{"/500", 1, classWrongBinding},
		{"/502", 1, classWrongBinding},
		{"/504", 1, classWrongBinding},
		{"/408", 1, classWrongBinding},
		{"/500-then-would-ok", 1, classWrongBinding},
	}
	var list []string
	for _, c := range cases {
		list = append(list, iface10(srv.URL+c.path, "JSONRPC"))
	}
	card := card10("["+strings.Join(list, ",")+"]", "{}") + "\n"
	recs, _, stderr := runProbeOn(t, &testHooks{backoff: time.Millisecond}, card, "--allow-private", "--retries", "2", "--max-retry-wait", "5s")
	if len(recs) != len(cases) {
		t.Fatalf("%d records; stderr %s", len(recs), stderr)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, c := range cases {
		if got := len(f.posts[c.path]); got != c.posts {
			t.Errorf("%s: %d POSTs, want %d", c.path, got, c.posts)
		}
		if recs[i].Probe.Class != c.class {
			t.Errorf("%s: class %s (%+v), want %s", c.path, recs[i].Probe.Class, recs[i].Probe, c.class)
		}
	}
	if p := f.posts["/503-wait-1s"]; len(p) == 2 && p[1].Sub(p[0]) < time.Second {
		t.Errorf("tried again %v after a 503 with Retry-After: 1", p[1].Sub(p[0]))
	}
	if r := recs[4]; r.Probe.Status != 429 || !slices.Equal(r.rules(), []string{"probe.status"}) {
		t.Errorf("a Retry-After past --max-retry-wait: status %d rules %v, want the 429 as the answer", r.Probe.Status, r.rules())
	}
}

// TestProbe_TextFormat writes a line per interface: what answered for one
// without findings, the findings' lines otherwise.
func TestProbe_TextFormat(t *testing.T) {
	rpc := httptest.NewServer(&fakeRPC{oneX: true})
	defer rpc.Close()
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html>")
	}))
	defer html.Close()
	cards := card10("["+iface10(rpc.URL, "JSONRPC")+","+iface10(html.URL, "JSONRPC")+","+iface10(`ws://agent.example/\u001b[31m`, "JSONRPC")+"]", "{}") + "\n"
	var out, errb bytes.Buffer
	if st := runProbeExit([]string{"--allow-private", "--include-invalid", "--format", "text", "-"}, strings.NewReader(cards), &out, &errb, nil); st != cmderr.StatusFailed {
		t.Fatalf("status %d: %s", st, errb.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	want0 := "<stdin>:1: /supportedInterfaces/0 " + rpc.URL + " (JSONRPC): answering, task not found (-32001)"
	if len(lines) != 3 || lines[0] != want0 {
		t.Fatalf("text output:\n%s\nwant the first line %q", out.String(), want0)
	}
	if l := lines[1]; !strings.HasPrefix(l, "<stdin>:1:") || !strings.Contains(l, "probe.html") || !strings.Contains(l, "/supportedInterfaces/1") {
		t.Errorf("the HTML page's line: %q", l)
	}
	if l := lines[2]; !strings.Contains(l, "probe.not-probed") || !strings.Contains(l, "/supportedInterfaces/2") {
		t.Errorf("the ws interface's line: %q", l)
	}
	if strings.ContainsRune(out.String(), 0x1b) {
		t.Errorf("the card's escape sequence reached the terminal: %q", out.String())
	}
}

// TestProbe_CompressedInputs probes the cards of NDJSON dumps compressed
// with gzip and zstd, named by their path and line.
func TestProbe_CompressedInputs(t *testing.T) {
	rpc := &fakeRPC{oneX: true}
	srv := httptest.NewServer(rpc)
	defer srv.Close()
	var plain bytes.Buffer
	for range 3 {
		plain.WriteString(card10("["+iface10(srv.URL, "JSONRPC")+"]", "{}") + "\n\n")
	}
	dir := t.TempDir()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain.Bytes())
	zw.Close()
	enc, _ := zstd.NewWriter(nil)
	inputs := map[string][]byte{
		filepath.Join(dir, "cards.ndjson.gz"):  gz.Bytes(),
		filepath.Join(dir, "cards.ndjson.zst"): enc.EncodeAll(plain.Bytes(), nil),
	}
	for path, b := range inputs {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		if st := runProbeExit([]string{"--allow-private", path}, nil, &out, &errb, nil); st != cmderr.StatusOK {
			t.Fatalf("%s: status %d: %s", path, st, errb.String())
		}
		var lines []int
		for line := range strings.SplitSeq(strings.TrimSpace(out.String()), "\n") {
			var r probeRecord
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("%s: record %q: %v", path, line, err)
			}
			if r.Input != path || r.Probe.Class != classAnswering {
				t.Errorf("%s: record %+v", path, r)
			}
			lines = append(lines, r.Line)
		}
		if !slices.Equal(lines, []int{1, 3, 5}) {
			t.Errorf("%s: records of lines %v, want 1, 3, 5", path, lines)
		}
	}
	if len(rpc.methods) != 6 {
		t.Errorf("%d calls for 6 interfaces", len(rpc.methods))
	}
	// A damaged stream is an input that cannot be read, said so.
	bad := filepath.Join(dir, "bad.ndjson.gz")
	os.WriteFile(bad, gz.Bytes()[:gz.Len()/2], 0o644)
	var errb bytes.Buffer
	if st := runProbeExit([]string{"--allow-private", bad}, nil, io.Discard, &errb, nil); st != cmderr.StatusIO || !strings.Contains(errb.String(), bad) {
		t.Errorf("a gzip stream cut short: status %d, stderr %s", st, errb.String())
	}
}

// The probe of TestProbe_ResumeKilled runs in a child process (this test
// binary, asked to run TestProbeHelperProcess) so that it can be killed.
const (
	probeHelperEnv     = "CARDSCAN_PROBE_HELPER"
	probeHelperArgsEnv = "CARDSCAN_PROBE_HELPER_ARGS"
)

// TestProbeHelperProcess is the child's body: cardscan probe with the
// arguments of the environment.
func TestProbeHelperProcess(t *testing.T) {
	if os.Getenv(probeHelperEnv) != "1" {
		t.Skip("runs only as the child of the probe tests")
	}
	var args []string
	if err := json.Unmarshal([]byte(os.Getenv(probeHelperArgsEnv)), &args); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(9)
	}
	os.Exit(runProbeExit(args, os.Stdin, os.Stdout, os.Stderr, nil))
}

func probeHelper(args ...string) *exec.Cmd {
	a, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^TestProbeHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), probeHelperEnv+"=1", probeHelperArgsEnv+"="+string(a), "GODEBUG=gctrace=1")
	return cmd
}

// cardServer is a JSON-RPC A2A server whose interface /cN is card N's:
// it counts the calls of each card, and holds those of cards from hold
// on until released.
type cardServer struct {
	mu      sync.Mutex
	calls   map[int]int
	hold    int
	release chan struct{}
	// run numbers the runs of the client: a request is counted only if
	// its connection was accepted during the run now counted, so that a
	// request a killed client sent before it died, which the server may
	// read after the next run has begun, is not taken for that run's.
	run int
}

// runKey is the context key of the run a connection was accepted in.
type runKey struct{}

// connContext stamps each accepted connection with the current run.
func (s *cardServer) connContext(ctx context.Context, _ net.Conn) context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	return context.WithValue(ctx, runKey{}, s.run)
}

// nextRun starts counting the calls of a new run of the client.
func (s *cardServer) nextRun() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.run++
	s.calls = map[int]int{}
}

func (s *cardServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/c"))
	if err != nil {
		http.NotFound(w, r)
		return
	}
	s.mu.Lock()
	if run, ok := r.Context().Value(runKey{}).(int); !ok || run == s.run {
		s.calls[n]++
	}
	s.mu.Unlock()
	if s.hold >= 0 && n >= s.hold {
		select {
		case <-s.release:
		case <-r.Context().Done():
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Task not found"}}`)
}

// TestProbe_ResumeKilled kills a probe part way, then resumes it: the
// resumed run asks only the interfaces whose records were not written, and
// the output ends with one record per interface, in order.
func TestProbe_ResumeKilled(t *testing.T) {
	const n, hold = 600, 200
	site := &cardServer{calls: map[int]int{}, hold: hold, release: make(chan struct{})}
	srv := httptest.NewUnstartedServer(site)
	srv.Config.ConnContext = site.connContext
	srv.Start()
	defer srv.Close()
	dir := t.TempDir()
	cardsPath := filepath.Join(dir, "cards.ndjson")
	var cards bytes.Buffer
	for i := range n {
		cards.WriteString(card10("["+iface10(fmt.Sprintf("%s/c%d", srv.URL, i), "JSONRPC")+"]", "{}") + "\n")
	}
	if err := os.WriteFile(cardsPath, cards.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "probe.jsonl")
	args := []string{"--allow-private", "-j", "8", "--per-host", "8", "--resume", out, cardsPath}
	cmd := probeHelper(args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The cards before hold are answered; the run then waits on the
	// held ones until it is killed.
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		b, _ := os.ReadFile(out)
		if bytes.Count(b, []byte("\n")) >= hold {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the first records were not written in 60 s")
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	b, _ := os.ReadFile(out)
	if written := bytes.Count(b, []byte("\n")); written != hold {
		t.Fatalf("%d records written before the kill, want %d", written, hold)
	}

	close(site.release)
	site.nextRun()
	var stderr bytes.Buffer
	cmd = probeHelper(args...)
	cmd.Stderr = &stderr
	if err := cmd.Run(); cmd.ProcessState.ExitCode() != cmderr.StatusOK {
		t.Fatalf("resumed: exit %v; stderr %s", err, tail(stderr.String()))
	}
	site.mu.Lock()
	for i := range n {
		if want := 0; i >= hold {
			want = 1
			if site.calls[i] != want {
				t.Errorf("card %d was asked %d times by the resumed run, want once", i, site.calls[i])
			}
		} else if site.calls[i] != want {
			t.Errorf("card %d, whose record was written before the kill, was asked again", i)
		}
	}
	site.mu.Unlock()
	b, _ = os.ReadFile(out)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != n {
		t.Fatalf("%d records after resuming, want %d", len(lines), n)
	}
	for i, line := range lines {
		var r probeRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("record %d: %v", i+1, err)
		}
		if r.Line != i+1 || r.Probe.URL != fmt.Sprintf("%s/c%d", srv.URL, i) || r.Probe.Class != classAnswering {
			t.Fatalf("record %d is of line %d, %s (%s), want line %d's", i+1, r.Line, r.Probe.URL, r.Probe.Class, i+1)
		}
	}
}

// TestProbe_PerHostOtherHostsGoOn lists many interfaces of a slow host
// before those of many fast ones, with -j 8 and --per-host 1: the fast
// hosts' interfaces must not wait for the slow host's turns, as they
// would if probes waiting for the slow host's slot held all of -j.
// Records stay in the cards' order.
func TestProbe_PerHostOtherHostsGoOn(t *testing.T) {
	const nSlow, nFastHosts, perFast = 24, 8, 2
	var mu sync.Mutex
	slowDone := 0
	var seen []int // slow answers done when each fast request came
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(100 * time.Millisecond):
		case <-r.Context().Done():
			return
		}
		(&fakeRPC{oneX: true}).ServeHTTP(w, r)
		mu.Lock()
		slowDone++
		mu.Unlock()
	}))
	defer slow.Close()
	var urls []string
	for range nSlow {
		urls = append(urls, slow.URL)
	}
	for range nFastHosts {
		fast := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen = append(seen, slowDone)
			mu.Unlock()
			(&fakeRPC{oneX: true}).ServeHTTP(w, r)
		}))
		defer fast.Close()
		for range perFast {
			urls = append(urls, fast.URL)
		}
	}
	var cards strings.Builder
	for _, u := range urls {
		cards.WriteString(card10("["+iface10(u, "JSONRPC")+"]", "{}") + "\n")
	}
	recs, status, stderr := runProbeOn(t, nil, cards.String(), "--allow-private", "-j", "8", "--per-host", "1")
	if status != cmderr.StatusOK || len(recs) != len(urls) {
		t.Fatalf("status %d, %d records for %d interfaces; stderr %s", status, len(recs), len(urls), stderr)
	}
	for i, r := range recs {
		if r.Line != i+1 || r.Probe.URL != urls[i] || r.Probe.Class != classAnswering {
			t.Errorf("record %d: line %d, %s (%s), want line %d, %s answering", i, r.Line, r.Probe.URL, r.Probe.Class, i+1, urls[i])
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != nFastHosts*perFast {
		t.Fatalf("the fast hosts got %d requests, want %d", len(seen), nFastHosts*perFast)
	}
	// The slow host answers one interface per 100 ms. Had the fast
	// hosts' interfaces waited behind its queue, at least nSlow-8+1 of
	// its answers would be done before the last fast request.
	if last := slices.Max(seen); last >= nSlow/2 {
		t.Errorf("the fast hosts' last request came after %d of the slow host's %d answers (%v)", last, nSlow, seen)
	}
}

// TestProbe_MemoryBounded probes 5,000 and then 50,000 interfaces (five
// to a card) against one instant local server, each run in a child
// process with GODEBUG=gctrace=1: the heap's peak must not grow with the
// number of cards.
func TestProbe_MemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("55,000 interfaces")
	}
	const perCard = 5
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Task not found"}}`)
	}))
	defer srv.Close()
	dir := t.TempDir()
	peak := map[int]int{}
	for _, cards := range []int{1000, 10000} {
		path := filepath.Join(dir, fmt.Sprintf("cards%d.ndjson", cards))
		var b bytes.Buffer
		for i := range cards {
			var list []string
			for k := range perCard {
				list = append(list, iface10(fmt.Sprintf("%s/c%d/i%d", srv.URL, i, k), "JSONRPC"))
			}
			b.WriteString(card10("["+strings.Join(list, ",")+"]", "{}") + "\n")
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := os.Create(filepath.Join(dir, "out.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		cmd := probeHelper("--allow-private", "-j", "32", "--per-host", "32", path)
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = out, &stderr
		start := time.Now()
		if err := cmd.Run(); cmd.ProcessState.ExitCode() != cmderr.StatusOK {
			t.Fatalf("%d cards: exit %v; stderr %s", cards, err, tail(stderr.String()))
		}
		out.Close()
		recs, _ := os.ReadFile(out.Name())
		if n := bytes.Count(recs, []byte("\n")); n != cards*perCard {
			t.Fatalf("%d cards: %d records, want %d", cards, n, cards*perCard)
		}
		peak[cards] = peakHeapMB(stderr.String())
		t.Logf("%d interfaces in %v, peak heap %d MB", cards*perCard, time.Since(start).Round(time.Millisecond), peak[cards])
	}
	// The bound leaves room for the garbage collector's timing; a run
	// that held its cards or records would grow by tens of MB.
	if peak[10000] > peak[1000]+8 || peak[10000] > 64 {
		t.Errorf("the heap peaked at %d MB for 5,000 interfaces, %d MB for 50,000", peak[1000], peak[10000])
	}
}

// restExt is a hand-made HTTP+JSON server of one release: GetTask
// answers task not found, the extended card's path answers extended (404
// or 401 or 403) and its requests are counted.
type restExt struct {
	oneX     bool
	extended int
	mu       sync.Mutex
	asked    int // requests of the extended card's path
}

func (s *restExt) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	tasks, card := "/v1/tasks/", "/v1/card"
	notFound := `{"code":404,"message":"task not found"}`
	if s.oneX {
		tasks, card = "/tasks/", "/extendedAgentCard"
		notFound = `{"error":{"code":404,"status":"NOT_FOUND","message":"task not found"}}`
	}
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, tasks):
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, notFound)
	case r.Method == http.MethodGet && r.URL.Path == card:
		s.mu.Lock()
		s.asked++
		s.mu.Unlock()
		w.WriteHeader(s.extended)
		if s.extended == http.StatusNotFound {
			io.WriteString(w, notFound)
		}
	default:
		http.NotFound(w, r)
	}
}

// TestProbe_ExtendedCardPromise asks for the extended card each card
// promises, by the 0.x member (supportsAuthenticatedExtendedCard) and the
// 1.0 one (capabilities.extendedAgentCard), over JSON-RPC and HTTP+JSON:
// an endpoint that is missing is probe.extended-card-missing, one that
// asks for credentials is what the promise should find, and a card that
// promises nothing is not asked.
func TestProbe_ExtendedCardPromise(t *testing.T) {
	start := func(h http.Handler) string {
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		return srv.URL
	}
	rest03Missing := &restExt{extended: 404}
	rest03NoPromise := &restExt{extended: 404}
	rest10Asks := &restExt{oneX: true, extended: 401}
	rest10Forbids := &restExt{oneX: true, extended: 403}
	rest10Missing := &restExt{oneX: true, extended: 404}
	rpc03Missing := &fakeRPC{}
	rpc03Asks := &fakeRPC{extended: 401}
	cases := []struct {
		name, card string
		rules      []string
		extended   string
	}{
		{"0.3 HTTP+JSON, /v1/card 404s", card03(start(rest03Missing), "HTTP+JSON", true), []string{"probe.extended-card-missing"}, "missing"},
		{"0.3 JSONRPC, method not found", card03(start(rpc03Missing), "JSONRPC", true), []string{"probe.extended-card-missing"}, "missing"},
		{"0.3 JSONRPC, asks for credentials", card03(start(rpc03Asks), "JSONRPC", true), nil, "asks for authentication (401)"},
		{"0.3 HTTP+JSON, no promise", card03(start(rest03NoPromise), "HTTP+JSON", false), nil, ""},
		{"1.0 HTTP+JSON, asks for credentials", card10("["+iface10(start(rest10Asks), "HTTP+JSON")+"]", `{"extendedAgentCard":true}`), nil, "asks for authentication (401)"},
		{"1.0 HTTP+JSON, forbids", card10("["+iface10(start(rest10Forbids), "HTTP+JSON")+"]", `{"extendedAgentCard":true}`), nil, "asks for authentication (403)"},
		{"1.0 HTTP+JSON, /extendedAgentCard 404s", card10("["+iface10(start(rest10Missing), "HTTP+JSON")+"]", `{"extendedAgentCard":true}`), []string{"probe.extended-card-missing"}, "missing"},
	}
	var cards strings.Builder
	for _, c := range cases {
		cards.WriteString(c.card + "\n")
	}
	recs, _, stderr := runProbeOn(t, nil, cards.String(), "--allow-private")
	if len(recs) != len(cases) {
		t.Fatalf("%d records for %d cards; stderr %s", len(recs), len(cases), stderr)
	}
	for i, c := range cases {
		r := recs[i]
		if r.Probe.Class != classAnswering || !slices.Equal(r.rules(), c.rules) || r.Probe.Extended != c.extended {
			t.Errorf("%s: class %s rules %v extended %q, want answering %v %q (%+v)", c.name, r.Probe.Class, r.rules(), r.Probe.Extended, c.rules, c.extended, r.Errors)
		}
	}
	if rest03NoPromise.asked != 0 {
		t.Errorf("a card that promises no extended card had its endpoint asked %d times", rest03NoPromise.asked)
	}
	for _, s := range []*restExt{rest03Missing, rest10Asks, rest10Forbids, rest10Missing} {
		if s.asked != 1 {
			t.Errorf("an extended card's endpoint asked %d times, want once", s.asked)
		}
	}
	if !slices.Equal(rpc03Missing.methods, []string{"tasks/get", "agent/getAuthenticatedExtendedCard"}) {
		t.Errorf("0.3 JSON-RPC methods called: %v", rpc03Missing.methods)
	}
}

// rpc02 is a 0.2 JSON-RPC server: tasks/get over JSON-RPC, and the
// extended card as an HTTP GET at {url}/../agent/authenticatedExtendedCard
// (0.2.5 section 7.10: "This is an HTTP GET endpoint, not a JSON-RPC
// method"), answering status.
type rpc02 struct {
	status int
	mu     sync.Mutex
	gets   []string
}

func (s *rpc02) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		s.mu.Lock()
		s.gets = append(s.gets, r.URL.Path)
		s.mu.Unlock()
		if r.URL.Path == "/a2a/agent/authenticatedExtendedCard" {
			w.WriteHeader(s.status)
			return
		}
		http.NotFound(w, r)
		return
	}
	(&fakeRPC{}).ServeHTTP(w, r)
}

// TestProbe_ExtendedCard02 asks a 0.2 card's extended card where 0.2
// serves it, not by 0.3's JSON-RPC method, which a correct 0.2 server
// does not know.
func TestProbe_ExtendedCard02(t *testing.T) {
	for _, tc := range []struct {
		name, version string
		status        int
		rules         []string
		extended      string
	}{
		{"0.2.5, asks for credentials", `"protocolVersion":"0.2.5",`, 401, nil, "asks for authentication (401)"},
		{"0.2 without protocolVersion, asks for credentials", "", 401, nil, "asks for authentication (401)"},
		{"0.2.5, missing", `"protocolVersion":"0.2.5",`, 404, []string{"probe.extended-card-missing"}, "missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := &rpc02{status: tc.status}
			ts := httptest.NewServer(srv)
			t.Cleanup(ts.Close)
			card := `{` + tc.version + `"name":"Ledger","description":"Summarises ledgers.","url":"` + ts.URL + `/a2a/v1","version":"1.0.0","capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[{"id":"summarise","name":"Summarise","description":"Summarises ledgers.","tags":["finance"]}],"supportsAuthenticatedExtendedCard":true}`
			recs, _, stderr := runProbeOn(t, nil, card+"\n", "--allow-private")
			if len(recs) != 1 {
				t.Fatalf("%d records; stderr %s", len(recs), stderr)
			}
			r := recs[0]
			if r.Probe.Class != classAnswering || !slices.Equal(r.rules(), tc.rules) || r.Probe.Extended != tc.extended {
				t.Errorf("class %s rules %v extended %q, want answering %v %q (%+v)", r.Probe.Class, r.rules(), r.Probe.Extended, tc.rules, tc.extended, r.Errors)
			}
			if !slices.Equal(srv.gets, []string{"/a2a/agent/authenticatedExtendedCard"}) {
				t.Errorf("GETs %v, want the extended card's 0.2 endpoint once", srv.gets)
			}
		})
	}
}
