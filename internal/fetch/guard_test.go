package fetch

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cardscan/cardscan/internal/cmderr"
)

func TestAddressClass(t *testing.T) {
	for _, tc := range []struct{ addr, class string }{
		{"127.0.0.1", "loopback"},
		{"127.255.0.2", "loopback"},
		{"::1", "loopback"},
		{"::ffff:127.0.0.1", "loopback"},
		{"64:ff9b::7f00:1", "loopback"}, // NAT64 of 127.0.0.1
		{"10.1.2.3", "private"},
		{"172.16.0.1", "private"},
		{"172.31.255.255", "private"},
		{"192.168.1.1", "private"},
		{"::ffff:10.0.0.1", "private"},
		{"fd00::1", "private"},
		{"fd00:ec2::254", "private"}, // AWS metadata over IPv6
		{"fec0::1", "private"},
		{"169.254.169.254", "link-local"}, // cloud metadata
		{"169.254.0.1", "link-local"},
		{"fe80::1", "link-local"},
		{"100.64.0.1", "CGNAT"},
		{"100.127.255.255", "CGNAT"},
		{"224.0.0.1", "multicast"},
		{"239.255.255.250", "multicast"},
		{"ff02::1", "multicast"},
		{"0.0.0.0", "unspecified"},
		{"0.1.2.3", "unspecified"},
		{"::", "unspecified"},
		{"255.255.255.255", "broadcast"},
		{"240.0.0.1", "reserved"},

		{"93.184.216.34", ""},
		{"8.8.8.8", ""},
		{"100.63.255.255", ""},
		{"100.128.0.0", ""},
		{"172.32.0.1", ""},
		{"192.169.0.1", ""},
		{"2606:4700:4700::1111", ""},
		{"64:ff9b::808:808", ""},
		{"::ffff:8.8.8.8", ""},
	} {
		if got := AddressClass(netip.MustParseAddr(tc.addr)); got != tc.class {
			t.Errorf("AddressClass(%s) = %q, want %q", tc.addr, got, tc.class)
		}
	}
}

// counter is a server that counts its requests and answers with body.
type counter struct {
	hits atomic.Int32
	srv  *httptest.Server
}

func newCounter(t *testing.T, ctype, body string) *counter {
	c := &counter{}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.hits.Add(1)
		w.Header().Set("Content-Type", ctype)
		io.WriteString(w, body)
	}))
	t.Cleanup(c.srv.Close)
	return c
}

func hostPort(srv *httptest.Server) string { return srv.Listener.Addr().String() }

// resolver answers for the names of names, and "no such host" else.
func resolver(names map[string][]string) lookupFunc {
	return func(ctx context.Context, host string) ([]netip.Addr, error) {
		var out []netip.Addr
		for _, a := range names[host] {
			out = append(out, netip.MustParseAddr(a))
		}
		if len(out) == 0 {
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		}
		return out, nil
	}
}

// TestGuard: by default no URL, redirect or name reaches a private
// address; --allow-private lets them, which shows each case would reach
// its target otherwise.
func TestGuard(t *testing.T) {
	secret := newCounter(t, "application/json", `{"secret":"top secret"}`)
	_, secretPort, _ := net.SplitHostPort(hostPort(secret.srv))

	// public plays a site on the internet: the guard is told to let its
	// address through.
	var lookups atomic.Int32
	public := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/to-loopback" + agent:
			http.Redirect(w, r, secret.srv.URL+"/", http.StatusFound)
		case "/to-name" + agent:
			http.Redirect(w, r, "http://intranet.test:"+secretPort+"/", http.StatusFound)
		case "/to-metadata" + agent:
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
		default:
			// A new connection for every request, so that the next one
			// resolves the name again.
			w.Header().Set("Connection", "close")
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(public.Close)
	hooks := &testHooks{
		public: map[string]bool{hostPort(public): true},
		lookup: func(ctx context.Context, host string) ([]netip.Addr, error) {
			switch host {
			case "intranet.test", "localhost.test":
				return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
			case "rebind.test":
				// Public for the first answer, loopback after: the
				// address the connection goes to is what is judged.
				if lookups.Add(1) == 1 {
					return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
				}
				return []netip.Addr{netip.MustParseAddr("127.0.0.2")}, nil
			}
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		},
	}
	_, publicPort, _ := net.SplitHostPort(hostPort(public))
	for _, tc := range []struct {
		name, url, detail string
		reachesSecret     bool // with --allow-private
	}{
		{"loopback URL", secret.srv.URL, "/.well-known/agentcard: refused to connect to loopback address 127.0.0.1; --allow-private allows it", true},
		{"IPv6 loopback URL", "http://[::1]:" + secretPort + "/", "refused to connect to loopback address ::1", false},
		{"private URL", "http://10.0.0.1/card.json", "http://10.0.0.1/card.json: refused to connect to private address 10.0.0.1", false},
		{"a redirect to loopback", public.URL + "/to-loopback", "/to-loopback/.well-known/agentcard: refused to connect to loopback address 127.0.0.1", true},
		{"a redirect to a name of loopback", public.URL + "/to-name", "refused to connect to loopback address 127.0.0.1 (intranet.test)", true},
		{"a redirect to cloud metadata", public.URL + "/to-metadata", "refused to connect to link-local address 169.254.169.254", false},
		{"a name of loopback", "http://localhost.test:" + secretPort + "/", "refused to connect to loopback address 127.0.0.1 (localhost.test)", true},
		{"DNS rebinding", "http://rebind.test:" + publicPort + "/", "/.well-known/agent-card.json: refused to connect to loopback address 127.0.0.2 (rebind.test)", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			secret.hits.Store(0)
			lookups.Store(0)
			code, out, _ := runFetchGuarded(t, hooks, "--format", "cards", "--connect-timeout", "1s", tc.url)
			recs := decodeRecords(t, out)
			if code != cmderr.StatusIO || len(recs) != 1 || len(recs[0].Errors) != 1 || recs[0].Errors[0].Rule != "http.blocked-address" ||
				!strings.Contains(recs[0].Errors[0].Message, tc.detail) {
				t.Fatalf("exit %d, records %+v; want http.blocked-address with %q", code, recs, tc.detail)
			}
			if n := secret.hits.Load(); n != 0 {
				t.Fatalf("the private server was asked %d times", n)
			}
			if strings.Contains(out, "top secret") {
				t.Fatalf("the private body reached the output: %s", out)
			}
			if !tc.reachesSecret {
				return
			}
			_, out, _ = runFetchGuarded(t, hooks, "--format", "cards", "--allow-private", tc.url)
			if secret.hits.Load() == 0 || !strings.Contains(out, "top secret") {
				t.Fatalf("with --allow-private the private server was not reached: %s", out)
			}
		})
	}
}

