package cardsig

import (
	"encoding/json"
	"strings"

	"github.com/cardscan/cardscan/fastvalidate"
)

// Code returns the rule a signature with outcome s breaks:
// a2a.signature-invalid for Invalid (and for Verified, which breaks none).
func (s Status) Code() fastvalidate.Code {
	switch s {
	case UntrustedOrigin:
		return fastvalidate.CodeA2ASignatureUntrustedOrigin
	case Expired:
		return fastvalidate.CodeA2ASignatureExpired
	case Revoked:
		return fastvalidate.CodeA2ASignatureRevoked
	case KeyUnknown:
		return fastvalidate.CodeA2ASignatureKeyUnknown
	case AlgRejected:
		return fastvalidate.CodeA2ASignatureAlg
	}
	return fastvalidate.CodeA2ASignatureInvalid
}

// Findings lists why text, the card Check was given (its embedded form
// too), fails it, as errors placed in text as the scan with --signatures
// require places them: each signature that does not verify at its entry
// or the member at fault, then a2a.signature-missing at the signatures
// member, or at the card when it is not signed. A card with no canonical
// form but with signatures has them all invalid, at the member.
func (e *UnverifiedError) Findings(text []byte) []fastvalidate.Finding {
	loc := NewTextLocator(text)
	var out []fastvalidate.Finding
	add := func(code fastvalidate.Code, path string, offset int, msg string) {
		f := fastvalidate.NewFinding(code, fastvalidate.SeverityError, path, msg)
		f.Offset = offset
		out = append(out, f)
	}
	signed := false
	switch {
	case e.err != nil:
		if card, _ := Unembed(text); HasSignaturesMember(card) {
			signed = true
			add(fastvalidate.CodeA2ASignatureInvalid, "/signatures", loc.Signatures(),
				"no signature can verify: "+strings.TrimPrefix(e.err.Error(), "cardsig: "))
		}
	case e.Result != nil:
		signed = len(e.Result.Signatures) > 0
		for i := range e.Result.Signatures {
			sig := &e.Result.Signatures[i]
			if sig.Status != Verified {
				add(sig.Status.Code(), sig.Pointer(), loc.Offset(sig), sig.Reason)
			}
		}
	}
	if signed {
		add(fastvalidate.CodeA2ASignatureMissing, "/signatures", loc.Signatures(), "no signature verifies with a trusted key")
	} else {
		add(fastvalidate.CodeA2ASignatureMissing, "", 0, "the card is not signed")
	}
	return out
}

// HasSignaturesMember reports whether card, which has no canonical form
// (Verify failed on it: a member named twice, a lone surrogate, a number
// beyond float64), still reads as an object with a top-level signatures
// member: then it was meant to be signed, and no signature in it can
// verify, which a checker reports as an invalid signature rather than as
// a card not signed.
func HasSignaturesMember(card []byte) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(card, &top) != nil {
		return false
	}
	_, ok := top["signatures"]
	return ok
}
