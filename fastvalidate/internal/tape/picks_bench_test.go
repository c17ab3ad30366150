//go:build unix

package tape

import (
	"syscall"
	"testing"
)

// BenchmarkScanPicking times the strict scan of generated AgentCard
// cards, the dialect of the 100 MB dump, without a KeyFilter and with
// one shaped like fastvalidate's contentKeys, Picked included: the
// difference is what picking costs the scan, apart from the content
// rules that read the picks. Beside the wall time it reports the CPU
// time (cpu-ns/card, user and system, by getrusage), which other work on
// a shared machine moves less.
func BenchmarkScanPicking(b *testing.B) {
	cards := generatedCards(b, 256, "agentcard")
	total := 0
	for _, c := range cards {
		total += len(c)
	}
	content := contentLikeFilter()
	for _, row := range []struct {
		name string
		keys *KeyFilter
	}{{"none", nil}, {"content", &content}} {
		b.Run(row.name, func(b *testing.B) {
			sc := Scanner{MaxDepth: 512}
			sc.PickKeys(row.keys)
			b.SetBytes(int64(total / len(cards)))
			b.ReportAllocs()
			picked, i := 0, 0
			cpu0 := processCPU(b)
			for b.Loop() {
				if !sc.Scan(cards[i%len(cards)]) {
					b.Fatal("generated card does not scan")
				}
				picked += len(sc.Picked())
				i++
			}
			b.ReportMetric(float64(processCPU(b)-cpu0)/float64(i), "cpu-ns/card")
			b.ReportMetric(float64(picked)/float64(i), "picked/card")
		})
	}
}

// contentLikeFilter is shaped like fastvalidate's contentKeys, which this
// package cannot import.
func contentLikeFilter() KeyFilter {
	var content KeyFilter
	for _, name := range []string{"name", "title", "displayName", "organization",
		"description", "summary", "examples", "tags", "endpoint"} {
		content.AddName(name)
	}
	content.AddLast("lLiIfF")
	return content
}

// processCPU returns the CPU time, user and system, the process has used,
// in nanoseconds.
func processCPU(b *testing.B) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
