package sign

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/go-jose/go-jose/v4"

	"github.com/cardscan/cardscan/cardsig"
)

// signingKey reads --key's file: a private JWK, or a JWK Set holding one
// private key, or several of which kid names one.
func signingKey(data []byte, kid string) (jose.JSONWebKey, error) {
	var set struct {
		Keys *[]json.RawMessage `json:"keys"`
	}
	if json.Unmarshal(data, &set) != nil || set.Keys == nil {
		return privateKey(data)
	}
	var private []jose.JSONWebKey
	var kids []string
	for i, raw := range *set.Keys {
		k, err := privateKey(raw)
		if err != nil {
			var jwk jose.JSONWebKey
			if jwk.UnmarshalJSON(raw) == nil && jwk.Valid() && jwk.IsPublic() {
				continue // a public key beside the private one: not for signing
			}
			var ke *keyError
			if errors.As(err, &ke) {
				// Where in the file is not known: raw is a piece of it.
				return jose.JSONWebKey{}, &keyError{why: fmt.Sprintf("the JWK Set's key %d: %s", i, ke.why)}
			}
			return jose.JSONWebKey{}, fmt.Errorf("the JWK Set's key %d: %s", i, strings.TrimPrefix(err.Error(), "cardsig: "))
		}
		if kid == "" || k.KeyID == kid {
			private = append(private, k)
		}
		kids = append(kids, fmt.Sprintf("%q", k.KeyID))
	}
	switch {
	case len(private) == 1:
		return private[0], nil
	case len(kids) == 0:
		return jose.JSONWebKey{}, errors.New("the JWK Set holds no private key, only public ones: sign with the private key")
	case len(private) == 0:
		return jose.JSONWebKey{}, fmt.Errorf("the JWK Set holds no private key with kid %q (its private keys: %s)", kid, strings.Join(kids, ", "))
	}
	return jose.JSONWebKey{}, fmt.Errorf("the JWK Set holds %d private keys (%s): choose one with --kid", len(private), strings.Join(kids, ", "))
}

// generateKey makes a key pair for alg: Ed25519 for EdDSA, the curve
// ES256/384/512 names, RSA of 3072 bits for RS* and PS* (above the 2048
// that card signatures require, as NIST SP 800-57 advises past 2030).
func generateKey(alg string) (crypto.Signer, error) {
	switch alg {
	case "EdDSA":
		_, k, err := ed25519.GenerateKey(rand.Reader)
		return k, err
	case "ES256":
		return ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case "ES384":
		return ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	case "ES512":
		return ecdsa.GenerateKey(elliptic.P521(), rand.Reader)
	case "RS256", "RS384", "RS512", "PS256", "PS384", "PS512":
		return rsa.GenerateKey(rand.Reader, 3072)
	}
	return nil, fmt.Errorf("--generate-key %q: want one of %s", alg, strings.Join(cardsig.Algorithms(), ", "))
}

// publicSetPath is where --generate-key writes the public key set beside
// the private key: key.jwk's is key.pub.jwks.
func publicSetPath(private string) string {
	return strings.TrimSuffix(private, ".jwk") + ".pub.jwks"
}

// writeKeyPair makes a key for alg and writes its private JWK to path
// (mode 0600) and the public JWK Set to publicSetPath(path). Both carry
// alg, use "sig" and a kid, the key's RFC 7638 thumbprint. Neither file
// may exist already: a key is never overwritten.
func writeKeyPair(alg, path string) (kid, pubPath string, err error) {
	signer, err := generateKey(alg)
	if err != nil {
		return "", "", err
	}
	jwk := jose.JSONWebKey{Key: signer, Algorithm: alg, Use: "sig"}
	thumb, err := jwk.Thumbprint(crypto.SHA256)
	if err != nil {
		return "", "", err
	}
	jwk.KeyID = base64.RawURLEncoding.EncodeToString(thumb)
	private, err := json.MarshalIndent(jwk, "", "  ")
	if err != nil {
		return "", "", err
	}
	public, err := json.MarshalIndent(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{jwk.Public()}}, "", "  ")
	if err != nil {
		return "", "", err
	}
	pubPath = publicSetPath(path)
	if err := createFile(path, append(private, '\n'), 0o600); err != nil {
		return "", "", err
	}
	if err := createFile(pubPath, append(public, '\n'), 0o644); err != nil {
		os.Remove(path)
		return "", "", err
	}
	return jwk.KeyID, pubPath, nil
}

// createFile writes a new file, failing if path exists.
func createFile(path string, b []byte, mode os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}
