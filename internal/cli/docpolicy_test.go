package cli

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/cardscan/cardscan/cardsig"
	"github.com/cardscan/cardscan/internal/trustfile"
)

// docPolicy returns the complete example policy of docs/signatures.md:
// the yaml block after "A complete policy a registry can start from".
func docPolicy(t *testing.T) string {
	t.Helper()
	doc := string(readFile(t, filepath.Join("..", "..", "docs", "signatures.md")))
	_, rest, ok := strings.Cut(doc, "A complete policy a registry can start from")
	if !ok {
		t.Fatal("docs/signatures.md has no complete example policy")
	}
	_, rest, ok = strings.Cut(rest, "```yaml\n")
	block, _, closed := strings.Cut(rest, "```")
	if !ok || !closed {
		t.Fatal("the example policy is not a yaml block")
	}
	return block
}

// docKey is a key the test makes for one the example names.
type docKey struct {
	priv  jose.JSONWebKey
	thumb string
}

func newDocKey(t *testing.T, kid string) docKey {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k := jose.JSONWebKey{Key: priv, KeyID: kid}
	return docKey{k, thumbprint(t, k)}
}

// thumbprintRE matches the example's thumbprints: the keys its reader
// has, for which the test puts its own.
var thumbprintRE = regexp.MustCompile(`(?m)^(\s+- )([A-Za-z0-9_-]{43})\s*$`)

