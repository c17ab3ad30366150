package cardsig

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/cardscan/cardscan/fastvalidate/canon"
	"github.com/go-jose/go-jose/v4"
)

// KeySet is a trust store: public keys by key ID. A KeySet is not changed
// once built, so it may be shared by any number of goroutines.
type KeySet struct {
	keys map[string]trustedKey
}

// trustedKey is a public key with the key_ops its JWK lists, which go-jose
// does not read.
type trustedKey struct {
	jose.JSONWebKey
	ops []string
	// notBefore and notAfter are the JWK's nbf and exp (NumericDate, as
	// RFC 7519 section 2 writes them), zero when absent: a key set may
	// carry both the retiring and the new key of a rotation.
	notBefore, notAfter time.Time
}

// ErrKeySet is wrapped by every error ParseKeySet returns.
var ErrKeySet = errors.New("cardsig: bad key set")

// ParseKeySet reads a JWK Set (RFC 7517 section 5), or a single JWK, of
// public keys. Its JSON must be I-JSON, as a card's: a key set two parsers
// read differently is no trust root. Every key needs a kid, unique in the
// set: a signature names its key by kid, and a key without one could never
// be chosen. Symmetric keys are refused, since an HMAC key that verifies
// can also sign; a private key counts as its public half.
func ParseKeySet(data []byte) (*KeySet, error) {
	if _, err := canon.Append(nil, data, canon.Options{}); err != nil {
		return nil, fmt.Errorf("%w: not an I-JSON object: %w", ErrKeySet, err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrKeySet, err)
	}
	var raws []json.RawMessage
	if ks, ok := top["keys"]; ok {
		if err := json.Unmarshal(ks, &raws); err != nil {
			return nil, fmt.Errorf("%w: keys is not an array of JWKs", ErrKeySet)
		}
	} else if _, ok := top["kty"]; ok {
		raws = []json.RawMessage{data}
	} else {
		return nil, fmt.Errorf("%w: neither a JWK Set (keys) nor a JWK (kty)", ErrKeySet)
	}
	s := &KeySet{keys: make(map[string]trustedKey, len(raws))}
	for i, raw := range raws {
		var k trustedKey
		if err := k.UnmarshalJSON(raw); err != nil {
			return nil, fmt.Errorf("%w: key %d: %w", ErrKeySet, i, err)
		}
		var members map[string]json.RawMessage
		_ = json.Unmarshal(raw, &members)
		if ops, ok := members["key_ops"]; ok {
			if err := json.Unmarshal(ops, &k.ops); err != nil {
				return nil, fmt.Errorf("%w: key %d: key_ops is not an array of strings", ErrKeySet, i)
			}
		}
		for name, at := range map[string]*time.Time{"nbf": &k.notBefore, "exp": &k.notAfter} {
			if raw, ok := members[name]; ok {
				t, ok := numericDate(raw)
				if !ok {
					return nil, fmt.Errorf("%w: key %d: %s is not a NumericDate (seconds since 1970)", ErrKeySet, i, name)
				}
				*at = t
			}
		}
		if err := s.add(k); err != nil {
			return nil, fmt.Errorf("%w: key %d: %w", ErrKeySet, i, err)
		}
	}
	return s, nil
}

func (s *KeySet) add(k trustedKey) error {
	if k.KeyID == "" {
		return errors.New("no kid")
	}
	if _, dup := s.keys[k.KeyID]; dup {
		return fmt.Errorf("kid %s is already in the trust store", strconv.Quote(k.KeyID))
	}
	switch k.Key.(type) {
	case []byte:
		return fmt.Errorf("kid %s is a symmetric key; only public keys verify card signatures", strconv.Quote(k.KeyID))
	case *ecdsa.PrivateKey, ed25519.PrivateKey, *rsa.PrivateKey:
		k.JSONWebKey = k.Public()
	case *ecdsa.PublicKey, ed25519.PublicKey, *rsa.PublicKey:
	default:
		return fmt.Errorf("kid %s: unsupported key type %T", strconv.Quote(k.KeyID), k.Key)
	}
	s.keys[k.KeyID] = k
	return nil
}

