// Package addrclass says which IP addresses reach no public server: the
// one classification behind both the URL risk checks of fastvalidate,
// which judge the text of a card, and the guard of cardscan fetch, which
// judges the address a connection is about to be made to.
package addrclass

import "net/netip"

// Prefixes classified beyond what netip's methods cover.
var (
	thisNetwork  = netip.MustParsePrefix("0.0.0.0/8")      // Linux connects 0.x to the local host
	cgnat        = netip.MustParsePrefix("100.64.0.0/10")  // RFC 6598 shared address space
	benchmarking = netip.MustParsePrefix("198.18.0.0/15")  // RFC 2544 network benchmarks
	reserved4    = netip.MustParsePrefix("240.0.0.0/4")    // reserved for future use
	siteLocal6   = netip.MustParsePrefix("fec0::/10")      // deprecated site-local, private in practice
	localNAT64   = netip.MustParsePrefix("64:ff9b:1::/48") // RFC 8215: translation inside one network
	nat64        = netip.MustParsePrefix("64:ff9b::/96")   // RFC 6052: an IPv4 address in the low 32 bits
	compatible   = netip.MustParsePrefix("::/96")          // RFC 4291's deprecated IPv4-compatible form
	sixToFour    = netip.MustParsePrefix("2002::/16")      // RFC 3056: an IPv4 address in bits 16 to 47
	broadcast    = netip.AddrFrom4([4]byte{255, 255, 255, 255})
)

// Of says why a reaches no public server ("loopback", "private",
// "link-local", "unspecified", "multicast", "broadcast", "CGNAT",
// "benchmarking", "reserved", or "invalid"), or returns "" for a public
// unicast address. An IPv6 address that carries an IPv4 one (IPv4-mapped,
// IPv4-compatible, NAT64, 6to4) is classed by the IPv4 address it leads
// to, so that ::ffff:127.0.0.1, ::127.0.0.1, 64:ff9b::7f00:1 and
// 2002:7f00:1:: are loopback like 127.0.0.1.
func Of(a netip.Addr) string {
	a = a.WithZone("")
	if v4, ok := embeddedIPv4(a); ok {
		if c := of(v4); c != "" {
			return c
		}
	}
	return of(a)
}

// embeddedIPv4 returns the IPv4 address an IPv6 address a carries.
// :: and ::1 are themselves, not IPv4-compatible 0.0.0.0 and 0.0.0.1.
func embeddedIPv4(a netip.Addr) (netip.Addr, bool) {
	if !a.Is6() {
		return a, false
	}
	b := a.As16()
	switch {
	case a.Is4In6():
		return a.Unmap(), true
	case nat64.Contains(a), compatible.Contains(a) && !a.IsUnspecified() && !a.IsLoopback():
		return netip.AddrFrom4([4]byte(b[12:16])), true
	case sixToFour.Contains(a):
		return netip.AddrFrom4([4]byte(b[2:6])), true
	}
	return a, false
}

func of(a netip.Addr) string {
	switch {
	case !a.IsValid():
		return "invalid"
	case a.IsUnspecified() || thisNetwork.Contains(a):
		return "unspecified"
	case a.IsLoopback():
		return "loopback"
	case a.IsPrivate() || siteLocal6.Contains(a) || localNAT64.Contains(a):
		return "private"
	case a.IsLinkLocalUnicast():
		// 169.254.169.254 and fd00:ec2::254 (which IsPrivate covers)
		// are where clouds serve instance credentials.
		return "link-local"
	case a.IsMulticast():
		return "multicast"
	case a == broadcast:
		return "broadcast"
	case cgnat.Contains(a):
		return "CGNAT"
	case benchmarking.Contains(a):
		return "benchmarking"
	case reserved4.Contains(a):
		return "reserved"
	}
	return ""
}
