package fastvalidate

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// The URL checks of members that profiles call: A2A's URLs, MA2D's
// endpoint, homepage and repository. A URL's syntax is RFC 3986's
// (ParseURI, in uri.go); what makes one risky to call is in netaddr.go.

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
	// urlGRPC is a gRPC interface's target: host:port, grpc:// (gRPC
	// without TLS, a risk as plain http is), grpcs:// or http(s), with a
	// host, and the risk checks.
	urlGRPC
	// urlCustom is the URL of an interface of a custom binding, whose
	// scheme the binding defines (wss:// in the 1.0.1 text's own
	// examples, sections 5.8 and 12.7): any absolute URI, with the risk
	// checks.
	urlCustom
)

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
	if kind == urlGRPC {
		// host:port first: as a URI it would read as the scheme "host".
		if host, ok := hostPort(text); ok {
			w.urlRisk(n, URI{Host: host, HasAuthority: true}, "", risk)
			return
		}
	}
	u, ok := parsePlainHTTP(text)
	if !ok {
		u, ok = ParseURI(text)
	}
	if !ok {
		msg := "not an absolute URI (RFC 3986)"
		if kind == urlGRPC {
			msg = "not host:port nor an absolute URI (RFC 3986)"
		}
		w.addGot(bad, n, msg)
		return
	}
	https, http := equalFold(u.Scheme, "https"), equalFold(u.Scheme, "http")
	plain := ""
	if http {
		plain = msgPlainHTTP
	}
	switch kind {
	case urlIdentifier:
		return
	case urlEndpoint:
		if !https && !http {
			w.addGot(bad, n, "URL must use http or https")
			return
		}
	case urlGRPC:
		switch {
		case equalFold(u.Scheme, "grpc"):
			plain = msgPlainGRPC
		case https || http || equalFold(u.Scheme, "grpcs"):
		default:
			w.addGot(bad, n, "a gRPC interface's URL must be host:port, or use grpc, grpcs, http or https")
			return
		}
	}
	if (kind == urlEndpoint || kind == urlGRPC) && len(u.Host) == 0 {
		w.addGot(bad, n, "URL has no host")
		return
	}
	w.urlRisk(n, u, plain, risk)
}

// Why a URL without TLS is a risk, by scheme.
const (
	msgPlainHTTP = "plain http: the connection is neither private nor authenticated"
	msgPlainGRPC = "grpc:// is gRPC without TLS: the connection is neither private nor authenticated " +
		"(1.0 section 7.1: TLS for gRPC in production)"
)

// hostPort returns the host of b when b is a gRPC target of the form
// host:port (RFC 3986's host, a bracketed IPv6 address included, and a
// port of 1 to 65535), without scheme or userinfo.
func hostPort(b []byte) (host []byte, ok bool) {
	colon := bytes.LastIndexByte(b, ':')
	if colon <= 0 || len(b)-colon-1 < 1 || len(b)-colon-1 > 5 || bytes.IndexByte(b, '@') >= 0 {
		return nil, false
	}
	port := 0
	for _, c := range b[colon+1:] {
		if c-'0' > 9 {
			return nil, false
		}
		port = port*10 + int(c-'0')
	}
	if port == 0 || port > 65535 {
		return nil, false
	}
	host, ok = checkAuthority(b)
	return host, ok && len(host) > 0
}

// urlRisk reports, under risk, why well-formed URL u at node n is unsafe
// to rely on: its host (see urlRisk), or plain, the message for a scheme
// without TLS, or nothing.
func (w *walker) urlRisk(n uint32, u URI, plain string, risk Code) {
	msg := urlRisk(u, plain)
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
// looks at the text only, its host decoded as clients decode it
// (decodeHost): no name is resolved.
func urlRisk(u URI, plain string) string {
	if u.HasAuthority && mayBeUnreachable(u.Host) {
		host := decodeHost(u.Host)
		if isLocalhost(host) {
			return "host is localhost: no other machine reaches it"
		}
		switch ipClass(host) {
		case "":
		case "multicast":
			return "host is a multicast IP address: it names a group of machines, not a server"
		case "broadcast":
			return "host is the broadcast address 255.255.255.255: it names every machine on the local network"
		case "benchmarking":
			return "host is in 198.18.0.0/15, set aside for benchmarking networks (RFC 2544): no server on the internet has it"
		case "reserved":
			return "host is in 240.0.0.0/4, reserved: no server on the internet has it"
		default:
			return "host is a private, loopback, link-local or unspecified IP address"
		}
	}
	return plain
}
