package mcpserver

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"

	"github.com/cardscan/cardscan/internal/fetch"
)

// fetch_card takes its URL from the caller, a model that may be reading
// text an attacker wrote; without a guard it is a way into the networks
// behind the server (cloud metadata at 169.254.169.254, an admin port on
// 127.0.0.1). The guard checks the address each connection is about to be
// made to, after name resolution, so that a name resolving there, a
// redirect leading there and a name whose answer changes between lookups
// are refused alike.

// refuseNonPublic is a net.Dialer Control function: it runs after
// resolution, on the address about to be connected to.
func refuseNonPublic(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("refused to connect to %s: not an IP address", address)
	}
	if kind := fetch.AddressClass(ap.Addr()); kind != "" {
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
