package fastvalidate

import "unicode/utf8"

// decodeRune is utf8.DecodeRune(b[i:]), i < len(b), with the forms the
// texts beyond ASCII are written in decoded here: ASCII, and two- and
// three-byte sequences (accented Latin, Greek, Cyrillic, CJK), which
// utf8.DecodeRune sends to a general decoder past its inlined ASCII test.
// Anything else, four-byte sequences and invalid bytes, goes to it still.
func decodeRune(b []byte, i int) (rune, int) {
	c := b[i]
	switch {
	case c < utf8.RuneSelf:
		return rune(c), 1
	case c&0xE0 == 0xC0 && c >= 0xC2 && i+1 < len(b) && b[i+1]&0xC0 == 0x80:
		return rune(c&0x1F)<<6 | rune(b[i+1]&0x3F), 2
	case c&0xF0 == 0xE0 && i+2 < len(b):
		c1, c2 := b[i+1], b[i+2]
		r := rune(c&0x0F)<<12 | rune(c1&0x3F)<<6 | rune(c2&0x3F)
		// Overlong forms (below U+0800) and surrogates are invalid.
		if c1&0xC0 == 0x80 && c2&0xC0 == 0x80 && r >= 0x800 && (r < 0xD800 || r > 0xDFFF) {
			return r, 3
		}
	}
	return utf8.DecodeRune(b[i:])
}
