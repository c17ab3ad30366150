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
	"unicode/utf8"

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

// TestMiddleware_WithSignaturesListsErrors: a card WithSignatures turns
// away carries "errors" entries as every other rejection does, placed as
// cardscan serve --keys --signatures require places them: each signature
// that did not verify at its entry or the member at fault, and
// a2a.signature-missing at the signatures member, or at the card when it
// is not signed, in the order of their places. The problem used to carry
// a detail string only.
func TestMiddleware_WithSignaturesListsErrors(t *testing.T) {
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
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
	tampered := bytes.Replace(signed, []byte("Ledger"), []byte("Ledgar"), 1)
	mw, err := Middleware(WithSignatures(v.Check))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(mw(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})))
	defer srv.Close()

	// The signatures member's bracket, and its entry's brace.
	member := bytes.Index(tampered, []byte(`"signatures"`))
	if member < 0 {
		t.Fatalf("no signatures member in %s", tampered)
	}
	array := member + bytes.IndexByte(tampered[member:], '[')
	entry := array + bytes.IndexByte(tampered[array:], '{')
	at := func(i int) (line, column int) {
		line = 1 + bytes.Count(tampered[:i], []byte("\n"))
		return line, 1 + utf8.RuneCount(tampered[bytes.LastIndexByte(tampered[:i], '\n')+1:i])
	}
	sigLine, sigCol := at(array)
	entryLine, entryCol := at(entry)
	for _, tc := range []struct {
		name string
		body []byte
		want []finding
	}{
		{"not signed", card, []finding{{Rule: "a2a.signature-missing", Path: "", Line: 1, Column: 1}}},
		{"changed after signing", tampered, []finding{
			{Rule: "a2a.signature-missing", Path: "/signatures", Line: sigLine, Column: sigCol},
			{Rule: "a2a.signature-invalid", Path: "/signatures/0", Line: entryLine, Column: entryCol},
		}},
	} {
		resp, err := http.Post(srv.URL+"/", "application/json", bytes.NewReader(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		p := decodeProblem(t, resp, body)
		if len(p.Errors) != len(tc.want) {
			t.Errorf("%s: errors %+v, want %+v", tc.name, p.Errors, tc.want)
			continue
		}
		for i, w := range tc.want {
			g := p.Errors[i]
			if g.Rule != w.Rule || g.Path != w.Path || g.Line != w.Line || g.Column != w.Column || g.Message == "" {
				t.Errorf("%s: errors[%d] = %+v, want %+v and a message", tc.name, i, g, w)
			}
		}
		if p.Warnings == nil {
			t.Errorf("%s: no warnings array", tc.name)
		}
	}
}
