package fastvalidate

import (
	"net/netip"
	"unsafe"

	"github.com/cardscan/cardscan/fastvalidate/internal/tape"
)

// RFC 3986 character classes, one bit each, so that a class union is one
// table lookup and an AND.
const (
	uriUnreserved = 1 << iota // ALPHA DIGIT - . _ ~
	uriSubDelim               // ! $ & ' ( ) * + , ; =
	uriSchemeRest             // ALPHA DIGIT + - .
	uriAlpha
)

var uriClass = func() (t [256]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] |= uriUnreserved | uriSchemeRest | uriAlpha
		t[c-'a'+'A'] |= uriUnreserved | uriSchemeRest | uriAlpha
	}
	for c := '0'; c <= '9'; c++ {
		t[c] |= uriUnreserved | uriSchemeRest
	}
	for _, c := range "-._~" {
		t[c] |= uriUnreserved
	}
	for _, c := range "!$&'()*+,;=" {
		t[c] |= uriSubDelim
	}
	for _, c := range "+-." {
		t[c] |= uriSchemeRest
	}
	return t
}()

// uriTailChar marks the bytes that stand for themselves after the authority:
// pchar (unreserved, sub-delims, ":" and "@") plus "/" and "?". In the path
// a "?" starts the query, which takes the same bytes, so one table serves.
var uriTailChar = func() (t [256]bool) {
	for c := range t {
		t[c] = uriClass[c]&(uriUnreserved|uriSubDelim) != 0
	}
	t[':'], t['@'], t['/'], t['?'] = true, true, true, true
	return t
}()

// URI holds the parts of an absolute URI that rules look at; the slices
// point into the checked bytes.
type URI struct {
	Scheme []byte
	Host   []byte // without brackets; empty when there is no authority
	// HasAuthority reports a "//" authority component, even an empty one.
	HasAuthority bool
}

// ParseURI checks that b is an absolute URI by the grammar of RFC 3986
// section 3 (a scheme, then hier-part, query and fragment of URI
// characters only: no spaces, no non-ASCII, percent signs followed by two
// hex digits) and returns its scheme and host.
func ParseURI(b []byte) (URI, bool) {
	var u URI
	colon, ok := uriScheme(b)
	if !ok {
		return u, false
	}
	u.Scheme = b[:colon]
	i := colon + 1
	if i+1 < len(b) && b[i] == '/' && b[i+1] == '/' {
		u.HasAuthority = true
		i += 2
		// Nearly every authority is a plain host name with an optional
		// port: one pass decides it. Anything else (userinfo, an IP
		// literal, percent-encoding) takes uriAuthority's general path.
		end := i
		for end < len(b) && uriClass[b[end]]&(uriUnreserved|uriSubDelim) != 0 {
			end++
		}
		hostEnd := end
		if end < len(b) && b[end] == ':' {
			end++
			for end < len(b) && b[end]-'0' <= 9 {
				end++
			}
		}
		if end == len(b) || b[end] == '/' || b[end] == '?' || b[end] == '#' {
			u.Host, i = b[i:hostEnd], end
		} else {
			host, n, ok := uriAuthority(b[i:])
			if !ok {
				return u, false
			}
			u.Host, i = host, i+n
		}
	}
	return u, uriTail(b[i:])
}

// uriScheme reads the scheme that starts b, ALPHA *( ALPHA / DIGIT / "+" /
// "-" / "." ), and returns the offset of the ':' that must end it.
func uriScheme(b []byte) (colon int, ok bool) {
	if len(b) == 0 || uriClass[b[0]]&uriAlpha == 0 {
		return 0, false
	}
	i := 1
	for i < len(b) && uriClass[b[i]]&uriSchemeRest != 0 {
		i++
	}
	return i, i < len(b) && b[i] == ':'
}

