package cli

import (
	"errors"

	"github.com/cardscan/cardscan/internal/cmderr"
	"github.com/cardscan/cardscan/internal/pipeline"
	"github.com/cardscan/cardscan/internal/report"
	"github.com/cardscan/cardscan/internal/ruledoc"
	"github.com/cardscan/cardscan/rule"
)

// runEnd is what the documents' tails say of a run: the tool, with a
// descriptor per rule that fired, in the rule table's order, and the
// invocation, with the levels overrides (rule ID to level) gave those
// rules. The descriptors are made only when describeRules is set: SARIF
// alone writes them, and their Markdown, made after the last record on
// the run's one remaining goroutine, took 0.3 ms of every run's end on
// the make perf dump (BenchmarkRunEnd; docs/performance.md).
func runEnd(st *pipeline.Stats, inputErrors int64, result error, overrides map[string]string, describeRules bool) *report.RunEnd {
	end := &report.RunEnd{
		Name:           "cardscan",
		Version:        version(),
		InformationURI: "https://github.com/cardscan/cardscan",
		Successful:     inputErrors == 0 && !st.Interrupted && !errors.Is(result, cmderr.ErrIOReported),
		ExitCode:       cmderr.Status(result),
		Interrupted:    st.Interrupted,
	}
	if !describeRules {
		return end
	}
	for _, r := range rule.All() {
		if st.Rules[r.ID] > 0 {
			d := ruledoc.SARIF(r)
			if lvl, ok := overrides[r.ID]; ok && lvl != d.Level {
				end.Overrides = append(end.Overrides, report.SARIFOverride{Rule: len(end.Rules), Level: lvl})
			}
			end.Rules = append(end.Rules, d)
		}
	}
	return end
}
