package sign

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/go-jose/go-jose/v4"

	"github.com/cardscan/cardscan/cardsig"
	"github.com/cardscan/cardscan/fastvalidate/canon"
	"github.com/cardscan/cardscan/internal/report"
)

// keyFormats says what --key reads, for a file that is no such key.
const keyFormats = "--key reads a private JWK, or a JWK Set holding one (EdDSA/Ed25519, EC P-256, P-384 or P-521, " +
	"or RSA of 2048 bits or more), as cardscan sign --generate-key writes"

// keyError is a --key file, or a key of its JWK Set, that is no signing
// key: why, in cardscan's words rather than the JOSE library's, and where
// in the file when its text is at fault (line 0 otherwise).
type keyError struct {
	line, col int
	why       string
}

func (e *keyError) Error() string { return "not a signing key: " + e.why + "; " + keyFormats }

// ReadKey reads the --key file at path, for sign and migrate --key: a
// private JWK, or a JWK Set holding one, or several of which kid names
// one. Its errors name the file as --key PATH, with the line and column
// where its text is at fault.
func ReadKey(path, kid string) (jose.JSONWebKey, error) {
	text, err := ReadInput(path, nil)
	if err != nil {
		return jose.JSONWebKey{}, fmt.Errorf("--key %s: %w", path, err)
	}
	key, err := signingKey(text, kid)
	var notKey *keyError
	switch {
	case errors.As(err, &notKey) && notKey.line > 0:
		return key, fmt.Errorf("--key %s:%d:%d: %w", path, notKey.line, notKey.col, err)
	case err != nil:
		return key, fmt.Errorf("--key %s: %s", path, strings.TrimPrefix(err.Error(), "cardsig: "))
	}
	return key, nil
}

// privateKey parses one private JWK, saying what the text is when it is
// none: the mistakes are a PEM file, a card or a public key set given for
// the key, or a JWK missing members.
func privateKey(data []byte) (jose.JSONWebKey, error) {
	k, err := cardsig.ParsePrivateKey(data)
	if err == nil {
		return k, nil
	}
	text := bytes.TrimSpace(data)
	var notCanonical *canon.Error
	switch {
	case len(text) == 0:
		return k, &keyError{why: "the file is empty"}
	case bytes.HasPrefix(text, []byte("-----BEGIN")):
		return k, &keyError{why: "PEM text, which cardscan does not read"}
	case errors.As(err, &notCanonical):
		return k, textError(data, text, notCanonical)
	}
	var members struct {
		Kty *string `json:"kty"`
	}
	// The text is an I-JSON object: canon.Append passed it.
	_ = json.Unmarshal(text, &members)
	switch k.Key.(type) {
	case nil:
		if members.Kty == nil {
			return k, &keyError{why: `a JSON object with no "kty" member, which every JWK has`}
		}
		switch kty := report.TextSafe(*members.Kty); kty {
		case "OKP", "EC", "RSA", "oct":
			return k, &keyError{why: fmt.Sprintf("its members make no whole key of kty %q", kty)}
		default:
			return k, &keyError{why: fmt.Sprintf("kty %q, which is no key type of JWK (OKP, EC, RSA)", kty)}
		}
	case []byte:
		return k, &keyError{why: "a symmetric key; card signatures use EdDSA, ECDSA or RSA"}
	default:
		return k, &keyError{why: "a public key, not a private key: sign with the private one"}
	}
}

// textError says why data, whose text without its outer white space is
// text, is no JWK object, and where.
func textError(data, text []byte, e *canon.Error) error {
	if e.Reason == canon.NotObject {
		kind := "value"
		switch text[0] {
		case '[':
			kind = "array"
		case '"':
			kind = "string"
		}
		return &keyError{why: "a JSON " + kind + ", not a JWK object"}
	}
	line, col := report.LineColumn(data, e.Offset)
	why := "no JSON text (" + e.Reason.String() + ")"
	if e.Reason != canon.Syntax {
		why = "no I-JSON object (" + e.Reason.String() + ")"
	}
	return &keyError{line: line, col: col, why: why}
}
