// Package cardsig verifies and makes the signatures of A2A agent cards:
// detached JWS (RFC 7515) over the card's RFC 8785 canonical form with its
// signatures member left out (A2A 1.0 section 8.4).
//
// The verifier, not the card, decides what is trusted: the keys (a JWK Set
// the caller loads, and jku URLs only below prefixes it names) and the
// algorithms. A card's header cannot nominate its own key or pick a weaker
// algorithm, "none" and the HMAC algorithms are never accepted, and a card
// or header that is not I-JSON (duplicate names, lone surrogates) does not
// verify, since two readers could see different contents in it.
package cardsig

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/cardscan/cardscan/fastvalidate/canon"
	"github.com/cardscan/cardscan/internal/visible"
)

// algorithms are the JWS algorithms a Verifier accepts unless told
// otherwise: every asymmetric signature algorithm of RFC 7518 and RFC 8037
// that go-jose implements. It is the security allow-list, so no importer
// may change it: Algorithms hands out copies.
var algorithms = []string{"EdDSA", "ES256", "ES384", "ES512", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512"}

// Algorithms returns the JWS algorithms a Verifier accepts unless told
// otherwise (WithAlgorithms narrows them) and Sign signs with: every
// asymmetric signature algorithm of RFC 7518 and RFC 8037 that go-jose
// implements. Each call returns a fresh slice, as crypto/tls.CipherSuites
// does, so that changing it changes nothing else.
func Algorithms() []string { return slices.Clone(algorithms) }

// Status is the outcome for one signature.
type Status uint8

const (
	// Verified: the signature verifies with a trusted key.
	Verified Status = iota + 1
	// Invalid: the signature does not verify, or its entry, its protected
	// header or the card cannot be read strictly.
	Invalid
	// KeyUnknown: no trusted key has the signature's kid.
	KeyUnknown
	// AlgRejected: the algorithm is not accepted, or does not fit the key.
	AlgRejected
	// UntrustedOrigin: the signature verifies, but its key is not allowed
	// for an origin of the card (WithTrust).
	UntrustedOrigin
	// Expired: the signature verifies, but it or its key is past its exp
	// or before its nbf, or its x5c certificate has expired.
	Expired
	// Revoked: the signature verifies, but the trust policy revokes its
	// key's thumbprint.
	Revoked
)

// Statuses lists every Status in the order reports count them.
var Statuses = []Status{Verified, UntrustedOrigin, Expired, Revoked, KeyUnknown, Invalid, AlgRejected}

func (s Status) String() string {
	switch s {
	case Verified:
		return "verified"
	case Invalid:
		return "invalid"
	case KeyUnknown:
		return "key-unknown"
	case AlgRejected:
		return "alg"
	case UntrustedOrigin:
		return "untrusted-origin"
	case Expired:
		return "expired"
	case Revoked:
		return "revoked"
	}
	return "unknown"
}

// Signature is the outcome for one entry of a card's signatures.
type Signature struct {
	Index  int    // position in signatures[]
	Status Status // the outcome
	KeyID  string // the protected header's kid, if it could be read
	Alg    string // the protected header's alg, if it could be read
	Reason string // why it did not verify; "" when verified
	// Member names the entry's member at fault when the fault is in one
	// ("protected", "signature" or "header"), "" when the outcome is the
	// entry's as a whole: see Pointer.
	Member string
	// Key says which key was chosen and why, when one was.
	Key string
	// Thumbprint is the RFC 7638 thumbprint of that key.
	Thumbprint string
}

// Result is the outcome for a card.
type Result struct {
	Signatures []Signature
	// SignedBy lists the kids of the signatures that verified, each once,
	// in the order they appear.
	SignedBy []string
	// Origins are the origins the keys had to be allowed for (with
	// WithTrust): the card's interfaces', then the one it was fetched from.
	Origins []string
}

// Verified reports whether at least one signature verified with a trusted
// key: the card is then signed, whatever the other signatures say.
func (r *Result) Verified() bool { return len(r.SignedBy) > 0 }

// Option configures a Verifier.
type Option func(*Verifier) error

// WithAlgorithms sets the accepted algorithms (Algorithms by default).
// "none" and the HMAC algorithms are refused: a verifier holding an HMAC
// secret could sign, and "none" proves nothing.
func WithAlgorithms(algs ...string) Option {
	return func(v *Verifier) error {
		v.algs = map[string]bool{}
		for _, a := range algs {
			if !slices.Contains(algorithms, a) {
				return fmt.Errorf("cardsig: algorithm %s is not accepted (accepted: %v)", strconv.Quote(a), algorithms)
			}
			v.algs[a] = true
		}
		return nil
	}
}

// WithCanonical sets which members take part in the canonical form
// (canon.AsIs by default).
func WithCanonical(mode canon.Mode) Option {
	return func(v *Verifier) error { v.mode = mode; return nil }
}

// WithTrustedJKU lets a protected header's jku be followed when it lies
// below one of the prefixes: https URLs of the same scheme and host whose
// path starts with the prefix's path (see ParseJKUPrefix). Key sets are fetched
// with client (bounded by JKUTimeout and JKUMaxBytes when nil) and kept
// for the Verifier's life. Without this option jku is never followed.
func WithTrustedJKU(client *http.Client, prefixes ...string) Option {
	return func(v *Verifier) error {
		r, err := newJKUResolver(client, prefixes)
		if err != nil {
			return err
		}
		v.jku = r
		return nil
	}
}

// Verifier checks card signatures against a trust store. It is safe for
// concurrent use.
type Verifier struct {
	keys  *KeySet
	algs  map[string]bool
	mode  canon.Mode
	jku   *jkuResolver
	trust *Trust
	fetch *keyFetcher
	canon sync.Pool
}

// NewVerifier returns a Verifier that trusts keys.
func NewVerifier(keys *KeySet, opts ...Option) (*Verifier, error) {
	v := &Verifier{keys: keys}
	if err := WithAlgorithms(algorithms...)(v); err != nil {
		return nil, err
	}
	for _, o := range opts {
		if err := o(v); err != nil {
			return nil, err
		}
	}
	v.canon.New = func() any { return new(canon.Canonicalizer) }
	return v, nil
}

// MaxSignatures bounds the signatures of a card that Verify checks; those
// past it are Invalid unchecked. Each check costs tens of microseconds of
// crypto, so without a bound a 16 MiB card of a hundred thousand entries
// naming a trusted key would hold a verifier for seconds. Key rotation and
// a few signers need far fewer.
const MaxSignatures = 32

// ErrNoCanonicalForm is returned by Verify for a card that is not an
// I-JSON object: nothing in it can verify.
var ErrNoCanonicalForm = errors.New("cardsig: card has no RFC 8785 canonical form")

// notCanonicalError is ErrNoCanonicalForm for a card the canonicalizer
// refused, with its reason.
type notCanonicalError struct{ err error }

// Error names the reason, the json.* rule of the fault, and not its byte
// offset: counted in the card Verify was given, that is neither the
// input's offset nor, for an embedded card, the string's, and the
// validator reports the fault itself at its line and column.
func (e *notCanonicalError) Error() string {
	var ce *canon.Error
	if errors.As(e.err, &ce) {
		return ErrNoCanonicalForm.Error() + " (" + ce.Reason.String() + ")"
	}
	return ErrNoCanonicalForm.Error() + ": " + e.err.Error()
}

// Unwrap makes errors.Is(err, ErrNoCanonicalForm) hold, and errors.As
// find the *canon.Error with the fault's offset.
func (e *notCanonicalError) Unwrap() []error { return []error{ErrNoCanonicalForm, e.err} }

// Verify checks every signature of card. The error is non-nil only when
// the card itself cannot be read strictly; a card without signatures has
// an empty Result.
func (v *Verifier) Verify(card []byte) (*Result, error) {
	return v.VerifyFrom(card, "")
}

// VerifyFrom is Verify for a card fetched from the URL fetchedFrom ("" for
// none): with WithTrust, a key must then be allowed for that URL's origin
// as well as for the card's own.
func (v *Verifier) VerifyFrom(card []byte, fetchedFrom string) (*Result, error) {
	c := v.canon.Get().(*canon.Canonicalizer)
	payload, err := c.Append(nil, card, canon.Options{Mode: v.mode, DropTopLevel: "signatures"})
	v.canon.Put(c)
	if err != nil {
		return nil, &notCanonicalError{err}
	}
	entries, err := signatureEntries(card)
	if err != nil {
		return nil, err
	}
	res := &Result{Signatures: make([]Signature, 0, len(entries))}
	if v.trust != nil && len(entries) > 0 {
		res.Origins = CardOrigins(card)
		if fetchedFrom != "" {
			o, err := Origin(fetchedFrom)
			if err != nil {
				return nil, fmt.Errorf("cardsig: fetched from %w", err)
			}
			if !slices.Contains(res.Origins, o) {
				res.Origins = append(res.Origins, o)
			}
		}
	}
	for i, e := range entries {
		var s Signature
		if i < MaxSignatures {
			s = v.verifyOne(e, payload, res.Origins)
		} else {
			s = Signature{Status: Invalid, Reason: "not checked: only a card's first " + strconv.Itoa(MaxSignatures) + " signatures are"}
		}
		s.Index = i
		res.Signatures = append(res.Signatures, s)
		if s.Status == Verified && !slices.Contains(res.SignedBy, s.KeyID) {
			res.SignedBy = append(res.SignedBy, s.KeyID)
		}
	}
	return res, nil
}

// signatureEntries returns the raw entries of the card's top-level
// signatures array. The card is I-JSON here, so encoding/json reads the
// names and values exactly as the scanner did.
func signatureEntries(card []byte) ([]json.RawMessage, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(card, &top); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoCanonicalForm, err)
	}
	raw, ok := top["signatures"]
	if !ok {
		return nil, nil
	}
	var entries []json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		// Not an array: one entry that can never verify, so that a
		// verifier requiring a signature says why.
		return []json.RawMessage{raw}, nil
	}
	return entries, nil
}

