package mcpserver

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// fetch_card takes its URL from the caller, a model that may be reading
// text an attacker wrote; without a guard it is a way into the networks
// behind the server (cloud metadata at 169.254.169.254, an admin port on
// 127.0.0.1). The guard checks the address each connection is about to be
// made to, after name resolution, so that a name resolving there, a
// redirect leading there and a name whose answer changes between lookups
// are refused alike.

var (
	cgnat       = netip.MustParsePrefix("100.64.0.0/10") // RFC 6598 shared address space
	thisNetwork = netip.MustParsePrefix("0.0.0.0/8")     // Linux connects 0.x to the local host
	reserved4   = netip.MustParsePrefix("240.0.0.0/4")   // reserved, and the broadcast address
	nat64       = netip.MustParsePrefix("64:ff9b::/96")  // RFC 6052: an IPv4 address inside IPv6
)

// nonPublic says what kind of non-public address a is, or "" for a public
// one.
func nonPublic(a netip.Addr) string {
	a = a.Unmap()
	if nat64.Contains(a) {
		b := a.As16()
		a = netip.AddrFrom4([4]byte(b[12:]))
	}
	switch {
	case !a.IsValid():
		return "invalid"
	case a.IsUnspecified() || thisNetwork.Contains(a):
		return "unspecified"
	case a.IsLoopback():
		return "loopback"
	case a.IsPrivate():
		return "private"
	case a.IsLinkLocalUnicast():
		return "link-local"
	case a.IsMulticast():
		return "multicast"
	case cgnat.Contains(a):
		return "shared (CGNAT)"
	case reserved4.Contains(a):
		return "reserved"
	}
	return ""
}

// refuseNonPublic is a net.Dialer Control function: it runs after
// resolution, on the address about to be connected to.
func refuseNonPublic(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("refused to connect to %s: not an IP address", address)
	}
	if kind := nonPublic(ap.Addr()); kind != "" {
		return fmt.Errorf("refused to connect to %s address %s (the server's operator can allow it with --allow-private)", kind, ap.Addr())
	}
	return nil
}

// guardedTransport is fetch's transport with the guard, and without a
// proxy from the environment: a proxy would connect on the server's behalf
// where the guard cannot see.
func guardedTransport(timeout time.Duration) *http.Transport {
	return &http.Transport{
		DialContext:           (&net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second, Control: refuseNonPublic}).DialContext,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       30 * time.Second,
		ForceAttemptHTTP2:     true,
	}
}
