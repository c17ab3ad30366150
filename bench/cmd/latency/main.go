// Command latency prints the per-card latency a gateway sees from
// fastvalidate (p50, p99, p99.9 and the worst call) for the 1.7 KB and
// 64 KB test cards, on one goroutine and on one per core; `make
// bench-gateway` runs it from the bench directory.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/cardscan/cardscan/bench/internal/gateway"
	"github.com/cardscan/cardscan/fastvalidate"
)

func main() {
	profile := flag.String("profile", "agentcard", "fastvalidate `profile`")
	dir := flag.String("testdata", "testdata", "`dir` holding the test cards")
	samples := flag.Int("n", 200000, "calls timed per goroutine for the 1.7 KB card (a tenth of that for 64 KB)")
	flag.Parse()

	cards, err := gateway.LoadCards(*dir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "latency: error: %v\n", err)
		os.Exit(3)
	}
	pool, err := fastvalidate.NewPool(*profile)
	if err != nil {
		fmt.Fprintf(os.Stderr, "latency: error: %v\n", err)
		os.Exit(2)
	}
	fmt.Printf("fastvalidate %s through a Pool (Get, Validate, Put), each call timed with time.Now; GOMAXPROCS=%d\n\n",
		*profile, runtime.GOMAXPROCS(0))
	fmt.Println("| card | bytes | goroutines | calls | p50 | p99 | p99.9 | max |")
	fmt.Println("|---|--:|--:|--:|--:|--:|--:|--:|")
	for i, c := range cards {
		n := *samples
		if i > 0 {
			n = max(n/10, 1)
		}
		for _, g := range goroutineCounts() {
			lat, err := gateway.Measure(pool, c.Body, n, g)
			if err != nil {
				fmt.Fprintf(os.Stderr, "latency: error: %s: %v\n", c.Name, err)
				os.Exit(1)
			}
			fmt.Printf("| %s | %d | %d | %d | %s | %s | %s | %s |\n", strings.TrimSuffix(c.Name, ".json"),
				len(c.Body), g, len(lat), lat.Quantile(0.5), lat.Quantile(0.99), lat.Quantile(0.999), lat.Quantile(1))
		}
	}
}

// goroutineCounts is one goroutine, then one per core: a quiet gateway and
// a saturated one.
func goroutineCounts() []int {
	if p := runtime.GOMAXPROCS(0); p > 1 {
		return []int{1, p}
	}
	return []int{1}
}
