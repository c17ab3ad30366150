package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/cardscan/cardscan/cardsig"
	"github.com/cardscan/cardscan/fastvalidate/canon"
	"github.com/cardscan/cardscan/internal/clobber"
	"github.com/cardscan/cardscan/internal/cmderr"
	"github.com/cardscan/cardscan/internal/cmdflag"
	"github.com/cardscan/cardscan/internal/console"
	"github.com/cardscan/cardscan/internal/report"
	"github.com/cardscan/cardscan/internal/sign"
	"github.com/cardscan/cardscan/internal/trustfile"
)

const verifyUsageHead = `usage: cardscan verify [--explain] [--keys F] [--trust F] [flags] CARD

Verifies the A2A signatures of one card (a file, or - for standard input)
with the trusted keys and trust policy given, and prints each signature's
outcome: verified, untrusted-origin, expired, revoked, key-unknown,
invalid or alg. --explain also prints, for each signature, its decoded
protected header, the key chosen and why, the card's canonical bytes
under each canonicalisation variant (as-is, drop-empty, a2a-js@1.3.0),
which variant the signature verifies over, and where the bytes signed and
the bytes served first differ.

exit status: 0 a signature verified, 1 none did, 2 usage error, 3 the
card or a key could not be read.

flags:
`

type verifyOptions struct {
	options
	explain    bool
	from       string
	signedCopy string
}

func newVerifyFlagSet(o *verifyOptions) *cmdflag.Set {
	var fs cmdflag.Set
	fs.Bool(&o.explain, "--explain", "print the header, key, canonical forms and first difference")
	fs.Var(&o.Keys, "--keys FILE", "trusted public keys, a JWK Set, for any origin (repeatable)")
	fs.Var(&o.TrustJKU, "--trust-jku PREFIX", "follow a signature's jku below this https URL prefix")
	fs.String(&o.TrustFile, "--trust FILE", "", "a trust policy binding keys to origins (docs/signatures.md)")
	fs.String(&o.config, "--config FILE", "", "a policy file whose trust section to use")
	fs.String(&o.Canonical, "--canonical MODE", "as-is", "as-is or drop-empty: the form the outcome is judged on\n"+
		"(--explain tries every variant whatever it is)")
	fs.String(&o.Now, "--now TIME", "", "judge expiry at this RFC 3339 time (default: the clock)")
	fs.String(&o.from, "--from URL", "", "the URL the card was fetched from: its origin must be\n"+
		"allowed too")
	fs.String(&o.signedCopy, "--signed-copy FILE", "", "the card as it was signed (an earlier copy): find the\n"+
		"first byte the served card differs at")
	return &fs
}

// runVerify is `cardscan verify`.
func runVerify(args []string, stdin io.Reader, stdout io.Writer, con *console.Console) error {
	o := &verifyOptions{}
	o.Signatures = "check"
	operands, err := newVerifyFlagSet(o).Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		return writeOut(stdout, verifyUsageHead+newVerifyFlagSet(&verifyOptions{}).Help())
	}
	if err == nil {
		err = checkVerifyOptions(o, operands)
	}
	if err == nil {
		err = guardFiles(o.readFiles(operands[0]), []clobber.File{{Role: "standard output", Path: "-"}}, stdin, stdout)
	}
	if err != nil {
		return cmderr.Usage("cardscan verify", err)
	}
	v, err := signatureVerifier(&o.options)
	if err != nil {
		return cmderr.UsageStop(fmt.Errorf("%s", err))
	}
	name := operands[0]
	if name == "-" {
		name = stdinName
	}
	text, err := sign.ReadInput(operands[0], stdin)
	if err != nil {
		return cmderr.IOf("%s: %s", name, describe(err))
	}
	// A card given as a JSON string holding it is verified as the scan
	// verifies it, and placed in the string's text.
	card, _ := cardsig.Unembed(text)
	places := cardsig.NewTextLocator(text)
	var signed []byte
	if o.signedCopy != "" {
		if signed, err = sign.ReadInput(o.signedCopy, nil); err != nil {
			return cmderr.IOf("--signed-copy %s: %s", o.signedCopy, describe(err))
		}
	}
	exs, variants, err := v.Explain(card, o.from)
	var notCanonical *canon.Error
	if errors.As(err, &notCanonical) {
		line, col := report.LineColumn(text, places.InText(notCanonical.Offset))
		con.Errorf("%s:%d:%d: %s: the card has no RFC 8785 canonical form, so no signature over it can verify", report.TextSafe(name), line, col, notCanonical.Reason)
		return cmderr.ErrFailed
	}
	if err != nil {
		con.Errorf("%s: %s", name, strings.TrimPrefix(err.Error(), "cardsig: "))
		return cmderr.ErrFailed
	}
	var b bytes.Buffer
	ok := writeVerification(&b, name, text, places, exs, variants, o.explain)
	if o.explain {
		writeDifference(&b, v, exs, variants, signedCopy{o.signedCopy, signed}, o.from)
	}
	if err := writeOut(stdout, b.String()); err != nil {
		return err
	}
	if !ok {
		return cmderr.ErrFailed
	}
	return nil
}

