package fastvalidate

import (
	"bytes"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/cardscan/cardscan/fastvalidate/internal/tape"
)

// The scanner stops at the first byte that is not JSON and records only
// where, in which node, and whether in a member name. What went wrong is
// told here, after the scan has failed, by reading the bytes around that
// offset and the tape the scan left: a valid card never pays for it, and
// the scan loop stays as it is.
//
// Each message says what was expected and what was found, and is one of
// the static strings below with a %s for what was found, which goes to the
// Result's arena as a finding's excerpt does; nothing allocates until the
// message is formatted. Where Python's json module reports a fault at
// another byte than the one where the text stops being JSON, the offset is
// moved to where Python puts it, so that both point at the same column:
// the opening quote of an unterminated string, the 'u' of a bad \u escape,
// and the '-', '.' or 'e' that no digit follows (Python reads "1." as the
// number 1 followed by a stray '.').

// syntaxContext is what the grammar allowed at the offending byte.
type syntaxContext uint8

const (
	ctxValue        syntaxContext = iota // at the start, or after ':'
	ctxElement                           // after ',' in an array
	ctxValueOrClose                      // after '['
	ctxName                              // after ',' in an object
	ctxNameOrClose                       // after '{'
	ctxColon                             // after a member name
	ctxAfterMember                       // after a member's value
	ctxAfterElement                      // after an array element
	ctxEnd                               // after the top-level value
	numContexts
)

var expected = [numContexts]string{
	ctxValue:        "a value",
	ctxElement:      "a value",
	ctxValueOrClose: "a value or ']'",
	ctxName:         "a member name in double quotes",
	ctxNameOrClose:  "a member name in double quotes or '}'",
	ctxColon:        "':' after the member name",
	ctxAfterMember:  "',' or '}' after the member",
	ctxAfterElement: "',' or ']' after the element",
	ctxEnd:          "the end of input after the JSON value",
}

// syntaxFault names a kind of fault; with a context it picks a message.
type syntaxFault uint8

const (
	faultOther syntaxFault = iota
	faultEOF
	faultTrailingComma
	faultMissingComma
	faultMissingColon
	faultMismatched
	faultComment
	faultSingleQuote
	faultNonNumber
	faultTrailingData
	faultNDJSON
	faultLoneCR
	numFaults
)

var faultPrefix = [numFaults]string{
	faultOther:         "",
	faultEOF:           "unexpected end of input: ",
	faultTrailingComma: "trailing comma: ",
	faultMissingComma:  "missing comma: ",
	faultMissingColon:  "missing colon: ",
	faultMismatched:    "mismatched bracket: ",
	faultComment:       "comment: JSON has none; ",
	faultSingleQuote:   "single-quoted string: ",
	faultNonNumber:     "NaN and Infinity are not JSON numbers: ",
	faultTrailingData:  "trailing data: ",
	faultNDJSON:        "trailing data: this looks like NDJSON; " + ndjsonAdvice + ": ",
	faultLoneCR:        "trailing data: this looks like lines ended by a lone CR, which ends no line; tr '\\r' '\\n' converts them: ",
}

// ndjsonAdvice is what faultNDJSON's message tells the CLI's user to do;
// AdviseNDJSON replaces it for a caller without that flag.
const ndjsonAdvice = "use --input ndjson"

// AdviseNDJSON returns f with the advice of a json.syntax fault that
// finds a second value on a line of its own (the text looks like
// NDJSON), "use --input ndjson", replaced by advice, for a caller whose
// users have no --input flag to follow it with (cardscan fetch, which
// judges what a server sent); any other finding is returned as it is.
// advice is written as it is, and must hold no % verb.
func (f Finding) AdviseNDJSON(advice string) Finding {
	if f.Code == CodeJSONSyntax && strings.HasPrefix(f.msg, faultPrefix[faultNDJSON]) {
		f.msg = strings.Replace(f.msg, ndjsonAdvice, advice, 1)
	}
	return f
}

// syntaxMessages holds a message for every fault in every context, built
// once, so that reporting one only picks a string: on the first syntax
// error, since every start would otherwise pay for the 200 strings.
var syntaxMessages = sync.OnceValue(func() *[numFaults][numContexts]string {
	t := new([numFaults][numContexts]string)
	for f := range numFaults {
		for c := range numContexts {
			exp := expected[c]
			switch {
			case f == faultEOF:
				t[f][c] = faultPrefix[f] + "expected " + exp
			case f == faultTrailingComma:
				t[f][c] = faultPrefix[f] + "expected " + exp + " after ',', found %s"
			case f == faultNDJSON:
				t[f][c] = faultPrefix[f] + "expected " + exp + ", found %s on a new line"
			default:
				t[f][c] = faultPrefix[f] + "expected " + exp + ", found %s"
			}
		}
	}
	return t
})

