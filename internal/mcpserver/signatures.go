package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cardscan/cardscan/cardsig"
	"github.com/cardscan/cardscan/fastvalidate/canon"
	"github.com/cardscan/cardscan/internal/report"
)

// maxKeySet bounds a jwks argument: a JWK Set of a few hundred RSA keys,
// far more than any signer publishes.
const maxKeySet = 256 << 10

type verifyArgs struct {
	Card      json.RawMessage `json:"card" jsonschema:"the signed card: a JSON object, or a string holding the card's text"`
	JWKS      json.RawMessage `json:"jwks,omitempty" jsonschema:"the public keys to trust: a JWK Set or one JWK (each with a kid), as a JSON value or a string holding its text; without it, the keys the server was started with (--keys). Never taken from the card"`
	Canonical string          `json:"canonical,omitempty" jsonschema:"what was signed: as-is (default), every member served; or drop-empty, the card without empty strings, arrays and objects, as the A2A SDKs sign"`
}

type signaturesOut struct {
	Verified   bool           `json:"verified" jsonschema:"true when at least one signature verifies with a trusted key"`
	SignedBy   []string       `json:"signedBy" jsonschema:"kids of the signatures that verified"`
	Signatures []signatureOut `json:"signatures" jsonschema:"each entry of the card's signatures, in order"`
	Keys       string         `json:"keys" jsonschema:"whose keys were trusted: argument (jwks) or server (--keys)"`
	Reason     string         `json:"reason,omitempty" jsonschema:"why the card could not be read strictly, when it could not (then nothing verifies)"`
}

type signatureOut struct {
	Index int `json:"index" jsonschema:"position in the card's signatures"`
	// Path, Line and Column place the outcome as validate_card and the
	// CLI place the finding it makes.
	Path   string `json:"path" jsonschema:"JSON Pointer of what the outcome is about: the entry, /signatures/0, or its member at fault, /signatures/0/protected"`
	Line   int    `json:"line" jsonschema:"line of that value in the card's text, from 1"`
	Column int    `json:"column" jsonschema:"column of that value, in characters from 1, as validate_card counts them"`
	Status string `json:"status" jsonschema:"verified, invalid, key-unknown or alg"`
	Kid    string `json:"kid,omitempty" jsonschema:"the protected header's kid, if it could be read"`
	Alg    string `json:"alg,omitempty" jsonschema:"the protected header's alg, if it could be read"`
	Reason string `json:"reason,omitempty" jsonschema:"why it did not verify"`
}

func (t *tools) registerSignatures(s *mcp.Server) {
	addTool(s, &mcp.Tool{
		Name:  "verify_signatures",
		Title: "Verify an agent card's signatures",
		Description: "Checks each entry of an A2A card's signatures (detached JWS over its RFC 8785 canonical form) " +
			"against the keys you pass as jwks, or else the server's own (--keys); a key or jku named by the card is never trusted.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)},
	}, outSchema[signaturesOut](), t.verifySignatures)
}

func (t *tools) verifySignatures(ctx context.Context, a *verifyArgs) (*mcp.CallToolResult, error) {
	var opts []cardsig.Option
	switch a.Canonical {
	case "", "as-is":
	case "drop-empty":
		opts = append(opts, cardsig.WithCanonical(canon.DropEmpty))
	default:
		return toolError(fmt.Errorf("argument \"canonical\": %q: want as-is or drop-empty", a.Canonical)), nil
	}
	keys, whose := t.cfg.Keys, "server"
	if a.JWKS != nil {
		text, err := textOrValue("jwks", a.JWKS)
		if err != nil {
			return toolError(err), nil
		}
		if len(text) > maxKeySet {
			return toolError(fmt.Errorf("argument \"jwks\": %d bytes, more than the %d a key set may have", len(text), maxKeySet)), nil
		}
		if keys, err = cardsig.ParseKeySet(text); err != nil {
			return toolError(fmt.Errorf("argument \"jwks\": %v", err)), nil
		}
		whose = "argument"
	}
	if keys == nil {
		return toolError(errors.New("no keys to trust: pass them as jwks (the server was started without --keys)")), nil
	}
	given, line, col, _, err := cardBytes(a.Card)
	if err != nil {
		return toolError(err), nil
	}
	if int64(len(given)) > t.cfg.MaxRecord {
		return toolError(fmt.Errorf("argument \"card\": %d bytes, more than the server's limit of %d (--max-record)", len(given), t.cfg.MaxRecord)), nil
	}
	// A card given as a JSON string holding it (the embedded form) is
	// verified as the scan verifies it, and placed in the string's text.
	card, _ := cardsig.Unembed(given)
	v, err := cardsig.NewVerifier(keys, opts...)
	if err != nil {
		return toolError(err), nil
	}
	// Verification is bounded by the card's size but not interruptible:
	// the call ends at its deadline and the work runs to its end.
	type outcome struct {
		res *cardsig.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := v.Verify(card)
		done <- outcome{res, err}
	}()
	var o outcome
	select {
	case o = <-done:
	case <-ctx.Done():
		return toolError(fmt.Errorf("verification did not finish in time: %w", ctx.Err())), nil
	}

	out := signaturesOut{Keys: whose, SignedBy: []string{}, Signatures: []signatureOut{}}
	var text strings.Builder
	if o.err != nil {
		out.Reason = o.err.Error()
		fmt.Fprintf(&text, "not verified: %s\n", out.Reason)
		return structured(out, text.String())
	}
	out.Verified = o.res.Verified()
	out.SignedBy = append(out.SignedBy, o.res.SignedBy...)
	switch {
	case out.Verified:
		fmt.Fprintf(&text, "verified: signed by %s\n", strings.Join(out.SignedBy, ", "))
	case len(o.res.Signatures) == 0:
		text.WriteString("not verified: the card has no signatures\n")
	default:
		text.WriteString("not verified: no signature verifies with a trusted key\n")
	}
	places := cardsig.NewTextLocator(given)
	for _, s := range o.res.Signatures {
		so := signatureOut{Index: s.Index, Path: s.Pointer(), Status: s.Status.String(), Kid: s.KeyID, Alg: s.Alg, Reason: s.Reason}
		so.Line, so.Column = inText(given, line, col, places.Offset(&s))
		out.Signatures = append(out.Signatures, so)
		fmt.Fprintf(&text, "%s:%d:%d: %s: %s (kid %q, alg %q)", cardInput, so.Line, so.Column, so.Path, so.Status, so.Kid, so.Alg)
		if so.Reason != "" {
			text.WriteString(": " + so.Reason)
		}
		text.WriteByte('\n')
	}
	return structured(out, text.String())
}

// inText is the line and column of offset in card, which starts at line
// and column of the text the caller sent (after the white space before
// it), as validate_card places its findings.
func inText(card []byte, line, col, offset int) (int, int) {
	l, c := report.LineColumn(card, offset)
	if l == 1 {
		c += col - 1
	}
	return l + line - 1, c
}
