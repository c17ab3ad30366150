package cli

import (
	"net/http"

	"github.com/cardscan/cardscan/cardsig"
	"github.com/cardscan/cardscan/internal/cmdflag"
	"github.com/cardscan/cardscan/internal/fetch"
	"github.com/cardscan/cardscan/internal/pipeline"
	"github.com/cardscan/cardscan/internal/trustfile"
)

// signatureOptions are the flags that verify cards' signatures, which
// validation, diff and verify share: trustfile's, so that serve and
// fetch, which declare them through trustfile too, read them alike.
type signatureOptions struct {
	trustfile.Flags
}

// addFlags declares the signature flags of a command other than
// validation, whose help words them for itself.
func (s *signatureOptions) addFlags(fs *cmdflag.Set) { s.AddFlags(fs) }

// check checks the signature flags' values; hasTrust says a trust policy
// is in force besides --trust (a policy file's section).
func (s *signatureOptions) check(hasTrust bool) error {
	if err := s.Check(hasTrust); err != nil {
		return usagef("%s", err)
	}
	// A policy file's trust section stays allowed: --signatures off is
	// how one run sets it aside. Keys given on the command line beside
	// it were read for nothing, the cards passing unverified.
	if s.Signatures == "off" && (len(s.Keys) > 0 || len(s.TrustJKU) > 0 || s.TrustFile != "") {
		return usagef("--signatures off verifies no signature, so --keys, --trust-jku and --trust are read for nothing: drop --keys, --trust-jku and --trust to judge the cards unverified, or drop --signatures off to verify with them")
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
	return &pipeline.Signatures{Verifier: v, Require: s.Signatures == "require"}, nil
}

// hasTrust reports whether a trust policy is in force: --trust, or the
// policy file's trust section.
func (o *options) hasTrust() bool {
	return o.TrustFile != "" || o.policyFile != nil && o.policyFile.trust != nil
}

// signatureVerifier builds the verifier the flags and the trust policy
// ask for, or nil when signatures are not to be verified.
func signatureVerifier(o *options) (*cardsig.Verifier, error) {
	return o.signatureOptions.verifier(o.policyFile)
}

// verifier is signatureVerifier for the flags o and the policy file pf
// (nil for none).
func (o *signatureOptions) verifier(pf *policyFile) (*cardsig.Verifier, error) {
	var section func() (*cardsig.Trust, error)
	if pf != nil && pf.trust != nil {
		section = func() (*cardsig.Trust, error) { return trustfile.Parse(pf.path, pf.dir, pf.trust) }
	}
	// Only a trust policy fetches key sets; building the client (its
	// transport, its user agent from the build information) is left to
	// the runs that have one, out of every other run's start.
	var keySets *http.Client
	if o.TrustFile != "" || section != nil {
		keySets = fetch.KeySetClient(cardsig.JKUTimeout, false)
	}
	return o.Verifier(section, keySets)
}
