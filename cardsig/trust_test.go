package cardsig

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// originCard is testCard's content with its one interface on origin.
func originCard(origin string) string {
	return strings.Replace(testCard, "https://geo.example.com/a2a", origin+"/a2a", 1)
}

// fixedNow is the clock of the trust tests.
var fixedNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func keySetOf(t testing.TB, keys ...jose.JSONWebKey) *KeySet {
	t.Helper()
	var set jose.JSONWebKeySet
	for _, k := range keys {
		set.Keys = append(set.Keys, k.Public())
	}
	ks, err := ParseKeySet(mustJSON(t, set))
	if err != nil {
		t.Fatal(err)
	}
	return ks
}

func trustVerifier(t testing.TB, tr *Trust) *Verifier {
	t.Helper()
	if tr.Now == nil {
		tr.Now = func() time.Time { return fixedNow }
	}
	v, err := NewVerifier(nil, WithTrust(tr))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func statusOf(t testing.TB, v *Verifier, card []byte, from string) Signature {
	t.Helper()
	res, err := v.VerifyFrom(card, from)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Signatures) != 1 {
		t.Fatalf("got %d signatures", len(res.Signatures))
	}
	return res.Signatures[0]
}

func TestTrust_PinnedKeyAndOrigin(t *testing.T) {
	keys := testKeys(t)
	a, b := keys[0], keys[1] // EdDSA for a.example, ES256 for b.example
	v := trustVerifier(t, &Trust{Origins: map[string]*OriginTrust{
		"https://a.example":     {Keys: keySetOf(t, a.priv)},
		"https://b.example:443": {Keys: keySetOf(t, b.priv)},
	}})
	signedA := sign(t, originCard("https://a.example"), a, SignOptions{})
	for _, tc := range []struct {
		name, from string
		card       []byte
		want       Status
		reason     string
	}{
		{"own origin", "", signedA, Verified, ""},
		{"fetched from its own origin", "https://A.example:443/.well-known/agent-card.json", signedA, Verified, ""},
		{"served from another origin", "https://b.example/.well-known/agent-card.json", signedA, UntrustedOrigin, "signed by a key of https://a.example, not allowed for https://b.example"},
		{"claims another origin", "", sign(t, originCard("https://b.example"), a, SignOptions{}), UntrustedOrigin, "signed by a key of https://a.example, not allowed for https://b.example"},
		{"claims an unlisted origin", "", sign(t, originCard("https://c.example"), a, SignOptions{}), UntrustedOrigin, "not allowed for https://c.example"},
		{"unknown kid", "", sign(t, originCard("https://a.example"), keys[2], SignOptions{}), KeyUnknown, "no trusted key has kid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := statusOf(t, v, tc.card, tc.from)
			if s.Status != tc.want || !strings.Contains(s.Reason, tc.reason) {
				t.Errorf("got %v (%s), want %v (%s)", s.Status, s.Reason, tc.want, tc.reason)
			}
		})
	}
}