// Messages of faults in a number or a string, which need no context.
const (
	msgLeadingZero  = "number with a leading zero: expected '.', 'e' or the end of the number after the 0, found %s"
	msgNoFraction   = "number with no digit after '.': expected a digit, found %s"
	msgNoExponent   = "number with no digit in its exponent: expected a digit, found %s"
	msgNoDigits     = "number with no digit after '-': expected a digit, found %s"
	msgBadNumber    = "invalid number: expected the end of the number, found %s"
	msgUnterminated = "unterminated string: expected a closing '\"', found the end of input"
	msgBadEscape    = "invalid escape: expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX, found %s"
	msgBadUnicode   = "invalid escape: expected \\u and four hex digits, found %s"
	msgBOM          = "byte order mark: JSON text must not begin with one; expected a value, found U+FEFF BYTE ORDER MARK"
)

// controlNames names the C0 control characters and DEL, as editors and
// Unicode charts abbreviate them, for messages.
var controlNames = [33]string{
	"NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL", "BACKSPACE", "TAB", "LINE FEED", "VERTICAL TAB",
	"FORM FEED", "CARRIAGE RETURN", "SO", "SI", "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB",
	"CAN", "EM", "SUB", "ESCAPE", "FS", "GS", "RS", "US", "DELETE",
}

// controlMessages holds the message for each control character found
// unescaped in a string, with the escape that writes it; built like
// syntaxMessages.
var controlMessages = sync.OnceValue(func() *[32]string {
	t := new([32]string)
	short := map[byte]string{'\b': `\b`, '\t': `\t`, '\n': `\n`, '\f': `\f`, '\r': `\r`}
	for c := range byte(32) {
		esc, ok := short[c]
		if !ok {
			esc = string(appendUnicodeEscape(nil, rune(c)))
		}
		t[c] = "unescaped control character in a string: expected " + esc + ", found " + string(appendCodePoint(nil, rune(c)))
	}
	return t
})

// describeSyntax tells what the failed scan of w.b met at its offset: it
// returns the message, leaves what was found (if the message quotes it) at
// the end of the arena from start on, and returns the offset to report.
func (w *walker) describeSyntax() (msg string, at int) {
	vw := w.vw
	b, off := w.b, w.sc.ErrOffset()
	n, _ := w.sc.ErrNode()
	if n != tape.NoParent && int(n) < vw.Len() {
		switch start, end := vw.Bounds(n); {
		case vw.Kind(n) == tape.KindString && int(end) == off:
			return w.describeString(start, end)
		case vw.Kind(n) == tape.KindNumber && vw.Flags(n)&tape.FlagBad != 0:
			return w.describeNumber(start, end)
		}
	}
	if off == 0 && len(b) >= 3 && string(b[:3]) == "\xef\xbb\xbf" {
		// RFC 8259 section 8.1 lets a parser ignore one, and some do not.
		return msgBOM, 0
	}
	ctx, prev := w.syntaxContext()
	if off >= len(b) {
		return syntaxMessages()[faultEOF][ctx], off
	}
	fault := structuralFault(b, off, ctx, prev)
	w.appendFound(off)
	return syntaxMessages()[fault][ctx], off
}

// structuralFault names the fault of byte b[off], where the grammar
// allowed ctx after the byte at prev (-1 for none), when it names one
// more precisely than "expected X, found Y".
func structuralFault(b []byte, off int, ctx syntaxContext, prev int) syntaxFault {
	switch {
	case commentAt(b, off):
		return faultComment
	case ctx == ctxEnd:
		switch gap := b[prev+1 : off]; {
		case bytes.IndexByte(gap, '\n') >= 0:
			return faultNDJSON
		case bytes.IndexByte(gap, '\r') >= 0:
			return faultLoneCR
		}
		return faultTrailingData
	case ctx == ctxColon:
		return faultMissingColon
	case ctx == ctxAfterMember || ctx == ctxAfterElement:
		return faultAfterItem(b, off)
	}
	return faultWhereValueDue(b, off, ctx, prev)
}

// commentAt reports whether a // or /* comment starts at b[off].
func commentAt(b []byte, off int) bool {
	return b[off] == '/' && off+1 < len(b) && (b[off+1] == '/' || b[off+1] == '*')
}

