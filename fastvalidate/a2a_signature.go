package fastvalidate

import "github.com/cardscan/cardscan/fastvalidate/internal/tape"

// Signatures of 0.3 and 1.0 cards are JWS objects (RFC 7515, JSON
// serialization): the protected header, base64url-encoded JSON with alg and
// kid, and the signature, base64url. Only the form is checked: verifying a
// signature needs keys and the JCS canonical form of the card.

func (c *a2aCheck) signatures(arr uint32) {
	w := c.walker
	for e, end := arr+1, c.end(arr); e < end; e = c.next(e) {
		if !c.want(e, tape.KindObject) {
			continue
		}
		var protected, signature uint32
		for k, end := e+1, c.end(e); k < end; k = c.next(k + 1) {
			v := k + 1
			switch string(c.name(k)) {
			case "protected":
				protected = v
			case "signature":
				signature = v
			case "header":
				if c.present(v) {
					c.want(v, tape.KindObject)
				}
			}
		}
		if c.checkRequiredString(e, protected, CodeA2ASignatureFormat, "protected") {
			c.protectedHeader(protected)
		}
		if c.checkRequiredString(e, signature, CodeA2ASignatureFormat, "signature") && !isBase64URL(c.str(signature)) {
			w.addGot(CodeA2ASignatureFormat, signature, "signature is not unpadded base64url")
		}
	}
}

func (c *a2aCheck) protectedHeader(n uint32) {
	w := c.walker
	src := w.str(n)
	if !isBase64URL(src) {
		w.addGot(CodeA2ASignatureFormat, n, "protected is not unpadded base64url")
		return
	}
	// Decoding never writes ahead of what it has read, so it may decode
	// in place when str returned the scratch buffer itself.
	w.valBuf = appendBase64URL(w.valBuf[:0], src)
	msg, typ := w.checkJWSHeader(w.valBuf)
	switch {
	case msg != "":
		w.addGot(CodeA2ASignatureFormat, n, msg)
	case typ != 0 && c.ver >= a2aV10 && !w.headerIsJOSE(typ):
		w.add(CodeA2ASignatureTyp, n, "protected header's typ is not \"JOSE\", which A2A 1.0 section 8.4.2 says it SHOULD be")
	}
}

// headerIsJOSE reports whether node typ of the protected header
// checkJWSHeader read last is the string "JOSE", escapes decoded.
func (w *walker) headerIsJOSE(typ uint32) bool {
	vw := w.header.View()
	return vw.Kind(typ) == tape.KindString && vw.SameAs(typ, []byte("JOSE"))
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

// maxHeaderDepth bounds the nesting of a protected header, which needs
// none: its members are flat strings and numbers, with crit a list.
const maxHeaderDepth = 32

// checkJWSHeader checks that b is one strict JSON object with string
// members alg and kid, and returns what is wrong, or "", and the node of
// its typ member on the header's tape, 0 for none. The header is
// read by the scanner that reads cards, on a tape of its own, so that it
// is held to the same rules: RFC 8259 syntax, I-JSON (RFC 7493), and
// member names compared decoded, so that "\u0061lg" is alg. RFC 7515
// section 4 lets a reader either reject a repeated header name or keep
// the last one; a check of the form cannot know which the verifier will
// do, so it rejects any.
func (w *walker) checkJWSHeader(b []byte) (msg string, typ uint32) {
	const notObject = "protected does not decode to a JSON object"
	sc := &w.header
	sc.MaxDepth = maxHeaderDepth
	if !sc.Scan(b) {
		if sc.Err() == tape.ErrDuplicateKey {
			return "protected header has a member name twice (RFC 7515 section 4)", 0
		}
		return notObject, 0
	}
	vw := sc.View()
	if vw.Kind(0) != tape.KindObject {
		return notObject, 0
	}
	var alg, kid uint32
	for k := vw.First(0); k < vw.End(0); k = vw.NextMember(k) {
		switch string(vw.Name(k)) {
		case "alg":
			alg = k + 1
		case "kid":
			kid = k + 1
		case "typ":
			typ = k + 1
		}
	}
	switch {
	case alg == 0 && kid == 0:
		return "protected header has neither alg nor kid", 0
	case alg == 0:
		return "protected header has no alg", 0
	case kid == 0:
		return "protected header has no kid", 0
	case vw.Kind(alg) != tape.KindString || vw.Kind(kid) != tape.KindString:
		return "protected header's alg and kid must be strings", 0
	case len(vw.Raw(alg)) == 0 || len(vw.Raw(kid)) == 0:
		// An empty alg names no algorithm, an empty kid no key. Escapes
		// never decode to nothing, so the raw text is empty or not as
		// the decoded one is.
		return "protected header's alg and kid must not be empty", 0
	}
	return "", typ
}
