package canon

import (
	"bytes"
	"testing"

	"github.com/cardscan/cardscan/fastvalidate/internal/jcs"
)

// TestCanonicalUnescapedStrings: a string without backslashes is written
// as it came, which is right only if escaping it would change nothing.
// Every byte value, alone and among others, in a value and in a member
// name, either has no canonical form or comes out as jcs.AppendEscaped
// writes it.
func TestCanonicalUnescapedStrings(t *testing.T) {
	var texts [][]byte
	for c := 0; c < 256; c++ {
		texts = append(texts, []byte{byte(c)}, []byte{'a', byte(c), 'z'})
	}
	texts = append(texts, []byte("é€😀"), []byte("/~\x7f"), []byte("https://a.example/x?y=1&z=<2>"))
	accepted := 0
	for i := range 2 * len(texts) {
		text, head, tail := texts[i/2], `{"k":"`, `"}`
		if i%2 == 1 {
			head, tail = `{"`, `":1}`
		}
		card := append(append([]byte(head), text...), tail...)
		got, err := Append(nil, card, Options{})
		if err != nil {
			if !bytes.ContainsAny(text, "\"\\") && bytes.IndexFunc(text, func(r rune) bool { return r < 0x20 || r == 0xfffd }) < 0 {
				t.Errorf("%q: rejected: %v", text, err)
			}
			continue
		}
		accepted++
		want := append(append([]byte(head), jcs.AppendEscaped(nil, text)...), tail...)
		if !bytes.Equal(got, want) {
			t.Errorf("%q: got %q, want %q", text, got, want)
		}
	}
	// 0x20-0x7f but the quote and the backslash, alone and between
	// letters, and the three multibyte texts, as values and as names.
	if want := 2 * (2*(0x80-0x20-2) + 3); accepted != want {
		t.Errorf("%d texts accepted, want %d", accepted, want)
	}
}