// signedCopy is --signed-copy: its name and what it holds (nil without
// one).
type signedCopy struct {
	name string
	text []byte
}

// checkVerifyOptions checks verify's command line, and reads the policy
// file --config names.
func checkVerifyOptions(o *verifyOptions, operands []string) error {
	if len(operands) != 1 {
		return fmt.Errorf("want exactly one card, got %d", len(operands))
	}
	if _, err := trustfile.ParseNow(o.Now); err != nil {
		return err
	}
	if o.from != "" {
		// Checked here, whether or not a trust policy will ask for its
		// origin: a --from that is no URL is a mistake on the command
		// line, not a fault of the card.
		if _, err := cardsig.Origin(o.from); err != nil {
			return fmt.Errorf("--from %q: %s", o.from, strings.TrimPrefix(err.Error(), strconv.Quote(o.from)+" "))
		}
	}
	if o.Canonical != "as-is" && o.Canonical != "drop-empty" {
		return fmt.Errorf("--canonical %q: want as-is or drop-empty", o.Canonical)
	}
	if o.config != "" {
		var err error
		if o.policyFile, err = loadPolicy(o.config); err != nil {
			return err
		}
	}
	if len(o.Keys) == 0 && len(o.TrustJKU) == 0 && !o.hasTrust() {
		return errors.New("no trusted keys: give --keys, --trust-jku, --trust or --config")
	}
	return nil
}

// readFiles are the files verify reads: the card, the key sets, the
// trust policy, the policy file and the signed copy.
func (o *verifyOptions) readFiles(card string) []clobber.File {
	files := []clobber.File{{Role: "the card", Path: card}}
	for _, k := range o.Keys {
		files = append(files, clobber.File{Role: "--keys", Path: k})
	}
	for _, f := range []clobber.File{{Role: "--trust", Path: o.TrustFile}, {Role: "--config", Path: o.config}, {Role: "--signed-copy", Path: o.signedCopy}} {
		if f.Path != "" {
			files = append(files, f)
		}
	}
	return files
}

// writeVerification prints each signature's outcome (and with explain its
// header, key and canonical forms), and reports whether one verified.
// An outcome is placed as the scan command places the finding it makes:
// at the line and column in text of what its pointer names (the entry, or
// its member at fault), found by places.
func writeVerification(w *bytes.Buffer, name string, text []byte, places *cardsig.Locator, exs []cardsig.Explanation, variants []cardsig.CanonicalVariant, explain bool) bool {
	// Everything printed from the card, its header or a fetched key set
	// is hostile: report.TextSafe escapes what could drive a terminal,
	// break a line or reorder it. The byte counts and digests stay those
	// of the canonical bytes themselves.
	name = report.TextSafe(name)
	ok := false
	if len(exs) == 0 {
		fmt.Fprintf(w, "%s: not signed\n", name)
	}
	for _, ex := range exs {
		ok = ok || ex.Status == cardsig.Verified
		line, col := report.LineColumn(text, places.Offset(&ex.Signature))
		fmt.Fprintf(w, "%s:%d:%d: %s: %s", name, line, col, ex.Pointer(), ex.Status)
		if ex.Reason != "" {
			fmt.Fprintf(w, ": %s", report.TextSafe(ex.Reason))
		}
		w.WriteString("\n")
		if !explain {
			continue
		}
		if ex.Header != nil {
			fmt.Fprintf(w, "  protected header: %s\n", report.TextSafe(string(ex.Header)))
		}
		if ex.Key != "" {
			fmt.Fprintf(w, "  key: %s\n", report.TextSafe(ex.Key))
		}
		if ex.Thumbprint != "" {
			fmt.Fprintf(w, "  key thumbprint (RFC 7638): %s\n", ex.Thumbprint)
		}
		switch {
		case len(ex.Matches) > 0:
			fmt.Fprintf(w, "  signed over: %s\n", strings.Join(ex.Matches, ", "))
		case ex.Key != "":
			fmt.Fprintf(w, "  signed over: none of the variants: the card changed after signing, or was signed over another form\n")
		default:
			fmt.Fprintf(w, "  signed over: unknown (no key to check the variants with)\n")
		}
	}
	if explain {
		w.WriteString("canonical forms (signatures left out):\n")
		for _, cv := range variants {
			if cv.Err != nil {
				fmt.Fprintf(w, "  %s: none: %s\n", cv.Name, strings.TrimPrefix(cv.Err.Error(), "fastvalidate: "))
				continue
			}
			sum := sha256.Sum256(cv.Bytes)
			fmt.Fprintf(w, "  %s: %d bytes, SHA-256 %s\n    %s\n", cv.Name, len(cv.Bytes), hex.EncodeToString(sum[:]), report.TextSafe(string(cv.Bytes)))
		}
	}
	return ok
}

