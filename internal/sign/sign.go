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

	"github.com/cardscan/cardscan/cardsig"
	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/cmdflag"
)

// Exit statuses, as the CLI's.
const (
	exitOK    = 0
	exitUsage = 2
	exitIO    = 3
)

// maxCard bounds the card read, as the CLI's default --max-record.
const maxCard = 16 << 20

const usageText = `usage: cardscan sign --key private.jwk [flags] CARD

Writes CARD (a file, or - for standard input) to standard output with one
more signature in its signatures array: a detached JWS over the card's
RFC 8785 canonical form without its signatures, whose protected header
holds alg, kid and typ "JOSE". The card's own bytes are kept as they are.

flags:
      --key FILE          the private key, a JWK (EdDSA/Ed25519, EC P-256,
                          P-384, P-521, or RSA of 2048 bits or more)
      --kid K             the kid to name (default: the JWK's kid)
      --alg ALG           EdDSA, ES256, ES384, ES512, RS256, RS384, RS512,
                          PS256, PS384 or PS512 (default: the JWK's alg, else
                          EdDSA, ES256/384/512 by curve, or RS256)
      --jku URL           a key set URL to name in the protected header
      --canonical MODE    as-is or drop-empty: what is signed (default as-is;
                          see cardscan --help)

exit status: 0 signed, 2 usage error, 3 the key or card could not be read
or signed.
`

type options struct {
	key, kid, alg, jku, canonical, card string
}

// Run is `cardscan sign ARGS`.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o, err := parseArgs(args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usageText)
			return exitOK
		}
		fmt.Fprintf(stderr, "cardscan: error: %s\ncardscan: hint: run 'cardscan sign --help' for usage\n", err)
		return exitUsage
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "cardscan: error: "+format+"\n", a...)
		return exitIO
	}
	keyText, err := readLimited(o.key, nil)
	if err != nil {
		return fail("--key %s: %s", o.key, err)
	}
	key, err := cardsig.ParsePrivateKey(keyText)
	if err != nil {
		return fail("--key %s: %s", o.key, err)
	}
	card, err := readLimited(o.card, stdin)
	if err != nil {
		return fail("%s: %s", o.card, err)
	}
	mode := fastvalidate.CanonicalAsIs
	if o.canonical == "drop-empty" {
		mode = fastvalidate.CanonicalDropEmpty
	}
	signed, err := cardsig.Sign(card, key, cardsig.SignOptions{KeyID: o.kid, Alg: o.alg, JKU: o.jku, Mode: mode})
	if err != nil {
		return fail("%s: %s", o.card, err)
	}
	if _, err := stdout.Write(signed); err != nil {
		return fail("writing the signed card: %s", err)
	}
	return exitOK
}

func parseArgs(args []string) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("cardscan sign", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.StringVar(&o.key, "key", "", "")
	fs.StringVar(&o.kid, "kid", "", "")
	fs.StringVar(&o.alg, "alg", "", "")
	fs.StringVar(&o.jku, "jku", "", "")
	fs.StringVar(&o.canonical, "canonical", "as-is", "")
	var cards []string
	// Flags may follow the card, as in the CLI.
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, errors.New(cmdflag.ParseError(err))
		}
		if rest = fs.Args(); len(rest) == 0 {
			break
		}
		cards = append(cards, rest[0])
		rest = rest[1:]
	}
	switch {
	case o.key == "":
		return nil, errors.New("--key is required")
	case len(cards) != 1:
		return nil, fmt.Errorf("want exactly one card to sign, got %d", len(cards))
	case o.canonical != "as-is" && o.canonical != "drop-empty":
		return nil, fmt.Errorf("--canonical %q: want as-is or drop-empty", o.canonical)
	}
	o.card = cards[0]
	return o, nil
}

// readLimited reads a file, or stdin for "-", refusing more than maxCard
// bytes rather than holding them.
func readLimited(path string, stdin io.Reader) ([]byte, error) {
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
	return b, nil
}