// faultAfterItem names the fault of byte b[off] where ',' or a closing
// bracket was due: the other bracket, or the start of a value, which a
// comma would have made the next item.
func faultAfterItem(b []byte, off int) syntaxFault {
	switch c := b[off]; {
	case c == '}' || c == ']':
		return faultMismatched
	case c == '"' || c == '{' || c == '[' || c == '-' || c-'0' <= 9 ||
		bytes.HasPrefix(b[off:], []byte("true")) || bytes.HasPrefix(b[off:], []byte("false")) || bytes.HasPrefix(b[off:], []byte("null")):
		return faultMissingComma
	}
	return faultOther
}

// faultWhereValueDue names the fault of byte b[off] where a value or a
// member name was due.
func faultWhereValueDue(b []byte, off int, ctx syntaxContext, prev int) syntaxFault {
	switch c := b[off]; {
	case (c == '}' || c == ']') && prev >= 0 && b[prev] == ',':
		return faultTrailingComma
	case c == '}' && ctx == ctxValueOrClose, c == ']' && ctx == ctxNameOrClose:
		return faultMismatched
	case c == '\'':
		return faultSingleQuote
	case ctx <= ctxValueOrClose && (hasWord(b, off, "NaN") || hasWord(b, off, "Infinity")):
		return faultNonNumber
	}
	return faultOther
}

// syntaxContext works out what the grammar allowed at the error offset of
// a structural fault, from the last byte before it that is not white space
// and from the container the scan had open; it also returns that byte's
// offset, or -1.
func (w *walker) syntaxContext() (syntaxContext, int) {
	vw := w.vw
	b, off := w.b, w.sc.ErrOffset()
	n, _ := w.sc.ErrNode()
	prev := min(off, len(b)) - 1
	for prev >= 0 && tape.WSTable[b[prev]] {
		prev--
	}
	last := vw.Len() - 1
	if n != tape.NoParent && int(n) == last {
		if start, end := vw.Bounds(n); vw.Kind(n) == tape.KindNull && end == start && int(start) == off {
			// The scan's stand-in for the value that no byte started.
			n, last = vw.Parent(n), last-1
		}
	}
	if n == tape.NoParent {
		if prev < 0 {
			return ctxValue, prev
		}
		return ctxEnd, prev
	}
	object := vw.Kind(n) == tape.KindObject
	switch c := b[prev]; {
	case c == '{' && object && prev == vw.Offset(n):
		return ctxNameOrClose, prev
	case c == '[' && !object && prev == vw.Offset(n):
		return ctxValueOrClose, prev
	case c == ':':
		return ctxValue, prev
	case c == ',' && object:
		return ctxName, prev
	case c == ',':
		return ctxElement, prev
	case !object:
		return ctxAfterElement, prev
	}
	// In an object, a string just read is a member name or a value: its
	// names and values alternate from the first member on.
	k := n + 1
	for int(k) < last {
		k = vw.NextMember(k)
	}
	if int(k) == last && last > int(n) && vw.Kind(uint32(last)) == tape.KindString {
		return ctxColon, prev
	}
	return ctxAfterMember, prev
}

// describeString tells a fault in the string whose text starts at start,
// which the scan ended at end, the offending byte.
func (w *walker) describeString(start, end uint32) (string, int) {
	b, off := w.b, int(end)
	switch {
	case off >= len(b), b[off] == '\\' && off+1 >= len(b):
		return msgUnterminated, int(start) - 1
	case b[off] == '\\' && b[off+1] == 'u':
		w.appendToken(b[off:min(off+6, len(b))])
		return msgBadUnicode, off + 1
	case b[off] == '\\':
		_, size := utf8.DecodeRune(b[off+1:])
		w.appendToken(b[off : off+1+size])
		return msgBadEscape, off
	case b[off] < 0x20:
		return controlMessages()[b[off]], off
	}
	w.appendFound(off)
	return syntaxMessages()[faultOther][ctxValue], off
}

// describeNumber tells a fault in the number that starts at start, which
// the scan ended at end, the offending byte.
func (w *walker) describeNumber(numStart, end uint32) (string, int) {
	b, start, off := w.b, int(numStart), int(end)
	if b[start] == '-' && off == start+1 {
		if hasWord(b, off, "Infinity") {
			w.appendToken(b[start : off+len("Infinity")])
			return syntaxMessages()[faultNonNumber][ctxValue], start
		}
		w.appendFound(off)
		return msgNoDigits, start
	}
	w.appendFound(off)
	switch last := b[off-1]; {
	case last == '.':
		return msgNoFraction, off - 1
	case last|0x20 == 'e':
		return msgNoExponent, off - 1
	case (last == '+' || last == '-') && off-2 > start:
		return msgNoExponent, off - 2
	case last == '0' && off < len(b) && b[off]-'0' <= 9 && (off-1 == start || off-2 == start && b[start] == '-'):
		return msgLeadingZero, off
	}
	return msgBadNumber, off
}

