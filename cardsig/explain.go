package cardsig

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/cardscan/cardscan/fastvalidate/canon"
	"github.com/go-jose/go-jose/v4"
)

// The canonicalisation variants Explain tries: what signers are known to
// sign. A2A 1.0.1 section 8.4.1 leaves room for all of them (A2A issues
// 2122 and 2249, a2a-js 605, a2a-python 1174).
const (
	// VariantAsIs is RFC 8785 over every member served (cardscan sign's
	// default, and any JCS signer that does not clean).
	VariantAsIs = "as-is"
	// VariantDropEmpty drops "", [] and {} at every depth first (the
	// Python SDK's _clean_empty; cardscan sign --canonical drop-empty).
	VariantDropEmpty = "drop-empty"
	// VariantA2AJS is what @a2a-js/sdk 1.3.0's generateAgentCardSignature
	// signs: the card read as the A2A 1.0 AgentCard message and written
	// back (AgentCard.fromJSON/toJSON: members the message lacks, such as
	// 0.x's url and protocolVersion, are gone; snake_case names become
	// camelCase), then null, "", [] and {} dropped at every depth.
	// cardscan applies the message's top-level fields; nested objects
	// are taken as served.
	VariantA2AJS = "a2a-js@1.3.0"
)

// Variants lists the variant names in the order Explain tries them.
var Variants = []string{VariantAsIs, VariantDropEmpty, VariantA2AJS}

// a2aJSFields maps the A2A 1.0 AgentCard message's JSON names, and the
// snake_case names AgentCard.fromJSON also reads, to the name toJSON
// writes (@a2a-js/sdk 1.3.0, dist/index.js).
var a2aJSFields = map[string]string{
	"name": "name", "description": "description", "version": "version",
	"supportedInterfaces": "supportedInterfaces", "supported_interfaces": "supportedInterfaces",
	"provider": "provider", "capabilities": "capabilities", "skills": "skills",
	"documentationUrl": "documentationUrl", "documentation_url": "documentationUrl",
	"securitySchemes": "securitySchemes", "security_schemes": "securitySchemes",
	"securityRequirements": "securityRequirements", "security_requirements": "securityRequirements",
	"defaultInputModes": "defaultInputModes", "default_input_modes": "defaultInputModes",
	"defaultOutputModes": "defaultOutputModes", "default_output_modes": "defaultOutputModes",
	"iconUrl": "iconUrl", "icon_url": "iconUrl",
}

// CanonicalVariant is a card's canonical form under one variant.
type CanonicalVariant struct {
	Name  string
	Bytes []byte // nil when Err is set
	Err   error
}

// CanonicalVariants returns card's canonical form, signatures left out,
// under each of Variants.
func CanonicalVariants(card []byte) []CanonicalVariant {
	out := make([]CanonicalVariant, 0, len(Variants))
	for _, mode := range []struct {
		name string
		mode canon.Mode
	}{{VariantAsIs, canon.AsIs}, {VariantDropEmpty, canon.DropEmpty}} {
		b, err := canon.Append(nil, card, canon.Options{Mode: mode.mode, DropTopLevel: "signatures"})
		out = append(out, CanonicalVariant{Name: mode.name, Bytes: b, Err: err})
	}
	b, err := a2aJSCanonical(card)
	return append(out, CanonicalVariant{Name: VariantA2AJS, Bytes: b, Err: err})
}

// a2aJSCanonical is VariantA2AJS. The card must be I-JSON (the as-is form
// checked it); the members kept are re-encoded with their numbers as
// written, so that the canonicalizer writes them as RFC 8785 does.
func a2aJSCanonical(card []byte) ([]byte, error) {
	if _, err := canon.Append(nil, card, canon.Options{}); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(card))
	dec.UseNumber()
	var top map[string]any
	if err := dec.Decode(&top); err != nil {
		return nil, err
	}
	kept := map[string]any{}
	for name, v := range top {
		if to, ok := a2aJSFields[name]; ok {
			if _, camel := top[to]; camel && to != name {
				continue // fromJSON prefers the camelCase name
			}
			if c, ok := dropNullAndEmpty(v); ok {
				kept[to] = c
			}
		}
	}
	b, err := json.Marshal(kept)
	if err != nil {
		return nil, err
	}
	return canon.Append(nil, b, canon.Options{})
}

