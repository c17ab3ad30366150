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

// BenchmarkValidate, BenchmarkValidateDigest and BenchmarkValidateClaims
// judge the same cards, the second also digesting them as diff does, the
// third taking their claims as --cross-card does: the cost of each beside
// validation's.
func BenchmarkValidate(b *testing.B) { benchExtract(b, 0) }

func BenchmarkValidateDigest(b *testing.B) { benchExtract(b, 1) }

func BenchmarkValidateClaims(b *testing.B) { benchExtract(b, 2) }

func benchExtract(b *testing.B, mode int) {
	cards := benchCards(b, "agentcard")
	var size int64
	for _, c := range cards {
		size += int64(len(c))
	}
	v := fastvalidate.MustNew("auto")
	x := NewExtractor(KeyAuto)
	x.claimsOnly = mode == 2
	var buf []byte
	var out int
	b.SetBytes(size)
	for b.Loop() {
		out = 0
		for _, c := range cards {
			res := v.Validate(c)
			switch mode {
			case 1:
				buf = x.Append(buf[:0], report.FromResult("a", 1, 1, 0, c, res))
			case 2:
				buf = x.AppendClaims(buf[:0], report.FromResult("a", 1, 1, 0, c, res))
			}
			out += len(buf)
		}
	}
	// What diff holds (or spills) per card, or --cross-card: its memory
	// and disk per million cards, here with a one-byte input name.
	b.ReportMetric(float64(out)/float64(len(cards)), "B/card")
}
