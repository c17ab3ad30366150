package fetch

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cardscan/cardscan/internal/cmderr"
)

// The crawl of TestCrawl runs in a child process (this test binary, asked
// to run TestFetchHelperProcess) so that it can be killed, and so that its
// heap is its own: the servers stay in the parent.
const (
	helperEnv       = "CARDSCAN_FETCH_HELPER"
	helperArgsEnv   = "CARDSCAN_FETCH_HELPER_ARGS"
	helperPublicEnv = "CARDSCAN_FETCH_HELPER_PUBLIC"
)

// TestFetchHelperProcess is the child's body: cardscan fetch with the
// arguments of the environment, where every *.test name is 127.0.0.1 and
// the addresses listed stand for public sites.
func TestFetchHelperProcess(t *testing.T) {
	if os.Getenv(helperEnv) != "1" {
		t.Skip("runs only as the child of TestCrawl")
	}
	var args []string
	if err := json.Unmarshal([]byte(os.Getenv(helperArgsEnv)), &args); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(9)
	}
	public := map[string]bool{}
	for _, a := range strings.Split(os.Getenv(helperPublicEnv), ",") {
		public[a] = true
	}
	hooks := &testHooks{public: public, lookup: func(ctx context.Context, host string) ([]netip.Addr, error) {
		if strings.HasSuffix(host, ".test") {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		}
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}}
	os.Exit(runExit(args, os.Stdin, os.Stdout, os.Stderr, hooks))
}

// crawlSite answers /uN/... as kind N%20 says (see want), fast, and
// counts the requests of each URL.
type crawlSite struct {
	mu   sync.Mutex
	hits map[int]int
}

var uPath = regexp.MustCompile(`^/u(\d+)(/.*)$`)

func (s *crawlSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m := uPath.FindStringSubmatch(r.URL.Path)
	if m == nil {
		http.NotFound(w, r)
		return
	}
	i, _ := strconv.Atoi(m[1])
	s.mu.Lock()
	s.hits[i]++
	first := s.hits[i] == 1
	s.mu.Unlock()
	path := m[2]
	json := func(body string) { serve("application/json", body)(w, r) }
	switch kind := crawlKind(i); kind {
	case "card", "404 then card", "SPA", "429 then card", "chain":
		switch {
		case kind == "card" && path == agent:
			if i%2 == 0 {
				json(httpCard)
			} else {
				json(invalidCard)
			}
		case kind == "429 then card" && path == agent:
			if first {
				w.Header().Set("Retry-After", "0")
				w.WriteHeader(http.StatusTooManyRequests)
				return
			}
			json(httpCard)
		case kind == "SPA" && path != a2a03:
			serve("text/html", html)(w, r)
		case kind == "chain" && path == agent:
			http.Redirect(w, r, fmt.Sprintf("/u%d/hop", i), http.StatusFound)
		case kind == "chain" && path == "/hop":
			http.Redirect(w, r, fmt.Sprintf("/u%d/card", i), http.StatusFound)
		case kind == "chain" && path == "/card":
			json(httpCard)
		case (kind == "404 then card" || kind == "SPA") && path == a2a03:
			json(a2aCard)
		default:
			http.NotFound(w, r)
		}
	case "HTML":
		serve("text/html", html)(w, r)
	case "HTML as JSON":
		json(html)
	case "loop":
		http.Redirect(w, r, fmt.Sprintf("/u%d/loop%d", i, len(path)%2), http.StatusFound)
	case "too large":
		big("application/json", "{", 8<<10)(w, r)
	case "50 MB":
		big("application/json", "{", 50<<20)(w, r)
	case "slow headers":
		stall(nil)(w, r)
	case "endless body":
		trickle(w, r)
	default:
		http.NotFound(w, r)
	}
}

// crawlKind is what URL i of the crawl meets.
func crawlKind(i int) string {
	switch i % 1000 {
	case 14, 114, 214, 314, 414, 514, 614, 714, 814, 914:
		// A loop costs 12 requests: 1% of the URLs, not 5%.
		return "loop"
	case 19:
		return "slow headers"
	case 39:
		return "endless body"
	case 59:
		return "50 MB"
	}
	return [20]string{"card", "card", "card", "card", "card", "card", "404 then card", "404 then card", "SPA", "SPA",
		"HTML", "404", "429 then card", "chain", "card", "too large", "refused", "blocked", "HTML as JSON", "card"}[i%20]
}

// wantRule is the rule of URL i's record: "" for a card.
func wantRule(i int) string {
	return map[string]string{
		"HTML": "http.not-a-card", "HTML as JSON": "http.not-a-card", "404": "http.status", "loop": "http.redirect",
		"too large": "http.too-large", "50 MB": "http.too-large", "refused": "http.unreachable", "blocked": "http.blocked-address",
		"slow headers": "http.timeout", "endless body": "http.timeout",
	}[crawlKind(i)]
}

