package cardhttp

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/cardscan/cardscan/cardsig"
)

// TestModifyResponse_WithTrust: a card an upstream serves verifies only
// when its key is allowed for the upstream's origin as well as for the
// card's own (valid.json's url is on https://ledger.example.org).
func TestModifyResponse_WithTrust(t *testing.T) {
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	key := jose.JSONWebKey{Key: priv, KeyID: "ledger-1"}
	set, _ := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{key.Public()}})
	ks, err := cardsig.ParseKeySet(set)
	if err != nil {
		t.Fatal(err)
	}
	v, err := cardsig.NewVerifier(nil, cardsig.WithTrust(&cardsig.Trust{Origins: map[string]*cardsig.OriginTrust{
		"https://ledger.example.org": {Keys: ks},
	}}))
	if err != nil {
		t.Fatal(err)
	}
	signed, err := cardsig.Sign(readTestdata(t, "valid.json"), key, cardsig.SignOptions{})
	if err != nil {
		t.Fatal(err)
	}
	modify, err := ModifyResponse(WithTrust(v.CheckFrom), WithPaths("/.well-known/agent-card.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		upstream string
		status   int
		detail   string
	}{
		{"https://ledger.example.org/.well-known/agent-card.json", http.StatusOK, ""},
		{"https://mirror.example.net/.well-known/agent-card.json", http.StatusBadGateway, "signed by a key of https://ledger.example.org, not allowed for https://mirror.example.net"},
	} {
		resp := &http.Response{
			StatusCode:    http.StatusOK,
			Header:        http.Header{"Content-Type": {"application/json"}},
			Body:          io.NopCloser(bytes.NewReader(signed)),
			ContentLength: int64(len(signed)),
			Request:       httptest.NewRequest(http.MethodGet, tc.upstream, nil),
		}
		if err := modify(resp); err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != tc.status || !strings.Contains(string(body), tc.detail) {
			t.Errorf("%s: status %d, body %s; want %d and %q", tc.upstream, resp.StatusCode, body, tc.status, tc.detail)
		}
	}
}
