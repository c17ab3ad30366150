package dump

import (
	"testing"

	"github.com/cardscan/cardscan/corpus"
	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/report"
)

// TestClaimsDoNotAllocate: taking a card's claims for --cross-card, its
// content hash, identity, endpoints and look-alike texts, allocates
// nothing once the worker's buffers have grown and it has seen the
// card's hosts: the validation pipeline's worker allocates nothing per
// card, and --cross-card keeps it so.
func TestClaimsDoNotAllocate(t *testing.T) {
	cards := firstGenerated(t, 200)
	v := fastvalidate.MustNew("auto")
	x := (&Cross{}).Extract()
	var buf []byte
	claims := 0
	run := func() {
		claims = 0
		for i, c := range cards {
			res := v.Validate(c)
			buf = x(buf[:0], report.FromResult("in.ndjson", i+1, 1, 0, c, res), v)
			claims += len(buf)
		}
	}
	run()
	if claims == 0 {
		t.Fatal("no claims")
	}
	if a := testing.AllocsPerRun(10, run); a != 0 {
		t.Errorf("%v allocations for %d cards", a, len(cards))
	}
}

// firstGenerated returns the first n cards of every dialect the corpus
// generator makes with seed 1: the cards the allocation tests judge.
func firstGenerated(t *testing.T, n int) [][]byte {
	t.Helper()
	g, err := corpus.New(corpus.Options{Seed: 1, Dialects: corpus.Dialects()})
	if err != nil {
		t.Fatal(err)
	}
	cards := make([][]byte, 0, n)
	for range n {
		cards = append(cards, g.Next().JSON)
	}
	return cards
}
