package cardsig

import (
	"bytes"
	"testing"
)

// TestEmbeddedOffsets: an offset in an embedded card maps to the byte of
// the text it is decoded from, past escapes of every size and bytes
// that encoding/json decodes as U+FFFD.
func TestEmbeddedOffsets(t *testing.T) {
	for _, c := range []struct {
		rec  string
		want int // of the card's brace
	}{
		{`"{}"`, 1},
		{` "\u00e9{}"`, 8},
		{`"\ud83d\ude00{}"`, 13},
		{`"\ud800{}"`, 7},        // a lone surrogate: U+FFFD
		{`"\ud800\u0041{}"`, 13}, // not a pair: U+FFFD, A
		{"\"\xff\\n{}\"", 4},     // not UTF-8: U+FFFD; a newline
	} {
		card, ok := Unembed([]byte(c.rec))
		if !ok {
			t.Fatalf("%q: not embedded", c.rec)
		}
		l := NewTextLocator([]byte(c.rec))
		brace := bytes.IndexByte(card, '{')
		if got := l.InText(brace); got != c.want || c.rec[got] != '{' {
			t.Errorf("%q: the card's brace at %d maps to %d, want %d", c.rec, brace, got, c.want)
		}
	}
}

// FuzzEmbeddedOffsets: every offset of an embedded card maps into the
// text, in order, and past the escapes before it.
func FuzzEmbeddedOffsets(f *testing.F) {
	f.Add([]byte(`"{\"a\":\"\u00e9\ud83d\ude00\ud800\"}"`))
	f.Add([]byte("\"\xff\\n\\\\\""))
	f.Fuzz(func(t *testing.T, rec []byte) {
		card, ok := Unembed(rec)
		if !ok {
			return
		}
		l := NewTextLocator(rec)
		last := 0
		for k := 0; k <= len(card); k++ {
			at := l.InText(k)
			if at < last || at >= len(rec) {
				t.Fatalf("card offset %d maps to %d, after %d, in a text of %d bytes", k, at, last, len(rec))
			}
			last = at
		}
		if end := bytes.LastIndexByte(rec, '"'); last != end {
			t.Errorf("the card's end maps to %d, not the closing quote at %d", last, end)
		}
	})
}
