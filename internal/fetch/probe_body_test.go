package fetch

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestProbe_BodyThatNeverEnds: an interface that answers its headers at
// once and then a body that never ends (an event stream, a byte now and
// then) was reported as "cannot reach HOST: timed out", as if it had never
// answered. The record says what it answered and that its body did not
// end within --timeout.
func TestProbe_BodyThatNeverEnds(t *testing.T) {
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		for {
			if _, err := w.Write([]byte("data: {}\n\n")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-done:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}))
	defer srv.Close()
	defer close(done)
	cards := card10("["+iface10(srv.URL+"/rpc", "JSONRPC")+","+iface10(srv.URL+"/rest", "HTTP+JSON")+"]", "{}") + "\n"
	recs, _, stderr := runProbeOn(t, nil, cards, "--allow-private", "--timeout", "1s", "--retries", "0")
	if len(recs) != 2 {
		t.Fatalf("%d records; stderr %s", len(recs), stderr)
	}
	for _, r := range recs {
		if len(r.Errors) != 1 || r.Errors[0].Rule != "probe.timeout" {
			t.Fatalf("%s: %+v, want one probe.timeout", r.Probe.URL, r.Errors)
		}
		msg := r.Errors[0].Message
		if strings.Contains(msg, "cannot reach") || !strings.Contains(msg, "answered 200") || !strings.Contains(msg, "text/event-stream") || !strings.Contains(msg, "1s") {
			t.Errorf("%s: %q; want what it answered and that its body did not end within --timeout 1s", r.Probe.URL, msg)
		}
	}
}
