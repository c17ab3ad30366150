package cardhttp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The load tests below attack a middleware on loopback and measure the
// process's heap and goroutines while the attack holds and after it ends.
// Their bounds are far below what the attacks cost without the defences
// (noted at each) and far above what the defences leave: the test binary's
// own clients, connections and buffers are counted too.

// heapInUse is the live heap after two collections, so that only what is
// still referenced counts.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// settledGoroutines waits up to 10 s for the goroutine count to fall to at
// most want, and returns the count it saw last.
func settledGoroutines(want int) int {
	deadline := time.Now().Add(10 * time.Second)
	for {
		n := runtime.NumGoroutine()
		if n <= want || time.Now().After(deadline) {
			return n
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// readSignal counts the request bodies that have been read from at least
// once: a handler blocked in its first Read has done whatever it does
// before reading.
type readSignal struct {
	io.ReadCloser
	started *atomic.Int32
	once    atomic.Bool
}

func (s *readSignal) Read(p []byte) (int, error) {
	if s.once.CompareAndSwap(false, true) {
		s.started.Add(1)
	}
	return s.ReadCloser.Read(p)
}

// dialAll opens n loopback connections to addr and writes head on each.
func dialAll(t *testing.T, addr string, n int, head string) []net.Conn {
	t.Helper()
	conns := make([]net.Conn, 0, n)
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	for range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		if _, err := io.WriteString(c, head); err != nil {
			t.Fatal(err)
		}
	}
	return conns
}

// TestMiddleware_LoadHeadersOnly opens connections that declare a body of
// the full cap and send none of it. Allocating the declared length up front
// made 100 such connections hold 200 MiB; growing the buffer as bytes
// arrive holds a few KiB each.
func TestMiddleware_LoadHeadersOnly(t *testing.T) {
	const (
		conns = 100
		// What 100 stalled requests may add to the live heap, their
		// connections' buffers included: 10 MiB is 5% of what the
		// declared lengths add up to.
		heapBound = 10 << 20
	)
	var started atomic.Int32
	mw := mustMiddleware(t)
	inner := mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusNoContent)
	}))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = &readSignal{ReadCloser: r.Body, started: &started}
		inner.ServeHTTP(w, r)
	}))
	defer srv.Close()

	baseGoroutines := runtime.NumGoroutine()
	baseHeap := heapInUse()
	head := "POST /agents HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: " +
		strconv.Itoa(DefaultMaxBytes) + "\r\n\r\n"
	open := dialAll(t, srv.Listener.Addr().String(), conns, head)
	deadline := time.Now().Add(10 * time.Second)
	for started.Load() < conns {
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d requests reached the middleware", started.Load(), conns)
		}
		time.Sleep(10 * time.Millisecond)
	}
	duringHeap := heapInUse()
	duringGoroutines := runtime.NumGoroutine()

	for _, c := range open {
		c.Close()
	}
	afterGoroutines := settledGoroutines(baseGoroutines)
	afterHeap := heapInUse()
	t.Logf("%d stalled requests: heap %d → %d → %d KiB; goroutines %d → %d → %d",
		conns, baseHeap>>10, duringHeap>>10, afterHeap>>10, baseGoroutines, duringGoroutines, afterGoroutines)
	if duringHeap > baseHeap+heapBound {
		t.Errorf("%d requests that sent only headers hold %d KiB of heap; the bound is %d KiB",
			conns, (duringHeap-baseHeap)>>10, heapBound>>10)
	}
	// One goroutine per connection is the server's; the middleware may
	// add none.
	if duringGoroutines > baseGoroutines+conns+8 {
		t.Errorf("%d stalled requests run %d goroutines over the %d before", conns, duringGoroutines-baseGoroutines, baseGoroutines)
	}
	if afterGoroutines > baseGoroutines {
		t.Errorf("goroutines went from %d to %d after the connections closed", baseGoroutines, afterGoroutines)
	}
	if afterHeap > baseHeap+2<<20 {
		t.Errorf("heap in use went from %d KiB to %d KiB after the connections closed", baseHeap>>10, afterHeap>>10)
	}
}

// TestMiddleware_Load413 sends 32 bodies of 8 MiB to a 4 KiB cap, half
// with a Content-Length and half chunked, each written whole before its
// response is read, as Python's urllib does. Every client must read the
// 413 and its problem document: closing with the body unread reset the
// connection, and the client saw no answer at all. Draining costs no
// memory: the live heap stays within 8 MiB of the start throughout.
func TestMiddleware_Load413(t *testing.T) {
	const (
		conns     = 32
		size      = 8 << 20
		heapBound = 8 << 20
	)
	srv := httptest.NewServer(mustMiddleware(t, WithMaxBytes(4096))(discardHandler))
	defer srv.Close()
	addr := srv.Listener.Addr().String()
	body := bytes.Repeat([]byte(" "), size)
	chunked := append(append([]byte(strconv.FormatInt(size, 16)+"\r\n"), body...), "\r\n0\r\n\r\n"...)

	baseGoroutines := runtime.NumGoroutine()
	baseHeap := heapInUse()
	stop := make(chan struct{})
	peak := make(chan uint64, 1)
	go func() {
		var p uint64
		for {
			p = max(p, heapInUse())
			select {
			case <-stop:
				peak <- p
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	errs := make([]error, conns)
	var wg sync.WaitGroup
	for i := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = sendWholeThenRead(addr, i%2 == 1, body, chunked)
		}()
	}
	wg.Wait()
	close(stop)
	duringHeap := <-peak
	afterGoroutines := settledGoroutines(baseGoroutines)
	afterHeap := heapInUse()
	t.Logf("%d bodies of 8 MiB: heap %d → peak %d → %d KiB; goroutines %d → %d",
		conns, baseHeap>>10, duringHeap>>10, afterHeap>>10, baseGoroutines, afterGoroutines)
	for i, err := range errs {
		if err != nil {
			t.Errorf("client %d (chunked %v): %v", i, i%2 == 1, err)
		}
	}
	if duringHeap > baseHeap+heapBound {
		t.Errorf("draining oversized bodies took the heap from %d KiB to %d KiB; the bound is %d KiB more", baseHeap>>10, duringHeap>>10, heapBound>>10)
	}
	if afterGoroutines > baseGoroutines {
		t.Errorf("goroutines went from %d to %d after the attack", baseGoroutines, afterGoroutines)
	}
	if afterHeap > baseHeap+4<<20 {
		t.Errorf("heap in use went from %d KiB to %d KiB after the attack", baseHeap>>10, afterHeap>>10)
	}
}

// sendWholeThenRead posts an oversized card the way clients that do not
// read while sending do, and requires a 413 problem response.
func sendWholeThenRead(addr string, isChunked bool, body, chunked []byte) error {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	head := "POST /agents HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
	payload := body
	if isChunked {
		head += "Transfer-Encoding: chunked\r\n\r\n"
		payload = chunked
	} else {
		head += "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n"
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, head); err != nil {
		return err
	}
	if _, err := c.Write(payload); err != nil {
		return fmt.Errorf("sending the body: %w", err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return fmt.Errorf("reading the answer: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	var p problem
	if err == nil {
		err = json.Unmarshal(b, &p)
	}
	if err != nil || resp.StatusCode != http.StatusRequestEntityTooLarge || p.Status != http.StatusRequestEntityTooLarge {
		return fmt.Errorf("status %d, body %q, %v; want a 413 problem", resp.StatusCode, b, err)
	}
	return nil
}
