package cardsig

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// Pointer is the RFC 6901 JSON Pointer of what s is about in its card:
// the member at fault, e.g. /signatures/0/protected for a header that
// cannot be read, or else the entry, /signatures/0. As the validator's
// findings do, it names a member that is missing all the same;
// Locator.Offset then places it at the entry that lacks it.
func (s *Signature) Pointer() string {
	p := "/signatures/" + strconv.Itoa(s.Index)
	if s.Member != "" {
		p += "/" + s.Member
	}
	return p
}

// Locator places what a card's signatures are about in the card, as
// byte offsets: the entries of its signatures array and their members. It
// reads the card once, on the first call, however many signatures it has
// and however many of them are placed, and an entry again only to find a
// member in it; it is meant for findings, not for every card (it
// allocates).
type Locator struct {
	card []byte
	// text is what an embedded card was decoded from (NewTextLocator),
	// nil for a card given as itself.
	text []byte
	read bool
	// signatures is the offset of the signatures member's value, or of
	// the card when it has none; entries are the offsets of its elements
	// (of the value itself when it is not an array, which is then the one
	// entry Verify judges).
	signatures int
	entries    []int
}

// NewLocator returns a Locator for card, the card Verify was given.
func NewLocator(card []byte) *Locator { return &Locator{card: card} }

// Signatures returns the offset of the card's signatures member's value,
// or of the card itself when it has none. Like Offset's, it is an offset
// in the text the Locator was made from (see InText).
func (l *Locator) Signatures() int {
	l.readEntries()
	return l.InText(l.signatures)
}

// Offset returns the offset of what s is about, the value its Pointer
// names: the opening quote of a member's string, the brace of the entry.
// A missing member is placed at the entry that lacks it, a missing entry
// at the signatures member.
func (l *Locator) Offset(s *Signature) int {
	return l.InText(l.offset(s))
}

func (l *Locator) offset(s *Signature) int {
	l.readEntries()
	if s.Index < 0 || s.Index >= len(l.entries) {
		return l.signatures
	}
	at := l.entries[s.Index]
	if s.Member == "" {
		return at
	}
	dec := json.NewDecoder(bytes.NewReader(l.card[at:]))
	if in, ok := child(dec, l.card[at:], s.Member); ok {
		return at + in
	}
	return at
}

func (l *Locator) readEntries() {
	if l.read {
		return
	}
	l.read = true
	l.signatures = skipSpace(l.card, 0)
	dec := json.NewDecoder(bytes.NewReader(l.card))
	at, ok := child(dec, l.card, "signatures")
	if !ok {
		return
	}
	l.signatures = at
	if at >= len(l.card) || l.card[at] != '[' {
		l.entries = append(l.entries, at)
		return
	}
	if _, err := dec.Token(); err != nil {
		return
	}
	for dec.More() {
		start := elementStart(l.card, int(dec.InputOffset()))
		if start >= len(l.card) {
			return
		}
		l.entries = append(l.entries, start)
		if !skipValue(dec) {
			return
		}
	}
}

// child moves dec, which is about to read a value of card, to the start of
// that value's member called name, and returns its offset. ok is false
// when the value is not an object or has no such member; with duplicate
// names it is the first.
func child(dec *json.Decoder, card []byte, name string) (offset int, ok bool) {
	if open, err := dec.Token(); err != nil || open != json.Delim('{') {
		return 0, false
	}
	for dec.More() {
		got, err := dec.Token()
		if err != nil {
			return 0, false
		}
		// After a name come white space, the colon, white space; a card
		// cut short may have none of them.
		colon := skipSpace(card, int(dec.InputOffset()))
		if colon >= len(card) || card[colon] != ':' {
			return 0, false
		}
		start := skipSpace(card, colon+1)
		if start >= len(card) {
			return 0, false
		}
		if got == name {
			return start, true
		}
		if !skipValue(dec) {
			return 0, false
		}
	}
	return 0, false
}

// elementStart returns the offset of the array element that follows the
// decoder's position i: past white space, a comma, white space.
func elementStart(card []byte, i int) int {
	i = skipSpace(card, i)
	if i < len(card) && card[i] == ',' {
		i = skipSpace(card, i+1)
	}
	return i
}

func skipValue(dec *json.Decoder) bool {
	var v json.RawMessage
	return dec.Decode(&v) == nil
}

// skipSpace returns the offset of the first byte of card at or after i
// that is not JSON white space.
func skipSpace(card []byte, i int) int {
	for i < len(card) && (card[i] == ' ' || card[i] == '\t' || card[i] == '\r' || card[i] == '\n') {
		i++
	}
	return i
}