// writeDifference prints where the bytes signed and the bytes served
// first differ: against the as-is form, when a signature matched another
// variant; against the signed copy's form under the variant it verifies
// over, when one is given.
func writeDifference(w *bytes.Buffer, v *cardsig.Verifier, exs []cardsig.Explanation, variants []cardsig.CanonicalVariant, sc signedCopy, from string) {
	signed := sc.text
	byName := map[string][]byte{}
	for _, cv := range variants {
		byName[cv.Name] = cv.Bytes
	}
	served := byName[cardsig.VariantAsIs]
	for _, ex := range exs {
		if len(ex.Matches) > 0 && ex.Matches[0] != cardsig.VariantAsIs {
			at := cardsig.FirstDifference(byName[ex.Matches[0]], served)
			fmt.Fprintf(w, "signatures/%d: signed over %s; first difference from the as-is form served: %s\n", ex.Index, ex.Matches[0], byteContext(byName[ex.Matches[0]], served, at))
		}
	}
	if signed == nil {
		if !anyMatch(exs) {
			w.WriteString("no signature matches a variant: give --signed-copy with the card as signed to find the first byte that changed\n")
		}
		return
	}
	copyEx, copyVariants, err := v.Explain(signed, from)
	var notCanonical *canon.Error
	if errors.As(err, &notCanonical) {
		line, col := report.LineColumn(signed, notCanonical.Offset)
		fmt.Fprintf(w, "--signed-copy %s:%d:%d: %s: the copy has no RFC 8785 canonical form to compare\n", report.TextSafe(sc.name), line, col, notCanonical.Reason)
		return
	}
	if err != nil {
		fmt.Fprintf(w, "--signed-copy %s: %s\n", report.TextSafe(sc.name), strings.TrimPrefix(err.Error(), "cardsig: "))
		return
	}
	copyBytes := map[string][]byte{}
	for _, cv := range copyVariants {
		copyBytes[cv.Name] = cv.Bytes
	}
	for _, ex := range copyEx {
		if len(ex.Matches) == 0 {
			continue
		}
		name := ex.Matches[0]
		at := cardsig.FirstDifference(copyBytes[name], byName[name])
		if at < 0 {
			fmt.Fprintf(w, "--signed-copy: signatures/%d verifies over its %s form, which the served card's equals\n", ex.Index, name)
			continue
		}
		fmt.Fprintf(w, "--signed-copy: signatures/%d verifies over its %s form; the served card's %s form first differs %s\n", ex.Index, name, name, byteContext(copyBytes[name], byName[name], at))
	}
}

func anyMatch(exs []cardsig.Explanation) bool {
	for _, ex := range exs {
		if len(ex.Matches) > 0 {
			return true
		}
	}
	return false
}

// byteContext describes offset at of the canonical forms signed and
// served, with up to 24 bytes of each from 8 before it.
func byteContext(signed, served []byte, at int) string {
	if at < 0 {
		return "nowhere: they are equal"
	}
	clip := func(b []byte) string {
		lo, hi := max(at-8, 0), min(at+24, len(b))
		if lo >= len(b) {
			return strconv.Quote("")
		}
		return strconv.Quote(string(b[lo:hi]))
	}
	return fmt.Sprintf("at byte %d: signed %s, served %s", at, clip(signed), clip(served))
}