// TestCrawl fetches 10,000 URLs, all kinds of the tests above mixed,
// from 100 host names: one record each, in order, with the right rule, in
// bounded time and heap; then a crawl of the first 4,000 killed part way
// and resumed ends with the same records, and asks no URL again whose
// record was written.
func TestCrawl(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 URLs")
	}
	const n = 10000
	site := &crawlSite{hits: map[int]int{}}
	srv := httptest.NewServer(site)
	t.Cleanup(srv.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	_, deadPort, _ := net.SplitHostPort(dead)

	dir := t.TempDir()
	var list bytes.Buffer
	urls := make([]string, n)
	for i := range n {
		switch crawlKind(i) {
		case "refused":
			urls[i] = fmt.Sprintf("http://h%d.test:%s/u%d", i%100, deadPort, i)
		case "blocked":
			urls[i] = fmt.Sprintf("http://127.0.0.2:%d/u%d", port, i)
		default:
			urls[i] = fmt.Sprintf("http://h%d.test:%d/u%d", i%100, port, i)
		}
		list.WriteString(urls[i] + "\n")
	}
	listFile := filepath.Join(dir, "urls.txt")
	if err := os.WriteFile(listFile, list.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// --timeout is what the 20 slow URLs cost, in parallel and behind
	// the window; under the race detector on a loaded machine 1 s cut
	// off fast URLs too.
	args := []string{"--urls", listFile, "-j", "64", "--per-host", "2", "--timeout", "3s", "--max-record", "4KiB", "--retries", "1"}
	public := fmt.Sprintf("127.0.0.1:%d,%s", port, dead)

	// One run, start to end.
	full := filepath.Join(dir, "full.ndjson")
	start := time.Now()
	cmd := helper(t, append(args, "--resume", full), public)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); cmd.ProcessState.ExitCode() != cmderr.StatusFailed {
		t.Fatalf("exit %v, want 1; stderr %s", err, tail(stderr.String()))
	}
	elapsed := time.Since(start)
	checkCrawl(t, full, urls)
	peak := peakHeapMB(stderr.String())
	t.Logf("%d URLs in %v, peak heap %d MB; %s", n, elapsed.Round(time.Millisecond), peak, lastLine(stderr.String()))
	// Bounds with room for a busy machine: under the race detector, on 2
	// cores with a load average of 20, the crawl took 26 to 30 s and its
	// heap peaked at 12 to 16 MB; at a load average of 30 it took 63 s. The
	// time bound catches a stalled crawl (one that waits on a slow URL's
	// full timeout per URL would take hours), not a slow machine.
	if elapsed > 180*time.Second {
		t.Errorf("10,000 URLs took %v", elapsed)
	}
	if peak > 96 {
		t.Errorf("the heap peaked at %d MB", peak)
	}

	// The first 4,000 URLs again, killed once a third of their records
	// are written, then resumed.
	urls = urls[:4000]
	var part bytes.Buffer
	for _, u := range urls {
		part.WriteString(u + "\n")
	}
	if err := os.WriteFile(listFile, part.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	site.mu.Lock()
	site.hits = map[int]int{}
	site.mu.Unlock()
	out := filepath.Join(dir, "resumed.ndjson")
	cmd = helper(t, append(args, "--resume", out), public)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(60 * time.Second); ; {
		b, _ := os.ReadFile(out)
		if bytes.Count(b, []byte("\n")) >= len(urls)/3 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the first third of the records was not written in 60 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Kill()
	cmd.Wait()
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	written := bytes.Count(b, []byte("\n"))
	if written == len(urls) {
		t.Fatal("the crawl ended before it was killed")
	}
	site.mu.Lock()
	site.hits = map[int]int{}
	site.mu.Unlock()
	cmd = helper(t, append(args, "--resume", out), public)
	stderr.Reset()
	cmd.Stderr = &stderr
	if err := cmd.Run(); cmd.ProcessState.ExitCode() != cmderr.StatusFailed {
		t.Fatalf("resumed: exit %v; stderr %s", err, tail(stderr.String()))
	}
	checkCrawl(t, out, urls)
	site.mu.Lock()
	defer site.mu.Unlock()
	for i := range written {
		if site.hits[i] > 0 {
			t.Fatalf("URL %d, whose record was written before the kill, was asked again", i)
		}
	}
	if len(site.hits) == 0 {
		t.Fatal("the resumed crawl asked nothing")
	}
	t.Logf("killed after %d complete records; resumed: %s", written, lastLine(stderr.String()))
}

func helper(t *testing.T, args []string, public string) *exec.Cmd {
	t.Helper()
	a, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^TestFetchHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"=1", helperArgsEnv+"="+string(a), helperPublicEnv+"="+public, "GODEBUG=gctrace=1")
	return cmd
}

// checkCrawl reads a crawl's output: one record per URL, in order, with
// the rule its kind calls for.
func checkCrawl(t *testing.T, path string, urls []string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	i := 0
	for ; sc.Scan(); i++ {
		var r jsonRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s line %d: %v", path, i+1, err)
		}
		if i >= len(urls) || r.URL != urls[i] {
			t.Fatalf("%s line %d is for %s, want %s", path, i+1, r.URL, urls[min(i, len(urls)-1)])
		}
		got := ""
		if len(r.Errors) == 1 && string(r.Card) == "null" {
			got = r.Errors[0].Rule
		}
		if want := wantRule(i); got != want {
			t.Fatalf("%s line %d (%s, %s): rule %q, want %q: %s", path, i+1, urls[i], crawlKind(i), got, want, sc.Bytes())
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if i != len(urls) {
		t.Fatalf("%s: %d records for %d URLs", path, i, len(urls))
	}
}

var gcHeap = regexp.MustCompile(`(\d+)->(\d+)->\d+ MB`)

// peakHeapMB is the largest heap a GODEBUG=gctrace=1 trace reports.
func peakHeapMB(trace string) int {
	peak := 0
	for _, m := range gcHeap.FindAllStringSubmatch(trace, -1) {
		for _, s := range m[1:3] {
			n, _ := strconv.Atoi(s)
			peak = max(peak, n)
		}
	}
	return peak
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "cardscan:") {
			return lines[i]
		}
	}
	return ""
}

func tail(s string) string {
	if len(s) > 2000 {
		return s[len(s)-2000:]
	}
	return s
}
