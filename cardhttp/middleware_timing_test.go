package cardhttp

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"
)

// discardHandler stands for the gateway's own handler: it consumes the
// body, as a registry storing the card would.
var discardHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	w.WriteHeader(http.StatusNoContent)
})

// BenchmarkMiddleware_Latency measures what the middleware adds to a
// request with a valid card. Each iteration serves the same request twice,
// bare and wrapped, in alternating order, so that both see the same machine
// noise; the reported percentiles are of per-request wall time, and
// added-p50/added-p99 are the differences between the two. "recorder" calls
// the handlers in process (the middleware's own cost); "loopback" sends real
// requests through httptest servers on 127.0.0.1 (the cost in context).
func BenchmarkMiddleware_Latency(b *testing.B) {
	card := readTestdata(b, "valid.json")
	wrapped := mustMiddleware(b)(discardHandler)

	b.Run("recorder", func(b *testing.B) {
		body := &resettableBody{}
		serve := func(h http.Handler) time.Duration {
			body.Reset(card)
			r := httptest.NewRequest(http.MethodPost, "/agents", nil)
			r.Body, r.ContentLength = body, int64(len(card))
			r.Header.Set("Content-Type", MediaType)
			w := httptest.NewRecorder()
			start := time.Now()
			h.ServeHTTP(w, r)
			d := time.Since(start)
			if w.Code != http.StatusNoContent {
				b.Fatalf("status %d", w.Code)
			}
			return d
		}
		measureLatency(b, len(card), func() time.Duration { return serve(discardHandler) }, func() time.Duration { return serve(wrapped) })
	})

	b.Run("loopback", func(b *testing.B) {
		bare := httptest.NewServer(discardHandler)
		defer bare.Close()
		checked := httptest.NewServer(wrapped)
		defer checked.Close()
		client := bare.Client()
		send := func(url string) time.Duration {
			start := time.Now()
			resp, err := client.Post(url, MediaType, bytes.NewReader(card))
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			d := time.Since(start)
			if resp.StatusCode != http.StatusNoContent {
				b.Fatalf("status %d", resp.StatusCode)
			}
			return d
		}
		measureLatency(b, len(card), func() time.Duration { return send(bare.URL) }, func() time.Duration { return send(checked.URL) })
	})
}

func measureLatency(b *testing.B, size int, bare, wrapped func() time.Duration) {
	b.ReportAllocs()
	b.SetBytes(int64(size))
	var bareTimes, wrappedTimes []time.Duration
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			bareTimes = append(bareTimes, bare())
			wrappedTimes = append(wrappedTimes, wrapped())
		} else {
			wrappedTimes = append(wrappedTimes, wrapped())
			bareTimes = append(bareTimes, bare())
		}
		i++
	}
	bp50, bp99 := percentiles(bareTimes)
	wp50, wp99 := percentiles(wrappedTimes)
	b.ReportMetric(float64(bp50.Nanoseconds()), "bare-p50-ns")
	b.ReportMetric(float64(bp99.Nanoseconds()), "bare-p99-ns")
	b.ReportMetric(float64(wp50.Nanoseconds()), "checked-p50-ns")
	b.ReportMetric(float64(wp99.Nanoseconds()), "checked-p99-ns")
	b.ReportMetric(float64((wp50 - bp50).Nanoseconds()), "added-p50-ns")
	b.ReportMetric(float64((wp99 - bp99).Nanoseconds()), "added-p99-ns")
}

func percentiles(d []time.Duration) (p50, p99 time.Duration) {
	if len(d) == 0 {
		return 0, 0
	}
	slices.Sort(d)
	return d[len(d)*50/100], d[len(d)*99/100]
}

// BenchmarkChecker_Check is the validation step alone: reading a valid card
// from the request and judging it.
func BenchmarkChecker_Check(b *testing.B) {
	card := readTestdata(b, "valid.json")
	cfg, pool, err := newConfig(nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	c := &checker{cfg: cfg, pool: pool}
	body := &resettableBody{}
	r := post(body, MediaType)
	r.Body, r.ContentLength = body, int64(len(card))
	b.ReportAllocs()
	b.SetBytes(int64(len(card)))
	for b.Loop() {
		body.Reset(card)
		st, ok := c.check(r)
		if !ok {
			b.Fatal("valid card rejected")
		}
		putState(st)
	}
}
