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

// TestSARIFMessageLinksInert: SARIF viewers render "[text](target)" in a
// plain text message as a link (SARIF 2.1.0, section 3.11.6), to a
// related location by id or to a URI. Card text in a message has its
// brackets, and a backslash before one, escaped by a backslash as the
// section asks for literal ones, so that it cannot make a link in
// cardscan's words.
func TestSARIFMessageLinksInert(t *testing.T) {
	card := `{"agent_id":"01ARZ3NDEKTSV4RRFFQ69G5FAV","name":"n","version":"[fix](https://evil.example) \\[1](1)","capabilities":[{"id":"a","description":"d"}],"endpoint":{"protocol":"https","url":"https://example.com/a"}}`
	vd := judge(t, card)
	var e Encoder
	var results []struct {
		Message struct{ Text string }
	}
	out := e.AppendSARIF(nil, &vd)
	if err := json.Unmarshal([]byte("["+strings.TrimPrefix(string(out), ",")+"]"), &results); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	found := false
	for _, r := range results {
		if !strings.Contains(r.Message.Text, "fix") {
			continue
		}
		found = true
		if want := `\[fix\](https://evil.example) \\\\\[1\](1)`; !strings.Contains(r.Message.Text, want) {
			t.Errorf("message %q lacks %q", r.Message.Text, want)
		}
	}
	if !found {
		t.Fatalf("no message quotes the version: %s", out)
	}
	tail := AppendSARIFTail(nil, &SARIFTail{Name: "cardscan", Notes: []SARIFNote{{"error", "[x](1).ndjson: unexpected EOF"}}})
	if !strings.Contains(string(tail), `\\[x\\](1).ndjson`) {
		t.Errorf("notification links not escaped: %s", tail)
	}
}
