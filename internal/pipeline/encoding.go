package pipeline

import "github.com/cardscan/cardscan/internal/mediatype"

// EncodingError is an input in UTF-16 or UTF-32 (see mediatype, where the
// HTTP surfaces tell it too).
type EncodingError = mediatype.EncodingError

// CheckEncoding returns an *EncodingError when head, the first bytes of a
// text (at least 4 of them unless the text is shorter), is UTF-16 or
// UTF-32, as mediatype.CheckEncoding tells it.
func CheckEncoding(head []byte) error { return mediatype.CheckEncoding(head) }

// encodingKnown says whether head tells CheckEncoding's answer already
// (mediatype.EncodingKnown).
func encodingKnown(head []byte) bool { return mediatype.EncodingKnown(head) }