func TestTrust_ThumbprintRotationRevocationExpiry(t *testing.T) {
	keys := testKeys(t)
	old, next := keys[0], keys[1]
	oldThumb, err := Thumbprint(old.priv)
	if err != nil {
		t.Fatal(err)
	}
	nextThumb, _ := Thumbprint(next.priv)
	card := originCard("https://a.example")
	signedOld, signedNext := sign(t, card, old, SignOptions{}), sign(t, card, next, SignOptions{})

	// During a rotation both keys are pinned, by set and by thumbprint.
	both := keySetOf(t, old.priv, next.priv)
	for name, ot := range map[string]*OriginTrust{
		"key set":     {Keys: both},
		"thumbprints": {Thumbprints: []string{oldThumb, nextThumb}, JWKSPath: ""},
	} {
		if name == "thumbprints" {
			// The key bytes come from another origin's set; the pin is
			// what allows them for a.example.
			v := trustVerifier(t, &Trust{Origins: map[string]*OriginTrust{"https://a.example": ot, "https://keys.example": {Keys: both}}})
			for _, c := range [][]byte{signedOld, signedNext} {
				if s := statusOf(t, v, c, ""); s.Status != Verified {
					t.Errorf("%s: got %v (%s)", name, s.Status, s.Reason)
				}
			}
			continue
		}
		v := trustVerifier(t, &Trust{Origins: map[string]*OriginTrust{"https://a.example": ot}})
		for _, c := range [][]byte{signedOld, signedNext} {
			if s := statusOf(t, v, c, ""); s.Status != Verified {
				t.Errorf("%s: got %v (%s)", name, s.Status, s.Reason)
			}
		}
	}

	// The old key revoked: its signature fails, the new one's does not.
	v := trustVerifier(t, &Trust{Origins: map[string]*OriginTrust{"https://a.example": {Keys: both}}, Revoked: []string{oldThumb}})
	if s := statusOf(t, v, signedOld, ""); s.Status != Revoked || !strings.Contains(s.Reason, oldThumb) {
		t.Errorf("revoked key: got %v (%s)", s.Status, s.Reason)
	}
	if s := statusOf(t, v, signedNext, ""); s.Status != Verified {
		t.Errorf("the key beside the revoked one: got %v (%s)", s.Status, s.Reason)
	}

	// The old key past its exp: expired at fixedNow, good the day before.
	var set struct{ Keys []map[string]any }
	if err := json.Unmarshal(mustJSON(t, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{old.priv.Public()}}), &set); err != nil {
		t.Fatal(err)
	}
	set.Keys[0]["exp"] = fixedNow.Add(-time.Hour).Unix()
	expiring, err := ParseKeySet(mustJSON(t, map[string]any{"keys": set.Keys}))
	if err != nil {
		t.Fatal(err)
	}
	tr := &Trust{Origins: map[string]*OriginTrust{"https://a.example": {Keys: expiring}}}
	if s := statusOf(t, trustVerifier(t, tr), signedOld, ""); s.Status != Expired || !strings.Contains(s.Reason, "expired at") {
		t.Errorf("expired key: got %v (%s)", s.Status, s.Reason)
	}
	tr = &Trust{Origins: tr.Origins, Now: func() time.Time { return fixedNow.Add(-24 * time.Hour) }}
	if s := statusOf(t, trustVerifier(t, tr), signedOld, ""); s.Status != Verified {
		t.Errorf("the key before its exp: got %v (%s)", s.Status, s.Reason)
	}

	// A signature's own exp, from the protected header.
	v = trustVerifier(t, &Trust{Origins: map[string]*OriginTrust{"https://a.example": {Keys: both}}})
	short := sign(t, card, next, SignOptions{IssuedAt: fixedNow.Add(-48 * time.Hour), Expires: fixedNow.Add(-24 * time.Hour)})
	if s := statusOf(t, v, short, ""); s.Status != Expired || !strings.Contains(s.Reason, "the signature expired") {
		t.Errorf("expired signature: got %v (%s)", s.Status, s.Reason)
	}
}

// keyServer serves a JWK Set at /.well-known/jwks.json and /keys/a2a.json,
// counting requests.
func keyServer(t *testing.T, ks []byte) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		switch r.URL.Path {
		case "/.well-known/jwks.json", "/keys/a2a.json":
			_, _ = w.Write(ks)
		case "/away":
			http.Redirect(w, r, "https://elsewhere.example/keys.json", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func TestTrust_OriginJWKSAndJKU(t *testing.T) {
	keys := testKeys(t)
	k := keys[1]
	srv, hits := keyServer(t, trustStore(t, []testKey{k}))
	origin := srv.URL // https://127.0.0.1:PORT
	other, otherHits := keyServer(t, trustStore(t, []testKey{k}))

	t.Run("origin-jwks", func(t *testing.T) {
		v := trustVerifier(t, &Trust{Client: srv.Client(), Origins: map[string]*OriginTrust{"*": {JWKSPath: "/.well-known/jwks.json"}}})
		s := statusOf(t, v, sign(t, originCard(origin), k, SignOptions{}), "")
		if s.Status != Verified || !strings.Contains(s.Key, "origin-jwks") {
			t.Errorf("got %v (%s; key %s)", s.Status, s.Reason, s.Key)
		}
	})
	t.Run("same-origin jku", func(t *testing.T) {
		v := trustVerifier(t, &Trust{Client: srv.Client(), Origins: map[string]*OriginTrust{origin: {SameOriginJKU: true}}})
		s := statusOf(t, v, sign(t, originCard(origin), k, SignOptions{JKU: origin + "/keys/a2a.json"}), "")
		if s.Status != Verified {
			t.Errorf("got %v (%s)", s.Status, s.Reason)
		}
	})
	t.Run("jku on another host is never fetched", func(t *testing.T) {
		before := otherHits.Load()
		v := trustVerifier(t, &Trust{Client: other.Client(), Origins: map[string]*OriginTrust{"*": {SameOriginJKU: true}}})
		s := statusOf(t, v, sign(t, originCard(origin), k, SignOptions{JKU: other.URL + "/keys/a2a.json"}), "")
		if s.Status != KeyUnknown || !strings.Contains(s.Reason, "never fetched") {
			t.Errorf("got %v (%s)", s.Status, s.Reason)
		}
		if n := otherHits.Load() - before; n != 0 {
			t.Errorf("the other host got %d requests", n)
		}
	})
	t.Run("redirect off the origin is not followed", func(t *testing.T) {
		v := trustVerifier(t, &Trust{Client: srv.Client(), Origins: map[string]*OriginTrust{"*": {JWKSPath: "/away"}}})
		s := statusOf(t, v, sign(t, originCard(origin), k, SignOptions{}), "")
		if s.Status != KeyUnknown || !strings.Contains(s.Reason, "off the origin") {
			t.Errorf("got %v (%s)", s.Status, s.Reason)
		}
	})
	if hits.Load() == 0 {
		t.Error("the origin's key set was never fetched")
	}
}

// testCA is a throwaway certificate authority.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pool *x509.CertPool
}

func newTestCA(t *testing.T) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "cardscan test CA"},
		NotBefore: fixedNow.Add(-365 * 24 * time.Hour), NotAfter: fixedNow.Add(365 * 24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &testCA{cert, key, pool}
}

