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

func TestMiddleware_WithSignatures(t *testing.T) {
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	_, other, _ := ed25519.GenerateKey(rand.Reader)
	key := jose.JSONWebKey{Key: priv, KeyID: "gw-1"}
	set, _ := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{key.Public()}})
	ks, err := cardsig.ParseKeySet(set)
	if err != nil {
		t.Fatal(err)
	}
	v, err := cardsig.NewVerifier(ks)
	if err != nil {
		t.Fatal(err)
	}
	card := readTestdata(t, "valid.json")
	signed, err := cardsig.Sign(card, key, cardsig.SignOptions{})
	if err != nil {
		t.Fatal(err)
	}
	byOther, _ := cardsig.Sign(card, jose.JSONWebKey{Key: other, KeyID: "gw-2"}, cardsig.SignOptions{})
	tampered := bytes.Replace(signed, []byte("Ledger"), []byte("Ledgar"), 1)

	mw, err := Middleware(WithSignatures(v.Check), WithPaths("/cards/"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Write(b)
	})))
	defer srv.Close()

	for _, tc := range []struct {
		name, path string
		body       []byte
		status     int
		detail     string
	}{
		{"signed by a trusted key", "/cards/x", signed, http.StatusOK, ""},
		{"not signed", "/cards/x", card, http.StatusUnprocessableEntity, "it is not signed"},
		{"signed by another key", "/cards/x", byOther, http.StatusUnprocessableEntity, `no trusted key has kid \"gw-2\"`},
		{"changed after signing", "/cards/x", tampered, http.StatusUnprocessableEntity, "does not verify"},
		{"unguarded path", "/other", card, http.StatusOK, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := http.Post(srv.URL+tc.path, "application/json", bytes.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, body)
			}
			if tc.status == http.StatusOK {
				if !bytes.Equal(body, tc.body) {
					t.Error("the handler did not get the card")
				}
				return
			}
			p := decodeProblem(t, resp, body)
			if !strings.Contains(p.Detail, strings.ReplaceAll(tc.detail, `\"`, `"`)) {
				t.Errorf("detail %q does not say %q", p.Detail, tc.detail)
			}
		})
	}
}
