package cardsig

import (
	"testing"
)

// BenchmarkVerify times one card with one signature, all of Verify:
// canonicalization, header checks and the signature arithmetic. The
// verifications/s metric is per core: the loop runs on one goroutine.
func BenchmarkVerify(b *testing.B) {
	keys := testKeys(b)
	v := newVerifier(b, keys)
	for _, k := range keys {
		switch k.alg {
		case "EdDSA", "ES256", "RS256":
		default:
			continue
		}
		card := sign(b, testCard, k, SignOptions{})
		b.Run(k.alg, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(card)))
			for b.Loop() {
				res, err := v.Verify(card)
				if err != nil || !res.Verified() {
					b.Fatal("does not verify")
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "verifications/s")
		})
	}
}
