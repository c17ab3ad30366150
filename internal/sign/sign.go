// Package sign implements `cardscan sign`: it appends a JWS signature to
// an A2A agent card, over the card's RFC 8785 form, as A2A 1.0 section
// 8.4 describes.
package sign

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/cardscan/cardscan/cardsig"
	"github.com/cardscan/cardscan/fastvalidate/canon"
	"github.com/cardscan/cardscan/internal/clobber"
	"github.com/cardscan/cardscan/internal/cmderr"
	"github.com/cardscan/cardscan/internal/cmdflag"
	"github.com/cardscan/cardscan/internal/console"
	"github.com/cardscan/cardscan/internal/mediatype"
	"github.com/cardscan/cardscan/internal/report"
)

// maxCard bounds the card read, as the CLI's default --max-record.
const maxCard = 16 << 20

// usageHead comes before the flags' help, which their declarations write.
const usageHead = `usage: cardscan sign --key private.jwk [flags] CARD
       cardscan sign --generate-key ALG -o private.jwk

Writes CARD (a file, or - for standard input) to standard output with one
more signature in its signatures array: a detached JWS over the card's
RFC 8785 canonical form without its signatures, whose protected header
holds alg, kid and typ "JOSE". The card's own bytes are kept as they are,
and the new signature is laid out as its members are.

--key is a private JWK, or a JWK Set holding one private key (or several,
of which --kid chooses one). --generate-key makes a key pair: the private
JWK in FILE (mode 0600) and the public JWK Set beside it (key.jwk's is
key.pub.jwks), to give verifiers (cardscan --keys); kid is the key's
RFC 7638 thumbprint. Neither file may exist already.

exit status: 0 signed (or the key written), 2 usage error, 3 the key or
card could not be read or signed, or the key not written.

flags:
`

// usage is the text of --help.
func usage() string { return usageHead + newFlagSet(&options{}).Help() }

// FlagSet returns sign's flags as declared, for cardscan's completion
// scripts and manual page.
func FlagSet() *cmdflag.Set { return newFlagSet(&options{}) }

// newFlagSet declares sign's flags, to be parsed into o.
func newFlagSet(o *options) *cmdflag.Set {
	var fs cmdflag.Set
	fs.String(&o.key, "--key FILE", "", "the private key, a JWK (EdDSA/Ed25519, EC P-256,\n"+
		"P-384, P-521, or RSA of 2048 bits or more)")
	fs.String(&o.kid, "--kid K", "", "the kid to name (default: the JWK's kid)")
	fs.String(&o.alg, "--alg ALG", "", "EdDSA, ES256, ES384, ES512, RS256, RS384, RS512,\n"+
		"PS256, PS384 or PS512 (default: the JWK's alg, else\n"+
		"EdDSA, ES256/384/512 by curve, or RS256)")
	fs.String(&o.jku, "--jku URL", "", "a key set URL to name in the protected header")
	fs.String(&o.canonical, "--canonical MODE", "as-is", "as-is or drop-empty: what is signed (see\n"+
		"docs/signatures.md)")
	fs.String(&o.generate, "--generate-key ALG", "", "make a key pair for ALG (EdDSA, ES256, ..., as --alg)\n"+
		"instead of signing: the private JWK to -o FILE")
	fs.String(&o.output, "-o, --output FILE", "", "--generate-key's private key file")
	return &fs
}

type options struct {
	key, kid, alg, jku, canonical, card string
	generate, output                    string
}

