package dump

import (
	"testing"

	"github.com/cardscan/cardscan/corpus"
	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/report"
)

func benchCards(b *testing.B, dialects ...string) [][]byte {
	g, err := corpus.New(corpus.Options{Seed: 1, Dialects: dialects, DefectRate: 0.05})
	if err != nil {
		b.Fatal(err)
	}
	cards := make([][]byte, 2000)
	for i := range cards {
		cards[i] = g.Next().JSON
	}
	return cards
}

// BenchmarkValidate and BenchmarkValidateExtract judge the same cards, the
// second also digesting them as diff and --cross-card do: the cost of a
// digest beside validation's.
func BenchmarkValidate(b *testing.B) { benchExtract(b, false) }

func BenchmarkValidateExtract(b *testing.B) { benchExtract(b, true) }

func benchExtract(b *testing.B, extract bool) {
	cards := benchCards(b, "agentcard")
	var size int64
	for _, c := range cards {
		size += int64(len(c))
	}
	v := fastvalidate.MustNew("auto")
	x := NewExtractor(KeyAuto)
	var buf []byte
	b.SetBytes(size)
	for b.Loop() {
		for _, c := range cards {
			res := v.Validate(c)
			if extract {
				buf = x.Append(buf[:0], report.FromResult("a", 1, 1, 0, c, res))
			}
		}
	}
}
