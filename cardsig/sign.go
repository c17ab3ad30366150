package cardsig

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/cardscan/cardscan/fastvalidate"
)

// ParsePrivateKey reads one private JWK (RFC 7517), for signing. Its JSON
// must be I-JSON.
func ParsePrivateKey(data []byte) (jose.JSONWebKey, error) {
	var k jose.JSONWebKey
	if _, err := fastvalidate.AppendCanonical(nil, data, fastvalidate.CanonicalOptions{}); err != nil {
		return k, fmt.Errorf("cardsig: private key is not an I-JSON object: %w", err)
	}
	if err := k.UnmarshalJSON(data); err != nil {
		return k, fmt.Errorf("cardsig: private key: %w", err)
	}
	switch k.Key.(type) {
	case ed25519.PrivateKey, *ecdsa.PrivateKey, *rsa.PrivateKey:
		return k, nil
	case []byte:
		return k, errors.New("cardsig: private key is symmetric; card signatures use EdDSA, ECDSA or RSA")
	}
	return k, errors.New("cardsig: the key is not a private key")
}

// DefaultAlgorithm returns the algorithm a key signs with when its JWK
// names none: EdDSA for Ed25519, ES256/384/512 by curve, RS256 for RSA.
func DefaultAlgorithm(k jose.JSONWebKey) (string, error) {
	if k.Algorithm != "" {
		return k.Algorithm, nil
	}
	switch pk := k.Key.(type) {
	case ed25519.PrivateKey, ed25519.PublicKey:
		return "EdDSA", nil
	case *ecdsa.PrivateKey:
		return curveAlg[pk.Curve.Params().Name], nil
	case *ecdsa.PublicKey:
		return curveAlg[pk.Curve.Params().Name], nil
	case *rsa.PrivateKey, *rsa.PublicKey:
		return "RS256", nil
	}
	return "", errors.New("cardsig: no algorithm for this key")
}

// SignOptions says how Sign signs.
type SignOptions struct {
	KeyID string // the protected header's kid; the JWK's kid when ""
	Alg   string // the algorithm; DefaultAlgorithm(key) when ""
	JKU   string // a jku to name in the protected header, if any
	// X5C is a certificate chain (DER, leaf first) to put in the
	// protected header, for verifiers that trust keys by certificate.
	X5C [][]byte
	// IssuedAt and Expires, when not zero, become iat and exp.
	IssuedAt, Expires time.Time
	Mode              fastvalidate.CanonicalMode
}

// Sign returns card with one more signature in its signatures array
// (which it adds when missing), leaving the rest of its bytes as they are.
// The protected header holds alg, kid and typ "JOSE" (and jku when given).
func Sign(card []byte, key jose.JSONWebKey, opts SignOptions) ([]byte, error) {
	kid := opts.KeyID
	if kid == "" {
		kid = key.KeyID
	}
	if kid == "" {
		return nil, errors.New("cardsig: the key has no kid; name one")
	}
	alg := opts.Alg
	if alg == "" {
		var err error
		if alg, err = DefaultAlgorithm(key); err != nil {
			return nil, err
		}
	}
	if !slices.Contains(algorithms, alg) {
		return nil, fmt.Errorf("cardsig: algorithm %s is not one card signatures accept (%v)", strconv.Quote(alg), algorithms)
	}
	if why := keyFits(alg, trustedKey{JSONWebKey: jose.JSONWebKey{Key: key.Public().Key, KeyID: kid, Algorithm: key.Algorithm, Use: key.Use}}); why != "" {
		return nil, errors.New("cardsig: " + why)
	}
	payload, err := fastvalidate.AppendCanonical(nil, card, fastvalidate.CanonicalOptions{Mode: opts.Mode, DropTopLevel: "signatures"})
	if err != nil {
		return nil, fmt.Errorf("cardsig: %w", err)
	}
	hdr := map[jose.HeaderKey]any{"kid": kid, "typ": "JOSE"}
	if opts.JKU != "" {
		hdr["jku"] = opts.JKU
	}
	if len(opts.X5C) > 0 {
		chain := make([]string, len(opts.X5C))
		for i, der := range opts.X5C {
			chain[i] = base64.StdEncoding.EncodeToString(der)
		}
		hdr["x5c"] = chain
	}
	if !opts.IssuedAt.IsZero() {
		hdr["iat"] = opts.IssuedAt.Unix()
	}
	if !opts.Expires.IsZero() {
		hdr["exp"] = opts.Expires.Unix()
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.SignatureAlgorithm(alg), Key: key.Key}, &jose.SignerOptions{ExtraHeaders: hdr})
	if err != nil {
		return nil, fmt.Errorf("cardsig: %w", err)
	}
	obj, err := signer.Sign(payload)
	if err != nil {
		return nil, fmt.Errorf("cardsig: %w", err)
	}
	compact, err := obj.DetachedCompactSerialize()
	if err != nil {
		return nil, fmt.Errorf("cardsig: %w", err)
	}
	// A detached compact JWS is "protected..signature".
	protected, sig, _ := strings.Cut(compact, "..")
	entry, _ := json.Marshal(map[string]string{"protected": protected, "signature": sig})
	return insertSignature(card, entry)
}

// insertSignature adds entry to the end of card's top-level signatures
// array, or adds the array as the card's last member. card is an I-JSON
// object: Sign canonicalized it first.
func insertSignature(card, entry []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(card))
	if _, err := dec.Token(); err != nil { // {
		return nil, fmt.Errorf("cardsig: %w", err)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("cardsig: %w", err)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("cardsig: %w", err)
		}
		if t != "signatures" {
			continue
		}
		end := int(dec.InputOffset()) // just past the array's ]
		if len(raw) == 0 || raw[0] != '[' {
			return nil, errors.New("cardsig: the card's signatures is not an array")
		}
		sep := []byte(",")
		if bytes.Equal(bytes.Join(bytes.Fields(raw), nil), []byte("[]")) {
			sep = nil
		}
		return splice(card, end-1, sep, entry, nil), nil
	}
	if _, err := dec.Token(); err != nil && err != io.EOF { // }
		return nil, fmt.Errorf("cardsig: %w", err)
	}
	end := int(dec.InputOffset()) - 1 // the closing brace
	sep := []byte(",")
	if len(bytes.TrimSpace(card[bytes.IndexByte(card, '{')+1:end])) == 0 {
		sep = nil
	}
	return splice(card, end, append(sep, `"signatures":[`...), entry, []byte("]")), nil
}

// splice returns card with before, entry and after inserted at offset at.
func splice(card []byte, at int, before, entry, after []byte) []byte {
	out := make([]byte, 0, len(card)+len(before)+len(entry)+len(after))
	out = append(out, card[:at]...)
	out = append(out, before...)
	out = append(out, entry...)
	out = append(out, after...)
	return append(out, card[at:]...)
}
