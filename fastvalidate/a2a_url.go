package fastvalidate

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"net/netip"
	"unsafe"
)

// urlKind says how strictly a URL member is judged.
type urlKind uint8

const (
	// urlIdentifier names something (an extension) and is never fetched:
	// any absolute URI.
	urlIdentifier urlKind = iota
	// urlWeb is a page for people (provider, documentation, icon): any
	// absolute URI, with the risk checks.
	urlWeb
	// urlEndpoint is called by clients (the agent, its interfaces, OAuth
	// and OpenID endpoints): http or https with a host, and the risk checks.
	urlEndpoint
)

func (c *a2aCheck) url(n uint32, kind urlKind) {
	c.checkURL(n, kind, CodeA2AURL, CodeA2AURLRisk)
}

// checkURL judges the string node n as a URL of the given kind, reporting
// bad for a malformed one and risk (a warning, an error under the
// production policy) for one that is well formed but unsafe to call.
func (w *walker) checkURL(n uint32, kind urlKind, bad, risk Code) {
	if safeHTTPS(w.str(n)) {
		return
	}
	w.judgeURL(n, kind, bad, risk)
}

// safeHTTPS reports whether b is a URL that checkURL passes without a
// word, whatever its kind: one that parsePlainHTTP accepts with the scheme
// https and a host that is neither local nor internal. It decides the
// URLs cards are made of eight bytes a step.
func safeHTTPS(b []byte) bool {
	const https = "https://"
	if len(b) <= len(https) || binary.LittleEndian.Uint64(b) != httpsWord {
		return false
	}
	i := len(https)
	for {
		if i+8 > len(b) {
			for i < len(b) && plainURLClass[b[i]]&plainHost != 0 {
				i++
			}
			break
		}
		if m := nonHostBytes(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			i += bits.TrailingZeros64(m) >> 3
			break
		}
		i += 8
	}
	if i == len(https) {
		return false
	}
	// A plain host can only be local if it ends in "localhost" or a dot,
	// or internal if it ends as an IPv4 number does: a digit, a hex
	// digit, or the x of a bare 0x.
	if c := b[i-1]; c-'0' <= 9 || c|0x20-'a' < 6 || c|0x20 == 'x' || c|0x20 == 't' || c == '.' {
		if host := b[len(https):i]; isLocalhost(host) || isInternalIP(host) {
			return false
		}
	}
	if i < len(b) && b[i] == ':' {
		i++
		for i < len(b) && b[i]-'0' <= 9 {
			i++
		}
	}
	if i == len(b) {
		return true
	}
	if b[i] != '/' && b[i] != '?' {
		return false
	}
	// Every byte before i is of the path class too (scheme, host, port),
	// so the last eight bytes may be judged together even where they
	// reach back before i.
	for ; i+8 <= len(b); i += 8 {
		if !plain8(b, i, plainPath) {
			return false
		}
	}
	return i == len(b) || plain8(b, len(b)-8, plainPath)
}

// httpsWord is "https://" as a little-endian word.
const httpsWord = 'h' | 't'<<8 | 't'<<16 | 'p'<<24 | 's'<<32 | ':'<<40 | '/'<<48 | '/'<<56

// judgeURL is checkURL for any URL.
func (w *walker) judgeURL(n uint32, kind urlKind, bad, risk Code) {
	text := w.str(n)
	u, ok := parsePlainHTTP(text)
	if !ok {
		u, ok = ParseURI(text)
	}
	if !ok {
		w.addGot(bad, n, "not an absolute URI (RFC 3986)")
		return
	}
	https, http := equalFold(u.Scheme, "https"), equalFold(u.Scheme, "http")
	if kind == urlEndpoint {
		if !https && !http {
			w.addGot(bad, n, "URL must use http or https")
			return
		}
		if len(u.Host) == 0 {
			w.addGot(bad, n, "URL has no host")
			return
		}
	}
	if kind == urlIdentifier {
		return
	}
	msg := urlRisk(u, http)
	if msg == "" {
		return
	}
	sev := w.severity(risk)
	if w.cfg.policy == PolicyProduction {
		sev = SeverityError
	}
	w.addGotSev(risk, sev, n, msg)
}

// Classes of the bytes of a plain http(s) URL, one bit each, so that
// eight bytes are judged by ANDing their classes.
const (
	// plainPath: the bytes a path or query may hold without a closer
	// look: RFC 3986 unreserved and sub-delims, ":", "@", "/" and "?".
	plainPath = 1 << iota
	// plainHost: the bytes of a registered name made of letters, digits,
	// dots and hyphens, as almost every host is.
	plainHost
)

var plainURLClass = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		if uriClass[c]&(uriUnreserved|uriSubDelim) != 0 {
			t[c] |= plainPath
		}
		if uriClass[c]&uriAlpha != 0 || c >= '0' && c <= '9' || c == '.' || c == '-' {
			t[c] |= plainHost
		}
	}
	for _, c := range ":@/?" {
		t[c] |= plainPath
	}
	return t
}()

