package tape

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/corpus"
)

// generatedCards returns n cards of the dialects from the seeded generator.
func generatedCards(t testing.TB, n int, dialects ...string) [][]byte {
	t.Helper()
	g, err := corpus.New(corpus.Options{Seed: 5, Dialects: dialects})
	if err != nil {
		t.Fatal(err)
	}
	cards := make([][]byte, n)
	for i := range cards {
		cards[i] = g.Next().JSON
	}
	return cards
}

// jsonString writes s as a JSON string the way encoding/json does, without
// its HTML escapes.
func jsonString(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
