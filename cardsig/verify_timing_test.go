package cardsig

import (
	"strings"
	"testing"
	"time"

	"github.com/cardscan/cardscan/fastvalidate"
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

// BenchmarkTrustOutcome times Verify under a trust policy for a card that
// ends in each outcome (ES256, one signature), beside fastvalidate's
// plain validation of the same card: what a registry pays per card.
func BenchmarkTrustOutcome(b *testing.B) {
	keys := testKeys(b)
	k := keys[1] // ES256
	thumb, _ := Thumbprint(k.priv)
	pinned := keySetOf(b, k.priv)
	card := originCard("https://a.example")
	signed := sign(b, card, k, SignOptions{})
	policy := func(revoked ...string) *Verifier {
		return trustVerifier(b, &Trust{Origins: map[string]*OriginTrust{"https://a.example": {Keys: pinned}, "https://b.example": {Keys: keySetOf(b, keys[0].priv)}}, Revoked: revoked})
	}
	tampered := []byte(strings.Replace(string(signed), "Plans routes", "Plans routez", 1))
	for _, tc := range []struct {
		name string
		v    *Verifier
		card []byte
		want Status
	}{
		{"verified", policy(), signed, Verified},
		{"untrusted-origin", policy(), sign(b, originCard("https://b.example"), k, SignOptions{}), UntrustedOrigin},
		{"revoked", policy(thumb), signed, Revoked},
		{"expired", trustVerifier(b, &Trust{Origins: map[string]*OriginTrust{"https://a.example": {Keys: pinned}}}), sign(b, card, k, SignOptions{Expires: fixedNow.Add(-time.Hour)}), Expired},
		{"key-unknown", policy(), sign(b, card, keys[2], SignOptions{}), KeyUnknown},
		{"invalid", policy(), tampered, Invalid},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(tc.card)))
			for b.Loop() {
				res, err := tc.v.Verify(tc.card)
				if err != nil || res.Signatures[0].Status != tc.want {
					b.Fatalf("got %+v, %v; want %v", res, err, tc.want)
				}
			}
		})
	}
	b.Run("plain-validation", func(b *testing.B) {
		val, err := fastvalidate.New("auto")
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.SetBytes(int64(len(signed)))
		for b.Loop() {
			val.Validate(signed)
		}
	})
}
