package fastvalidate

// CharBlock is the scanner's first pass over 64 bytes of text, a bit per
// byte (bit i for byte i): where the quotes are, and where the bytes a
// JSON string may not hold as they are (a backslash, a control character
// or a byte of 0x80 and up). Other passes over JSON text can use it to
// step over strings.
type CharBlock = charBlock

// Quotes has a bit set for each '"'.
func (c CharBlock) Quotes() uint64 { return c.quotes }

// Care has a bit set for each backslash, control character and byte of
// 0x80 and up.
func (c CharBlock) Care() uint64 { return c.care }

// Classify fills blocks[k] for b[64k:64k+64], with the vector pass where
// the machine has one. len(b) must be a multiple of 64, and blocks must
// have room for len(b)/64 blocks.
func Classify(b []byte, blocks []CharBlock) {
	if len(b)%64 != 0 || len(blocks) < len(b)/64 {
		panic("fastvalidate: Classify needs whole blocks and room for them")
	}
	if haveClassify {
		classifyBlocks(b, blocks)
	} else {
		classifyWords(b, blocks)
	}
}
