package serve

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// vmKB reads a size in kB (VmRSS, VmHWM) from /proc/PID/status.
func vmKB(t *testing.T, pid int, field string) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// startCardscanServe builds the cardscan binary without the race detector
// (whose shadow memory would multiply the RSS measured, and which the
// test binary may carry) and runs `cardscan serve` with args as a child
// process. It returns the child and the address it listens on.
func startCardscanServe(t *testing.T, args ...string) (*exec.Cmd, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds cardscan and sends a child process hundreds of MB")
	}
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/PID/status")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build cardscan with: " + err.Error())
	}
	bin := filepath.Join(t.TempDir(), "cardscan")
	build := exec.Command(goTool, "build", "-o", bin, "github.com/cardscan/cardscan/cmd/cardscan")
	// GOFLAGS could carry -race from the environment.
	build.Env = append(os.Environ(), "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build cardscan: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), "GOMEMLIMIT=off")
	stderrPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	errLines := bufio.NewScanner(stderrPipe)
	var addr string
	for errLines.Scan() {
		if u, ok := strings.CutPrefix(errLines.Text(), "cardscan: listening on http://"); ok {
			addr = u
			break
		}
	}
	if addr == "" {
		t.Fatal("the child never said where it listens")
	}
	go func() {
		for errLines.Scan() {
		}
	}()
	return cmd, addr
}

// stall opens n connections to addr and writes each payload(i) to it
// until the server stops reading or the deadline passes, leaving the
// connections open until the test ends. It returns how many connected.
func stall(t *testing.T, addr string, n int, deadline time.Time, payload func(i int) []byte) int {
	t.Helper()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		conns []net.Conn
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", addr)
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			// A write the server stops reading blocks; the deadline ends
			// it, the connection held open.
			c.SetWriteDeadline(deadline)
			c.Write(payload(i))
		}()
	}
	wg.Wait()
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	return len(conns)
}

// TestRun_StalledUploadsRSS runs `cardscan serve` with its default limits
// and stalls 300 uploads of a declared 2 MiB one byte before their end,
// as a slow-body attack does. The bytes budget (256 MiB) stops buffering
// past it, but the process once held 411 MB of RSS. The bound is what the
// documentation promises: the budget plus 64 MiB, at the process's peak
// (VmHWM).
func TestRun_StalledUploadsRSS(t *testing.T) {
	cmd, addr := startCardscanServe(t)
	n := stallUploads(t, addr)
	checkRSS(t, cmd.Process.Pid, fmt.Sprintf("%d stalled uploads", n))
}

// stallUploads stalls 300 uploads of a declared 2 MiB one byte before
// their end, and returns how many connected.
func stallUploads(t *testing.T, addr string) int {
	const declared = 2 << 20
	head := fmt.Sprintf("POST /v1/validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", declared)
	req := append([]byte(head), '{')
	req = append(req, bytes.Repeat([]byte(" "), declared-2)...)
	return stall(t, addr, 300, time.Now().Add(8*time.Second), func(int) []byte { return req })
}

// checkRSS fails when the process pid has held more than the default
// budget plus 64 MiB at its peak (VmHWM), as the documentation promises.
func checkRSS(t *testing.T, pid int, attack string) {
	t.Helper()
	const (
		budget = defaultMaxInflightBytes
		bound  = budget + 64<<20
	)
	// A write returns once the kernel's socket buffers (megabytes on
	// loopback) hold it, before the server has read it: wait until the
	// server's RSS holds still for a second.
	rss, still := vmKB(t, pid, "VmRSS"), 0
	for deadline := time.Now().Add(20 * time.Second); still < 10 && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
		now := vmKB(t, pid, "VmRSS")
		if now == rss {
			still++
		} else {
			rss, still = now, 0
		}
	}
	peak := vmKB(t, pid, "VmHWM")
	t.Logf("%s: VmRSS %d MiB, VmHWM %d MiB (bound %d MiB)", attack, rss>>10, peak>>10, bound>>20)
	if peak<<10 > bound {
		t.Errorf("the server's RSS peaked at %d MiB, over the budget %d MiB plus 64 MiB", peak>>10, budget>>20)
	}
}

// TestRun_StalledHeadersAndUploadsRSS adds to the stalled uploads as many
// connections as the server admits, each stalled before the end of a
// header block just under the header limit. The bytes budget does not
// count headers: the bound holds because the header limit and the
// connection limit together keep what they hold small.
func TestRun_StalledHeadersAndUploadsRSS(t *testing.T) {
	cmd, addr := startCardscanServe(t)
	uploads := stallUploads(t, addr)
	head := []byte("POST /v1/validate HTTP/1.1\r\nHost: x\r\n")
	pad := "X-Pad: " + strings.Repeat("a", 1000) + "\r\n"
	for len(head)+len(pad) < maxHeaderBytes {
		head = append(head, pad...)
	}
	headers := stall(t, addr, connsPerRequest*defaultMaxInflight, time.Now().Add(8*time.Second), func(int) []byte { return head })
	checkRSS(t, cmd.Process.Pid, fmt.Sprintf("%d stalled uploads, %d stalled header blocks of %d KiB", uploads, headers, len(head)>>10))
}

// TestSingle_StalledUploadsAllocateWithinBudget stalls more uploads than
// the bytes budget holds, in process, and counts every byte the process
// allocates meanwhile. Bodies read into buffers that doubled as they grew
// left as much garbage as they held, and every request took a 64 KiB line
// reader it never used: 2 to 3 times the budget was allocated, and the
// collector, not the budget, decided what the process held.
func TestSingle_StalledUploadsAllocateWithinBudget(t *testing.T) {
	const (
		uploads  = 24
		declared = 1 << 20
		budget   = 8 << 20
	)
	cfg := testConfig()
	cfg.maxBytes = 2 << 20
	cfg.maxInflightBytes = budget
	srv := newTestServer(t, cfg)
	addr := strings.TrimPrefix(srv.URL, "http://")
	head := fmt.Sprintf("POST /v1/validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", declared)
	req := append([]byte(head), '{')
	req = append(req, bytes.Repeat([]byte(" "), declared-2)...)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	n := stall(t, addr, uploads, time.Now().Add(3*time.Second), func(int) []byte { return req })
	time.Sleep(200 * time.Millisecond) // for the server to read what was sent
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d stalled uploads of %d MiB against a %d MiB budget allocated %.1f MiB", n, declared>>20, budget>>20, float64(allocated)/(1<<20))
	if limit := uint64(budget + budget/4); allocated > limit {
		t.Errorf("stalled uploads allocated %.1f MiB, over the %d MiB budget plus a quarter", float64(allocated)/(1<<20), budget>>20)
	}
}
