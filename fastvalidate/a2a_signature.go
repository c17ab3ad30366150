package fastvalidate

import "unicode/utf8"

// Signatures of 0.3 and 1.0 cards are JWS objects (RFC 7515, JSON
// serialization): the protected header, base64url-encoded JSON with alg and
// kid, and the signature, base64url. Only the form is checked: verifying a
// signature needs keys and the JCS canonical form of the card.

func (c *a2aCheck) signatures(arr uint32) {
	w := c.w
	for e, end := arr+1, c.end(arr); e < end; e = c.next(e) {
		if !c.want(e, kindObject) {
			continue
		}
		var protected, signature uint32
		for k, end := e+1, c.end(e); k < end; k = c.next(k + 1) {
			v := k + 1
			key, plain := c.rawKey(k)
			if !plain {
				key = c.decodedKey(k)
			}
			switch string(key) {
			case "protected":
				protected = v
			case "signature":
				signature = v
			case "header":
				if c.present(v) {
					c.want(v, kindObject)
				}
			}
		}
		if c.requiredText(e, protected, CodeA2ASignatureFormat, "protected") {
			c.protectedHeader(protected)
		}
		if c.requiredText(e, signature, CodeA2ASignatureFormat, "signature") && !isBase64URL(c.str(signature)) {
			w.addGot(CodeA2ASignatureFormat, signature, "signature is not unpadded base64url")
		}
	}
}

func (c *a2aCheck) protectedHeader(n uint32) {
	w := c.w
	src := w.text(n)
	if !isBase64URL(src) {
		w.addGot(CodeA2ASignatureFormat, n, "protected is not unpadded base64url")
		return
	}
	// Decoding never writes ahead of what it has read, so it may decode
	// in place when text returned the scratch buffer itself.
	w.valBuf = appendBase64URL(w.valBuf[:0], src)
	if msg := checkJWSHeader(w.valBuf); msg != "" {
		w.addGot(CodeA2ASignatureFormat, n, msg)
	}
}

// base64URL maps the base64url alphabet (RFC 4648 section 5) to its values
// and everything else, "=" included, to 0xFF.
var base64URL = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xFF
	}
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	for i := 0; i < len(alphabet); i++ {
		t[alphabet[i]] = byte(i)
	}
	return t
}()

// isBase64URL reports whether b is non-empty unpadded base64url, as JWS
// writes it: alphabet characters only, in a length no encoding produces
// (4n+1) excluded.
func isBase64URL(b []byte) bool {
	if len(b) == 0 || len(b)%4 == 1 {
		return false
	}
	for _, c := range b {
		if base64URL[c] == 0xFF {
			return false
		}
	}
	return true
}

// appendBase64URL decodes src, which isBase64URL accepted, onto dst.
func appendBase64URL(dst, src []byte) []byte {
	i := 0
	for ; i+4 <= len(src); i += 4 {
		v := uint32(base64URL[src[i]])<<18 | uint32(base64URL[src[i+1]])<<12 | uint32(base64URL[src[i+2]])<<6 | uint32(base64URL[src[i+3]])
		dst = append(dst, byte(v>>16), byte(v>>8), byte(v))
	}
	switch len(src) - i {
	case 2:
		v := uint32(base64URL[src[i]])<<18 | uint32(base64URL[src[i+1]])<<12
		dst = append(dst, byte(v>>16))
	case 3:
		v := uint32(base64URL[src[i]])<<18 | uint32(base64URL[src[i+1]])<<12 | uint32(base64URL[src[i+2]])<<6
		dst = append(dst, byte(v>>16), byte(v>>8))
	}
	return dst
}