// dropNullAndEmpty is a2a-js's cleanEmpty: null, "" and the arrays and
// objects left empty are dropped, at every depth. ok is false for a value
// dropped.
func dropNullAndEmpty(v any) (any, bool) {
	switch v := v.(type) {
	case nil:
		return nil, false
	case string:
		return v, v != ""
	case []any:
		out := make([]any, 0, len(v))
		for _, e := range v {
			if c, ok := dropNullAndEmpty(e); ok {
				out = append(out, c)
			}
		}
		return out, len(out) > 0
	case map[string]any:
		out := map[string]any{}
		for k, e := range v {
			if c, ok := dropNullAndEmpty(e); ok {
				out[k] = c
			}
		}
		return out, len(out) > 0
	}
	return v, true
}

// Explanation is what Explain found for one signature.
type Explanation struct {
	Signature
	// Header is the decoded protected header, nil when it is not base64url.
	Header json.RawMessage
	// Matches names the variants whose canonical form the signature
	// verifies over with the key chosen; empty when none does or no key
	// was found.
	Matches []string
}

// Explain verifies card as VerifyFrom does and, for each signature, also
// tries the key chosen over every canonicalisation variant: which bytes
// the signer signed. The variants are returned once for the card.
func (v *Verifier) Explain(card []byte, fetchedFrom string) ([]Explanation, []CanonicalVariant, error) {
	res, err := v.VerifyFrom(card, fetchedFrom)
	if err != nil {
		return nil, nil, err
	}
	variants := CanonicalVariants(card)
	entries, _ := signatureEntries(card)
	out := make([]Explanation, 0, len(res.Signatures))
	for _, s := range res.Signatures {
		ex := Explanation{Signature: s}
		if s.Index < len(entries) && s.Index < MaxSignatures {
			ex.Header, ex.Matches = v.tryVariants(entries[s.Index], res.Origins, variants)
		}
		out = append(out, ex)
	}
	return out, variants, nil
}

// tryVariants decodes entry's header and checks its signature over each
// variant with the key its header leads to.
func (v *Verifier) tryVariants(entry json.RawMessage, origins []string, variants []CanonicalVariant) (json.RawMessage, []string) {
	var e map[string]json.RawMessage
	if json.Unmarshal(entry, &e) != nil {
		return nil, nil
	}
	protected, _ := jsonString(e["protected"])
	sigText, _ := jsonString(e["signature"])
	raw, err := base64.RawURLEncoding.Strict().DecodeString(protected)
	if err != nil {
		return nil, nil
	}
	hdr := json.RawMessage(raw)
	h, why := parseHeader(protected)
	sig, err := base64.RawURLEncoding.Strict().DecodeString(sigText)
	if why != "" || err != nil || len(sig) == 0 {
		return hdr, nil
	}
	choice, status, _ := v.findKey(h, origins)
	if status != 0 || keyFits(h.alg, choice.key) != "" {
		return hdr, nil
	}
	var matches []string
	for _, cv := range variants {
		if cv.Err == nil && checkJWS(protected, sig, h.alg, choice.key, cv.Bytes) == nil {
			matches = append(matches, cv.Name)
		}
	}
	return hdr, matches
}

// checkJWS verifies a detached JWS over payload with key. go-jose
// rebuilds the signing input from the protected header as given and the
// payload; the signature goes in re-encoded, so that only the bytes that
// were decoded strictly reach it.
func checkJWS(protected string, sig []byte, alg string, key trustedKey, payload []byte) error {
	compact := protected + ".." + base64.RawURLEncoding.EncodeToString(sig)
	obj, err := jose.ParseDetached(compact, payload, []jose.SignatureAlgorithm{jose.SignatureAlgorithm(alg)})
	if err != nil {
		return fmt.Errorf("JWS does not parse: %w", err)
	}
	if _, err := obj.Verify(key.Key); err != nil {
		return fmt.Errorf("signature does not verify with key %s", strconv.Quote(key.KeyID))
	}
	return nil
}

// FirstDifference returns the offset of the first byte where a and b
// differ, or -1 when they are equal; a shorter text differs at its end.
func FirstDifference(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) == len(b) {
		return -1
	}
	return n
}