func (v *Verifier) verifyOne(entry json.RawMessage, payload []byte, origins []string) Signature {
	var e map[string]json.RawMessage
	if err := json.Unmarshal(entry, &e); err != nil {
		return Signature{Status: Invalid, Reason: "signatures entry is not an object"}
	}
	protected, ok := jsonString(e["protected"])
	if !ok {
		return Signature{Status: Invalid, Reason: "protected is missing or not a string", Member: "protected"}
	}
	sigText, ok := jsonString(e["signature"])
	if !ok {
		return Signature{Status: Invalid, Reason: "signature is missing or not a string", Member: "signature"}
	}
	h, reason := parseHeader(protected)
	s := Signature{KeyID: h.kid, Alg: h.alg}
	if reason != "" {
		s.Status, s.Reason, s.Member = Invalid, reason, "protected"
		return s
	}
	if reason = unprotectedFault(e["header"], h.names); reason != "" {
		s.Status, s.Reason, s.Member = Invalid, reason, "header"
		return s
	}
	if !v.algs[h.alg] {
		s.Status, s.Reason, s.Member = AlgRejected, "algorithm "+quoted(h.alg)+" is not accepted", "protected"
		return s
	}
	sig, err := base64.RawURLEncoding.Strict().DecodeString(sigText)
	if err != nil || len(sig) == 0 {
		s.Status, s.Reason, s.Member = Invalid, "signature is not unpadded base64url", "signature"
		return s
	}
	choice, status, why := v.findKey(h, origins)
	if status != 0 {
		s.Status, s.Reason = status, why
		return s
	}
	key := choice.key
	s.Key = choice.how
	if why := keyFits(h.alg, key); why != "" {
		s.Status, s.Reason = AlgRejected, why
		return s
	}
	if err := checkJWS(protected, sig, h.alg, key, payload); err != nil {
		s.Status, s.Reason = Invalid, err.Error()
		return s
	}
	return v.judgeGood(s, h, choice, origins)
}

