package tape

import (
	"fmt"
	"strings"
	"testing"
)

// firstRepeat is DuplicateString's reference: the first string element
// equal, decoded, to an earlier one, found pair by pair.
func firstRepeat(v View, arr uint32) uint32 {
	for e := v.First(arr); e < v.End(arr); e = v.Next(e) {
		for p := v.First(arr); p < e; p = v.Next(p) {
			if v.Kind(p) == KindString && v.Kind(e) == KindString && v.Same(p, e) {
				return e
			}
		}
	}
	return 0
}

// TestDuplicateStringFirstInListOrder holds long lists, which are searched
// by hash, to the element a reader meets first: with two repeated texts,
// whichever hashes lower must not decide which is reported, and so a
// seeded hash changes no finding.
func TestDuplicateStringFirstInListOrder(t *testing.T) {
	for _, pair := range [][2]string{{"alpha", "beta"}, {"beta", "alpha"}, {"x", `\u0078`}, {"k7", "k3"}} {
		elems := make([]string, 24)
		for i := range elems {
			elems[i] = fmt.Sprintf("%q", fmt.Sprintf("tag-%d", i))
		}
		// pair[0] repeats late, pair[1] repeats early: the answer is the
		// element at 12.
		elems[2], elems[20] = `"`+pair[0]+`"`, `"`+pair[0]+`"`
		elems[10], elems[12] = `"`+pair[1]+`"`, `"`+pair[1]+`"`
		if pair[1] == `\u0078` {
			elems[10] = `"x"`
		}
		doc := []byte("[" + strings.Join(elems, ",") + "]")
		sc := Scanner{MaxDepth: 512}
		if !sc.Scan(doc) {
			t.Fatalf("%s: scan failed", doc)
		}
		v := sc.View()
		want := firstRepeat(v, 0)
		if want == 0 {
			t.Fatalf("%s: the reference finds no repeat", doc)
		}
		if got := v.DuplicateString(0); got != want {
			t.Errorf("%s: DuplicateString = node %d (%s), want node %d (%s)", doc, got, v.Raw(got), want, v.Raw(want))
		}
	}
}
