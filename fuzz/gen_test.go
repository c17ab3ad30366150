package fuzz

import (
	"testing"

	"github.com/cardscan/cardscan/corpus"
)

// generate returns n cards from the corpus generator.
func generate(t testing.TB, opts corpus.Options, n int) [][]byte {
	t.Helper()
	g, err := corpus.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	cards := make([][]byte, 0, n)
	for len(cards) < n {
		if c := g.Next(); len(c.JSON) <= maxFuzzInput {
			cards = append(cards, c.JSON)
		}
	}
	return cards
}

// generatedCards returns n cards of the two card dialects, half of them
// with a defect, from the corpus generator.
func generatedCards(t testing.TB, n int) [][]byte {
	return generate(t, corpus.Options{Seed: 21, Dialects: []string{"agentcard", "agentcard-schema"}, DefectRate: 0.5}, n)
}

// generatedSchemaCards returns n cards of the agentcard-schema dialect,
// half of them with a defect, from the corpus generator.
func generatedSchemaCards(t testing.TB, n int) [][]byte {
	return generate(t, corpus.Options{Seed: 22, Dialects: []string{"agentcard-schema"}, DefectRate: 0.5}, n)
}