// judgeGood decides what a signature that verifies with the chosen key is
// worth: revoked, expired, not allowed for an origin, or verified.
func (v *Verifier) judgeGood(s Signature, h header, c keyChoice, origins []string) Signature {
	var err error
	if s.Thumbprint, err = Thumbprint(c.key.JSONWebKey); err != nil {
		s.Status, s.Reason = Invalid, err.Error()
		return s
	}
	now := time.Now()
	if v.trust != nil {
		now = v.trust.Now()
		if v.trust.revoked(s.Thumbprint) {
			s.Status, s.Reason = Revoked, "key "+quoted(h.kid)+" (thumbprint "+s.Thumbprint+") is revoked"
			return s
		}
	}
	if why := expiry(h, c.key, now); why != "" {
		s.Status, s.Reason = Expired, why
		return s
	}
	if v.trust != nil {
		if len(origins) == 0 && !c.anyOrigin {
			s.Status, s.Reason = UntrustedOrigin, "the card names no origin (no interface URL), so no origin-bound key can sign for it"
			return s
		}
		for _, o := range origins {
			if why := v.trust.allowedFor(c, s.Thumbprint, o); why != "" {
				s.Status, s.Reason = UntrustedOrigin, why
				return s
			}
		}
	}
	s.Status = Verified
	return s
}

