package fastvalidate

import (
	"slices"
	"testing"

	"github.com/cardscan/cardscan/fastvalidate/internal/tapehook"
)

// TestReadTape: the digest is given the tape of exactly the bytes the
// Validator judged, and is told without a second scan when they are no
// JSON object.
func TestReadTape(t *testing.T) {
	v := MustNew("auto")
	card := []byte(`{"a":1}`)
	v.Validate(card)
	if vw, whole, failed := tapehook.Read(v, card); !whole || failed || vw.Len() != 3 {
		t.Errorf("the card judged: %d nodes, whole %v, failed %v; want 3, true, false", vw.Len(), whole, failed)
	}
	if _, whole, failed := tapehook.Read(v, slices.Clone(card)); whole || failed {
		t.Errorf("equal bytes elsewhere: whole %v, failed %v; want false, false", whole, failed)
	}
	if _, whole, failed := tapehook.Read((*Validator)(nil), card); whole || failed {
		t.Errorf("no Validator: whole %v, failed %v; want false, false", whole, failed)
	}
	// Known to be no object from the validator's scan, not scanned again.
	embedded := []byte(`"{\"a\":1}"`)
	v.Validate(embedded)
	if _, whole, failed := tapehook.Read(v, embedded); whole || !failed {
		t.Errorf("a string holding a card: whole %v, failed %v; want false, true", whole, failed)
	}
	if _, whole, failed := tapehook.Read(v, slices.Clone(embedded)); whole || failed {
		t.Errorf("other bytes than the validator's string: whole %v, failed %v; want false, false", whole, failed)
	}
}