// hasWord reports whether the letters at b[i] are word, and no more.
func hasWord(b []byte, i int, word string) bool {
	if !bytes.HasPrefix(b[i:], []byte(word)) {
		return false
	}
	j := i + len(word)
	return j == len(b) || !isWordByte(b[j])
}

func isWordByte(c byte) bool {
	return c|0x20-'a' < 26 || c-'0' <= 9 || c == '_'
}

// maxFound bounds the excerpt of a word or single-quoted text in a
// message.
const maxFound = 24

// appendFound describes the token at b[off] for a message: a word, a
// comment's opening, single-quoted text or a character, quoted; a control
// or invisible character, or a byte that is not UTF-8, by its code.
func (w *walker) appendFound(off int) {
	b := w.b
	if off >= len(b) {
		w.res.arena = append(w.res.arena, "the end of input"...)
		return
	}
	switch c := b[off]; {
	case commentAt(b, off):
		w.appendToken(b[off : off+2])
	case c == '\'':
		end := off + 1
		for end < len(b) && end-off < maxFound && b[end] != '\'' && b[end] >= 0x20 && b[end] < utf8.RuneSelf {
			end++
		}
		if end < len(b) && b[end] == '\'' {
			w.res.arena = append(w.res.arena, b[off:end+1]...)
			return
		}
		w.res.arena = append(w.res.arena, b[off:end]...)
		w.res.arena = append(w.res.arena, "…"...)
	case isWordByte(c):
		end := off + 1
		for end < len(b) && end-off < maxFound && isWordByte(b[end]) {
			end++
		}
		w.appendToken(b[off:end])
		if end < len(b) && isWordByte(b[end]) {
			w.res.arena = append(w.res.arena, "…"...)
		}
	case c > ' ' && c < 0x7f:
		w.appendToken(b[off : off+1])
	case c < utf8.RuneSelf:
		w.res.arena = appendCodePoint(w.res.arena, rune(c))
	default:
		r, size := utf8.DecodeRune(b[off:])
		switch {
		case r == utf8.RuneError && size == 1:
			w.res.arena = append(w.res.arena, "byte 0x"...)
			w.res.arena = append(w.res.arena, upperHex[c>>4], upperHex[c&15])
		case unicode.IsPrint(r) && !unicode.IsSpace(r):
			w.appendToken(b[off : off+size])
		default:
			w.res.arena = appendCodePoint(w.res.arena, r)
		}
	}
}

// appendToken quotes text found in the card.
func (w *walker) appendToken(text []byte) {
	w.res.arena = append(w.res.arena, '\'')
	w.res.arena = append(w.res.arena, text...)
	w.res.arena = append(w.res.arena, '\'')
}

const upperHex = "0123456789ABCDEF"

// appendCodePoint writes r as U+XXXX, with its name where it is a control
// or a space that does not show.
func appendCodePoint(dst []byte, r rune) []byte {
	dst = append(dst, "U+"...)
	shift := 12
	for r>>shift >= 16 {
		shift += 4
	}
	for ; shift >= 0; shift -= 4 {
		dst = append(dst, upperHex[r>>shift&15])
	}
	name := ""
	switch {
	case r < 0x20:
		name = controlNames[r]
	case r == 0x7f:
		name = controlNames[32]
	case r == 0xa0:
		name = "NO-BREAK SPACE"
	case r == 0x200b:
		name = "ZERO WIDTH SPACE"
	case r == 0x2028:
		name = "LINE SEPARATOR"
	case r == 0x2029:
		name = "PARAGRAPH SEPARATOR"
	case r == 0xfeff:
		name = "BYTE ORDER MARK"
	}
	if name != "" {
		dst = append(dst, ' ')
		dst = append(dst, name...)
	}
	return dst
}

const hexDigits = "0123456789abcdef"

// appendUnicodeEscape writes r, below U+10000, as a JSON \u escape.
func appendUnicodeEscape(dst []byte, r rune) []byte {
	return append(dst, '\\', 'u', hexDigits[r>>12&15], hexDigits[r>>8&15], hexDigits[r>>4&15], hexDigits[r&15])
}