// leaf issues a signing certificate for host to pub, valid until notAfter.
func (ca *testCA) leaf(t *testing.T, host string, pub any, notAfter time.Time) []byte {
	t.Helper()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: host},
		DNSNames: []string{host}, NotBefore: fixedNow.Add(-30 * 24 * time.Hour), NotAfter: notAfter,
		KeyUsage: x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, pub, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

func TestTrust_X5C(t *testing.T) {
	ca := newTestCA(t)
	otherCA := newTestCA(t)
	k := testKeys(t)[1] // ES256
	pub := k.priv.Public().Key
	year := fixedNow.Add(365 * 24 * time.Hour)
	card := originCard("https://agent.example.com")
	tr := &Trust{Roots: ca.pool, Origins: map[string]*OriginTrust{"*": {X5C: true}}}
	v := trustVerifier(t, tr)
	for _, tc := range []struct {
		name  string
		chain [][]byte
		want  Status
		why   string
	}{
		{"leaf names the host", [][]byte{ca.leaf(t, "agent.example.com", pub, year)}, Verified, ""},
		{"leaf names another host", [][]byte{ca.leaf(t, "evil.example.net", pub, year)}, UntrustedOrigin, "certificate for evil.example.net"},
		{"another CA", [][]byte{otherCA.leaf(t, "agent.example.com", pub, year)}, KeyUnknown, "trusted root"},
		{"expired leaf", [][]byte{ca.leaf(t, "agent.example.com", pub, fixedNow.Add(-time.Hour))}, Expired, "expired"},
		{"leaf of another key", [][]byte{ca.leaf(t, "agent.example.com", testKeys(t)[0].priv.Public().Key, year)}, AlgRejected, "cannot verify ES256"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := statusOf(t, v, sign(t, card, k, SignOptions{X5C: tc.chain}), "")
			if s.Status != tc.want || !strings.Contains(s.Reason, tc.why) {
				t.Errorf("got %v (%s), want %v (%s)", s.Status, s.Reason, tc.want, tc.why)
			}
		})
	}
	// A policy without x5c for the origin takes no chain, however good.
	v = trustVerifier(t, &Trust{Roots: ca.pool, Origins: map[string]*OriginTrust{"*": {}}})
	s := statusOf(t, v, sign(t, card, k, SignOptions{X5C: [][]byte{ca.leaf(t, "agent.example.com", pub, year)}}), "")
	if s.Status != KeyUnknown {
		t.Errorf("x5c not allowed: got %v (%s)", s.Status, s.Reason)
	}
}

func TestOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"https://A.Example.com:443/a2a": "https://a.example.com",
		"http://a.example:80":           "http://a.example",
		"https://a.example:8443/x":      "https://a.example:8443",
		"https://[::1]:8443/":           "https://[::1]:8443",
	} {
		if got, err := Origin(in); err != nil || got != want {
			t.Errorf("Origin(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"/relative", "a.example", "mailto:x@a.example", "https://a.example:99999/", "https://a.example:0/"} {
		if got, err := Origin(bad); err == nil {
			t.Errorf("Origin(%q) = %q, want an error", bad, got)
		}
	}
	got := CardOrigins([]byte(`{"url":"https://a.example/x","additionalInterfaces":[{"url":"https://b.example"},{"url":"https://a.example/y"}],"supportedInterfaces":[{"url":"grpc://c.example:50051"}]}`))
	if want := []string{"grpc://c.example:50051", "https://a.example", "https://b.example"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("CardOrigins = %v, want %v", got, want)
	}
}
