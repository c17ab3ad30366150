package lspserver

import (
	"runtime"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/fastvalidate"
)

// TestLocateDepthBounded: locate kept a frame for every open bracket
// before the cursor, so a completion in a document of --max-document
// (2 MiB) that only opens objects allocated some 170 MB, on every
// keystroke. Past the validator's nesting limit no card is valid and no
// member table reaches, so the place there is unknown, and what locate
// holds is bounded by the limit.
func TestLocateDepthBounded(t *testing.T) {
	text := []byte(strings.Repeat(`{"a":`, 400000))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	pl := locate(text, len(text))
	runtime.ReadMemStats(&after)
	if pl.inObject || pl.container != "" || pl.tokStart != -1 {
		t.Errorf("deeper than %d: place %+v, want none", fastvalidate.DefaultMaxDepth, pl)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("locate in %d bytes nested %d deep allocated %d bytes, want at most 1 MiB", len(text), 400000, got)
	}
	// Within the limit, the place is found as before.
	shallow := []byte(strings.Repeat(`{"a":`, fastvalidate.DefaultMaxDepth-1) + `{"`)
	if pl := locate(shallow, len(shallow)-1); !pl.inObject || !pl.atKey || !strings.HasPrefix(pl.container, "/a/a/") {
		t.Errorf("%d deep: place %+v, want a member name of /a/a/...", fastvalidate.DefaultMaxDepth, pl)
	}
}
