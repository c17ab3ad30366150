package fetch

import (
	"net/http"
	"strings"
	"testing"
)

// TestNoCardSaysWhatHappened: a URL that served no card is named where a
// card's JSON Pointer would be in the text record, and the summary says
// it served no card. The text record used to read `"": ` (the pointer of
// a card there was none of) and the summary "1 of 1 input unreadable",
// as if a file could not be read.
func TestNoCardSaysWhatHappened(t *testing.T) {
	_, srv := newHandlerSite(t, nil) // every path: 404
	_, out, errOut := runFetch(t, nil, "--color", "never", srv.URL)
	if want := ": error: http.status: " + srv.URL + ": no agent card found"; !strings.Contains(out, want) {
		t.Errorf("text record %q does not hold %q", out, want)
	}
	if strings.Contains(out, `""`) {
		t.Errorf("text record %q names an empty pointer", out)
	}
	if want := "; 1 of 1 input served no card (http.status 1)"; !strings.Contains(errOut, want) {
		t.Errorf("summary %q does not hold %q", errOut, want)
	}
}

// TestNDJSONBodyGetsFetchAdvice: a body of cards one per line gets the
// json.syntax error the validator gives NDJSON, with advice a fetch can
// follow. It said "use --input ndjson", a flag fetch does not have,
// for a body the user does not write.
func TestNDJSONBodyGetsFetchAdvice(t *testing.T) {
	_, srv := newHandlerSite(t, map[string]http.HandlerFunc{
		"/.well-known/agentcard": serve("application/agentcard+json", httpCard+"\n"+httpCard+"\n"),
	})
	_, out, _ := runFetch(t, nil, "--format", "jsonl", srv.URL)
	recs := decodeRecords(t, out)
	if len(recs) != 1 {
		t.Fatalf("records %+v", recs)
	}
	var msg string
	for _, f := range recs[0].Errors {
		if f.Rule == "json.syntax" {
			msg = f.Message
		}
	}
	if !strings.Contains(msg, "looks like NDJSON; serve one card as one JSON document") || strings.Contains(msg, "--input") {
		t.Errorf("json.syntax message %q: want fetch's advice, not --input's", msg)
	}
}
