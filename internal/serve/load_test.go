package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The load tests below attack a server on loopback and measure the
// process's heap and goroutines while the attack holds and after it ends.
// Each bound is noted where it is checked: far below what the attack costs
// without the limit under test, and above what the limit leaves, the test's
// own clients and connections included.

// answer is what a raw client read back: a status, its Retry-After, and
// the problem document if there was one.
type answer struct {
	status     int
	retryAfter string
	problem    problem
	err        error
}

// readAnswer reads one response from c within d.
func readAnswer(c net.Conn, d time.Duration) answer {
	c.SetReadDeadline(time.Now().Add(d))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return answer{err: err}
	}
	defer resp.Body.Close()
	a := answer{status: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After")}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		a.err = err
		return a
	}
	if resp.Header.Get("Content-Type") == "application/problem+json" {
		a.err = json.Unmarshal(body, &a.problem)
	}
	return a
}

// chunk frames b as one chunk of a chunked body.
func chunk(b []byte) []byte {
	return append(append(append([]byte(strconv.FormatInt(int64(len(b)), 16)+"\r\n"), b...), '\r', '\n'), nil...)
}

// maxHeap samples the live heap every 50 ms until stop is closed, and then
// sends the largest sample.
func maxHeap(stop <-chan struct{}) <-chan uint64 {
	out := make(chan uint64, 1)
	go func() {
		var peak uint64
		for {
			peak = max(peak, heapInUse())
			select {
			case <-stop:
				out <- peak
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	return out
}

// TestServe_LoadBytesInFlight sends 64 bodies of 1 MiB - 1 of a declared
// 1 MiB and stalls each before its last byte, as in a slow-body attack.
// Without a bound the server buffers all of them (64 MiB here, 1.14 GB RSS
// for 400 bodies of 2 MiB); with --max-inflight-bytes 16MiB it buffers at
// most 16 MiB and answers the rest 503 with Retry-After.
func TestServe_LoadBytesInFlight(t *testing.T) {
	const (
		conns  = 64
		record = 1 << 20
		budget = 16 << 20
		// The budget plus room for the connections, the clients and the
		// 503s' problem documents.
		heapBound = budget + 8<<20
	)
	cfg := testConfig()
	cfg.maxBytes = record
	cfg.maxInflight = 1000
	cfg.maxConns = 4000
	cfg.maxInflightBytes = budget
	cfg.lingerTimeout = time.Second
	url, _, _, _ := startServe(t, cfg)
	addr := strings.TrimPrefix(url, "http://")

	baseGoroutines := settledGoroutines(-1)
	baseHeap := heapInUse()
	head := "POST /v1/validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(record) + "\r\n\r\n"
	body := bytes.Repeat([]byte(" "), record-1)
	answers := make([]answer, conns)
	open := make([]net.Conn, conns)
	var wg sync.WaitGroup
	for i := range conns {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		open[i] = c
		t.Cleanup(func() { c.Close() })
		wg.Add(1)
		go func() {
			defer wg.Done()
			io.WriteString(c, head)
			c.Write(body)
			// A stalled request is never answered: its read times out.
			answers[i] = readAnswer(c, 3*time.Second)
		}()
	}
	wg.Wait()
	duringHeap := heapInUse()
	duringGoroutines := runtime.NumGoroutine()
	busy := 0
	for _, a := range answers {
		if a.status == http.StatusServiceUnavailable {
			busy++
			if a.retryAfter == "" || a.problem.Status != http.StatusServiceUnavailable || a.problem.Detail == "" {
				t.Errorf("a 503 without Retry-After or its problem document: %+v", a)
			}
		} else if a.err == nil {
			t.Errorf("a stalled request was answered %d", a.status)
		}
	}
	for _, c := range open {
		c.Close()
	}
	afterGoroutines := settledGoroutines(baseGoroutines)
	afterHeap := heapInUse()
	t.Logf("%d stalled 1 MiB bodies: %d answered 503; heap %d → %d → %d KiB; goroutines %d → %d → %d",
		conns, busy, baseHeap>>10, duringHeap>>10, afterHeap>>10, baseGoroutines, duringGoroutines, afterGoroutines)
	if busy == 0 || busy == conns {
		t.Errorf("%d of %d requests got 503: the budget admits some, not all", busy, conns)
	}
	if duringHeap > baseHeap+heapBound {
		t.Errorf("stalled bodies hold %d KiB of heap; the bound is %d KiB", (duringHeap-baseHeap)>>10, heapBound>>10)
	}
	if afterGoroutines > baseGoroutines {
		t.Errorf("goroutines went from %d to %d after the connections closed", baseGoroutines, afterGoroutines)
	}
	if afterHeap > baseHeap+4<<20 {
		t.Errorf("heap in use went from %d KiB to %d KiB after the connections closed", baseHeap>>10, afterHeap>>10)
	}
}

// TestServe_LoadIdleStreams opens 200 NDJSON streams that send one card
// and then nothing. Without a bound every one holds a goroutine and its
// 64 KiB read buffer; with --max-inflight 32, 32 are served and the rest
// answered 503 with Retry-After and closed.
func TestServe_LoadIdleStreams(t *testing.T) {
	const (
		conns    = 200
		inflight = 32
		// The streams served, a few for the server itself; and their
		// buffers (some 100 KiB each) with room for the clients.
		goroutineBound = inflight + 16
		heapBound      = 8 << 20
	)
	cfg := testConfig()
	cfg.maxInflight = inflight
	cfg.maxConns = 4000
	cfg.lingerTimeout = 500 * time.Millisecond
	url, _, _, _ := startServe(t, cfg)
	addr := strings.TrimPrefix(url, "http://")

	baseGoroutines := settledGoroutines(-1)
	baseHeap := heapInUse()
	head := "POST /v1/validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n\r\n"
	first := chunk([]byte(validCard + "\n"))
	answers := make([]answer, conns)
	open := make([]net.Conn, conns)
	var wg sync.WaitGroup
	for i := range conns {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		open[i] = c
		t.Cleanup(func() { c.Close() })
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Write(append([]byte(head), first...))
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			br := bufio.NewReader(c)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				answers[i] = answer{err: err}
				return
			}
			answers[i] = answer{status: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After")}
			if resp.StatusCode == http.StatusOK {
				// The verdict on the first card proves the stream is
				// being served; the stream then stays open.
				_, answers[i].err = bufio.NewReader(resp.Body).ReadBytes('\n')
			}
		}()
	}
	wg.Wait()
	served, busy := 0, 0
	for _, a := range answers {
		switch {
		case a.err != nil:
			t.Errorf("stream: %v", a.err)
		case a.status == http.StatusOK:
			served++
		case a.status == http.StatusServiceUnavailable && a.retryAfter != "":
			busy++
		default:
			t.Errorf("stream answered %d, Retry-After %q", a.status, a.retryAfter)
		}
	}
	// The 503s close once their bodies are drained or their drain times
	// out; what stays is the streams served.
	duringGoroutines := settledGoroutines(baseGoroutines + goroutineBound)
	duringHeap := heapInUse()
	for _, c := range open {
		c.Close()
	}
	afterGoroutines := settledGoroutines(baseGoroutines)
	afterHeap := heapInUse()
	t.Logf("%d idle streams: %d served, %d answered 503; heap %d → %d → %d KiB; goroutines %d → %d → %d",
		conns, served, busy, baseHeap>>10, duringHeap>>10, afterHeap>>10, baseGoroutines, duringGoroutines, afterGoroutines)
	if served != inflight || busy != conns-inflight {
		t.Errorf("%d streams served and %d answered 503; want %d and %d", served, busy, inflight, conns-inflight)
	}
	if duringGoroutines > baseGoroutines+goroutineBound {
		t.Errorf("%d idle streams hold %d goroutines over the %d before; the bound is %d", conns, duringGoroutines-baseGoroutines, baseGoroutines, goroutineBound)
	}
	if duringHeap > baseHeap+heapBound {
		t.Errorf("idle streams hold %d KiB of heap; the bound is %d KiB", (duringHeap-baseHeap)>>10, heapBound>>10)
	}
	if afterGoroutines > baseGoroutines {
		t.Errorf("goroutines went from %d to %d after the connections closed", baseGoroutines, afterGoroutines)
	}
	if afterHeap > baseHeap+4<<20 {
		t.Errorf("heap in use went from %d KiB to %d KiB after the connections closed", baseHeap>>10, afterHeap>>10)
	}
}

// TestServe_IdleStreamIsCut sends a card and then a blank line every
// 100 ms, which renewed the read deadline forever: only a card is
// progress, so the stream must be cut after the idle timeout, and cut
// visibly (no final chunk), with the first verdict delivered.
func TestServe_IdleStreamIsCut(t *testing.T) {
	cfg := testConfig()
	cfg.idleTimeout = time.Second
	url, _, _, _ := startServe(t, cfg)
	start := time.Now()
	f := startStream(t, url, validCard)
	go func() {
		for {
			time.Sleep(100 * time.Millisecond)
			if _, err := io.WriteString(f.pw, "\n"); err != nil {
				return
			}
		}
	}()
	done := make(chan error, 1)
	go func() {
		_, err := io.ReadAll(f.br)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Error("the cut stream ended like a finished one")
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("the stream was cut after %v; the idle timeout is %v", d, cfg.idleTimeout)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a stream that sends only blank lines is still open after 5 s; the idle timeout is 1 s")
	}
}

// TestServe_Load413 sends 32 bodies of 8 MiB to a 4 KiB cap, half with a
// Content-Length and half chunked, each written whole before its response
// is read, as Python's urllib does. Every client must read the 413 and
// its problem document: closing with the body unread reset the
// connection, and the client saw no answer at all. Draining costs no
// memory: the heap during the attack stays within 8 MiB of the start.
func TestServe_Load413(t *testing.T) {
	const (
		conns     = 32
		size      = 8 << 20
		heapBound = 8 << 20
	)
	cfg := testConfig()
	url, _, _, _ := startServe(t, cfg)
	addr := strings.TrimPrefix(url, "http://")
	body := bytes.Repeat([]byte(" "), size)
	chunked := append(chunk(body), "0\r\n\r\n"...)

	baseGoroutines := settledGoroutines(-1)
	baseHeap := heapInUse()
	stop := make(chan struct{})
	peak := maxHeap(stop)
	answers := make([]answer, conns)
	var wg sync.WaitGroup
	var peakGoroutines atomic.Int64
	for i := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", addr)
			if err != nil {
				answers[i] = answer{err: err}
				return
			}
			defer c.Close()
			head := "POST /v1/validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
			payload := body
			if i%2 == 0 {
				head += "Content-Length: " + strconv.Itoa(size) + "\r\n\r\n"
			} else {
				head += "Transfer-Encoding: chunked\r\n\r\n"
				payload = chunked
			}
			c.SetWriteDeadline(time.Now().Add(10 * time.Second))
			if _, err := io.WriteString(c, head); err != nil {
				answers[i] = answer{err: err}
				return
			}
			if _, err := c.Write(payload); err != nil {
				answers[i] = answer{err: fmt.Errorf("sending the body: %w", err)}
				return
			}
			peakGoroutines.Store(max(peakGoroutines.Load(), int64(runtime.NumGoroutine())))
			answers[i] = readAnswer(c, 10*time.Second)
		}()
	}
	wg.Wait()
	close(stop)
	duringHeap := <-peak
	afterGoroutines := settledGoroutines(baseGoroutines)
	afterHeap := heapInUse()
	t.Logf("%d bodies of 8 MiB: heap %d → peak %d → %d KiB; goroutines %d → peak %d → %d",
		conns, baseHeap>>10, duringHeap>>10, afterHeap>>10, baseGoroutines, peakGoroutines.Load(), afterGoroutines)
	for i, a := range answers {
		if a.err != nil || a.status != http.StatusRequestEntityTooLarge || a.problem.Status != http.StatusRequestEntityTooLarge {
			t.Errorf("client %d (chunked %v): status %d, problem %+v, err %v; want a readable 413", i, i%2 == 1, a.status, a.problem, a.err)
		}
	}
	if duringHeap > baseHeap+heapBound {
		t.Errorf("draining oversized bodies took the heap from %d KiB to %d KiB; the bound is %d KiB more", baseHeap>>10, duringHeap>>10, heapBound>>10)
	}
	// A server goroutine and a client goroutine per connection at most.
	if n := peakGoroutines.Load(); n > int64(baseGoroutines+2*conns+8) {
		t.Errorf("%d goroutines during the attack, %d before", n, baseGoroutines)
	}
	if afterGoroutines > baseGoroutines {
		t.Errorf("goroutines went from %d to %d after the attack", baseGoroutines, afterGoroutines)
	}
	if afterHeap > baseHeap+4<<20 {
		t.Errorf("heap in use went from %d KiB to %d KiB after the attack", baseHeap>>10, afterHeap>>10)
	}
}
