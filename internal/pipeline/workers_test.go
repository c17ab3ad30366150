package pipeline

import (
	"bytes"
	"strings"
	"testing"
)

// TestWorkersStartWithWork checks that a run starts no more workers than
// it has chunks to judge: a one-card file judged with -j 2 starts one,
// since each worker costs a validator, its buffers and, when it runs
// beside the reader, an OS thread woken or created, which is most of what
// the pipeline costs a one-card run. An input of several chunks still
// starts every worker.
func TestWorkersStartWithWork(t *testing.T) {
	big := strings.Repeat(card+"\n", 3*(16<<10)/(len(card)+1))
	for _, tc := range []struct {
		name        string
		input       string
		jobs, want  int
		wantRecords int64
	}{
		{"one card", card + "\n", 4, 1, 1},
		{"empty", "", 4, 0, 0},
		{"three chunks", big, 2, 2, int64(strings.Count(big, "\n"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			cfg := Config{Profile: "agentcard", Jobs: tc.jobs, ChunkSize: 16 << 10, MaxRecord: DefaultMaxRecord,
				All: true, Findings: jsonlTo(&out, true), Stdin: strings.NewReader(tc.input), Progress: new(Progress),
				Diagnose: func(string) {}}
			p := newPipeline(&cfg)
			st, err := p.run([]Input{{Name: "<stdin>"}})
			if err != nil {
				t.Fatal(err)
			}
			if st.Records != tc.wantRecords {
				t.Errorf("%d records judged, want %d", st.Records, tc.wantRecords)
			}
			if got := int(p.workers.Load()); got != tc.want {
				t.Errorf("-j %d on %d bytes started %d workers, want %d", tc.jobs, len(tc.input), got, tc.want)
			}
			if n := bytes.Count(out.Bytes(), []byte("\n")); int64(n) != tc.wantRecords {
				t.Errorf("%d verdicts written, want %d", n, tc.wantRecords)
			}
		})
	}
}
