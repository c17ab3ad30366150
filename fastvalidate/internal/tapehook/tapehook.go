// Package tapehook lets fastvalidate/digest read the tape of the
// Validator that has just judged a card, so that a card is scanned once
// for its verdict and its digest, without fastvalidate exporting its tape
// (which is internal) or a method for one package's use.
package tapehook

import "github.com/cardscan/cardscan/fastvalidate/internal/tape"

// Read, set by fastvalidate as it is initialised, tells what v, a
// *fastvalidate.Validator or a nil one, read of card in its last Validate:
// whole, that vw describes card as a whole, an object or not, scanned with
// a nesting limit no deeper than fastvalidate.DefaultMaxDepth; failed,
// that card is no JSON object, as a scan with that limit would find too.
// When neither, the caller scans card itself.
var Read func(v any, card []byte) (vw tape.View, whole, failed bool)
