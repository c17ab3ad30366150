package fetch

import (
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
