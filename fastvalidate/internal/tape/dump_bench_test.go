//go:build unix

package tape

import (
	"bufio"
	"os"
	"testing"
)

// dumpCards returns the first n lines of the NDJSON dump that cardscan's
// throughput figures are measured on (bin/perf/agentcard-100mb.ndjson, or
// $CARDSCAN_SCAN_DUMP), skipping the benchmark when it is absent: it is
// made by `make perf`, not kept in the repository.
func dumpCards(b *testing.B, n int) [][]byte {
	path := os.Getenv("CARDSCAN_SCAN_DUMP")
	if path == "" {
		path = "../../../bin/perf/agentcard-100mb.ndjson"
	}
	f, err := os.Open(path)
	if err != nil {
		b.Skipf("no dump to read (%v): make perf writes it", err)
	}
	defer f.Close()
	lines := bufio.NewScanner(f)
	lines.Buffer(make([]byte, 1<<20), 64<<20)
	var cards [][]byte
	for len(cards) < n && lines.Scan() {
		cards = append(cards, append([]byte(nil), lines.Bytes()...))
	}
	if err := lines.Err(); err != nil {
		b.Fatalf("%s: %v", path, err)
	}
	if len(cards) == 0 {
		b.Skipf("%s holds no card", path)
	}
	return cards
}

// BenchmarkScanDump times the strict scan alone, Picked included, over the
// first 20,000 cards of the 100 MB dump, one card an iteration: without a
// KeyFilter, and with fastvalidate's (content), as `cardscan -j 1` scans.
// Those 35 MB do not stay in the core's caches, so each card comes from
// memory and the classify pass, which reads it first, waits for it;
// cardscan's newline pass has read a card just before it is scanned. The
// content-1000 row scans the first 1,000 cards only (1.8 MB), which the
// caches hold, for the scan's own cost.
// The dump holds a few cards that are not strict JSON, as a real one
// would (a number out of a float64's range): rejected/card counts them.
// With -benchtime=Nx it scans exactly N cards, so that two runs under
// callgrind differ by the instructions of the scans between them.
func BenchmarkScanDump(b *testing.B) {
	cards := dumpCards(b, 20000)
	content := contentLikeFilter()
	for _, row := range []struct {
		name  string
		keys  *KeyFilter
		cards [][]byte
	}{{"none", nil, cards}, {"content", &content, cards}, {"content-1000", &content, cards[:min(1000, len(cards))]}} {
		b.Run(row.name, func(b *testing.B) {
			cards := row.cards
			total := 0
			for _, c := range cards {
				total += len(c)
			}
			sc := Scanner{MaxDepth: 512}
			sc.PickKeys(row.keys)
			b.SetBytes(int64(total / len(cards)))
			b.ReportAllocs()
			picked, rejected, i := 0, 0, 0
			cpu0 := processCPU(b)
			for b.Loop() {
				if !sc.Scan(cards[i%len(cards)]) {
					rejected++
				}
				picked += len(sc.Picked())
				i++
			}
			b.ReportMetric(float64(processCPU(b)-cpu0)/float64(i), "cpu-ns/card")
			b.ReportMetric(float64(picked)/float64(i), "picked/card")
			b.ReportMetric(float64(rejected)/float64(i), "rejected/card")
		})
	}
}
