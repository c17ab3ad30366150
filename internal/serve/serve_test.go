package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cardscan/cardscan/internal/cmderr"
	"github.com/cardscan/cardscan/internal/cmdflag"
	"github.com/cardscan/cardscan/internal/console"
)

// childArgsEnv makes the test binary run `cardscan serve` with these
// arguments instead of the tests, for the tests that signal a real process.
const childArgsEnv = "CARDSCAN_SERVE_CHILD_ARGS"

func TestMain(m *testing.M) {
	if args, ok := os.LookupEnv(childArgsEnv); ok {
		os.Exit(runServe(strings.Fields(args), os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// runServe runs `cardscan serve args` to its exit status, saying its error
// on stderr as cardscan does.
func runServe(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return cmderr.Exit(Run(args, stdin, stdout, stderr), console.New(stderr))
}

// lockedBuffer collects a server's diagnostics from its goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startServe runs serve on a loopback port until the returned cancel is
// called; wait returns its exit code.
func startServe(t *testing.T, cfg config) (url string, cancel func(), wait func() int, stderr *lockedBuffer) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stderr = &lockedBuffer{}
	done := make(chan struct{})
	code := -1
	go func() {
		code = cmderr.Exit(serve(ctx, cfg, ln, stderr), console.New(stderr))
		close(done)
	}()
	wait = func() int {
		select {
		case <-done:
			return code
		case <-time.After(15 * time.Second):
			t.Fatal("serve did not return after shutdown")
			return -1
		}
	}
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
		}
	})
	return "http://" + ln.Addr().String(), cancel, wait, stderr
}

