package fastvalidate

import (
	"github.com/cardscan/cardscan/fastvalidate/internal/tape"
	"github.com/cardscan/cardscan/fastvalidate/internal/tapehook"
)

func init() { tapehook.Read = readTape }

// readTape gives fastvalidate/digest the tape of the card v has just
// judged (see tapehook.Read), so that it need not scan the card again.
func readTape(v any, card []byte) (vw tape.View, whole, failed bool) {
	val, _ := v.(*Validator)
	if whole, failed = val.read(card); whole {
		vw = val.w.vw
	}
	return vw, whole, failed
}

// read tells what v's last Validate read of card: whole, that its tape
// describes card as a whole, an object or not; failed, that card is no
// JSON object, as a scan with the nesting limit DefaultMaxDepth would find
// too: no JSON, or a string, which the validator found holding a card.
func (v *Validator) read(card []byte) (whole, failed bool) {
	if v == nil {
		return false, false
	}
	w := &v.w
	if w.unwrapped && len(w.card) == len(card) && &w.card[0] == &card[0] {
		// A string holding a card: JSON, but no object.
		return false, true
	}
	if w.unwrapped || len(w.b) != len(card) || &w.b[0] != &card[0] {
		return false, false
	}
	switch {
	case w.sc.Err() == tape.ErrNone:
		return v.cfg.maxDepth <= DefaultMaxDepth, false
	case w.sc.Err() == tape.ErrDepth:
		return false, v.cfg.maxDepth >= DefaultMaxDepth
	}
	return false, true
}
