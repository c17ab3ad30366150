package fuzz

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/cardscan/cardscan/fastvalidate"
)

// strictReference judges a document the way fastvalidate's strict layer
// must, built from independent parts: encoding/json for RFC 8259 syntax
// and for numbers beyond float64's range, unicode/utf8 for the encoding, a scan of the raw text for escaped lone
// surrogates (encoding/json quietly turns them into U+FFFD), and a token
// walk for duplicate member names and nesting depth. With unwrap, a
// document that is a JSON string is judged again on its content, as the
// profiles that accept the draft's embedded-string form read it.
func strictReference(doc []byte, maxDepth int, unwrap bool) (ok bool, why string) {
	ok, why = strictOnce(doc, maxDepth)
	if !ok || !unwrap {
		return ok, why
	}
	var inner string
	if trimmed := bytes.TrimLeft(doc, " \t\r\n"); len(trimmed) > 0 && trimmed[0] == '"' {
		if err := json.Unmarshal(doc, &inner); err != nil {
			return false, "string does not decode: " + err.Error()
		}
		// A string whose text is no JSON at all and does not open an
		// object is no embedded card but a string (card.type): only JSON
		// text, or text that starts an object, is judged strictly.
		if !json.Valid([]byte(inner)) {
			if t := bytes.TrimLeft([]byte(inner), " \t\r\n"); len(t) == 0 || t[0] != '{' {
				return true, ""
			}
		}
		return strictOnce([]byte(inner), maxDepth)
	}
	return true, ""
}

func strictOnce(doc []byte, maxDepth int) (bool, string) {
	if !json.Valid(doc) {
		return false, "encoding/json.Valid rejects it"
	}
	if !utf8.Valid(doc) {
		return false, "invalid UTF-8"
	}
	if loneSurrogateEscape(doc) {
		return false, "escaped lone surrogate"
	}
	if ok, why := walkTokens(doc, maxDepth); !ok {
		return false, why
	}
	// Unmarshal into any reads every number as a float64 and fails on one
	// that overflows; one that underflows reads as 0. Only after the walk:
	// a document nested too deep is refused for that first.
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return false, "encoding/json.Unmarshal into any: " + err.Error()
	}
	return true, ""
}

// loneSurrogateEscape reports whether a string in doc, which encoding/json
// has accepted, holds a \uXXXX escape of a surrogate that is not the high
// half of a pair directly followed by the escaped low half.
func loneSurrogateEscape(doc []byte) bool {
	inString := false
	for i := 0; i < len(doc); i++ {
		c := doc[i]
		if !inString {
			inString = c == '"'
			continue
		}
		switch c {
		case '"':
			inString = false
		case '\\':
			if doc[i+1] != 'u' {
				i++ // a one-character escape; skip what it escapes
				continue
			}
			r := hexRune(doc[i+2 : i+6])
			switch {
			case r >= 0xDC00 && r <= 0xDFFF:
				return true
			case r >= 0xD800 && r <= 0xDBFF:
				if i+12 > len(doc) || doc[i+6] != '\\' || doc[i+7] != 'u' {
					return true
				}
				if lo := hexRune(doc[i+8 : i+12]); lo < 0xDC00 || lo > 0xDFFF {
					return true
				}
				i += 11
			default:
				i += 5
			}
		}
	}
	return false
}

func hexRune(h []byte) rune {
	var r rune
	for _, c := range h {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c-'a') + 10
		case c >= 'A' && c <= 'F':
			r |= rune(c-'A') + 10
		}
	}
	return r
}

// walkTokens reads doc with encoding/json's tokenizer and rejects duplicate
// member names, compared as decoded strings, and nesting deeper than
// maxDepth.
func walkTokens(doc []byte, maxDepth int) (bool, string) {
	type frame struct {
		object  bool
		wantKey bool
		keys    map[string]bool
	}
	var stack []*frame
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return true, ""
		}
		if err != nil {
			return false, "token walk: " + err.Error()
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if d, isDelim := tok.(json.Delim); isDelim && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			continue
		}
		if s, isString := tok.(string); isString && top != nil && top.object && top.wantKey {
			if top.keys[s] {
				return false, "duplicate member name " + strings.ToValidUTF8(s, "?")
			}
			top.keys[s] = true
			top.wantKey = false
			continue
		}
		// A value: after it, an object expects a name again.
		if top != nil && top.object {
			top.wantKey = true
		}
		if d, isDelim := tok.(json.Delim); isDelim {
			if len(stack) >= maxDepth {
				return false, "deeper than the limit"
			}
			stack = append(stack, &frame{object: d == '{', wantKey: true, keys: map[string]bool{}})
		}
	}
}

// strictLayerRules are the findings by which the strict layer rejects a
// document; profile checks run only when it has none.
var strictLayerRules = map[string]bool{
	"json.syntax": true, "json.utf8": true, "json.duplicate-key": true, "json.depth": true, "json.number-range": true,
	"input.too-large": true,
}

// strictVerdict reads the strict layer's verdict out of a Result.
func strictVerdict(r *fastvalidate.Result) (ok bool, rule string) {
	for _, f := range r.Findings() {
		if strictLayerRules[f.Code.String()] {
			return false, f.Code.String()
		}
	}
	return true, ""
}