// Merge returns a KeySet holding the keys of both; a kid in both is an
// error, since which key it names would be ambiguous.
func (s *KeySet) Merge(other *KeySet) (*KeySet, error) {
	out := &KeySet{keys: make(map[string]trustedKey, s.Len()+other.Len())}
	if s != nil {
		maps.Copy(out.keys, s.keys)
	}
	if other != nil {
		for _, kid := range other.KeyIDs() {
			if err := out.add(other.keys[kid]); err != nil {
				return nil, fmt.Errorf("%w: %w", ErrKeySet, err)
			}
		}
	}
	return out, nil
}

// Len returns the number of keys.
func (s *KeySet) Len() int {
	if s == nil {
		return 0
	}
	return len(s.keys)
}

// KeyIDs returns the key IDs, sorted.
func (s *KeySet) KeyIDs() []string {
	if s == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(s.keys))
}

func (s *KeySet) lookup(kid string) (trustedKey, bool) {
	if s == nil {
		return trustedKey{}, false
	}
	k, ok := s.keys[kid]
	return k, ok
}

// keyFits says why key cannot verify alg, or "" when it can: the key type
// and curve alg names (RFC 7518 section 3.1, RFC 8037), an RSA modulus of
// at least 2048 bits (RFC 7518 sections 3.3 and 3.5), and the JWK's own
// alg, use and key_ops where it states them (RFC 7517 section 4).
func keyFits(alg string, k trustedKey) string {
	if k.Algorithm != "" && k.Algorithm != alg {
		return "key " + strconv.Quote(k.KeyID) + " is for " + k.Algorithm + ", not " + alg
	}
	if k.Use != "" && k.Use != "sig" {
		return "key " + strconv.Quote(k.KeyID) + " has use " + strconv.Quote(k.Use) + ", not sig"
	}
	if k.ops != nil && !slices.Contains(k.ops, "verify") {
		return "key " + strconv.Quote(k.KeyID) + "'s key_ops do not include verify"
	}
	switch pub := k.Key.(type) {
	case ed25519.PublicKey:
		if alg == "EdDSA" {
			return ""
		}
	case *ecdsa.PublicKey:
		if curve := pub.Curve.Params().Name; curveAlg[curve] == alg {
			return ""
		} else if algCurve[alg] != "" {
			return alg + " needs a " + algCurve[alg] + " key, not " + curve
		}
	case *rsa.PublicKey:
		if alg[0] == 'R' || alg[0] == 'P' {
			if pub.N.BitLen() < 2048 {
				return "RSA key " + strconv.Quote(k.KeyID) + " has " + strconv.Itoa(pub.N.BitLen()) + " bits; " + alg + " needs 2048 or more"
			}
			return ""
		}
	}
	return "key " + strconv.Quote(k.KeyID) + " (" + keyType(k) + ") cannot verify " + alg
}

var (
	curveAlg = map[string]string{"P-256": "ES256", "P-384": "ES384", "P-521": "ES512"}
	algCurve = map[string]string{"ES256": "P-256", "ES384": "P-384", "ES512": "P-521"}
)

func keyType(k trustedKey) string {
	switch k.Key.(type) {
	case ed25519.PublicKey:
		return "OKP Ed25519"
	case *ecdsa.PublicKey:
		return "EC"
	case *rsa.PublicKey:
		return "RSA"
	}
	return "unknown"
}

// numericDate reads a JSON number of seconds since 1970 (RFC 7519 section
// 2), whole or not, within the years 1970 to 9999.
func numericDate(raw json.RawMessage) (time.Time, bool) {
	var f float64
	if len(raw) == 0 || raw[0] == '"' || json.Unmarshal(raw, &f) != nil || f < 0 || f > 253402300799 {
		return time.Time{}, false
	}
	sec := int64(f)
	return time.Unix(sec, int64((f-float64(sec))*1e9)).UTC(), true
}

// Thumbprint returns the RFC 7638 JWK thumbprint of key (SHA-256,
// unpadded base64url): the name a trust policy pins and revokes keys by.
func Thumbprint(key jose.JSONWebKey) (string, error) {
	pub := key.Public()
	sum, err := pub.Thumbprint(crypto.SHA256)
	if err != nil {
		return "", fmt.Errorf("cardsig: thumbprint: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(sum), nil
}
