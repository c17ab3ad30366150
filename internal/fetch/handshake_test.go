package fetch

import (
	"net"
	"strings"
	"testing"
	"time"
)

// stallingTLS accepts connections and never answers: a TLS client's
// handshake waits for a ServerHello that does not come.
func stallingTLS(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { close(done); ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { <-done; c.Close() }()
		}
	}()
	return ln.Addr().String()
}

// TestHandshakeStallIsSaid: a host that takes the connection and stalls
// in the TLS handshake is said to have done so, by fetch and probe alike.
// Both read "cannot reach HOST: timed out", as if no connection was made.
func TestHandshakeStallIsSaid(t *testing.T) {
	addr := stallingTLS(t)
	start := time.Now()
	_, out, _ := runFetch(t, nil, "--format", "jsonl", "--connect-timeout", "300ms", "https://"+addr+"/")
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
	recs := decodeRecords(t, out)
	if len(recs) != 1 || len(recs[0].Errors) != 1 {
		t.Fatalf("records %+v", recs)
	}
	f := recs[0].Errors[0]
	if f.Rule != "http.timeout" || !strings.Contains(f.Message, addr+" took the connection, then stalled in the TLS handshake") ||
		strings.Contains(f.Message, "cannot reach") {
		t.Errorf("fetch: %s %q; want http.timeout saying the handshake stalled", f.Rule, f.Message)
	}

	recs2, _, stderr := runProbeOn(t, nil, card10("["+iface10("https://"+addr+"/a2a", "JSONRPC")+"]", "{}")+"\n",
		"--allow-private", "--include-invalid", "--connect-timeout", "300ms", "--retries", "0")
	if len(recs2) != 1 || len(recs2[0].Errors) != 1 {
		t.Fatalf("probe records %+v; stderr %s", recs2, stderr)
	}
	if e := recs2[0].Errors[0]; e.Rule != "probe.timeout" || !strings.Contains(e.Message, addr+" took the connection, then stalled in the TLS handshake") {
		t.Errorf("probe: %s %q; want probe.timeout saying the handshake stalled", e.Rule, e.Message)
	}
}
