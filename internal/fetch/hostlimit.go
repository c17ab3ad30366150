package fetch

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// hostLimiter lets at most n requests be in flight to one host (name and
// port, as the URL writes them) at a time, from sending a request until
// its body is closed: -j spreads a crawl across hosts, this keeps it
// polite to each. Hosts with nothing in flight are forgotten, so a crawl of
// a million hosts holds entries only for those being fetched.
//
// Each request, a redirect's included, gets timeout from when it is sent:
// waiting for the host's turn is the crawl's politeness, not the host's
// slowness, and must not make it time out.
type hostLimiter struct {
	next    http.RoundTripper
	n       int
	timeout time.Duration

	mu    sync.Mutex
	hosts map[string]*hostSlots
}

type hostSlots struct {
	sem   chan struct{}
	users int // requests holding or waiting for a slot
}

func newHostLimiter(next http.RoundTripper, n int, timeout time.Duration) *hostLimiter {
	return &hostLimiter{next: next, n: n, timeout: timeout, hosts: map[string]*hostSlots{}}
}

func (l *hostLimiter) RoundTrip(req *http.Request) (*http.Response, error) {
	key := strings.ToLower(canonicalAddr(req.URL))
	l.mu.Lock()
	hs := l.hosts[key]
	if hs == nil {
		hs = &hostSlots{sem: make(chan struct{}, l.n)}
		l.hosts[key] = hs
	}
	hs.users++
	l.mu.Unlock()

	var once sync.Once
	release := func(held bool) {
		once.Do(func() {
			if held {
				<-hs.sem
			}
			l.mu.Lock()
			if hs.users--; hs.users == 0 {
				delete(l.hosts, key)
			}
			l.mu.Unlock()
		})
	}
	select {
	case hs.sem <- struct{}{}:
	case <-req.Context().Done():
		release(false)
		return nil, req.Context().Err()
	}
	ctx, cancel := context.WithTimeout(req.Context(), l.timeout)
	resp, err := l.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		release(true)
		return nil, err
	}
	resp.Body = &releasingBody{ReadCloser: resp.Body, release: func() { cancel(); release(true) }}
	return resp, nil
}

// releasingBody gives the host's slot back when the body is closed.
type releasingBody struct {
	io.ReadCloser
	release func()
}

func (b *releasingBody) Close() error {
	err := b.ReadCloser.Close()
	b.release()
	return err
}

// inFlight is the number of hosts with a request in flight or waiting,
// for tests.
func (l *hostLimiter) inFlight() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.hosts)
}
