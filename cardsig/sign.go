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
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cardscan/cardscan/fastvalidate/canon"
	"github.com/go-jose/go-jose/v4"
)

// ParsePrivateKey reads one private JWK (RFC 7517), for signing. Its JSON
// must be I-JSON.
func ParsePrivateKey(data []byte) (jose.JSONWebKey, error) {
	var k jose.JSONWebKey
	if _, err := canon.Append(nil, data, canon.Options{}); err != nil {
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
	Mode              canon.Mode
}

// CheckSignOptions says why key cannot sign with opts, whatever the card:
// no kid, an algorithm card signatures do not take or the key cannot
// make, or a jku no verifier follows (CheckJKU). It returns nil when it
// can.
func CheckSignOptions(key jose.JSONWebKey, opts SignOptions) error {
	_, _, err := signerOf(key, opts)
	return err
}

// signerOf is the kid and algorithm key signs with under opts.
func signerOf(key jose.JSONWebKey, opts SignOptions) (kid, alg string, err error) {
	kid = opts.KeyID
	if kid == "" {
		kid = key.KeyID
	}
	if kid == "" {
		return "", "", errors.New("cardsig: the key has no kid; name one")
	}
	alg = opts.Alg
	if alg == "" {
		if alg, err = DefaultAlgorithm(key); err != nil {
			return "", "", err
		}
	}
	if !slices.Contains(algorithms, alg) {
		return "", "", fmt.Errorf("cardsig: algorithm %s is not one card signatures accept (%v)", strconv.Quote(alg), algorithms)
	}
	if why := keyFits(alg, trustedKey{JSONWebKey: jose.JSONWebKey{Key: key.Public().Key, KeyID: kid, Algorithm: key.Algorithm, Use: key.Use}}); why != "" {
		return "", "", errors.New("cardsig: " + why)
	}
	if opts.JKU != "" {
		if err := CheckJKU(opts.JKU); err != nil {
			return "", "", err
		}
	}
	return kid, alg, nil
}

// CheckJKU says why a signer may not name jku in a protected header, or
// returns nil: a verifier follows only an https URL (RFC 7515 section
// 4.1.2 has the key set fetched over TLS) without user info, fragment or
// dot segments, as WithTrustedJKU's prefixes are checked.
func CheckJKU(jku string) error {
	u, err := url.Parse(jku)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.Opaque != "" || u.User != nil || u.Fragment != "" || hasDotSegment(u) {
		return fmt.Errorf("cardsig: jku %s is no URL a verifier follows: want https, without user info, fragment or dot segments", strconv.Quote(jku))
	}
	return nil
}

// Sign returns card with one more signature in its signatures array
// (which it adds when missing), leaving the rest of its bytes as they are.
// The protected header holds alg, kid and typ "JOSE" (and jku when given).
// It fails as CheckSignOptions does before it reads the card.
func Sign(card []byte, key jose.JSONWebKey, opts SignOptions) ([]byte, error) {
	kid, alg, err := signerOf(key, opts)
	if err != nil {
		return nil, err
	}
	payload, err := canon.Append(nil, card, canon.Options{Mode: opts.Mode, DropTopLevel: "signatures"})
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
// array, or adds the array as the card's last member, laid out as the
// card's members are (see layout). card is an I-JSON object: Sign
// canonicalized it first.
func insertSignature(card, entry []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(card))
	if _, err := dec.Token(); err != nil { // {
		return nil, fmt.Errorf("cardsig: %w", err)
	}
	var last *member
	// Where the previous value (or the brace) ends: dec.More skips the
	// white space after it, which the layout is read from.
	prevEnd := int(dec.InputOffset())
	for dec.More() {
		m, err := nextMember(dec, card, prevEnd)
		if err != nil {
			return nil, err
		}
		prevEnd = m.end
		if m.name == "signatures" {
			return appendEntry(card, m, entry)
		}
		last = &m
	}
	if _, err := dec.Token(); err != nil && err != io.EOF { // }
		return nil, fmt.Errorf("cardsig: %w", err)
	}
	if last == nil {
		// No member to take a layout from: the array goes in compact.
		end := int(dec.InputOffset()) - 1 // the closing brace
		return splice(card, end, []byte(`"signatures":[`), entry, []byte("]")), nil
	}
	l := last.layout()
	member := append([]byte(","+last.indent+`"signatures"`+last.colon), l.array(entry)...)
	return splice(card, last.end, member, nil, nil), nil
}

// member is where a top-level member lies in the card, and how it is
// written: the white space before its name, and between name and value.
type member struct {
	name       string
	indent     string // the white space after the comma (or brace) before its name
	colon      string // from the end of its name to its value: ":" or ": "
	start, end int    // its value's bytes
}

// nextMember reads the next member of the object dec is in, whose
// previous value (or opening brace) ends at before.
func nextMember(dec *json.Decoder, card []byte, before int) (member, error) {
	t, err := dec.Token()
	if err != nil {
		return member{}, fmt.Errorf("cardsig: %w", err)
	}
	nameEnd := int(dec.InputOffset())
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return member{}, fmt.Errorf("cardsig: %w", err)
	}
	end := int(dec.InputOffset())
	name, _ := t.(string)
	m := member{name: name, start: end - len(raw), end: end}
	gap := card[before:nameEnd]
	gap = gap[:bytes.IndexByte(gap, '"')]
	m.indent = string(gap[bytes.LastIndexByte(gap, ',')+1:])
	m.colon = string(card[nameEnd:m.start])
	return m, nil
}

