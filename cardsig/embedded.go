package cardsig

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Unembed returns the card text holds: text itself, or, when text is a
// JSON string (the AgentCard draft's embedded form, which the validator
// reads too), the card that string holds, decoded; embedded says which.
// Verify the card it returns; NewTextLocator places in text.
func Unembed(text []byte) (card []byte, embedded bool) {
	t := bytes.TrimLeft(text, " \t\r\n")
	if len(t) == 0 || t[0] != '"' {
		return text, false
	}
	var inner string
	if json.Unmarshal(t, &inner) != nil {
		return text, false
	}
	return []byte(inner), true
}

// NewTextLocator returns a Locator for the card text holds, as Unembed
// reads it, whose offsets are in text: for an embedded card, the byte of
// the string's text that the card's byte is decoded from (the backslash
// of an escape), as the validator places its findings in such a card.
func NewTextLocator(text []byte) *Locator {
	card, embedded := Unembed(text)
	l := NewLocator(card)
	if embedded {
		l.text = text
	}
	return l
}

// InText maps offset, in the card the Locator reads (Unembed's card), to
// the text it was made from (NewTextLocator): Offset and Signatures do,
// and so must a caller with another offset in the card, such as a
// canon.Error's. For a Locator made by NewLocator it is offset itself.
func (l *Locator) InText(offset int) int {
	if l.text == nil {
		return offset
	}
	raw := l.text
	i := bytes.IndexByte(raw, '"') + 1
	for decoded := 0; decoded < offset && i < len(raw); {
		var width, size int
		switch r, n := utf8.DecodeRune(raw[i:]); {
		case raw[i] == '\\':
			width, size = escapeSize(raw[i:])
		case r == utf8.RuneError && n == 1:
			// encoding/json decodes a byte that is not UTF-8 as U+FFFD.
			width, size = 1, 3
		default:
			width, size = n, n
		}
		if decoded+size > offset {
			break // inside what this escape or character decodes to
		}
		i, decoded = i+width, decoded+size
	}
	return i
}

// escapeSize returns the width of the JSON string escape that b starts
// with and the size of what encoding/json decodes it to: a surrogate pair
// is one 4-byte character, a lone surrogate U+FFFD. The string decoded
// already, so the escape is whole.
func escapeSize(b []byte) (width, size int) {
	if b[1] != 'u' {
		return 2, 1
	}
	r := hex4(b[2:6])
	switch {
	case utf16.IsSurrogate(r) && len(b) >= 12 && b[6] == '\\' && b[7] == 'u' &&
		utf16.DecodeRune(r, hex4(b[8:12])) != utf8.RuneError:
		return 12, 4
	case utf16.IsSurrogate(r):
		return 6, 3
	}
	return 6, utf8.RuneLen(r)
}

func hex4(b []byte) rune {
	v, err := strconv.ParseUint(string(b), 16, 32)
	if err != nil {
		return utf8.RuneError
	}
	return rune(v)
}