// settledGoroutines waits for the goroutine count to fall to at most want,
// or with want < 0 to hold still for a while, and returns the count it saw
// last.
func settledGoroutines(want int) int {
	deadline := time.Now().Add(10 * time.Second)
	last, still := -1, 0
	for {
		n := runtime.NumGoroutine()
		if n == last {
			still++
		} else {
			last, still = n, 0
		}
		if want >= 0 && n <= want || want < 0 && still == 10 || time.Now().After(deadline) {
			return n
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// TestServe_Load runs a bounded client loop over many concurrent
// connections on loopback: every answer must be the expected verdict, and
// neither goroutines nor the heap may grow across the run.
func TestServe_Load(t *testing.T) {
	conns, perConn := 48, 60
	if testing.Short() {
		conns, perConn = 16, 20
	}
	url, cancel, wait, stderr := startServe(t, testConfig())
	url += "/v1/validate"

	type exchange struct {
		ctype, body string
		want        []byte
	}
	ndjson := validCard + "\n" + invalidCard + "\n\n" + "not json\n"
	exchanges := []exchange{
		{"application/json", validCard, wantVerdict("agentcard", []byte(validCard), 1, 0)},
		{"application/agentcard+json", invalidCard, wantVerdict("agentcard", []byte(invalidCard), 1, 0)},
		{ndjsonType, ndjson, append(append(
			wantVerdict("agentcard", []byte(validCard), 1, 0),
			wantVerdict("agentcard", []byte(invalidCard), 2, int64(len(validCard)+1))...),
			wantVerdict("agentcard", []byte("not json"), 4, int64(len(validCard)+len(invalidCard)+3))...)},
	}
	transport := &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns}
	client := &http.Client{Transport: transport, Timeout: 30 * time.Second}

	round := func(n int) error {
		errs := make(chan error, conns)
		var wg sync.WaitGroup
		for c := range conns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range n {
					ex := exchanges[(c+i)%len(exchanges)]
					resp, err := client.Post(url, ex.ctype, strings.NewReader(ex.body))
					if err != nil {
						errs <- err
						return
					}
					got, err := io.ReadAll(resp.Body)
					resp.Body.Close()
					if err != nil || resp.StatusCode != http.StatusOK || !bytes.Equal(got, ex.want) {
						errs <- fmt.Errorf("%s: status %d, err %v, body %q", ex.ctype, resp.StatusCode, err, got)
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		return <-errs
	}

	// A first round fills the pools and the metric series; then the
	// baseline is taken with no connection open.
	if err := round(3); err != nil {
		t.Fatal(err)
	}
	transport.CloseIdleConnections()
	baseGoroutines := settledGoroutines(-1)
	baseHeap := heapInUse()

	start := time.Now()
	if err := round(perConn / 2); err != nil {
		t.Fatal(err)
	}
	midHeap := heapInUse()
	if err := round(perConn - perConn/2); err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	transport.CloseIdleConnections()
	if n := settledGoroutines(baseGoroutines); n > baseGoroutines {
		t.Errorf("goroutines grew from %d to %d across the run", baseGoroutines, n)
	}
	endHeap := heapInUse()
	const slack = 8 << 20
	if endHeap > baseHeap+slack || endHeap > midHeap+slack {
		t.Errorf("heap in use grew: %d KiB after warm-up, %d KiB halfway, %d KiB at the end", baseHeap>>10, midHeap>>10, endHeap>>10)
	}
	t.Logf("%d requests over %d connections in %v; heap %d → %d → %d KiB; goroutines %d",
		conns*perConn, conns, elapsed, baseHeap>>10, midHeap>>10, endHeap>>10, baseGoroutines)

	cancel()
	if code := wait(); code != cmderr.StatusOK {
		t.Fatalf("serve exited %d after shutdown; stderr:\n%s", code, stderr)
	}
}

// inFlight is an NDJSON request whose body is written card by card.
type inFlight struct {
	pw     *io.PipeWriter
	resp   *http.Response
	br     *bufio.Reader
	cancel context.CancelFunc
}

// startStream opens an NDJSON request, sends card and reads its verdict,
// so that the request is surely being served when it returns.
func startStream(t *testing.T, url, card string) *inFlight {
	t.Helper()
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/v1/validate", pr)
	req.Header.Set("Content-Type", ndjsonType)
	f := &inFlight{pw: pw, cancel: cancel}
	t.Cleanup(func() { pw.Close(); cancel() })
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
	if _, err := io.WriteString(pw, card+"\n"); err != nil {
		t.Fatal(err)
	}
	select {
	case f.resp = <-respc:
	case err := <-errc:
		t.Fatal(err)
	case <-time.After(10 * time.Second):
		t.Fatal("no response to the first card")
	}
	t.Cleanup(func() { f.resp.Body.Close() })
	f.br = bufio.NewReader(f.resp.Body)
	f.expectVerdict(t, 1)
	return f
}

func (f *inFlight) expectVerdict(t *testing.T, line int) {
	t.Helper()
	b, err := f.br.ReadBytes('\n')
	if err != nil {
		t.Fatalf("verdict %d: %v", line, err)
	}
	var vd struct {
		Line int `json:"line"`
	}
	if err := json.Unmarshal(b, &vd); err != nil || vd.Line != line {
		t.Fatalf("verdict %d: %s (%v)", line, b, err)
	}
}

// finish sends the last card and requires its verdict and a clean end.
func (f *inFlight) finish(t *testing.T, card string, line int) {
	t.Helper()
	if _, err := io.WriteString(f.pw, card+"\n"); err != nil {
		t.Fatalf("the server stopped reading the request in flight: %v", err)
	}
	f.pw.Close()
	f.expectVerdict(t, line)
	if rest, err := io.ReadAll(f.br); err != nil || len(rest) != 0 {
		t.Fatalf("after the last verdict: %q, %v", rest, err)
	}
}

func TestServe_ShutdownFinishesRequestsInFlight(t *testing.T) {
	url, cancel, wait, stderr := startServe(t, testConfig())
	f := startStream(t, url, validCard)
	cancel() // what SIGTERM does in Run
	// New connections are refused once shutdown has begun...
	addr := strings.TrimPrefix(url, "http://")
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("the server still accepts connections after shutdown began")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// ...but the request in flight is served to its end.
	f.finish(t, invalidCard, 2)
	if code := wait(); code != cmderr.StatusOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stderr.String(), "shutting down") {
		t.Errorf("stderr does not announce the shutdown:\n%s", stderr)
	}
}

// TestRun_SIGTERM runs `cardscan serve` as a child process and sends it
// SIGTERM while a request is in flight.
func TestRun_SIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childArgsEnv+"=--listen 127.0.0.1:0 --profile agentcard")
	stderrPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	errLines := bufio.NewScanner(stderrPipe)
	var url string
	for errLines.Scan() {
		if u, ok := strings.CutPrefix(errLines.Text(), "cardscan: listening on "); ok {
			url = u
			break
		}
	}
	if url == "" {
		t.Fatal("the child never said where it listens")
	}
	var rest bytes.Buffer
	drained := make(chan struct{})
	go func() {
		for errLines.Scan() {
			rest.WriteString(errLines.Text() + "\n")
		}
		close(drained)
	}()

	f := startStream(t, url, validCard)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	f.finish(t, invalidCard, 2)
	err = cmd.Wait()
	<-drained
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) || err != nil {
		t.Fatalf("child exited with %v; stderr:\n%s", err, rest.String())
	}
	if !strings.Contains(rest.String(), "shutting down") {
		t.Errorf("stderr does not announce the shutdown:\n%s", rest.String())
	}
}

