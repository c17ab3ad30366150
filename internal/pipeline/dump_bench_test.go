package pipeline

import (
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/cardscan/cardscan/internal/report"
)

// perfDump is the dump `make perf` generates (100 MB of 1.7 KB agentcard
// cards, 5% defective), and its zstd copy.
const perfDump = "../../bin/perf/agentcard-100mb.ndjson"

// BenchmarkRunDump runs the pipeline on make perf's dump as cardscan
// --quiet does, with one and two workers, on the NDJSON and the zstd
// copy; "ndjson-lines" renders the verdicts of the invalid cards as
// --format jsonl does, to io.Discard, so that a mapped chunk's lines are
// counted before it is judged (lineChain). With -trace it shows where
// -j 2's workers wait:
//
//	go test -run=NONE -bench='RunDump/ndjson/j2' -benchtime=1x -trace=j2.trace ./internal/pipeline/
//	go tool trace -pprof=sync j2.trace > sync.pprof
func BenchmarkRunDump(b *testing.B) {
	// MB/s are of the NDJSON bytes, compressed or not.
	st, err := os.Stat(perfDump)
	if err != nil {
		b.Skipf("no %s (make perf writes it): %v", perfDump, err)
	}
	for _, in := range []struct {
		name, path string
		findings   report.VerdictWriter
	}{
		{"ndjson", perfDump, nil},
		{"ndjson-lines", perfDump, report.FormatJSONL.Writer(io.Discard, report.WriterOptions{})},
		{"zstd", perfDump + ".zst", nil},
	} {
		if _, err := os.Stat(in.path); err != nil {
			b.Skipf("no %s (make perf writes it): %v", in.path, err)
		}
		for _, jobs := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/j%d", in.name, jobs), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(st.Size())
				for b.Loop() {
					cfg := Config{Profile: "agentcard", Jobs: jobs, Findings: in.findings}
					if _, err := Run(cfg, []Input{{Name: in.path, Path: in.path}}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
