package cli

import (
	"github.com/cardscan/cardscan/cardsig"
	"github.com/cardscan/cardscan/internal/cmdflag"
	"github.com/cardscan/cardscan/internal/fetch"
	"github.com/cardscan/cardscan/internal/pipeline"
	"github.com/cardscan/cardscan/internal/trustfile"
)

// repeated is a flag that may be given several times, each value kept.
type repeated = trustfile.Repeated

// signatureOptions are the flags that verify cards' signatures, which
// validation, diff and serve share.
type signatureOptions struct {
	keys       repeated
	trustJKU   repeated
	signatures string
	canonical  string
	trustFile  string
	now        string
}

// addFlags declares the signature flags of a command other than
// validation, whose help words them for itself.
func (s *signatureOptions) addFlags(fs *cmdflag.Set) {
	fs.Var(&s.keys, "--keys FILE", "trusted public keys, a JWK Set (repeatable): verify\n"+
		"the A2A signatures of the cards that carry them")
	fs.Var(&s.trustJKU, "--trust-jku PREFIX", "follow a signature's jku below this https URL\n"+
		"prefix (repeatable)")
	fs.String(&s.trustFile, "--trust FILE", "", "a trust policy binding signing keys to origins\n"+
		"(see docs/signatures.md)")
	fs.String(&s.now, "--now TIME", "", "judge signature expiry at this RFC 3339 time\n"+
		"(default: the clock)")
	fs.String(&s.signatures, "--signatures MODE", "check", "off, check or require (as for validation)").HideDefault()
	fs.String(&s.canonical, "--canonical MODE", "as-is", "as-is or drop-empty: the canonical form signatures\n"+
		"cover")
}

// check checks the signature flags' values; hasTrust says a trust policy
// is in force besides --trust (a policy file's section).
func (s *signatureOptions) check(hasTrust bool) error {
	f := s.flags()
	if err := f.Check(hasTrust); err != nil {
		return usagef("%s", err)
	}
	return nil
}

// signatureConfig builds the verification --keys, --trust-jku,
// --signatures and --canonical ask for, or nil when cards' signatures are
// not to be verified: with --signatures off, or with no keys, when only
// their form is checked (a2a.signature-format).
func signatureConfig(o *options) (*pipeline.Signatures, error) {
	return o.signatureOptions.config(o.policyFile)
}

// config is signatureConfig for the flags s and the policy file pf (nil
// for none).
func (s *signatureOptions) config(pf *policyFile) (*pipeline.Signatures, error) {
	v, err := s.verifier(pf)
	if v == nil || err != nil {
		return nil, err
	}
	return &pipeline.Signatures{Verifier: v, Require: s.signatures == "require"}, nil
}

// hasTrust reports whether a trust policy is in force: --trust, or the
// policy file's trust section.
func (o *options) hasTrust() bool {
	return o.trustFile != "" || o.policyFile != nil && o.policyFile.trust != nil
}

// signatureVerifier builds the verifier the flags and the trust policy
// ask for, or nil when signatures are not to be verified.
func signatureVerifier(o *options) (*cardsig.Verifier, error) {
	return o.signatureOptions.verifier(o.policyFile)
}

// verifier is signatureVerifier for the flags o and the policy file pf
// (nil for none).
func (o *signatureOptions) verifier(pf *policyFile) (*cardsig.Verifier, error) {
	f := o.flags()
	var section func() (*cardsig.Trust, error)
	if pf != nil && pf.trust != nil {
		section = func() (*cardsig.Trust, error) { return trustfile.Parse(pf.path, pf.dir, pf.trust) }
	}
	return f.Verifier(section, fetch.KeySetClient(cardsig.JKUTimeout, false))
}

// flags are o as trustfile words them.
func (o *signatureOptions) flags() trustfile.Flags {
	return trustfile.Flags{Keys: trustfile.Repeated(o.keys), TrustJKU: trustfile.Repeated(o.trustJKU),
		Signatures: o.signatures, Canonical: o.canonical, TrustFile: o.trustFile, Now: o.now}
}