func TestRun_Usage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"--profile", "nope"}, cmderr.StatusUsage},
		{[]string{"--max-record", "0"}, cmderr.StatusUsage},
		{[]string{"--max-record", "lots"}, cmderr.StatusUsage},
		{[]string{"--max-inflight", "100000"}, cmderr.StatusUsage},
		{[]string{"--max-inflight", "0"}, cmderr.StatusUsage},
		{[]string{"extra"}, cmderr.StatusUsage},
		{[]string{"--no-such-flag"}, cmderr.StatusUsage},
		{[]string{"--listen", "256.0.0.1:1"}, cmderr.StatusIO},
		{[]string{"-h"}, cmderr.StatusOK},
	} {
		var stdout, stderr bytes.Buffer
		if code := runServe(tc.args, nil, &stdout, &stderr); code != tc.code {
			t.Errorf("Run(%q) = %d, want %d; stderr %q", tc.args, code, tc.code, stderr.String())
		}
		if tc.code != cmderr.StatusOK && (stderr.Len() == 0 || !strings.HasSuffix(stderr.String(), "\n") || strings.HasSuffix(stderr.String(), "\n\n")) {
			t.Errorf("Run(%q): stderr %q does not end in exactly one newline", tc.args, stderr.String())
		}
	}
}

// TestRun_Flags reads flags written every usual way, echoes an unknown one
// as typed, and shows every declared flag in --help.
func TestRun_Flags(t *testing.T) {
	for _, args := range [][]string{{"--max-record=1KiB"}, {"-max-record", "1KiB"}, {"--max-record", "1KiB", "--listen=127.0.0.1:0"}} {
		cfg, err := parseArgs(args)
		if err != nil || cfg.maxBytes != 1<<10 {
			t.Errorf("%q: %v, max bytes %d; want 1024", args, err, cfg.maxBytes)
		}
	}
	// --max-inflight had no upper bound: 100000 was taken, and with it
	// connections capped at 400000. Its bound is mcp's, 1 to 1024.
	for _, typed := range []string{"100000", "1025", "0", "+2000"} {
		if _, err := parseArgs([]string{"--max-inflight", typed}); err == nil || !strings.Contains(err.Error(), "--max-inflight "+typed+": want 1 to 1024") {
			t.Errorf("--max-inflight %s: %v; want it refused, naming the value as typed", typed, err)
		}
	}
	if cfg, err := parseArgs([]string{"--max-inflight", "1024"}); err != nil || cfg.maxInflight != 1024 {
		t.Errorf("--max-inflight 1024: %v, %d", err, cfg.maxInflight)
	}
	var stdout, stderr bytes.Buffer
	runServe([]string{"--bogus=1"}, nil, &stdout, &stderr)
	if !strings.HasPrefix(stderr.String(), "cardscan: error: unknown flag --bogus\n") {
		t.Errorf("stderr %q does not name --bogus as typed", stderr.String())
	}
	stdout.Reset()
	if code := runServe([]string{"--help"}, nil, &stdout, io.Discard); code != cmderr.StatusOK {
		t.Fatalf("--help: exit %d", code)
	}
	var maxRecord cmdflag.Size
	for _, f := range newFlagSet(&config{}, &maxRecord).Missing(stdout.String()) {
		t.Errorf("--help does not show --%s as declared", f.Long)
	}
}
