package bench

import (
	"testing"

	"github.com/cardscan/cardscan/bench/internal/gateway"
	"github.com/cardscan/cardscan/fastvalidate"
)

func loadCards(tb testing.TB) []gateway.Card {
	tb.Helper()
	cards, err := gateway.LoadCards("testdata")
	if err != nil {
		tb.Fatal(err)
	}
	return cards
}

// TestGatewayCards keeps the test cards what their names say: valid under
// the agentcard profile, without findings, and of the advertised size.
func TestGatewayCards(t *testing.T) {
	sizes := map[string][2]int{"card-1.7k.json": {1600, 1800}, "card-64k.json": {60 << 10, 66 << 10}}
	v := fastvalidate.MustNew("agentcard")
	for _, c := range loadCards(t) {
		if want := sizes[c.Name]; len(c.Body) < want[0] || len(c.Body) > want[1] {
			t.Errorf("%s: %d bytes, want %d to %d", c.Name, len(c.Body), want[0], want[1])
		}
		res := v.Validate(c.Body)
		if !res.Valid() || len(res.Findings()) != 0 {
			t.Errorf("%s: valid=%v findings=%v", c.Name, res.Valid(), res.Findings())
		}
	}
}

// TestGatewayZeroAllocs asserts that a valid card costs no allocation, both
// on a Validator a goroutine owns and through a Pool.
func TestGatewayZeroAllocs(t *testing.T) {
	pool, err := fastvalidate.NewPool("agentcard")
	if err != nil {
		t.Fatal(err)
	}
	v := fastvalidate.MustNew("agentcard")
	for _, c := range loadCards(t) {
		v.Validate(c.Body) // grow the buffers to this card
		if n := testing.AllocsPerRun(200, func() {
			if !v.Validate(c.Body).Valid() {
				t.Fatal("invalid")
			}
		}); n != 0 {
			t.Errorf("%s: Validator.Validate: %v allocs per card, want 0", c.Name, n)
		}
		if raceEnabled {
			continue
		}
		pool.Valid(c.Body)
		if n := testing.AllocsPerRun(200, func() {
			if !pool.Valid(c.Body) {
				t.Fatal("invalid")
			}
		}); n != 0 {
			t.Errorf("%s: Pool.Valid: %v allocs per card, want 0", c.Name, n)
		}
	}
}

// TestMeasureReportsEverySample checks the latency harness itself: it must
// return n samples per goroutine, sorted, and refuse an invalid card.
func TestMeasureReportsEverySample(t *testing.T) {
	pool, _ := fastvalidate.NewPool("agentcard")
	card := loadCards(t)[0].Body
	lat, err := gateway.Measure(pool, card, 50, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(lat) != 100 {
		t.Fatalf("%d samples, want 100", len(lat))
	}
	for i := 1; i < len(lat); i++ {
		if lat[i] < lat[i-1] {
			t.Fatalf("samples not sorted at %d", i)
		}
	}
	if lat.Quantile(0.5) > lat.Quantile(0.99) || lat.Quantile(0.99) > lat.Quantile(1) || int64(lat.Quantile(1)) != lat[len(lat)-1] {
		t.Errorf("quantiles out of order: p50 %v p99 %v max %v", lat.Quantile(0.5), lat.Quantile(0.99), lat.Quantile(1))
	}
	if _, err := gateway.Measure(pool, []byte(`{"name":""}`), 10, 1); err == nil {
		t.Error("an invalid card was measured without complaint")
	}
}

func TestQuantileNearestRank(t *testing.T) {
	l := gateway.Latencies{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, tc := range []struct {
		q    float64
		want int64
	}{{0.1, 1}, {0.5, 5}, {0.55, 6}, {0.99, 10}, {1, 10}} {
		if got := l.Quantile(tc.q); int64(got) != tc.want {
			t.Errorf("Quantile(%v) = %d, want %d", tc.q, got, tc.want)
		}
	}
}

// BenchmarkPool_Validate is a gateway under load: every goroutine takes a
// Validator from the Pool for each card, as a request handler does.
func BenchmarkPool_Validate(b *testing.B) {
	pool, err := fastvalidate.NewPool("agentcard")
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range loadCards(b) {
		b.Run(c.Name, func(b *testing.B) {
			// Once, outside RunParallel: inside, every goroutine would
			// reset the counters.
			b.SetBytes(int64(len(c.Body)))
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					v := pool.Get()
					if !v.Validate(c.Body).Valid() {
						b.Error("invalid")
					}
					pool.Put(v)
				}
			})
		})
	}
}
