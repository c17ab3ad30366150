package cli

import (
	"io"
	"os"
	"strings"
	"testing"
)

// perfDump is the dump `make perf` generates (100 MB of 1.7 KB agentcard
// cards, 5% defective).
const perfDump = "../../bin/perf/agentcard-100mb.ndjson"

// BenchmarkCardscanDump runs cardscan --quiet on make perf's dump in
// process, as the command does, plain and --cross-card, at -j 1 and -j 2.
// With -trace it shows the whole run's timeline, what the main goroutine
// does before the first chunk and after the last included, which the
// pipeline's own benchmark (BenchmarkRunDump) leaves out:
//
//	go test -run=NONE -bench='CardscanDump/plain/j2' -benchtime=1x -trace=j2.trace ./internal/cli/
//	go tool trace -d=parsed j2.trace
func BenchmarkCardscanDump(b *testing.B) {
	st, err := os.Stat(perfDump)
	if err != nil {
		b.Skipf("no %s (make perf writes it): %v", perfDump, err)
	}
	for _, mode := range []string{"plain", "cross-card"} {
		for _, jobs := range []string{"1", "2"} {
			args := []string{"--quiet", "--progress", "never", "-j", jobs, perfDump}
			if mode == "cross-card" {
				args = append([]string{"--cross-card"}, args...)
			}
			b.Run(mode+"/j"+jobs, func(b *testing.B) {
				b.SetBytes(st.Size())
				b.ReportAllocs()
				for b.Loop() {
					var errOut strings.Builder
					// The dump's defective cards fail the run.
					if code := Run(args, strings.NewReader(""), io.Discard, &errOut); code != exitInvalid {
						b.Fatalf("cardscan %s: exit %d, %s", strings.Join(args, " "), code, errOut.String())
					}
				}
			})
		}
	}
}