// TestDocsExamplePolicy reads the example policy of docs/signatures.md as
// cardscan --trust does, and checks that it means what the text around it
// says: every key the registry pinned for geo.example.com signs geo's
// cards (two during a rotation), and not another origin's; a revoked key
// signs nothing; ledger.example.org's own key set signs its cards; and
// any other origin signs with a certificate naming its host.
func TestDocsExamplePolicy(t *testing.T) {
	policy := docPolicy(t)
	dir := t.TempDir()
	// Each JWK Set file it names, with a key of the test's.
	var geoKeys []docKey
	for _, m := range regexp.MustCompile(`keys/[\w.-]+\.jwks`).FindAllString(policy, -1) {
		k := newDocKey(t, strings.TrimSuffix(filepath.Base(m), ".jwks"))
		geoKeys = append(geoKeys, k)
		set, err := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{k.priv.Public()}})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, "keys"), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, m), set)
	}
	if len(geoKeys) == 0 {
		t.Fatal("the example pins no JWK Set file")
	}

	// As written: it parses, and says what the text says.
	tr, err := trustfile.Load(writeFile(t, filepath.Join(dir, "trust.yaml"), []byte(policy)))
	if err != nil {
		t.Fatalf("the example policy does not parse: %v", err)
	}
	geo, ledger, any := tr.Origins["https://geo.example.com"], tr.Origins["https://ledger.example.org"], tr.Origins["*"]
	switch {
	case len(tr.Origins) != 3 || geo == nil || ledger == nil || any == nil:
		t.Fatalf("origins %v", slices.Collect(func(yield func(string) bool) {
			for o := range tr.Origins {
				yield(o)
			}
		}))
	case geo.Keys == nil || ledger.JWKSPath != "/.well-known/jwks.json" || !ledger.SameOriginJKU || !any.X5C || any.Keys != nil:
		t.Errorf("geo %+v, ledger %+v, * %+v", geo, ledger, any)
	case tr.Roots != nil || len(tr.Revoked) != 1:
		t.Errorf("roots %v (want the system's), revoked %v", tr.Roots, tr.Revoked)
	}

	// With the test's keys for the thumbprints the reader would put
	// there, and its CA for the system's roots. The last thumbprint is
	// the revoked one; any before it pin keys for geo, which must then
	// verify as the files' keys do.
	matches := thumbprintRE.FindAllStringSubmatchIndex(policy, -1)
	if len(matches) == 0 {
		t.Fatal("the example lists no thumbprint")
	}
	revokedKey := newDocKey(t, "retired")
	var b strings.Builder
	last := 0
	for i, m := range matches {
		k := revokedKey
		if i < len(matches)-1 {
			k = newDocKey(t, "pinned-"+string(rune('a'+i)))
			geoKeys = append(geoKeys, k)
		}
		b.WriteString(policy[last:m[4]])
		b.WriteString(k.thumb)
		last = m[5]
	}
	b.WriteString(policy[last:])
	ca := newDocCA(t)
	withKeys := strings.Replace(b.String(), "x5c-roots: system", "x5c-roots: ca.pem", 1)
	writeFile(t, filepath.Join(dir, "ca.pem"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.cert.Raw}))
	tr, err = trustfile.Load(writeFile(t, filepath.Join(dir, "trust-keys.yaml"), []byte(withKeys)))
	if err != nil {
		t.Fatalf("the example with the test's keys: %v", err)
	}
	// ledger.example.org's key set, served by a test server that every
	// host name reaches.
	ledgerKey := newDocKey(t, "ledger-1")
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Host != "ledger.example.org" || r.URL.Path != "/.well-known/jwks.json" {
			t.Errorf("request for %s%s", r.Host, r.URL.Path)
			http.NotFound(w, r)
			return
		}
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{ledgerKey.priv.Public()}})
	}))
	defer srv.Close()
	transport := srv.Client().Transport.(*http.Transport).Clone()
	transport.TLSClientConfig.ServerName = "example.com" // httptest's certificate's name
	transport.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, srv.Listener.Addr().String())
	}
	tr.Client = &http.Client{Transport: transport}
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	tr.Now = func() time.Time { return now }
	v, err := cardsig.NewVerifier(new(cardsig.KeySet), cardsig.WithTrust(tr))
	if err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T, card string, key jose.JSONWebKey, opts cardsig.SignOptions, want cardsig.Status, why ...string) {
		t.Helper()
		signed, err := cardsig.Sign([]byte(card), key, opts)
		if err != nil {
			t.Fatal(err)
		}
		res, err := v.Verify(signed)
		if err != nil || len(res.Signatures) != 1 {
			t.Fatalf("verify: %v %+v", err, res)
		}
		s := res.Signatures[0]
		if s.Status != want {
			t.Errorf("%s, want %s (%s)", s.Status, want, s.Reason)
		}
		for _, w := range why {
			if !strings.Contains(s.Reason, w) {
				t.Errorf("reason %q does not say %q", s.Reason, w)
			}
		}
	}
	geoCard := agentAt("geo.example.com", "Plans routes")
	for _, k := range geoKeys {
		t.Run("geo signs with "+k.priv.KeyID, func(t *testing.T) {
			check(t, geoCard, k.priv, cardsig.SignOptions{}, cardsig.Verified)
			check(t, agentAt("elsewhere.example.net", "Plans routes"), k.priv, cardsig.SignOptions{}, cardsig.UntrustedOrigin)
		})
	}
	t.Run("a geo key signs no other origin's card", func(t *testing.T) {
		check(t, agentAt("elsewhere.example.net", "Plans routes"), geoKeys[0].priv, cardsig.SignOptions{}, cardsig.UntrustedOrigin, "https://geo.example.com", "https://elsewhere.example.net")
	})
	t.Run("ledger's own key set", func(t *testing.T) {
		check(t, agentAt("ledger.example.org", "Keeps books"), ledgerKey.priv, cardsig.SignOptions{}, cardsig.Verified)
	})
	t.Run("any other origin by certificate", func(t *testing.T) {
		p256, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		k := jose.JSONWebKey{Key: p256, KeyID: "cert"}
		card := agentAt("agent.example.net", "Plans routes")
		check(t, card, k, cardsig.SignOptions{X5C: [][]byte{ca.leaf(t, "agent.example.net", &p256.PublicKey, now)}}, cardsig.Verified)
		check(t, card, k, cardsig.SignOptions{X5C: [][]byte{ca.leaf(t, "evil.example.net", &p256.PublicKey, now)}}, cardsig.UntrustedOrigin, "evil.example.net")
	})
	t.Run("revoked", func(t *testing.T) {
		// The revoked key, pinned for geo by a file of its own.
		pub := revokedKey.priv.Public()
		pub.KeyID = geoKeys[0].priv.KeyID
		set, err := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{pub}})
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, "keys", geoKeys[0].priv.KeyID+".jwks"), set)
		tr, err := trustfile.Load(filepath.Join(dir, "trust-keys.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		tr.Now = func() time.Time { return now }
		rv, err := cardsig.NewVerifier(new(cardsig.KeySet), cardsig.WithTrust(tr))
		if err != nil {
			t.Fatal(err)
		}
		signed, err := cardsig.Sign([]byte(geoCard), revokedKey.priv, cardsig.SignOptions{KeyID: geoKeys[0].priv.KeyID})
		if err != nil {
			t.Fatal(err)
		}
		res, err := rv.Verify(signed)
		if err != nil || res.Signatures[0].Status != cardsig.Revoked {
			t.Errorf("a revoked key: %v %+v", err, res)
		}
	})
}

// docCA is a throwaway certificate authority, made with crypto/x509.
type docCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

func newDocCA(t *testing.T) *docCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "cardscan docs test CA"},
		NotBefore: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), NotAfter: time.Date(2028, 1, 1, 0, 0, 0, 0, time.UTC),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return &docCA{cert, key}
}

// leaf issues a certificate for host to pub, valid for a year around now.
func (ca *docCA) leaf(t *testing.T, host string, pub any, now time.Time) []byte {
	t.Helper()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(now.UnixNano() + int64(len(host))), Subject: pkix.Name{CommonName: host},
		DNSNames: []string{host}, NotBefore: now.Add(-180 * 24 * time.Hour), NotAfter: now.Add(180 * 24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, pub, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	return der
}
