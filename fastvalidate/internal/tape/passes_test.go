package tape

import (
	"strings"
	"testing"
)

// classifyPass is one way of computing the quote and care bits, for the
// tests, fuzz targets and benchmarks that hold them all to the byte loop
// and to each other.
type classifyPass struct {
	name     string
	portable bool                               // the word-at-a-time pass, as machines without vectors use
	vector   uint8                              // else the vector pass (vectorPass) to use
	blocks   func(b []byte, blocks []charBlock) // the pass itself, called directly
	missing  string                             // why this machine cannot run the pass; empty if it can
}

// use makes the Scanner compute the bits this way, until the test ends.
func (p classifyPass) use(tb testing.TB, sc *Scanner) {
	sc.Portable = p.portable
	if !p.portable {
		setVectorPass(tb, p.vector)
	}
}

// runnablePasses returns the passes this machine can run, and logs the
// others, so that a run on a machine without them says what it left out.
func runnablePasses(tb testing.TB) []classifyPass {
	var ps []classifyPass
	for _, p := range classifyPasses() {
		if p.missing != "" {
			tb.Logf("%s pass not run: %s", p.name, p.missing)
			continue
		}
		ps = append(ps, p)
	}
	return ps
}

// forEachPass runs f as a subtest per pass, skipping with the reason each
// pass this machine cannot run.
func forEachPass(t *testing.T, f func(t *testing.T, p classifyPass, sc *Scanner)) {
	for _, p := range classifyPasses() {
		t.Run(p.name, func(t *testing.T) {
			if p.missing != "" {
				t.Skip(p.missing)
			}
			var sc Scanner
			sc.MaxDepth = 512
			p.use(t, &sc)
			f(t, p, &sc)
		})
	}
}

// BenchmarkClassify times each pass this machine can run alone, and the
// strict scan with its bits: over 256 generated A2A 0.3 cards in turn (the
// size of BenchmarkProfile's rows, mean bytes per op) and over one 64 KB
// document, where the pass's width shows without the per-card overhead.
func BenchmarkClassify(b *testing.B) {
	cards := generatedCards(b, 256, "a2a/0.3")
	total := 0
	for _, c := range cards {
		total += len(c)
	}
	large := []byte("[" + strings.Repeat(string(cards[0])+",", 65536/(len(cards[0])+1)) + "0]")
	for _, p := range runnablePasses(b) {
		var sc Scanner
		sc.MaxDepth = 512
		b.Run(p.name+"/cards", func(b *testing.B) {
			p.use(b, &sc)
			b.SetBytes(int64(total / len(cards)))
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				sc.classify(cards[i%len(cards)])
				i++
			}
		})
		b.Run(p.name+"/64KB", func(b *testing.B) {
			p.use(b, &sc)
			sc.classify(large) // the blocks grow once, outside the timing
			b.SetBytes(int64(len(large)))
			b.ReportAllocs()
			for b.Loop() {
				sc.classify(large)
			}
		})
		b.Run(p.name+"/scan-cards", func(b *testing.B) {
			p.use(b, &sc)
			b.SetBytes(int64(total / len(cards)))
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if !sc.Scan(cards[i%len(cards)]) {
					b.Fatal("generated card does not scan")
				}
				i++
			}
		})
	}
}