// plain8 reports whether all eight bytes of b[i:i+8] are of class.
func plain8(b []byte, i int, class uint8) bool {
	b = b[i : i+8]
	t := &plainURLClass
	return t[b[0]]&t[b[1]]&t[b[2]]&t[b[3]]&t[b[4]]&t[b[5]]&t[b[6]]&t[b[7]]&class != 0
}

// parsePlainHTTP is ParseURI's fast path for the URLs cards are made of:
// "http://" or "https://", a host of letters, digits, dots and hyphens, an
// optional port, and a path and query of plain characters. ok is false for
// anything else, which ParseURI then judges; when ok is true, ParseURI
// would have returned the same URI.
func parsePlainHTTP(b []byte) (u URI, ok bool) {
	var i int
	switch {
	case len(b) > 8 && string(b[:8]) == "https://":
		i = 8
	case len(b) > 7 && string(b[:7]) == "http://":
		i = 7
	default:
		return u, false
	}
	start := i
	for i < len(b) && plainURLClass[b[i]]&plainHost != 0 {
		i++
	}
	if i == start {
		return u, false
	}
	u.Scheme, u.Host, u.HasAuthority = b[:start-3], b[start:i], true
	if i < len(b) && b[i] == ':' {
		i++
		for i < len(b) && b[i]-'0' <= 9 {
			i++
		}
	}
	if i < len(b) && b[i] != '/' && b[i] != '?' {
		return u, false
	}
	// Every byte before i is of the path class too (scheme, host, port),
	// so the last eight bytes may be judged together even where they
	// reach back before i.
	for ; i+8 <= len(b); i += 8 {
		if !plain8(b, i, plainPath) {
			return u, false
		}
	}
	if i < len(b) && !plain8(b, len(b)-8, plainPath) {
		return u, false
	}
	return u, true
}

// nonHostBytes flags, in the top bit of each byte of the little-endian
// word x, the bytes that are not plainHost: not an ASCII letter, digit,
// dot or hyphen. Each range test adds to bytes of at most 0x7F, so no
// carry crosses into the next byte.
func nonHostBytes(x uint64) uint64 {
	const (
		ones = 0x0101010101010101
		high = 0x8080808080808080
	)
	y := x &^ high     // the low seven bits
	z := y | ones*0x20 // letters folded to lower case
	// (z + ones*(0x80-lo)) &^ (z + ones*(0x7F-hi)) has the top bit set
	// where lo <= z <= hi.
	letter := (z + ones*(0x80-'a')) &^ (z + ones*(0x7F-'z'))
	digit := (z + ones*(0x80-'0')) &^ (z + ones*(0x7F-'9'))
	dotDash := (z + ones*(0x80-'-')) &^ (z + ones*(0x7F-'.'))
	// Top bit clear where y < 0x20, which folding would turn into '-',
	// '.' or a digit.
	control := y + ones*0x60
	host := (letter | digit | dotDash) & control &^ x
	return ^host & high
}

// urlRisk returns why a well-formed URL is unsafe to rely on, or "". It
// looks at the text only: no name is resolved.
func urlRisk(u URI, plainHTTP bool) string {
	if u.HasAuthority && len(u.Host) > 0 {
		if isLocalhost(u.Host) {
			return "host is localhost: no other machine reaches it"
		}
		if isInternalIP(u.Host) {
			return "host is a private, loopback, link-local or unspecified IP address"
		}
	}
	if plainHTTP {
		return "plain http: the connection is neither private nor authenticated"
	}
	return ""
}

// isLocalhost reports "localhost" and names under it (RFC 6761), in any
// case, with or without the root's trailing dot.
func isLocalhost(host []byte) bool {
	if n := len(host); n > 0 && host[n-1] == '.' {
		host = host[:n-1]
	}
	const name = "localhost"
	if len(host) < len(name) || !equalFold(host[len(host)-len(name):], name) {
		return false
	}
	return len(host) == len(name) || host[len(host)-len(name)-1] == '.'
}

// isInternalIP reports an IP address host that is loopback, private (RFC
// 1918, RFC 4193), shared (RFC 6598), link-local or unspecified. An IPv4
// host counts in every form a browser or getaddrinfo reads as one
// (127.1, 0x7f000001, 0177.0.0.1), not only in RFC 3986's dotted decimal.
func isInternalIP(host []byte) bool {
	// A DNS name ends in a letter past 'f' (or a dot); an IP address in a
	// digit, a hex digit, an x or a colon. Most hosts leave here.
	if len(host) == 0 {
		return false
	}
	if last := host[len(host)-1] | 0x20; last > 'f' && last != 'x' {
		return false
	}
	var addr netip.Addr
	if ip4, ok := parseIPv4Host(host); ok {
		addr = netip.AddrFrom4(ip4)
	} else {
		// Only an IPv6 literal has a colon; a DNS name ending in a hex
		// digit ("acme.cafe") leaves here.
		if bytes.IndexByte(host, ':') < 0 {
			return false
		}
		// ParseURI has already accepted the literal with netip, so this
		// cannot fail (and allocate an error).
		a, err := netip.ParseAddr(unsafe.String(&host[0], len(host)))
		if err != nil {
			return false
		}
		addr = a.Unmap()
	}
	return addr.IsLoopback() || addr.IsPrivate() || addr.IsLinkLocalUnicast() || addr.IsUnspecified() || sharedAddressSpace.Contains(addr)
}

