package cardsig

import (
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// Trust binds signing keys to origins: a registry's answer to "is this
// card signed by whoever controls the origin it claims?". A good signature
// is Verified only when its key is allowed for every origin of the card's
// interfaces and, where the card was fetched, for the origin it came from;
// a good signature under another origin's key is UntrustedOrigin.
//
// A Trust is not changed once a Verifier holds it.
type Trust struct {
	// Origins maps an origin (as Origin writes it) to what may sign for
	// it. The entry "*" applies to every origin without one of its own.
	Origins map[string]*OriginTrust
	// Revoked holds RFC 7638 thumbprints (Thumbprint) of keys that verify
	// nothing, whatever vouches for them.
	Revoked []string
	// Roots are the CAs an x5c chain must lead to; nil means the system's.
	Roots *x509.CertPool
	// Client fetches origin-jwks key sets and same-origin jku URLs; nil
	// means one bounded as a jku fetch is. It should refuse private
	// addresses (cardscan passes cardscan fetch's guarded transport).
	Client *http.Client
	// Now is the clock expiry is judged by; nil means time.Now. cardscan's
	// --now fixes it, so that a run can be reproduced.
	Now func() time.Time
}

// OriginTrust is what may sign for one origin. Several keys may be
// allowed at once, as during a rotation.
type OriginTrust struct {
	// Keys are pinned public keys (a JWK Set).
	Keys *KeySet
	// Thumbprints pin keys by RFC 7638 thumbprint, wherever their bytes
	// come from (another origin's set, a jku, an x5c leaf).
	Thumbprints []string
	// JWKSPath, when not "", is a path on the origin whose JWK Set the
	// origin's keys are fetched from: https://ORIGIN/JWKSPath.
	JWKSPath string
	// SameOriginJKU lets a protected header's jku be followed when it is
	// an https URL on this very origin. A jku on any other host is never
	// fetched: the signer chose it, so it is a hint, never a root.
	SameOriginJKU bool
	// X5C accepts a key from the header's x5c chain when the chain leads
	// to Trust.Roots and its leaf names the origin's host.
	X5C bool
}

// Origin returns the origin of a URL as a trust policy names it:
// scheme "://" host, with ":" port unless it is the scheme's default, all
// lowercase. It fails for a URL without scheme or host, or with a port
// outside 1 to 65535.
func Origin(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "", err
	}
	if u.Scheme == "" || u.Host == "" || u.Opaque != "" {
		return "", fmt.Errorf("%s is not an absolute URL with a host", strconv.Quote(raw))
	}
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if n, err := strconv.Atoi(port); port != "" && (err != nil || n < 1 || n > 65535) {
		// url.Parse takes any digits: no connection has such a port.
		return "", fmt.Errorf("%s has port %s, not one of 1 to 65535", strconv.Quote(raw), port)
	}
	if port == "443" && scheme == "https" || port == "80" && scheme == "http" {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host, nil
}

// CardOrigins returns the origins of the URLs card's interfaces name, each
// once, in order: A2A 1.0's supportedInterfaces[].url, and 0.x's url and
// additionalInterfaces[].url. URLs that are not absolute are passed over:
// the card's validation reports them.
func CardOrigins(card []byte) []string {
	var c struct {
		URL        json.RawMessage                 `json:"url"`
		Supported  []struct{ URL json.RawMessage } `json:"supportedInterfaces"`
		Additional []struct{ URL json.RawMessage } `json:"additionalInterfaces"`
	}
	// Strict reading happened before (the canonical form); a card whose
	// members have other types has no interface origins to speak of.
	_ = json.Unmarshal(card, &c)
	var out []string
	add := func(raw json.RawMessage) {
		s, ok := jsonString(raw)
		if !ok {
			return
		}
		if o, err := Origin(s); err == nil && !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	for _, i := range c.Supported {
		add(i.URL)
	}
	add(c.URL)
	for _, i := range c.Additional {
		add(i.URL)
	}
	return out
}

// WithTrust binds keys to origins (see Trust). The Verifier's own key set
// (NewVerifier's) stays trusted for every origin, as before.
func WithTrust(t *Trust) Option {
	return func(v *Verifier) error {
		if t == nil {
			return nil
		}
		norm := make(map[string]*OriginTrust, len(t.Origins))
		for o, ot := range t.Origins {
			key := o
			if o != "*" {
				n, err := Origin(o)
				if err != nil {
					return fmt.Errorf("cardsig: trust origin %s: %w", strconv.Quote(o), err)
				}
				key = n
			}
			if _, dup := norm[key]; dup {
				return fmt.Errorf("cardsig: trust origin %s is listed twice", strconv.Quote(o))
			}
			if ot.JWKSPath != "" && !strings.HasPrefix(ot.JWKSPath, "/") {
				return fmt.Errorf("cardsig: trust origin %s: origin-jwks %s is not a path starting with /", strconv.Quote(o), strconv.Quote(ot.JWKSPath))
			}
			norm[key] = ot
		}
		tt := *t
		tt.Origins = norm
		if tt.Now == nil {
			tt.Now = time.Now
		}
		v.trust = &tt
		v.fetch = newKeyFetcher(t.Client, sameOriginRedirects)
		return nil
	}
}

// sameOriginRedirects lets a trust fetch redirect only within the origin
// it started on: a redirect elsewhere would hand the choice of keys to
// another host.
func sameOriginRedirects(req *http.Request, via []*http.Request) error {
	if len(via) > jkuRedirects {
		return errors.New("more than 3 redirects")
	}
	from, _ := Origin(via[0].URL.String())
	to, err := Origin(req.URL.String())
	if err != nil || to != from || req.URL.Scheme != "https" {
		return errors.New("redirect to " + req.URL.Redacted() + ", off the origin " + from)
	}
	return nil
}

// policy returns the entry for origin, or "*"'s, or nil.
func (t *Trust) policy(origin string) *OriginTrust {
	if p := t.Origins[origin]; p != nil {
		return p
	}
	return t.Origins["*"]
}

func (t *Trust) revoked(thumb string) bool { return slices.Contains(t.Revoked, thumb) }

// keyChoice is the key a signature is checked with, and where it came
// from: the answer to "which key, and why" that --explain prints.
type keyChoice struct {
	key trustedKey
	// how says where the key was found.
	how string
	// anyOrigin: the Verifier's own key set, bound to no origin.
	anyOrigin bool
	// origin is the origin whose pinned set or key set URL the key came
	// from; "" for the Verifier's own set and x5c.
	origin string
	// leaf is the x5c chain's leaf certificate, when the key is its.
	leaf *x509.Certificate
}

// findKey chooses the key for h among the trust policy's sources, in
// order: the Verifier's own set, the card's origins' pinned keys, the x5c
// chain, a same-origin jku, the origins' key sets, and last other
// origins' pinned keys (so that a good signature by another origin's key
// is told apart from an unknown one). status is KeyUnknown or Expired
// when no key is found, with why.
func (v *Verifier) findKey(h header, origins []string) (keyChoice, Status, string) {
	if k, ok := v.keys.lookup(h.kid); ok {
		return keyChoice{key: k, how: "kid " + quoted(h.kid) + " is in the trusted key set (any origin)", anyOrigin: true}, 0, ""
	}
	if h.jku != "" && v.jku != nil {
		if k, why := v.jku.lookup(h.jku, h.kid); why == "" {
			return keyChoice{key: k, how: "kid " + quoted(h.kid) + " is in the jku " + quoted(h.jku) + " below a trusted prefix (any origin)", anyOrigin: true}, 0, ""
		}
	}
	t := v.trust
	if t == nil {
		return v.findLegacy(h)
	}
	for _, o := range origins {
		if p := t.policy(o); p != nil {
			if k, ok := p.Keys.lookup(h.kid); ok {
				return keyChoice{key: k, how: "kid " + quoted(h.kid) + " is pinned for " + o, origin: o}, 0, ""
			}
		}
	}
	var whys []string
	if len(h.x5c) > 0 {
		c, st, why := v.x5cKey(h, origins)
		if why == "" {
			return c, 0, ""
		}
		if st == Expired {
			return c, st, why
		}
		whys = append(whys, why)
	}
	if h.jku != "" {
		c, why := v.jkuKey(h, origins)
		if why == "" {
			return c, 0, ""
		}
		whys = append(whys, why)
	}
	for _, o := range origins {
		if p := t.policy(o); p != nil && p.JWKSPath != "" {
			u := o + p.JWKSPath
			c, why := v.fetchedKey(u, o, h.kid, "origin-jwks")
			if why == "" {
				return c, 0, ""
			}
			whys = append(whys, why)
		}
	}
	for _, o := range slices.Sorted(maps.Keys(t.Origins)) {
		if k, ok := t.Origins[o].Keys.lookup(h.kid); ok && o != "*" {
			return keyChoice{key: k, how: "kid " + quoted(h.kid) + " is pinned for " + o + ", not for the card's origin", origin: o}, 0, ""
		}
	}
	why := "no trusted key has kid " + quoted(h.kid)
	if len(origins) == 0 {
		why += ", and the card names no origin (no interface URL)"
	} else {
		why += " for " + strings.Join(origins, ", ")
	}
	if len(whys) > 0 {
		why += " (" + strings.Join(whys, "; ") + ")"
	}
	return keyChoice{}, KeyUnknown, why
}

// findLegacy is the lookup without a trust policy: a jku below a trusted
// prefix, or nothing.
func (v *Verifier) findLegacy(h header) (keyChoice, Status, string) {
	var why string
	switch {
	case h.jku == "":
		why = "no trusted key has kid " + quoted(h.kid)
	case v.jku == nil:
		why = "no trusted key has kid " + quoted(h.kid) + ", and jku is followed only below a trusted prefix"
	default:
		var k trustedKey
		if k, why = v.jku.lookup(h.jku, h.kid); why == "" {
			return keyChoice{key: k, how: "kid " + quoted(h.kid) + " is in the jku " + quoted(h.jku) + " below a trusted prefix", anyOrigin: true}, 0, ""
		}
	}
	return keyChoice{}, KeyUnknown, why
}

// jkuKey follows h's jku when it is https on one of the card's origins
// whose policy allows it; any other jku is never requested.
func (v *Verifier) jkuKey(h header, origins []string) (keyChoice, string) {
	u, err := url.Parse(h.jku)
	if err != nil || u.Scheme != "https" || u.User != nil || u.Fragment != "" || hasDotSegment(u) {
		return keyChoice{}, "jku " + quoted(h.jku) + " is not a plain https URL, so it is not followed"
	}
	o, err := Origin(h.jku)
	if err != nil {
		return keyChoice{}, "jku " + quoted(h.jku) + " has no origin"
	}
	if !slices.Contains(origins, o) {
		return keyChoice{}, "jku " + quoted(h.jku) + " is on " + o + ", not the card's origin, so it is never fetched"
	}
	if p := v.trust.policy(o); p == nil || !p.SameOriginJKU {
		return keyChoice{}, "the policy for " + o + " does not follow jku"
	}
	return v.fetchedKey(u.String(), o, h.kid, "jku")
}

// fetchedKey looks kid up in the key set at u, through the Verifier's
// keyFetcher, which keeps a set it fetched for jkuKeepFor and a failure
// for jkuRetryAfter.
func (v *Verifier) fetchedKey(u, origin, kid, what string) (keyChoice, string) {
	parsed, err := url.Parse(u)
	if err != nil {
		return keyChoice{}, what + " " + quoted(u) + ": " + err.Error()
	}
	ks, why := v.fetch.get(parsed)
	if why != "" {
		return keyChoice{}, what + " " + quoted(u) + ": " + why
	}
	k, ok := ks.lookup(kid)
	if !ok {
		return keyChoice{}, "no key with kid " + quoted(kid) + " in the " + what + " " + quoted(u)
	}
	return keyChoice{key: k, how: "kid " + quoted(kid) + " is in the " + what + " " + quoted(u) + ", served by " + origin, origin: origin}, ""
}

// x5cKey takes the key of h's x5c leaf once crypto/x509 has built a chain
// from it to the trusted roots, at the Trust's clock. Which hosts the
// leaf may sign for is judged later, origin by origin.
func (v *Verifier) x5cKey(h header, origins []string) (keyChoice, Status, string) {
	allowed := false
	for _, o := range origins {
		if p := v.trust.policy(o); p != nil && p.X5C {
			allowed = true
		}
	}
	if !allowed {
		return keyChoice{}, KeyUnknown, "the policy accepts no x5c chain for the card's origin"
	}
	var certs []*x509.Certificate
	for i, b64 := range h.x5c {
		der, err := base64.StdEncoding.Strict().DecodeString(b64)
		if err != nil {
			return keyChoice{}, KeyUnknown, "x5c[" + strconv.Itoa(i) + "] is not base64 (RFC 7515 section 4.1.6)"
		}
		c, err := x509.ParseCertificate(der)
		if err != nil {
			return keyChoice{}, KeyUnknown, "x5c[" + strconv.Itoa(i) + "]: " + err.Error()
		}
		certs = append(certs, c)
	}
	inter := x509.NewCertPool()
	for _, c := range certs[1:] {
		inter.AddCert(c)
	}
	leaf := certs[0]
	_, err := leaf.Verify(x509.VerifyOptions{
		Roots: v.trust.Roots, Intermediates: inter, CurrentTime: v.trust.Now(),
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny},
	})
	if err != nil {
		var inv x509.CertificateInvalidError
		if errors.As(err, &inv) && inv.Reason == x509.Expired {
			return keyChoice{}, Expired, "x5c chain: " + err.Error()
		}
		return keyChoice{}, KeyUnknown, "x5c chain does not lead to a trusted root: " + err.Error()
	}
	k := trustedKey{JSONWebKey: jose.JSONWebKey{Key: leaf.PublicKey, KeyID: h.kid}}
	return keyChoice{key: k, how: "x5c leaf " + quoted(leaf.Subject.String()) + " (DNS names " + strings.Join(leaf.DNSNames, ", ") + ") chains to a trusted root", leaf: leaf}, 0, ""
}

// allowedFor says why the key chosen may not sign for origin, or "".
func (t *Trust) allowedFor(c keyChoice, thumb, origin string) string {
	if c.anyOrigin || c.origin == origin {
		return ""
	}
	p := t.policy(origin)
	if p != nil {
		if slices.Contains(p.Thumbprints, thumb) {
			return ""
		}
		if k, ok := p.Keys.lookup(c.key.KeyID); ok {
			if pt, err := Thumbprint(k.JSONWebKey); err == nil && pt == thumb {
				return ""
			}
		}
		if c.leaf != nil && p.X5C {
			if u, err := url.Parse(origin); err == nil && c.leaf.VerifyHostname(u.Hostname()) == nil {
				return ""
			}
		}
	}
	switch {
	case c.leaf != nil:
		return "signed by a certificate for " + strings.Join(c.leaf.DNSNames, ", ") + ", not allowed for " + origin
	case c.origin != "":
		return "signed by a key of " + c.origin + ", not allowed for " + origin
	}
	return "signed by a key not allowed for " + origin
}

// expiry says why the signature or its key is out of date at now, or "".
// A key's exp is held against now whatever iat the header claims, since
// iat is the signer's word; a header iat past the key's exp fails too.
func expiry(h header, k trustedKey, now time.Time) string {
	switch {
	case !k.notAfter.IsZero() && !now.Before(k.notAfter):
		return "key " + quoted(k.KeyID) + " expired at " + k.notAfter.Format(time.RFC3339)
	case !k.notBefore.IsZero() && now.Before(k.notBefore):
		return "key " + quoted(k.KeyID) + " is not valid before " + k.notBefore.Format(time.RFC3339)
	case !h.exp.IsZero() && !now.Before(h.exp):
		return "the signature expired at " + h.exp.Format(time.RFC3339)
	case !h.nbf.IsZero() && now.Before(h.nbf):
		return "the signature is not valid before " + h.nbf.Format(time.RFC3339)
	case !h.iat.IsZero() && !k.notAfter.IsZero() && !h.iat.Before(k.notAfter):
		return "signed at " + h.iat.Format(time.RFC3339) + ", after key " + quoted(k.KeyID) + " expired"
	}
	return ""
}
