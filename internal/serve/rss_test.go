package serve

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
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

// TestRun_StalledUploadsRSS runs `cardscan serve` with its default limits
// as a child process and stalls 300 uploads of a declared 2 MiB one byte
// before their end, as a slow-body attack does. The bytes budget
// (256 MiB) stops buffering past it, but the process held 411 MB of RSS:
// the garbage collector lets the heap grow to twice what is live, and
// the budget counts bodies, not the connections around them. The bound
// is what the documentation promises: the budget plus 64 MiB, at the
// process's peak (VmHWM).
func TestRun_StalledUploadsRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process and sends it 600 MB")
	}
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/PID/status")
	}
	if raceEnabled {
		t.Skip("the race detector's shadow memory multiplies the RSS measured")
	}
	const (
		uploads  = 300
		declared = 2 << 20
		budget   = defaultMaxInflightBytes
		bound    = budget + 64<<20
	)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childArgsEnv+"=--listen 127.0.0.1:0")
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

	head := fmt.Sprintf("POST /v1/validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", declared)
	body := append([]byte("{"), bytes.Repeat([]byte(" "), declared-2)...)
	deadline := time.Now().Add(8 * time.Second)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		conns []net.Conn
	)
	for range uploads {
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
			// A write past the budget blocks once the server stops
			// reading; the deadline ends it, the connection held open.
			c.SetWriteDeadline(deadline)
			c.Write(append([]byte(head), body...))
		}()
	}
	wg.Wait()
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	// Let the collector act on what the uploads left before measuring.
	time.Sleep(500 * time.Millisecond)
	rss, peak := vmKB(t, cmd.Process.Pid, "VmRSS"), vmKB(t, cmd.Process.Pid, "VmHWM")
	t.Logf("%d stalled uploads: VmRSS %d MiB, VmHWM %d MiB (bound %d MiB)", len(conns), rss>>10, peak>>10, bound>>20)
	if peak<<10 > bound {
		t.Errorf("the server's RSS peaked at %d MiB, over the budget %d MiB plus 64 MiB", peak>>10, budget>>20)
	}
}
