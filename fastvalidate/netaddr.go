package fastvalidate

import (
	"bytes"
	"net/netip"
	"unicode/utf8"
	"unsafe"

	"github.com/cardscan/cardscan/addrclass"
	"golang.org/x/net/idna"

	"github.com/cardscan/cardscan/fastvalidate/internal/tape"
)

// Hosts that no other machine reaches: localhost names and internal IP
// addresses, in the forms resolvers and browsers read them. The URL checks
// of every profile ask these.

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

// unreachableHost reports a URL's host that no other machine reaches:
// localhost, or an IP address of ipClass, once decoded (decodeHost).
func unreachableHost(host []byte) bool {
	if !mayBeUnreachable(host) {
		return false
	}
	host = decodeHost(host)
	return isLocalhost(host) || isInternalIP(host)
}

// mayBeUnreachable reports whether a host as written may decode to
// localhost or an IP address. A decoded host ends as the written one does
// unless an escape ends it, and an escape ends in a hex digit; a host
// ending in a letter past 'f', but for the t of localhost and the x of a
// bare 0x, is neither. Most hosts leave here, before any decoding.
func mayBeUnreachable(host []byte) bool {
	if len(host) == 0 {
		return false
	}
	c := host[len(host)-1] | 0x20
	return c <= 'f' || c == 't' || c == 'x'
}

// isInternalIP reports an IP address host that reaches no public server
// (see ipClass).
func isInternalIP(host []byte) bool { return ipClass(host) != "" }

// ipClass says why an IP address host reaches no public server, as
// addrclass.Of, the fetch guard's classification, does: loopback,
// private (RFC 1918, RFC 4193), shared (RFC 6598), link-local,
// unspecified, multicast, broadcast, benchmarking (RFC 2544) or reserved,
// also when an IPv6 address carries such an IPv4 one (IPv4-mapped,
// IPv4-compatible, NAT64, 6to4). It returns "" for a public address and
// for a host that is no IP address. An IPv4 host counts in every form a
// browser or getaddrinfo reads as one (127.1, 0x7f000001, 0177.0.0.1),
// not only in RFC 3986's dotted decimal.
func ipClass(host []byte) string {
	// A DNS name ends in a letter past 'f' (or a dot); an IP address in a
	// digit, a hex digit, an x or a colon. Most hosts leave here.
	if len(host) == 0 {
		return ""
	}
	if last := host[len(host)-1] | 0x20; last > 'f' && last != 'x' {
		return ""
	}
	var addr netip.Addr
	if ip4, ok := parseIPv4Host(host); ok {
		addr = netip.AddrFrom4(ip4)
	} else {
		// Only an IPv6 literal has a colon; a DNS name ending in a hex
		// digit ("acme.cafe") leaves here.
		if bytes.IndexByte(host, ':') < 0 {
			return ""
		}
		// ParseURI has already accepted a literal with netip, so this
		// fails (and allocates an error) only for a percent-decoded host
		// with a colon, which no WHATWG parser reads as a host at all.
		a, err := netip.ParseAddr(unsafe.String(&host[0], len(host)))
		if err != nil {
			return ""
		}
		addr = a
	}
	if c := addrclass.Of(addr); c != "invalid" {
		return c
	}
	return ""
}

// decodeHost returns a URL's host (a reg-name or IPv4 address as RFC 3986
// writes it; an IPv6 literal is returned as it is) as the WHATWG URL
// Standard's host parser reads it for http and https, which is what
// browsers, Node and curl connect to: percent-decoded, then, where that
// leaves letters beyond ASCII, mapped by UTS #46 (full-width digits and
// dots are digits and dots). What the IPv4 parser and the comparisons do
// next (number forms, case, a trailing dot) is left to them. A host
// without '%', which is every host but a hostile one, is returned as it
// is, without allocating.
func decodeHost(host []byte) []byte {
	if bytes.IndexByte(host, '%') < 0 || bytes.IndexByte(host, ':') >= 0 {
		return host
	}
	return decodeHostSlow(host)
}

func decodeHostSlow(host []byte) []byte {
	dec := make([]byte, 0, len(host))
	ascii := true
	for i := 0; i < len(host); i++ {
		c := host[i]
		if c == '%' && i+2 < len(host) && tape.HexVal[host[i+1]] >= 0 && tape.HexVal[host[i+2]] >= 0 {
			c = byte(tape.HexVal[host[i+1]])<<4 | byte(tape.HexVal[host[i+2]])
			i += 2
		}
		ascii = ascii && c < utf8.RuneSelf
		dec = append(dec, c)
	}
	if ascii {
		return dec
	}
	// A name the profile refuses has no WHATWG host at all; the mapped
	// name it returns all the same is judged, so that a refusal cannot
	// hide a host that another client would still reach.
	name, _ := whatwgIDNA.ToASCII(string(dec))
	return []byte(name)
}

// whatwgIDNA is domain to ASCII as the WHATWG URL Standard calls UTS #46:
// nontransitional, CheckHyphens and VerifyDnsLength off, CheckBidi and
// CheckJoiners on, no STD3 rules.
var whatwgIDNA = idna.New(idna.MapForLookup(), idna.Transitional(false), idna.CheckHyphens(false),
	idna.CheckJoiners(true), idna.BidiRule(), idna.StrictDomainName(false), idna.VerifyDNSLength(false))

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
		d := uint64(tape.HexVal[b[i]])
		if tape.HexVal[b[i]] < 0 || d >= base {
			return 0, i, false
		}
		if v = v*base + d; v > 1<<32 {
			return 0, i, false
		}
	}
	// "0x" alone is zero; an empty decimal part is no number.
	return v, i, i > start || base == 16
}