// checkJWSHeader checks that b is one strict JSON object with string
// members alg and kid, each once, and returns what is wrong, or "".
func checkJWSHeader(b []byte) string {
	const notObject = "protected does not decode to a JSON object"
	i := skipJSONSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return notObject
	}
	var alg, kid int // 0 absent, 1 a string, 2 something else, 3 ""
	i = skipJSONSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		i++
	} else {
		for {
			if i >= len(b) || b[i] != '"' {
				return notObject
			}
			end := skipJSONString(b, i)
			if end < 0 {
				return notObject
			}
			key := b[i+1 : end-1]
			i = skipJSONSpace(b, end)
			if i >= len(b) || b[i] != ':' {
				return notObject
			}
			i = skipJSONSpace(b, i+1)
			kind := 2
			if i < len(b) && b[i] == '"' {
				kind = 1
				if i+1 < len(b) && b[i+1] == '"' {
					kind = 3
				}
			}
			if i = skipJSONValue(b, i, 1); i < 0 {
				return notObject
			}
			switch string(key) {
			case "alg":
				if alg != 0 {
					return "protected header has alg twice (RFC 7515 section 4)"
				}
				alg = kind
			case "kid":
				if kid != 0 {
					return "protected header has kid twice (RFC 7515 section 4)"
				}
				kid = kind
			}
			i = skipJSONSpace(b, i)
			if i < len(b) && b[i] == ',' {
				i = skipJSONSpace(b, i+1)
				continue
			}
			if i < len(b) && b[i] == '}' {
				i++
				break
			}
			return notObject
		}
	}
	if skipJSONSpace(b, i) != len(b) {
		return notObject
	}
	switch {
	case alg == 0 && kid == 0:
		return "protected header has neither alg nor kid"
	case alg == 0:
		return "protected header has no alg"
	case kid == 0:
		return "protected header has no kid"
	case alg == 2 || kid == 2:
		return "protected header's alg and kid must be strings"
	case alg == 3 || kid == 3:
		// An empty alg names no algorithm, an empty kid no key.
		return "protected header's alg and kid must not be empty"
	}
	return ""
}

// The header is a separate document, so it gets its own small strict
// reader rather than the card's tape. It only answers "where does this
// value end", returning -1 for anything RFC 8259 or I-JSON rejects.

const maxHeaderDepth = 32

func skipJSONSpace(b []byte, i int) int {
	for i < len(b) && wsTable[b[i]] {
		i++
	}
	return i
}

func skipJSONValue(b []byte, i, depth int) int {
	if i >= len(b) {
		return -1
	}
	switch c := b[i]; {
	case c == '"':
		return skipJSONString(b, i)
	case c == '{' || c == '[':
		if depth >= maxHeaderDepth {
			return -1
		}
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		i = skipJSONSpace(b, i+1)
		if i < len(b) && b[i] == closer {
			return i + 1
		}
		for {
			if c == '{' {
				if i >= len(b) || b[i] != '"' {
					return -1
				}
				if i = skipJSONString(b, i); i < 0 {
					return -1
				}
				i = skipJSONSpace(b, i)
				if i >= len(b) || b[i] != ':' {
					return -1
				}
				i = skipJSONSpace(b, i+1)
			}
			if i = skipJSONValue(b, i, depth+1); i < 0 {
				return -1
			}
			i = skipJSONSpace(b, i)
			if i < len(b) && b[i] == ',' {
				i = skipJSONSpace(b, i+1)
				continue
			}
			if i < len(b) && b[i] == closer {
				return i + 1
			}
			return -1
		}
	case c == 't':
		return skipLiteral(b, i, "true")
	case c == 'f':
		return skipLiteral(b, i, "false")
	case c == 'n':
		return skipLiteral(b, i, "null")
	default:
		return skipJSONNumber(b, i)
	}
}

func skipLiteral(b []byte, i int, lit string) int {
	if len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit {
		return i + len(lit)
	}
	return -1
}

// skipJSONNumber follows -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func skipJSONNumber(b []byte, i int) int {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return -1
	case b[i] == '0':
		i++
	case b[i]-'1' <= 8:
		for i < len(b) && b[i]-'0' <= 9 {
			i++
		}
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		i++
		start := i
		for i < len(b) && b[i]-'0' <= 9 {
			i++
		}
		if i == start {
			return -1
		}
	}
	if i < len(b) && b[i]|0x20 == 'e' {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		start := i
		for i < len(b) && b[i]-'0' <= 9 {
			i++
		}
		if i == start {
			return -1
		}
	}
	return i
}

// skipJSONString returns the offset after the string starting at the quote
// b[i], or -1: control characters, bad escapes, invalid UTF-8 and lone
// surrogates are rejected, as the card's own scanner rejects them.
func skipJSONString(b []byte, i int) int {
	for i++; i < len(b); {
		c := b[i]
		switch {
		case c == '"':
			return i + 1
		case c < 0x20:
			return -1
		case c == '\\':
			if i+1 >= len(b) {
				return -1
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				r, ok := hex4(b, i+2)
				switch {
				case !ok || r >= 0xDC00 && r <= 0xDFFF:
					return -1
				case r >= 0xD800 && r <= 0xDBFF:
					if i+7 >= len(b) || b[i+6] != '\\' || b[i+7] != 'u' {
						return -1
					}
					lo, ok := hex4(b, i+8)
					if !ok || lo < 0xDC00 || lo > 0xDFFF {
						return -1
					}
					i += 12
				default:
					i += 6
				}
			default:
				return -1
			}
		case c >= 0x80:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				return -1
			}
			i += size
		default:
			i++
		}
	}
	return -1
}
