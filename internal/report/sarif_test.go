package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// The results of several writes, one of them empty, become one array:
// SARIFWriter drops the comma before the first and counts them all.
func TestSARIFWriterJoinsResults(t *testing.T) {
	var e Encoder
	var out bytes.Buffer
	w := &SARIFWriter{W: &out}
	out.Write(AppendSARIFHead(nil, "/work/dir"))
	n := 0
	for _, card := range []string{invalidCard, validCard, prettyCard} {
		vd := judge(t, card)
		n += len(vd.Findings)
		if _, err := w.Write(e.AppendSARIF(nil, &vd)); err != nil {
			t.Fatal(err)
		}
	}
	out.Write(AppendSARIFTail(nil, &SARIFTail{Name: "cardscan", InformationURI: "https://example.com", Successful: true, ExitCode: 1,
		Notes: []SARIFNote{{"error", "x.ndjson: unexpected EOF"}}}))
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID string `json:"ruleId"`
			} `json:"results"`
			OriginalURIBaseIDs map[string]struct{ URI string } `json:"originalUriBaseIds"`
			Invocations        []struct {
				Notes []struct{ Level string } `json:"toolExecutionNotifications"`
			} `json:"invocations"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(out.Bytes(), &log); err != nil {
		t.Fatalf("%v:\n%s", err, out.String())
	}
	r := log.Runs[0]
	if len(r.Results) != n || w.Results() != int64(n) || n == 0 {
		t.Errorf("%d results, writer counted %d, want %d", len(r.Results), w.Results(), n)
	}
	if got := r.OriginalURIBaseIDs[SARIFBase].URI; got != "file:///work/dir/" {
		t.Errorf("base %q", got)
	}
	if len(r.Invocations[0].Notes) != 1 {
		t.Errorf("notifications %+v", r.Invocations[0].Notes)
	}
	// A message holding the result marker's text cannot be taken for a
	// result: its quotes are escaped.
	if c := strings.Count(string(AppendJSONString(nil, sarifResultStart)), sarifResultStart); c != 0 {
		t.Errorf("the marker survives JSON escaping")
	}
}
