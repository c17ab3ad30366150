package cardsig

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
)

func TestJKUTrusted(t *testing.T) {
	r, err := newJKUResolver(nil, []string{"https://keys.example.com/a2a/", "https://other.example.com:8443/jwks"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		u  string
		ok bool
	}{
		{"https://keys.example.com/a2a/jwks.json", true},
		{"https://KEYS.example.com/a2a/x/jwks.json", true},
		{"https://keys.example.com/a2a/", true},
		{"https://keys.example.com/a2a", false},
		{"https://keys.example.com/a2a-evil/jwks.json", false},
		{"http://keys.example.com/a2a/jwks.json", false},
		{"https://keys.example.com:444/a2a/jwks.json", false},
		{"https://keys.example.com.evil.net/a2a/jwks.json", false},
		{"https://evil.net/a2a/jwks.json", false},
		{"https://user@keys.example.com/a2a/jwks.json", false},
		{"https://keys.example.com/a2a/../jwks.json", false},
		{"https://keys.example.com/a2a/%2e%2e/jwks.json", false},
		{"https://keys.example.com/a2a/x%2fy", false},
		{"https://keys.example.com/a2a/jwks.json#frag", false},
		{"https://other.example.com:8443/jwks", true},
		{"https://other.example.com:8443/jwks/k1", true},
		{"https://other.example.com:8443/jwksx", false},
		{"https://other.example.com/jwks", false},
	} {
		u, err := url.Parse(tc.u)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.trusted(u); got != tc.ok {
			t.Errorf("trusted(%s) = %v, want %v", tc.u, got, tc.ok)
		}
	}
	for _, bad := range []string{"http://keys.example.com/", "https:///x", "https://u@h/", "https://h/?q=1", "keys.example.com", "https://h/a/../b"} {
		if _, err := ParseJKUPrefix(bad); err == nil {
			t.Errorf("prefix %q was accepted", bad)
		}
	}
}

// A jku is followed only below a trusted prefix, fetched once, and never
// turns an unknown kid into a trusted one otherwise.
func TestVerify_JKU(t *testing.T) {
	keys := testKeys(t)
	jwks := trustStore(t, keys[:1])
	var hits atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/a2a/jwks.json":
			hits.Add(1)
			w.Header().Set("Content-Type", "application/jwk-set+json")
			_, _ = w.Write(jwks)
		case "/a2a/moved":
			http.Redirect(w, r, "/elsewhere/jwks.json", http.StatusFound)
		case "/elsewhere/jwks.json":
			_, _ = w.Write(jwks)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	jku := srv.URL + "/a2a/jwks.json"
	card := sign(t, testCard, keys[0], SignOptions{JKU: jku})
	empty, _ := ParseKeySet([]byte(`{"keys":[]}`))

	for _, tc := range []struct {
		name   string
		prefix string // "" for no WithTrustedJKU
		card   []byte
		want   Status
	}{
		{"no trusted prefix", "", card, KeyUnknown},
		{"prefix of another path", srv.URL + "/other/", card, KeyUnknown},
		{"prefix of another host", "https://keys.example.com/a2a/", card, KeyUnknown},
		{"trusted prefix", srv.URL + "/a2a/", card, Verified},
		{"redirect out of the prefix", srv.URL + "/a2a/", sign(t, testCard, keys[0], SignOptions{JKU: srv.URL + "/a2a/moved"}), KeyUnknown},
		{"jku without the key", srv.URL + "/a2a/", sign(t, testCard, keys[1], SignOptions{JKU: jku}), KeyUnknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var opts []Option
			if tc.prefix != "" {
				opts = append(opts, WithTrustedJKU(srv.Client(), tc.prefix))
			}
			v, err := NewVerifier(empty, opts...)
			if err != nil {
				t.Fatal(err)
			}
			res, err := v.Verify(tc.card)
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Signatures[0]; got.Status != tc.want {
				t.Errorf("got %v (%s), want %v", got.Status, got.Reason, tc.want)
			}
		})
	}

	// One fetch for any number of cards.
	v, err := NewVerifier(empty, WithTrustedJKU(srv.Client(), srv.URL+"/a2a/"))
	if err != nil {
		t.Fatal(err)
	}
	before := hits.Load()
	for range 5 {
		if !verified(v, card) {
			t.Fatal("card with a trusted jku did not verify")
		}
	}
	if n := hits.Load() - before; n != 1 {
		t.Errorf("the key set was fetched %d times", n)
	}
}
