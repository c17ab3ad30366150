package mediatype

import "bytes"

// EncodingError is an input in UTF-16 or UTF-32, which RFC 8259 section
// 8.1 does not allow for JSON exchanged between systems, and which read as
// UTF-8 is a NUL byte beside every character: a syntax error on every
// line, none of them about the card. It is the input's one error instead.
type EncodingError struct {
	// Encoding names the text's encoding, as "UTF-16 (little-endian)".
	Encoding string
	// From is iconv's name for it: the encoding iconv -f takes to turn
	// the input into UTF-8, dropping a byte order mark.
	From string
}

func (e *EncodingError) Error() string {
	return e.Encoding + " text; cardscan reads UTF-8: iconv -f " + e.From + " -t UTF-8"
}

// CheckEncoding returns an *EncodingError when head, the first bytes of a
// text (at least 4 of them unless the text is shorter), is UTF-16 or
// UTF-32: by its byte order mark, or without one by where the NUL bytes
// fall among the first four, the pattern RFC 4627 section 3 gives (the
// first two characters of a JSON text are ASCII). It returns nil for a
// text that may be UTF-8, binary data included: that is judged as it is.
func CheckEncoding(head []byte) error {
	var enc, from string
	switch {
	case bytes.HasPrefix(head, []byte{0x00, 0x00, 0xfe, 0xff}):
		enc, from = "UTF-32 (big-endian)", "UTF-32"
	case bytes.HasPrefix(head, []byte{0xff, 0xfe, 0x00, 0x00}):
		enc, from = "UTF-32 (little-endian)", "UTF-32"
	case bytes.HasPrefix(head, []byte{0xfe, 0xff}):
		enc, from = "UTF-16 (big-endian)", "UTF-16"
	case bytes.HasPrefix(head, []byte{0xff, 0xfe}):
		enc, from = "UTF-16 (little-endian)", "UTF-16"
	case len(head) < 4:
		return nil
	case head[0] == 0 && head[1] == 0 && head[2] == 0 && isASCII(head[3]):
		enc, from = "UTF-32 (big-endian)", "UTF-32BE"
	case isASCII(head[0]) && head[1] == 0 && head[2] == 0 && head[3] == 0:
		enc, from = "UTF-32 (little-endian)", "UTF-32LE"
	case head[0] == 0 && isASCII(head[1]) && head[2] == 0 && isASCII(head[3]):
		enc, from = "UTF-16 (big-endian)", "UTF-16BE"
	case isASCII(head[0]) && head[1] == 0 && isASCII(head[2]) && head[3] == 0:
		enc, from = "UTF-16 (little-endian)", "UTF-16LE"
	default:
		return nil
	}
	return &EncodingError{Encoding: enc, From: from}
}

// isASCII holds for a byte that can be one of a JSON text's first two
// characters in UTF-16 or UTF-32: ASCII other than NUL.
func isASCII(b byte) bool { return b != 0 && b < 0x80 }

// EncodingKnown says whether head, the first bytes of a text, tells
// CheckEncoding's answer already, so that a reader waits for no more: a
// pipe that holds "{}\n" and stays open is judged at once. Four bytes
// always tell; fewer do once the first two are not NUL and are no byte
// order mark's start, which every UTF-16 or UTF-32 text begins with.
func EncodingKnown(head []byte) bool {
	switch {
	case len(head) >= 4:
		return true
	case len(head) < 2:
		return false
	case head[0] == 0 || head[1] == 0:
		return false
	}
	return !bytes.HasPrefix(head, []byte{0xfe, 0xff}) && !bytes.HasPrefix(head, []byte{0xff, 0xfe})
}

// EncodingDetail words a refusal of a request body in e's encoding, for
// a problem response: the encoding, and the command that converts it.
func EncodingDetail(e *EncodingError) string {
	return "the body is " + e.Encoding + " text; send UTF-8, as RFC 8259 (section 8.1) asks: iconv -f " + e.From + " -t UTF-8"
}
