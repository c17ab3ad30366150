package serve

import (
	"net"
	"strconv"
	"sync"
	"sync/atomic"
)

// limitListener accepts at most n connections open at once; the rest wait
// in the kernel's listen backlog, where they cost the server nothing,
// until one closes. n <= 0 means no limit.
func limitListener(l net.Listener, n int) net.Listener {
	if n <= 0 {
		return l
	}
	return &limitedListener{Listener: l, slots: make(chan struct{}, n), done: make(chan struct{})}
}

type limitedListener struct {
	net.Listener
	slots     chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

func (l *limitedListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &limitedConn{Conn: c, release: func() { <-l.slots }}, nil
}

// Close also wakes an Accept waiting for a slot, so that shutdown does not
// wait for a connection to close.
func (l *limitedListener) Close() error {
	err := l.Listener.Close()
	l.closeOnce.Do(func() { close(l.done) })
	return err
}

type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// budget is a count that admissions may not take past its max: requests
// in flight, or body bytes buffered.
type budget struct {
	max  int64
	used atomic.Int64
}

// take reserves n, or nothing and reports false if that would pass max.
func (b *budget) take(n int64) bool {
	if b.used.Add(n) > b.max {
		b.used.Add(-n)
		return false
	}
	return true
}

func (b *budget) give(n int64) { b.used.Add(-n) }

// reservation is one request's share of the bytes budget, grown as its
// buffers grow and given back when it ends.
type reservation struct {
	b    *budget
	held int64
}

// cover makes the reservation at least n bytes; false means the budget is
// spent.
func (r *reservation) cover(n int) bool {
	if int64(n) <= r.held {
		return true
	}
	if !r.b.take(int64(n) - r.held) {
		return false
	}
	r.held = int64(n)
	return true
}

func (r *reservation) release() {
	r.b.give(r.held)
	r.held = 0
}

// retryAfter is the Retry-After of a 503: judging takes microseconds, so
// slots free as soon as slow clients finish; a second spreads retries
// without idling the server long.
const retryAfter = 1

var retryAfterValue = strconv.Itoa(retryAfter)
