package cli

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/cardscan/cardscan/internal/pipeline"
	"github.com/cardscan/cardscan/internal/report"
	"github.com/cardscan/cardscan/rule"
)

// everyRuleFired is a run's counts in which every rule fired once.
func everyRuleFired() *pipeline.Stats {
	st := &pipeline.Stats{}
	st.Rules = map[string]int64{}
	for _, r := range rule.All() {
		st.Rules[r.ID] = 1
	}
	return st
}

// TestRunEndDescribesRulesForSARIFOnly: the rules' descriptors are made
// for a run that writes SARIF, to stdout or to a --format file, and for
// no other, whose tails do not read them.
func TestRunEndDescribesRulesForSARIFOnly(t *testing.T) {
	var buf bytes.Buffer
	text := report.FormatText.Writer(&buf, report.WriterOptions{})
	sarif := report.FormatSARIF.Writer(&buf, report.WriterOptions{})
	for _, c := range []struct {
		name string
		out  outputRun
		want bool
	}{
		{"text", outputRun{stdout: text}, false},
		{"no stdout", outputRun{}, false},
		{"sarif", outputRun{stdout: sarif}, true},
		{"text and a sarif file", outputRun{stdout: text, files: []fileOutput{{name: "sarif=r.sarif", w: sarif}}}, true},
		{"text and a text file", outputRun{stdout: text, files: []fileOutput{{name: "text=r.txt", w: text}}}, false},
	} {
		if got := c.out.describesRules(); got != c.want {
			t.Errorf("%s: describesRules() = %v, want %v", c.name, got, c.want)
		}
	}
	st := everyRuleFired()
	if n := len(runEnd(st, 0, nil, nil, false).Rules); n != 0 {
		t.Errorf("runEnd without descriptors made %d", n)
	}
	if n, want := len(runEnd(st, 0, nil, nil, true).Rules), len(rule.All()); n != want {
		t.Errorf("runEnd with descriptors made %d, want one per rule fired, %d", n, want)
	}
}

// TestSARIFFileDescribesRules: a SARIF file beside text on stdout still
// describes the rules that fired, as SARIF on stdout does.
func TestSARIFFileDescribesRules(t *testing.T) {
	schema := sarifSchema(t)
	onStdout := checkSARIF(t, schema, run(t, "", "--format", "sarif", cardsFile).stdout)
	file := filepath.Join(t.TempDir(), "r.sarif")
	r := run(t, "", "--format", "text", "--format", "sarif="+file, cardsFile)
	if r.code != exitInvalid {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	inFile := checkSARIF(t, schema, string(readFile(t, file)))
	want, got := onStdout.Runs[0].Tool.Driver.Rules, inFile.Runs[0].Tool.Driver.Rules
	if len(want) == 0 {
		t.Fatal("no rule fired")
	}
	if len(got) != len(want) {
		t.Fatalf("the file describes %d rules, stdout's SARIF %d", len(got), len(want))
	}
	for i := range want {
		if got[i].ID != want[i].ID || got[i].Help.Text != want[i].Help.Text {
			t.Errorf("rule %d: the file has %s, stdout's SARIF %s", i, got[i].ID, want[i].ID)
		}
	}
}

// BenchmarkRunEnd times what a run's end makes for the documents' tails,
// with and without the rules' descriptors: made after the last record, on
// the run's one remaining goroutine, it is serial time of every run.
//
//	go test -run=NONE -bench=RunEnd -count=6 ./internal/cli/
func BenchmarkRunEnd(b *testing.B) {
	st := everyRuleFired()
	for _, describe := range []bool{false, true} {
		name := "plain"
		if describe {
			name = "sarif"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				runEnd(st, 0, nil, nil, describe)
			}
		})
	}
}
