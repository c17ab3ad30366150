package dump

import (
	"bytes"
	"testing"

	"github.com/cardscan/cardscan/internal/report"
)

// TestCrossOutsideHeapBound: the claims a Cross holds outside the Go heap,
// which the collector's trace that TestBinarySpillMemoryBound reads does
// not count, stay within its budget, whatever the claims added: 8 MB of
// them with --memory 1MiB take a quarter of it and a block or two more,
// which the store reuses after each spill; and Close frees them all.
func TestCrossOutsideHeapBound(t *testing.T) {
	const memory = 1 << 20
	one := testClaims()
	claims := bytes.Repeat(one, 8)
	c, err := NewCross(memory)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	addClaims(t, c, claims)
	held := func() int64 { return c.st.mem.held() + c.pending.mem.held() + c.hashes.mem.held() }
	if !c.st.spilled() {
		t.Fatalf("%d bytes of claims did not spill with --memory %d", len(claims), memory)
	}
	bound := int64(memory/4 + 2*blockSize + hashChunk*claimHashSize)
	if got := held(); got > bound || outsideHeap && got == 0 {
		t.Errorf("%d bytes outside the heap for %d of claims, want 1 to %d", got, len(claims), bound)
	}
	var out bytes.Buffer
	if _, err := c.Finish(report.FormatJSONL.Writer(&out, report.WriterOptions{})); err != nil {
		t.Fatal(err)
	}
	if got := held(); got > bound {
		t.Errorf("%d bytes outside the heap after Finish, want at most %d", got, bound)
	}
	c.Close()
	if got := held(); got != 0 {
		t.Errorf("%d bytes outside the heap after Close, want 0", got)
	}
}
