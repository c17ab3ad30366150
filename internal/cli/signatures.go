package cli

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/cardscan/cardscan/cardsig"
	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/cmdflag"
	"github.com/cardscan/cardscan/internal/fetch"
	"github.com/cardscan/cardscan/internal/pipeline"
)

// repeated is a flag that may be given several times, each value kept.
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ", ") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

// maxKeySet bounds a --keys file, as a fetched jku is bounded: a trust
// store is a few keys, and a file far larger is no JWK Set.
const maxKeySet = cardsig.JKUMaxBytes

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
	if !slices.Contains([]string{"off", "check", "require"}, s.signatures) {
		return usagef("--signatures %q: want off, check or require", s.signatures)
	}
	if !slices.Contains([]string{"as-is", "drop-empty"}, s.canonical) {
		return usagef("--canonical %q: want as-is or drop-empty", s.canonical)
	}
	if s.signatures == "require" && len(s.keys) == 0 && len(s.trustJKU) == 0 && s.trustFile == "" && !hasTrust {
		return usagef("--signatures require needs trusted keys: --keys, --trust-jku or --trust")
	}
	if _, err := parseNow(s.now); err != nil {
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

func (s *signatureOptions) hasTrust(pf *policyFile) bool {
	return s.trustFile != "" || pf != nil && pf.trust != nil
}

// trustPolicy reads the trust policy in force, nil when there is none.
// --trust wins over the policy file's section, as flags do.
func trustPolicy(o *signatureOptions, pf *policyFile) (*cardsig.Trust, error) {
	var t *cardsig.Trust
	var err error
	switch {
	case o.trustFile != "":
		t, err = loadTrust(o.trustFile)
	case pf != nil && pf.trust != nil:
		p := pf
		t, err = parseTrust(p.path, p.dir, p.trust)
	default:
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	t.Now, _ = parseNow(o.now)
	t.Client = fetch.KeySetClient(cardsig.JKUTimeout, false)
	return t, nil
}

// signatureVerifier builds the verifier the flags and the trust policy
// ask for, or nil when signatures are not to be verified.
func signatureVerifier(o *options) (*cardsig.Verifier, error) {
	return o.signatureOptions.verifier(o.policyFile)
}

// verifier is signatureVerifier for the flags o and the policy file pf
// (nil for none).
func (o *signatureOptions) verifier(pf *policyFile) (*cardsig.Verifier, error) {
	if o.signatures == "off" || len(o.keys) == 0 && len(o.trustJKU) == 0 && !o.hasTrust(pf) {
		return nil, nil
	}
	keys := new(cardsig.KeySet)
	for _, path := range o.keys {
		data, err := readKeySet(path)
		if err != nil {
			return nil, fmt.Errorf("--keys %s: %s", path, describe(err))
		}
		set, err := cardsig.ParseKeySet(data)
		if err == nil {
			keys, err = keys.Merge(set)
		}
		if err != nil {
			return nil, fmt.Errorf("--keys %s: %s", path, strings.TrimPrefix(err.Error(), "cardsig: "))
		}
	}
	opts := []cardsig.Option{}
	if o.canonical == "drop-empty" {
		opts = append(opts, cardsig.WithCanonical(fastvalidate.CanonicalDropEmpty))
	}
	if len(o.trustJKU) > 0 {
		// nil: the client cardsig bounds as cardscan fetch is bounded.
		opts = append(opts, cardsig.WithTrustedJKU(nil, o.trustJKU...))
	}
	trust, err := trustPolicy(o, pf)
	if err != nil {
		return nil, err
	}
	if trust != nil {
		opts = append(opts, cardsig.WithTrust(trust))
	} else if o.now != "" {
		// Without a policy the clock still judges exp and nbf.
		now, _ := parseNow(o.now)
		opts = append(opts, cardsig.WithTrust(&cardsig.Trust{Now: now, Origins: map[string]*cardsig.OriginTrust{}}))
	}
	v, err := cardsig.NewVerifier(keys, opts...)
	if err != nil {
		return nil, fmt.Errorf("--trust-jku: %s", strings.TrimPrefix(err.Error(), "cardsig: "))
	}
	return v, nil
}

func readKeySet(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxKeySet+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxKeySet {
		return nil, fmt.Errorf("larger than %d bytes", maxKeySet)
	}
	return data, nil
}
