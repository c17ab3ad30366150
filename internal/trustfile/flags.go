package trustfile

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/cardscan/cardscan/cardsig"
	"github.com/cardscan/cardscan/fastvalidate/canon"
	"github.com/cardscan/cardscan/internal/clobber"
	"github.com/cardscan/cardscan/internal/cmdflag"
	"github.com/cardscan/cardscan/internal/report"
)

// Repeated is a flag that may be given several times, each value kept.
type Repeated []string

func (r *Repeated) String() string     { return strings.Join(*r, ", ") }
func (r *Repeated) Set(v string) error { *r = append(*r, v); return nil }

// Flags are the flags that verify cards' signatures, as the scan command
// words them: --keys, --trust-jku, --trust, --now, --signatures and
// --canonical.
type Flags struct {
	Keys       Repeated
	TrustJKU   Repeated
	Signatures string
	Canonical  string
	TrustFile  string
	Now        string
}

// AddFlags declares the signature flags of a command other than the scan,
// whose help words them for itself.
func (f *Flags) AddFlags(fs *cmdflag.Set) {
	fs.Var(&f.Keys, "--keys FILE", "trusted public keys, a JWK Set (repeatable): verify\n"+
		"the A2A signatures of the cards that carry them")
	fs.Var(&f.TrustJKU, "--trust-jku PREFIX", "follow a signature's jku below this https URL\n"+
		"prefix (repeatable)")
	fs.String(&f.TrustFile, "--trust FILE", "", "a trust policy binding signing keys to origins\n"+
		"(see docs/signatures.md)")
	fs.String(&f.Now, "--now TIME", "", "judge signature expiry at this RFC 3339 time\n"+
		"(default: the clock)")
	fs.String(&f.Signatures, "--signatures MODE", "check", "off, check or require (as for validation)").HideDefault()
	fs.String(&f.Canonical, "--canonical MODE", "as-is", "as-is or drop-empty: the canonical form signatures\n"+
		"cover")
}

// KeySetError words err, from reading the key set data at path: where the
// set is no strict JSON, by the line and column of the fault, as cardscan
// names every other fault; otherwise as cardsig says it.
func KeySetError(path string, data []byte, err error) string {
	var notCanonical *canon.Error
	if errors.As(err, &notCanonical) {
		line, col := report.LineColumn(data, notCanonical.Offset)
		return fmt.Sprintf("%s:%d:%d: %s: bad key set: not strict JSON (I-JSON, RFC 7493)", path, line, col, notCanonical.Reason)
	}
	return path + ": " + strings.TrimPrefix(err.Error(), "cardsig: ")
}

// ReadFiles are the files the flags name to be read: the key sets and the
// trust policy, for a command to guard against its outputs.
func (f *Flags) ReadFiles() []clobber.File {
	var files []clobber.File
	for _, k := range f.Keys {
		files = append(files, clobber.File{Role: "--keys", Path: k})
	}
	if f.TrustFile != "" {
		files = append(files, clobber.File{Role: "--trust", Path: f.TrustFile})
	}
	return files
}

// Check checks the flags' values; hasTrust says a trust policy is in
// force besides --trust (a policy file's section).
func (f *Flags) Check(hasTrust bool) error {
	if !slices.Contains([]string{"off", "check", "require"}, f.Signatures) {
		return fmt.Errorf("--signatures %q: want off, check or require", f.Signatures)
	}
	if !slices.Contains([]string{"as-is", "drop-empty"}, f.Canonical) {
		return fmt.Errorf("--canonical %q: want as-is or drop-empty", f.Canonical)
	}
	if f.Signatures == "require" && len(f.Keys) == 0 && len(f.TrustJKU) == 0 && f.TrustFile == "" && !hasTrust {
		return fmt.Errorf("--signatures require needs trusted keys: --keys, --trust-jku or --trust")
	}
	if _, err := ParseNow(f.Now); err != nil {
		return err
	}
	return nil
}

// Verifier builds the verifier the flags ask for, or nil when signatures
// are not to be verified: with --signatures off, or with no keys and no
// policy, when only their form is checked (a2a.signature-format).
// section reads the trust policy in force when --trust is not given (a
// policy file's section), nil for none; client fetches the policy's key
// sets and should refuse private addresses, as cardscan fetch's does.
func (f *Flags) Verifier(section func() (*cardsig.Trust, error), client *http.Client) (*cardsig.Verifier, error) {
	if f.Signatures == "off" {
		return nil, nil
	}
	trust, err := f.trust(section)
	if err != nil {
		return nil, err
	}
	if len(f.Keys) == 0 && len(f.TrustJKU) == 0 && trust == nil {
		return nil, nil
	}
	keys := new(cardsig.KeySet)
	for _, path := range f.Keys {
		data, err := ReadKeySet(path)
		if err != nil {
			return nil, fmt.Errorf("--keys %s: %s", path, pathErr(err))
		}
		set, err := cardsig.ParseKeySet(data)
		if err == nil {
			keys, err = keys.Merge(set)
		}
		if err != nil {
			return nil, fmt.Errorf("--keys %s", KeySetError(path, data, err))
		}
	}
	opts := []cardsig.Option{}
	if f.Canonical == "drop-empty" {
		opts = append(opts, cardsig.WithCanonical(canon.DropEmpty))
	}
	if len(f.TrustJKU) > 0 {
		// nil: the client cardsig bounds as cardscan fetch is bounded.
		opts = append(opts, cardsig.WithTrustedJKU(nil, f.TrustJKU...))
	}
	now, _ := ParseNow(f.Now)
	if trust != nil {
		trust.Now, trust.Client = now, client
		opts = append(opts, cardsig.WithTrust(trust))
	} else if now != nil {
		// Without a policy the clock still judges exp and nbf.
		opts = append(opts, cardsig.WithTrust(&cardsig.Trust{Now: now, Origins: map[string]*cardsig.OriginTrust{}}))
	}
	v, err := cardsig.NewVerifier(keys, opts...)
	if err != nil {
		return nil, fmt.Errorf("--trust-jku: %s", strings.TrimPrefix(err.Error(), "cardsig: "))
	}
	return v, nil
}

// trust reads the trust policy in force, nil when there is none. --trust
// wins over the section, as flags win over a policy file.
func (f *Flags) trust(section func() (*cardsig.Trust, error)) (*cardsig.Trust, error) {
	switch {
	case f.TrustFile != "":
		return Load(f.TrustFile)
	case section != nil:
		return section()
	}
	return nil, nil
}