// uriAuthority reads the authority that starts a, after "//", by its
// general grammar, and returns its host and its length: what follows is
// the path, query or fragment.
func uriAuthority(a []byte) (host []byte, n int, ok bool) {
	for n < len(a) && a[n] != '/' && a[n] != '?' && a[n] != '#' {
		n++
	}
	host, ok = checkAuthority(a[:n])
	return host, n, ok
}

// uriTail reports whether t, the path, query and fragment, is pchar plus
// "/" and "?", with percent-encoding, and one "#" that starts the
// fragment.
func uriTail(t []byte) bool {
	fragment := false
	for i := 0; i < len(t); {
		for i+4 <= len(t) && uriTailChar[t[i]] && uriTailChar[t[i+1]] && uriTailChar[t[i+2]] && uriTailChar[t[i+3]] {
			i += 4
		}
		if i == len(t) {
			break
		}
		c := t[i]
		switch {
		case uriTailChar[c]:
			i++
		case c == '%':
			if i+2 >= len(t) || tape.HexVal[t[i+1]] < 0 || tape.HexVal[t[i+2]] < 0 {
				return false
			}
			i += 3
		case c == '#' && !fragment:
			fragment = true
			i++
		default:
			return false
		}
	}
	return true
}

// checkAuthority checks [ userinfo "@" ] host [ ":" port ] and returns the host.
func checkAuthority(a []byte) ([]byte, bool) {
	for j, c := range a {
		if c == '@' {
			if !allURIChars(a[:j], true) {
				return nil, false
			}
			a = a[j+1:]
			break
		}
	}
	var host []byte
	if len(a) > 0 && a[0] == '[' {
		close := -1
		for j, c := range a {
			if c == ']' {
				close = j
				break
			}
		}
		if close < 0 {
			return nil, false
		}
		host = a[1:close]
		if !checkIPLiteral(host) {
			return nil, false
		}
		a = a[close+1:]
		if len(a) > 0 && a[0] != ':' {
			return nil, false
		}
	} else {
		end := len(a)
		for j, c := range a {
			if c == ':' {
				end = j
				break
			}
		}
		host = a[:end]
		if !allURIChars(host, false) {
			return nil, false
		}
		a = a[end:]
	}
	if len(a) > 0 { // ":" port
		for _, c := range a[1:] {
			if c-'0' > 9 {
				return nil, false
			}
		}
	}
	return host, true
}

// allURIChars reports whether b is unreserved, sub-delims and pct-encoded
// characters only (plus ":" for userinfo).
func allURIChars(b []byte, colon bool) bool {
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case uriClass[c]&(uriUnreserved|uriSubDelim) != 0:
		case c == ':' && colon:
		case c == '%':
			if i+2 >= len(b) || tape.HexVal[b[i+1]] < 0 || tape.HexVal[b[i+2]] < 0 {
				return false
			}
			i += 2
		default:
			return false
		}
	}
	return true
}

// checkIPLiteral checks what stands between the brackets: an IPv6 address
// (no zone: RFC 3986 has none) or an IPvFuture.
func checkIPLiteral(h []byte) bool {
	if len(h) > 0 && (h[0] == 'v' || h[0] == 'V') {
		i := 1
		for i < len(h) && tape.HexVal[h[i]] >= 0 {
			i++
		}
		if i == 1 || i >= len(h) || h[i] != '.' || i+1 == len(h) {
			return false
		}
		for _, c := range h[i+1:] {
			if uriClass[c]&(uriUnreserved|uriSubDelim) == 0 && c != ':' {
				return false
			}
		}
		return true
	}
	if len(h) == 0 {
		return false
	}
	for _, c := range h {
		if tape.HexVal[c] < 0 && c != ':' && c != '.' {
			return false
		}
	}
	addr, err := netip.ParseAddr(unsafe.String(&h[0], len(h)))
	return err == nil && addr.Is6()
}

// equalFold reports whether a equals the lowercase ASCII word, ignoring case.
func equalFold(a []byte, lower string) bool {
	if len(a) != len(lower) {
		return false
	}
	for i := range a {
		if a[i]|0x20 != lower[i] {
			return false
		}
	}
	return true
}