// layout is how a card's members are laid out: each on a line of its
// own, after newline and indent (one step of indentation: the top-level
// members'), or inline.
type layout struct {
	newline, indent string // "" when inline
}

// layout reads the card's layout from the white space before m's name.
func (m member) layout() layout {
	i := strings.LastIndexByte(m.indent, '\n')
	if i < 0 {
		return layout{}
	}
	nl := "\n"
	if i > 0 && m.indent[i-1] == '\r' {
		nl = "\r\n"
	}
	return layout{newline: nl, indent: m.indent[i+1:]}
}

// element writes entry as an element of a top-level array: inline as it
// is, or indented two steps, as a pretty-printer would.
func (l layout) element(entry []byte) []byte {
	if l.newline == "" {
		return entry
	}
	var b bytes.Buffer
	prefix := l.indent + l.indent
	if err := json.Indent(&b, entry, prefix, l.indent); err != nil {
		return entry // not JSON: Sign's entries always are
	}
	return bytes.ReplaceAll(b.Bytes(), []byte("\n"), []byte(l.newline))
}

// array writes a top-level array holding entry alone.
func (l layout) array(entry []byte) []byte {
	if l.newline == "" {
		return append(append([]byte("["), entry...), ']')
	}
	out := []byte("[" + l.newline + l.indent + l.indent)
	out = append(out, l.element(entry)...)
	return append(out, l.newline+l.indent+"]"...)
}

// appendEntry adds entry after the last element of the signatures
// member m, or fills it when empty, in the card's layout.
func appendEntry(card []byte, m member, entry []byte) ([]byte, error) {
	raw := card[m.start:m.end]
	if len(raw) == 0 || raw[0] != '[' {
		return nil, errors.New("cardsig: the card's signatures is not an array")
	}
	l := m.layout()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil { // [
		return nil, fmt.Errorf("cardsig: %w", err)
	}
	lastEnd, sep := -1, ""
	before := int(dec.InputOffset()) // as in insertSignature
	for dec.More() {
		var elem json.RawMessage
		if err := dec.Decode(&elem); err != nil {
			return nil, fmt.Errorf("cardsig: %w", err)
		}
		lastEnd = int(dec.InputOffset())
		gap := raw[before : lastEnd-len(elem)]
		sep = string(gap[bytes.LastIndexByte(gap, ',')+1:])
		before = lastEnd
	}
	if lastEnd < 0 {
		out := append([]byte{}, card[:m.start]...)
		out = append(out, l.array(entry)...)
		return append(out, card[m.end:]...), nil
	}
	if !strings.Contains(sep, "\n") {
		l = layout{} // the elements are inline: so is the new one
	}
	return splice(card, m.start+lastEnd, []byte(","+sep), l.element(entry), nil), nil
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