// proxy is a forward proxy for plain http that plays public.example
// itself and passes every other request on, as a proxy on the way to the
// internet would.
type proxy struct {
	mu      sync.Mutex
	targets []string
	srv     *httptest.Server
}

func newProxy(t *testing.T, publicAnswer http.HandlerFunc) *proxy {
	p := &proxy{}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.targets = append(p.targets, r.URL.Host)
		p.mu.Unlock()
		if r.URL.Hostname() == "public.example" {
			publicAnswer(w, r)
			return
		}
		out, _ := http.NewRequestWithContext(r.Context(), r.Method, r.URL.String(), nil)
		resp, err := http.DefaultTransport.RoundTrip(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

// TestGuard_Proxy: through a proxy cardscan never dials the target, so
// the guard judges the target before handing the request over; the proxy,
// which the user configured, is reached even on loopback.
func TestGuard_Proxy(t *testing.T) {
	secret := newCounter(t, "text/plain", "top secret")
	px := newProxy(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/agentcard":
			http.Redirect(w, r, secret.srv.URL+"/leak", http.StatusFound)
		case "/card/.well-known/agentcard":
			serve("application/agentcard+json", httpCard)(w, r)
		default:
			http.NotFound(w, r)
		}
	})
	proxyURL, _ := url.Parse(px.srv.URL)
	hooks := &testHooks{
		proxy:  http.ProxyURL(proxyURL),
		lookup: resolver(map[string][]string{"public.example": {"93.184.216.34"}, "intranet.example": {"192.168.10.10"}}),
	}
	for _, tc := range []struct {
		name, url, rule, detail string
	}{
		{"a public site through the proxy", "http://public.example/card", "", ""},
		{"its redirect to loopback", "http://public.example/", "http.blocked-address", "refused to connect to loopback address 127.0.0.1"},
		{"a private literal", "http://10.1.1.1/", "http.blocked-address", "refused to connect to private address 10.1.1.1"},
		{"a name of a private address", "http://intranet.example/", "http.blocked-address", "refused to connect to private address 192.168.10.10 (intranet.example)"},
		{"a name that does not resolve here", "http://unknown.example/", "http.unreachable", "no such host"},
		{"the proxy itself", px.srv.URL, "http.blocked-address", "the configured proxy itself"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			secret.hits.Store(0)
			px.mu.Lock()
			px.targets = nil
			px.mu.Unlock()
			// The proxy is always handed out, as HTTP_PROXY with no
			// NO_PROXY does; the last case asks for it directly.
			h := *hooks
			args := []string{"--format", "cards", "-j", "1", tc.url}
			if tc.name == "the proxy itself" {
				h.proxy = func(r *http.Request) (*url.URL, error) {
					if r.URL.Host == proxyURL.Host {
						return nil, nil
					}
					return proxyURL, nil
				}
				// Hand the proxy out first, as a crawl would have.
				args = []string{"--format", "cards", "-j", "1", "http://public.example/card", tc.url}
			}
			_, out, _ := runFetchGuarded(t, &h, args...)
			recs := decodeRecords(t, out)
			if len(recs) != len(args)-4 {
				t.Fatalf("records %+v", recs)
			}
			r := recs[len(recs)-1]
			if tc.rule == "" {
				if string(r.Card) != httpCard {
					t.Fatalf("no card through the proxy: %+v", r)
				}
				return
			}
			if len(r.Errors) != 1 || r.Errors[0].Rule != tc.rule || !strings.Contains(r.Errors[0].Message, tc.detail) {
				t.Fatalf("record %+v, want %s with %q", r, tc.rule, tc.detail)
			}
			if secret.hits.Load() != 0 || strings.Contains(out, "top secret") {
				t.Fatalf("the private server was reached: %s", out)
			}
			px.mu.Lock()
			defer px.mu.Unlock()
			for _, target := range px.targets {
				if target != "public.example" {
					t.Fatalf("the proxy was asked for %s", target)
				}
			}
		})
	}

	// Without the guard, the same redirect leaks the secret's request.
	runFetchGuarded(t, hooks, "--allow-private", "--format", "cards", "http://public.example/")
	if secret.hits.Load() == 0 {
		t.Fatal("with --allow-private the redirect did not reach the private server: the test proves nothing")
	}
}