// Run is `cardscan sign ARGS`.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	o, err := parseArgs(args)
	if err == nil {
		// The signed card goes to standard output: appended to the card
		// or the key (>>), it would spoil the file it was read from.
		err = clobber.Check([]clobber.File{{Role: "--key", Path: o.key}, {Role: "the card", Path: o.card}},
			[]clobber.File{{Role: "standard output", Path: "-"}}, stdin, stdout)
	}
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage())
			return nil
		}
		return cmderr.Usage("cardscan sign", err)
	}
	if o.generate != "" {
		kid, pub, err := writeKeyPair(o.generate, o.output)
		if err != nil {
			return cmderr.IOf("--generate-key %s: %s", o.generate, err)
		}
		console.New(stderr).Printf("wrote the private key to %s (kid %s) and its public key set to %s", o.output, kid, pub)
		return nil
	}
	key, err := ReadKey(o.key, o.kid)
	if err != nil {
		return cmderr.IOf("%s", err)
	}
	mode := canon.AsIs
	if o.canonical == "drop-empty" {
		mode = canon.DropEmpty
	}
	opts := cardsig.SignOptions{KeyID: o.kid, Alg: o.alg, JKU: o.jku, Mode: mode}
	// The flags were checked alone; what the key makes of them is its
	// fault, not the card's, and is said before the card is read.
	if err := cardsig.CheckSignOptions(key, opts); err != nil {
		return cmderr.IOf("--key %s: %s", o.key, strings.TrimPrefix(err.Error(), "cardsig: "))
	}
	card, err := ReadInput(o.card, stdin)
	if err != nil {
		return cmderr.IOf("%s: %s", o.card, err)
	}
	signed, err := cardsig.Sign(card, key, opts)
	var notCanonical *canon.Error
	if errors.As(err, &notCanonical) {
		line, col := report.LineColumn(card, notCanonical.Offset)
		return cmderr.IOf("%s:%d:%d: %s: the card has no RFC 8785 canonical form to sign", o.card, line, col, notCanonical.Reason)
	}
	if err != nil {
		return cmderr.IOf("%s: %s", o.card, err)
	}
	if _, err := stdout.Write(signed); err != nil {
		return cmderr.IOf("writing the signed card: %s", err)
	}
	return nil
}

func parseArgs(args []string) (*options, error) {
	o := &options{}
	cards, err := newFlagSet(o).Parse(args)
	if err != nil {
		return nil, err
	}
	if o.generate != "" {
		switch {
		case o.output == "":
			return nil, errors.New("--generate-key needs -o FILE, where the private key goes")
		case o.key != "" || len(cards) > 0:
			return nil, errors.New("--generate-key makes a key and signs nothing: no --key, no card")
		case !slices.Contains(cardsig.Algorithms(), o.generate):
			return nil, fmt.Errorf("--generate-key %q: want one of %s", o.generate, strings.Join(cardsig.Algorithms(), ", "))
		}
		return o, nil
	}
	switch {
	case o.output != "":
		return nil, errors.New("-o is for --generate-key; a signed card goes to standard output")
	case o.key == "":
		return nil, errors.New("--key is required")
	case len(cards) != 1:
		return nil, fmt.Errorf("want exactly one card to sign, got %d", len(cards))
	case o.canonical != "as-is" && o.canonical != "drop-empty":
		return nil, fmt.Errorf("--canonical %q: want as-is or drop-empty", o.canonical)
	case o.alg != "" && !slices.Contains(cardsig.Algorithms(), o.alg):
		return nil, fmt.Errorf("--alg %q: want one of %s", o.alg, strings.Join(cardsig.Algorithms(), ", "))
	}
	if o.jku != "" {
		if err := cardsig.CheckJKU(o.jku); err != nil {
			return nil, fmt.Errorf("--jku %q: %s", o.jku, strings.TrimPrefix(err.Error(), "cardsig: jku "+strconv.Quote(o.jku)+" "))
		}
	}
	o.card = cards[0]
	return o, nil
}

// ReadInput reads a card or key file, or stdin for "-" when stdin is not
// nil, refusing more than the scan's default --max-record rather than
// holding it, and text in another encoding than UTF-8. Its errors do not
// name the file: sign, verify and migrate name it as their messages do.
func ReadInput(path string, stdin io.Reader) ([]byte, error) {
	r := stdin
	if path != "-" || stdin == nil {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, maxCard+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxCard {
		return nil, fmt.Errorf("larger than %d bytes", maxCard)
	}
	return b, mediatype.CheckEncoding(b)
}