// sharedAddressSpace is the carrier-grade NAT range of RFC 6598: like the
// private ranges, reachable from no other network.
var sharedAddressSpace = netip.MustParsePrefix("100.64.0.0/10")

// parseIPv4Host parses a host as the WHATWG URL Standard's IPv4 parser
// does, which is what browsers and HTTP clients built on getaddrinfo
// (inet_aton) resolve without asking DNS: one to four dot-separated
// numbers, each decimal, octal with a leading 0, or hex after 0x; the last
// fills the remaining bytes; one trailing dot is allowed.
func parseIPv4Host(b []byte) (ip [4]byte, ok bool) {
	if n := len(b); n > 1 && b[n-1] == '.' {
		b = b[:n-1]
	}
	var parts [4]uint64
	n := 0
	for i := 0; ; {
		if n == len(parts) {
			return ip, false
		}
		v, next, ok := parseIPv4Number(b, i)
		if !ok {
			return ip, false
		}
		parts[n] = v
		n++
		if next == len(b) {
			break
		}
		if b[next] != '.' {
			return ip, false
		}
		i = next + 1
	}
	for _, v := range parts[:n-1] {
		if v > 255 {
			return ip, false
		}
	}
	last := parts[n-1]
	if last >= 1<<(8*(5-n)) {
		return ip, false
	}
	addr := last
	for i, v := range parts[:n-1] {
		addr |= v << (8 * (3 - i))
	}
	return [4]byte{byte(addr >> 24), byte(addr >> 16), byte(addr >> 8), byte(addr)}, true
}

// parseIPv4Number parses one number of an IPv4 host from b[i:], up to a
// dot or the end, returning its value and where it stopped. Values past
// 2^32 fail, so that no digit string can overflow.
func parseIPv4Number(b []byte, i int) (v uint64, next int, ok bool) {
	base := uint64(10)
	switch {
	case i+1 < len(b) && b[i] == '0' && b[i+1]|0x20 == 'x':
		base, i = 16, i+2
	case i+1 < len(b) && b[i] == '0' && b[i+1] != '.':
		base, i = 8, i+1
	}
	start := i
	for ; i < len(b) && b[i] != '.'; i++ {
		d := uint64(hexVal[b[i]])
		if hexVal[b[i]] < 0 || d >= base {
			return 0, i, false
		}
		if v = v*base + d; v > 1<<32 {
			return 0, i, false
		}
	}
	// "0x" alone is zero; an empty decimal part is no number.
	return v, i, i > start || base == 16
}

// mediaName marks the characters of an RFC 6838 restricted-name.
var mediaName = func() (t [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for _, c := range "!#$&-^_.+" {
		t[c] = true
	}
	return t
}()

// isMediaType reports whether b is type/subtype (RFC 6838 names, or the
// wildcard "*"), optionally followed by parameters after a semicolon.
func isMediaType(b []byte) bool {
	return commonMediaType(b) || anyMediaType(b)
}

// commonMediaType reports the few media types most cards name, in one
// switch. TestCommonMediaTypes holds the same list.
func commonMediaType(b []byte) bool {
	switch string(b) {
	case "text/plain", "text/html", "text/csv", "text/markdown", "text/event-stream",
		"application/json", "application/pdf", "application/xml", "application/octet-stream",
		"image/png", "image/jpeg", "image/gif", "image/webp", "audio/wav", "audio/mpeg", "video/mp4":
		return true
	}
	return false
}

// anyMediaType is isMediaType for any text.
func anyMediaType(b []byte) bool {
	i := mediaNameEnd(b, 0)
	if i < 0 || i >= len(b) || b[i] != '/' {
		return false
	}
	j := mediaNameEnd(b, i+1)
	if j < 0 {
		return false
	}
	for j < len(b) && (b[j] == ' ' || b[j] == '\t') {
		j++
	}
	return j == len(b) || b[j] == ';'
}

// mediaNameEnd returns the end of the restricted-name (or "*") at i, or -1.
func mediaNameEnd(b []byte, i int) int {
	if i < len(b) && b[i] == '*' {
		return i + 1
	}
	start := i
	if i >= len(b) || !isAlnum(b[i]) {
		return -1
	}
	for i < len(b) && mediaName[b[i]] {
		i++
	}
	if i-start > 127 {
		return -1
	}
	return i
}

func isAlnum(c byte) bool {
	return c-'0' <= 9 || (c|0x20)-'a' <= 'z'-'a'
}
