// Package interop checks cardscan's card signatures against the A2A Go
// SDK, github.com/a2aproject/a2a-go, kept out of cardscan's own module.
package interop

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"slices"
	"testing"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/go-jose/go-jose/v4"

	"github.com/cardscan/cardscan/cardsig"
)

// card03 is an A2A 0.3 card, the version a2a-go v0.3.3 models, with
// every member a2a-go's AgentCard has a field for.
const card03 = `{"name":"Geo Route Planner","description":"Plans routes","url":"https://geo.example.com/a2a","preferredTransport":"JSONRPC","protocolVersion":"0.3.0","version":"1.2.0","capabilities":{"streaming":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["application/json"],"skills":[{"id":"route","name":"Route","description":"Finds a route","tags":["maps"]}]}`

// TestA2AGoServesSignedCards: a2a-go v0.3.3 has AgentCard.Signatures
// (AgentCardSignature: protected, signature, header) but no function that
// signs or verifies a card, so cardscan cannot sign with it nor have it
// verify. What it does do is serve cards: an a2a-go server writes the
// card with encoding/json from its struct. The test signs with cardscan,
// passes the card through a2a-go's struct as a server would, and checks
// which canonicalisation variants the signature still verifies over.
func TestA2AGoServesSignedCards(t *testing.T) {
	t.Log("a2a-go v0.3.3 cannot sign or verify card signatures: it has no API for them; only its serving is tested")
	p256, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	key := jose.JSONWebKey{Key: p256, KeyID: "geo-1"}
	set, _ := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{key.Public()}})
	ks, err := cardsig.ParseKeySet(set)
	if err != nil {
		t.Fatal(err)
	}
	v, err := cardsig.NewVerifier(ks)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, card string
		want       []string // the variants the served card verifies over
	}{
		// Every member has an a2a-go field and a value: the round trip
		// changes nothing that is signed.
		{"full card", card03, []string{cardsig.VariantAsIs, cardsig.VariantDropEmpty}},
		// An extension member a2a-go has no field for is dropped when
		// served: the signature no longer verifies under any variant.
		{"unknown member", card03[:len(card03)-1] + `,"x-registry":"geo"}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			signed, err := cardsig.Sign([]byte(tc.card), key, cardsig.SignOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var c a2a.AgentCard
			if err := json.Unmarshal(signed, &c); err != nil {
				t.Fatal(err)
			}
			if len(c.Signatures) != 1 || c.Signatures[0].Protected == "" {
				t.Fatalf("a2a-go lost the signature: %+v", c.Signatures)
			}
			served, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			exs, _, err := v.Explain(served, "")
			if err != nil {
				t.Fatal(err)
			}
			if len(exs) != 1 || !slices.Equal(exs[0].Matches, tc.want) {
				t.Errorf("served by a2a-go, the signature verifies over %v, want %v\n%s", exs[0].Matches, tc.want, served)
			}
		})
	}
}
