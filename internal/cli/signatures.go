package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/cardscan/cardscan/cardsig"
	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/pipeline"
)

// repeated is a flag that may be given several times, each value kept.
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ", ") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

// maxKeySet bounds a --keys file, as a fetched jku is bounded: a trust
// store is a few keys, and a file far larger is no JWK Set.
const maxKeySet = cardsig.JKUMaxBytes

// signatureConfig builds the verification --keys, --trust-jku,
// --signatures and --canonical ask for, or nil when cards' signatures are
// not to be verified: with --signatures off, or with no keys, when only
// their form is checked (a2a.signature-format).
func signatureConfig(o *options) (*pipeline.Signatures, error) {
	if o.signatures == "off" || len(o.keys) == 0 && len(o.trustJKU) == 0 {
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
	v, err := cardsig.NewVerifier(keys, opts...)
	if err != nil {
		return nil, fmt.Errorf("--trust-jku: %s", strings.TrimPrefix(err.Error(), "cardsig: "))
	}
	return &pipeline.Signatures{Verifier: v, Require: o.signatures == "require"}, nil
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
