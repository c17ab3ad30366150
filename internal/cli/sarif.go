package cli

import (
	"github.com/cardscan/cardscan/rule"
	"io"
	"os"
	"strconv"

	"github.com/cardscan/cardscan/internal/console"
	"github.com/cardscan/cardscan/internal/pipeline"
	"github.com/cardscan/cardscan/internal/report"
	"github.com/cardscan/cardscan/internal/ruledoc"
)

// maxSARIFNotes bounds the input failures a SARIF run lists as
// notifications; the summary counts them all.
const maxSARIFNotes = 100

// sarifRun is a --format sarif run: the log's head is written before the
// pipeline starts, its results stream through w, and finish writes the
// tail with the rules that fired, which the run's rule counts tell.
type sarifRun struct {
	stdout  io.Writer
	w       *report.SARIFWriter
	notes   []report.SARIFNote
	dropped int
}

// startSARIF writes the log's head to dst, and makes the writer for the
// results, over findings, which writes to dst.
func startSARIF(dst, findings io.Writer, cfg *pipeline.Config) (*sarifRun, error) {
	wd, _ := os.Getwd()
	if _, err := dst.Write(report.AppendSARIFHead(nil, wd)); err != nil {
		return nil, err
	}
	s := &sarifRun{stdout: dst, w: &report.SARIFWriter{W: findings}}
	diagnose := cfg.Diagnose
	cfg.Diagnose = func(msg string) {
		diagnose(msg)
		if len(s.notes) < maxSARIFNotes {
			s.notes = append(s.notes, report.SARIFNote{Level: "error", Text: msg})
		} else {
			s.dropped++
		}
	}
	return s, nil
}

// finish writes the log's tail: the tool with a descriptor per rule that
// fired, in the rule table's order, and the invocation, with the levels
// overrides (rule ID to level) gave those rules.
func (s *sarifRun) finish(st *pipeline.Stats, inputErrors int64, status int, overrides map[string]string) error {
	t := report.SARIFTail{
		Name:           "cardscan",
		Version:        version(),
		InformationURI: "https://github.com/cardscan/cardscan",
		Successful:     inputErrors == 0 && !st.Interrupted && status != console.ExitIO,
		ExitCode:       status,
		Notes:          s.notes,
	}
	for _, r := range rule.All() {
		if st.Rules[r.ID] > 0 {
			d := ruledoc.SARIF(r)
			if lvl, ok := overrides[r.ID]; ok && lvl != d.Level {
				t.Overrides = append(t.Overrides, report.SARIFOverride{Rule: len(t.Rules), Level: lvl})
			}
			t.Rules = append(t.Rules, d)
		}
	}
	if s.dropped > 0 {
		t.Notes = append(t.Notes, report.SARIFNote{Level: "error", Text: strconv.Itoa(s.dropped) + " more inputs could not be read"})
	}
	if st.Interrupted {
		t.Notes = append(t.Notes, report.SARIFNote{Level: "error", Text: "interrupted: the results are those of the cards judged before"})
	}
	if msg := s.overLimit(); msg != "" {
		t.Notes = append(t.Notes, report.SARIFNote{Level: "warning", Text: msg})
	}
	_, err := s.stdout.Write(report.AppendSARIFTail(nil, &t))
	return err
}

// overLimit says, when the run wrote more results than GitHub code
// scanning accepts in one, how many; all are written all the same, since
// other readers of SARIF take them all and cutting the log would hide
// findings without a trace in the file.
func (s *sarifRun) overLimit() string {
	n := s.w.Results()
	if n <= report.SARIFResultLimit {
		return ""
	}
	return strconv.FormatInt(n, 10) + " results: GitHub code scanning accepts at most " +
		strconv.Itoa(report.SARIFResultLimit) + " in a run (split the inputs over several runs)"
}