func jsonString(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// maxChain bounds an x5c chain: real ones are two or three certificates,
// and each one parsed costs time.
const maxChain = 8

type header struct {
	names         map[string]json.RawMessage // every member, by name
	alg, kid, jku string
	x5c           []string
	// exp, nbf and iat are zero when the header has none.
	exp, nbf, iat time.Time
}

// parseHeader reads a protected header strictly: unpadded base64url of an
// I-JSON object with non-empty string alg and kid, typ "JOSE" if present,
// jku a string if present, and no crit (no extension is understood here,
// so a header that marks one critical must be refused, RFC 7515 section
// 4.1.11) nor b64 (RFC 7797 would change what was signed).
func parseHeader(protected string) (header, string) {
	var h header
	raw, err := base64.RawURLEncoding.Strict().DecodeString(protected)
	if err != nil {
		return h, "protected is not unpadded base64url"
	}
	if _, err := canon.Append(nil, raw, canon.Options{MaxDepth: 32}); err != nil {
		var ce *canon.Error
		if errors.As(err, &ce) {
			return h, "protected header is not an I-JSON object (" + ce.Reason.String() + ")"
		}
		return h, "protected header is not an I-JSON object"
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return h, "protected header is not an I-JSON object"
	}
	h.names = m
	var ok bool
	if h.alg, ok = jsonString(m["alg"]); !ok || h.alg == "" {
		return h, "protected header has no non-empty string alg"
	}
	if h.kid, ok = jsonString(m["kid"]); !ok || h.kid == "" {
		return h, "protected header has no non-empty string kid"
	}
	if t, present := m["typ"]; present {
		if typ, ok := jsonString(t); !ok || typ != "JOSE" {
			return h, "protected header's typ is not \"JOSE\""
		}
	}
	if j, present := m["jku"]; present {
		if h.jku, ok = jsonString(j); !ok || h.jku == "" {
			return h, "protected header's jku is not a non-empty string"
		}
	}
	if x, present := m["x5c"]; present {
		if json.Unmarshal(x, &h.x5c) != nil || len(h.x5c) == 0 {
			return h, "protected header's x5c is not a non-empty array of strings"
		}
		if len(h.x5c) > maxChain {
			return h, "protected header's x5c has more than " + strconv.Itoa(maxChain) + " certificates"
		}
	}
	for name, at := range map[string]*time.Time{"exp": &h.exp, "nbf": &h.nbf, "iat": &h.iat} {
		if raw, present := m[name]; present {
			t, ok := numericDate(raw)
			if !ok {
				return h, "protected header's " + name + " is not a NumericDate (seconds since 1970)"
			}
			*at = t
		}
	}
	if _, present := m["crit"]; present {
		return h, "protected header has crit, and no extension is understood"
	}
	if _, present := m["b64"]; present {
		return h, "protected header has b64 (RFC 7797), which card signatures do not use"
	}
	return h, ""
}

// maxQuoted bounds what a reason quotes of a card (a kid, an alg, a jku,
// a header's member name): a card holds up to MaxSignatures of them, and
// a reason is a line a person reads.
const maxQuoted = 120

// quoted quotes at most maxQuoted bytes of s, and its size when it is
// longer (visible.QuoteCut).
func quoted(s string) string { return visible.QuoteCut(s, maxQuoted) }

// mustBeProtected are the header parameters that mean something only
// when the signature covers them: crit (RFC 7515 section 4.1.11) and b64
// (RFC 7797 section 3).
var mustBeProtected = []string{"crit", "b64"}

// unprotectedFault says what is wrong with a signature entry's header
// member, the JWS Unprotected Header: RFC 7515 section 7.2.1 makes it a
// JSON object whose names are not also the protected header's, for a
// reader taking the kid or alg from one and a second reader from the
// other would judge two different signatures. "" when it is absent or
// sound; its other parameters are not used.
func unprotectedFault(raw json.RawMessage, protected map[string]json.RawMessage) string {
	if raw == nil {
		return ""
	}
	var m map[string]json.RawMessage
	if raw[0] != '{' || json.Unmarshal(raw, &m) != nil {
		return "header (the unprotected header) is not a JSON object"
	}
	for _, name := range slices.Sorted(maps.Keys(m)) {
		if slices.Contains(mustBeProtected, name) {
			return "header (the unprotected header) has " + quoted(name) + ", which must be in the protected header"
		}
		if _, both := protected[name]; both {
			return "header (the unprotected header) and the protected header both have " + quoted(name) + ", which RFC 7515 section 7.2.1 forbids"
		}
	}
	return ""
}

// UnverifiedError says why a card has no signature a trusted key verifies.
type UnverifiedError struct {
	// Result lists each signature's outcome; nil when the card could not
	// be read strictly.
	Result *Result
	err    error
}

func (e *UnverifiedError) Error() string {
	msg := "the agent card has no signature that verifies with a trusted key"
	switch {
	case e.err != nil:
		return msg + ": " + e.err.Error()
	case len(e.Result.Signatures) == 0:
		return msg + ": it is not signed"
	}
	for i, s := range e.Result.Signatures {
		if i == 0 {
			msg += ": "
		} else {
			msg += "; "
		}
		msg += "signatures/" + strconv.Itoa(s.Index) + ": " + s.Reason
	}
	return msg
}

// Unwrap returns ErrNoCanonicalForm's error for a card that could not be
// read strictly.
func (e *UnverifiedError) Unwrap() error { return e.err }

// Check returns nil when at least one signature of card verifies, and an
// *UnverifiedError otherwise: the form cardhttp.WithSignatures takes.
func (v *Verifier) Check(card []byte) error { return v.CheckFrom(card, "") }

// CheckFrom is Check for a card fetched from the URL fetchedFrom: the form
// cardhttp.WithTrust takes.
func (v *Verifier) CheckFrom(card []byte, fetchedFrom string) error {
	res, err := v.VerifyFrom(card, fetchedFrom)
	if err != nil {
		return &UnverifiedError{err: err}
	}
	if !res.Verified() {
		return &UnverifiedError{Result: res}
	}
	return nil
}
