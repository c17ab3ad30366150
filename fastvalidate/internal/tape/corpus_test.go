package tape

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/corpus"
)

// findRealCorpus returns the folder of real cards beside the module, as
// fastvalidate's tests find it.
func findRealCorpus() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above %s", dir)
		}
		dir = parent
	}
	real := filepath.Join(dir, "..", "shared", "corpus", "real")
	if st, err := os.Stat(real); err != nil || !st.IsDir() {
		return "", fmt.Errorf("real cards not found at %s", real)
	}
	return real, nil
}

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
