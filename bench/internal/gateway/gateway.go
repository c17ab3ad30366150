// Package gateway measures fastvalidate the way a gateway uses it: one card
// per request, through a Pool, from many goroutines. It holds the test cards
// and the latency histogram shared by the benchmark and cmd/latency.
package gateway

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/cardscan/cardscan/fastvalidate"
)

// Card is a request body of a known size.
type Card struct {
	Name string
	Body []byte
}

// Cards are the test cards under testdata/: a 1.7 KB card in the draft
// dialect, the size of the generated dumps' average (four capabilities,
// schemas, pricing, metadata, a goal subscription), and a 64 KB one with
// 122 capabilities for the large end.
var Cards = []string{"card-1.7k.json", "card-64k.json"}

// LoadCards reads the test cards from dir, without their final newline.
func LoadCards(dir string) ([]Card, error) {
	var cards []Card
	for _, name := range Cards {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
			b = b[:len(b)-1]
		}
		cards = append(cards, Card{Name: name, Body: b})
	}
	return cards, nil
}

// Latencies are per-call durations in nanoseconds.
type Latencies []int64

// Quantile returns the q-quantile (0 < q <= 1) by the nearest-rank method;
// the receiver must be sorted.
func (l Latencies) Quantile(q float64) time.Duration {
	if len(l) == 0 {
		return 0
	}
	rank := int(q*float64(len(l))+0.999999999) - 1
	return time.Duration(l[min(max(rank, 0), len(l)-1)])
}

// Measure validates card n times on each of goroutines goroutines, each
// call through pool.Get/Validate/Put as a request handler does, and returns
// every call's duration, sorted. Each goroutine is locked to its OS thread
// and warmed up first, so the samples show the steady state a long-running
// gateway sees, GC pauses included.
func Measure(pool *fastvalidate.Pool, card []byte, n, goroutines int) (Latencies, error) {
	all := make([]Latencies, goroutines)
	errs := make([]error, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			for range min(n, 1000) {
				if !pool.Valid(card) {
					errs[g] = fmt.Errorf("the test card is invalid")
					return
				}
			}
			samples := make(Latencies, n)
			for i := range samples {
				start := time.Now()
				v := pool.Get()
				ok := v.Validate(card).Valid()
				pool.Put(v)
				samples[i] = int64(time.Since(start))
				if !ok {
					errs[g] = fmt.Errorf("the test card is invalid")
					return
				}
			}
			all[g] = samples
		}()
	}
	wg.Wait()
	var out Latencies
	for g := range goroutines {
		if errs[g] != nil {
			return nil, errs[g]
		}
		out = append(out, all[g]...)
	}
	slices.Sort(out)
	return out, nil
}
