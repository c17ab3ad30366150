package fetch

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"syscall"

	"github.com/cardscan/cardscan/addrclass"
)

// A URL list is untrusted input: without a guard, a crawler reading one is
// a way into the networks behind the machine it runs on (cloud metadata at
// 169.254.169.254, an admin port on 127.0.0.1, a router at 192.168.0.1).
// The guard refuses such addresses where it cannot be fooled: on the
// address a connection is about to be made to, after resolution, so a
// name that resolves there, a redirect that leads there and a name whose
// answer changes between two lookups (DNS rebinding) are refused alike.

// AddressClass says why the guard refuses to connect to a, or "" when a
// is a public address. The MCP server's fetch_card guard asks it too, and
// the URL risk checks of every profile class addresses the same way, so
// that all refuse the same addresses (see addrclass.Of).
func AddressClass(a netip.Addr) string { return addrclass.Of(a) }

// blockedError is a connection the guard refused.
type blockedError struct {
	addr  string // the address refused, an IP or IP:port
	class string // what AddressClass said
	host  string // the name it was reached by, when known and not the IP
}

func (e *blockedError) Error() string {
	msg := "refused to connect to " + e.class + " address " + e.addr
	if e.host != "" {
		msg += " (" + e.host + ")"
	}
	return msg + "; --allow-private allows it"
}

// checkAddr refuses an address a connection is about to be made to.
func checkAddr(addr netip.Addr, host string) error {
	if class := AddressClass(addr); class != "" {
		if host == addr.String() {
			host = ""
		}
		return &blockedError{addr: addr.String(), class: class, host: host}
	}
	return nil
}

// guardControl is a net.Dialer.Control: it runs after resolution, before
// each connect, with the numeric address. public names addresses
// (IP:port) to let through as if they were public: the tests' stand-ins for
// sites on the internet, which are on loopback.
func guardControl(public map[string]bool) func(network, address string, _ syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		if public[address] {
			return nil
		}
		return checkAddrPort(address)
	}
}

func checkAddrPort(address string) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		// Not an IP:port, so not a TCP connection to judge: refuse
		// rather than guess.
		return &blockedError{addr: address, class: "unparsable"}
	}
	return checkAddr(ap.Addr(), "")
}

// lookupFunc resolves a host name; tests put their own in place of DNS.
type lookupFunc func(ctx context.Context, host string) ([]netip.Addr, error)

func systemLookup(ctx context.Context, host string) ([]netip.Addr, error) {
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// dialer opens the fetcher's connections: through the guard unless
// private addresses are allowed, and with the names resolved by lookup
// when one is set (else as net.Dialer does, racing IPv4 and IPv6).
type dialer struct {
	guarded   net.Dialer // with guardControl unless allowPrivate
	unguarded net.Dialer // for the configured proxy only
	lookup    lookupFunc // nil: the system's resolver, inside net.Dialer
	// proxies holds the addresses (host:port) of the proxies the Proxy
	// function has handed out: the user's own configuration, not the
	// URL list's, so the guard does not stand between cardscan and them.
	proxies sync.Map
}

func newDialer(base net.Dialer, allowPrivate bool, lookup lookupFunc, public map[string]bool) *dialer {
	d := &dialer{guarded: base, unguarded: base, lookup: lookup}
	if !allowPrivate {
		d.guarded.Control = guardControl(public)
	}
	return d
}

func (d *dialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if _, ok := d.proxies.Load(addr); ok {
		return d.unguarded.DialContext(ctx, network, addr)
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if _, err := netip.ParseAddr(host); err == nil || d.lookup == nil {
		return d.guarded.DialContext(ctx, network, addr)
	}
	ips, err := d.lookup(ctx, host)
	if err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Err: err}
	}
	if len(ips) == 0 {
		return nil, &net.OpError{Op: "dial", Net: network, Err: &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}}
	}
	var first error
	for _, ip := range ips {
		c, err := d.guarded.DialContext(ctx, network, net.JoinHostPort(ip.String(), port))
		if err == nil {
			return c, nil
		}
		var be *blockedError
		if errors.As(err, &be) {
			be.host = host
		}
		if first == nil {
			first = err
		}
	}
	return nil, first
}

// proxyFunc wraps the transport's Proxy function (the environment's
// HTTP_PROXY, HTTPS_PROXY and NO_PROXY by default). A request that goes
// through a proxy is never dialled by cardscan: the proxy connects, so the
// dial-time guard would only see the proxy's address. The guard therefore
// judges such a request's target before handing it over: an IP literal as
// it is, a name by every address it resolves to here. The proxy resolves
// the name again itself, so a name whose answer changes between the two
// lookups can still reach what the proxy can reach: a proxy that crawls
// untrusted lists must refuse private addresses itself, or be left out
// (NO_PROXY=*). A request that goes direct to the proxy's own address is
// refused: the proxy is not a crawl target.
func (d *dialer) proxyFunc(next func(*http.Request) (*url.URL, error), allowPrivate bool) func(*http.Request) (*url.URL, error) {
	return func(req *http.Request) (*url.URL, error) {
		p, err := next(req)
		if err != nil || allowPrivate {
			return p, err
		}
		if p == nil {
			if _, ok := d.proxies.Load(canonicalAddr(req.URL)); ok {
				return nil, &blockedError{addr: canonicalAddr(req.URL), class: "proxy", host: "the configured proxy itself"}
			}
			return nil, nil
		}
		d.proxies.Store(canonicalAddr(p), true)
		host := req.URL.Hostname()
		if ip, err := netip.ParseAddr(host); err == nil {
			return p, checkAddr(ip, "")
		}
		lookup := d.lookup
		if lookup == nil {
			lookup = systemLookup
		}
		ips, err := lookup(req.Context(), host)
		if err != nil {
			return nil, &net.OpError{Op: "dial", Net: "tcp", Err: err}
		}
		for _, ip := range ips {
			if err := checkAddr(ip, host); err != nil {
				return nil, err
			}
		}
		return p, nil
	}
}

// canonicalAddr is host:port of u, with the scheme's port when u has
// none, as http.Transport dials it.
func canonicalAddr(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch strings.ToLower(u.Scheme) {
		case "https":
			port = "443"
		case "socks5", "socks5h":
			port = "1080"
		default:
			port = "80"
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}
