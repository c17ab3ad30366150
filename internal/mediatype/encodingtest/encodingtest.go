// Package encodingtest writes the UTF-16 and UTF-32 texts that the tests
// of every surface refusing them (the pipeline's inputs, serve's bodies)
// send, so that they share one encoder: golang.org/x/text's.
package encodingtest

import (
	"encoding/binary"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/encoding/unicode/utf32"
)

// Encode writes text in UTF-16 (width 2) or UTF-32 (width 4) in the byte
// order given, after a byte order mark when bom is set.
func Encode(text string, width int, order binary.AppendByteOrder, bom bool) []byte {
	var enc encoding.Encoding
	bomPolicy16, bomPolicy32 := unicode.IgnoreBOM, utf32.IgnoreBOM
	if bom {
		bomPolicy16, bomPolicy32 = unicode.UseBOM, utf32.UseBOM
	}
	switch big := order == binary.BigEndian; {
	case width == 4 && big:
		enc = utf32.UTF32(utf32.BigEndian, bomPolicy32)
	case width == 4:
		enc = utf32.UTF32(utf32.LittleEndian, bomPolicy32)
	case big:
		enc = unicode.UTF16(unicode.BigEndian, bomPolicy16)
	default:
		enc = unicode.UTF16(unicode.LittleEndian, bomPolicy16)
	}
	b, err := enc.NewEncoder().Bytes([]byte(text))
	if err != nil {
		panic(err) // the tests' texts are valid UTF-8
	}
	return b
}
