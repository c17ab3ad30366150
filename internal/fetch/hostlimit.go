package fetch

import (
	"context"
	"io"
	"net/http"
	"slices"
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

// hostScheduler runs tasks at most jobs at a time, and at most perHost of
// one host's at a time, and hands their results back in the order the
// tasks were submitted. The hostLimiter alone would keep a host's requests
// to perHost too, but a task waiting there for its host's turn would hold
// one of the jobs while tasks of other hosts waited behind it: the
// scheduler starts, of the tasks submitted and not started, the first
// whose hosts have room. A task asks its host one request at a time, so
// it never waits on the hostLimiter.
//
// Memory is bounded whatever the number of tasks: submit waits while
// window tasks are submitted and their results not taken, or while the
// results done and not taken hold more than maxPending bytes.
type hostScheduler[R any] struct {
	jobs, perHost int
	maxPending    int64
	size          func(R) int64
	queue         chan chan R // the results, in the order submitted

	mu      sync.Mutex
	room    sync.Cond // submit's: a task ended or a result was taken
	pending int64     // bytes of results done, not taken
	running int
	hosts   map[string]int // tasks running, by host
	waiting []hostTask[R]  // submitted, not started, in order
}

type hostTask[R any] struct {
	host string // "" for a task that asks no host
	run  func() R
	done chan R
}

func newHostScheduler[R any](jobs, perHost, window int, maxPending int64, size func(R) int64) *hostScheduler[R] {
	s := &hostScheduler[R]{jobs: jobs, perHost: perHost, maxPending: maxPending, size: size,
		queue: make(chan chan R, window), hosts: map[string]int{}}
	s.room.L = &s.mu
	return s
}

// submit queues run, a task asking host, waiting while the window is
// full. Only one goroutine submits; it calls close after its last task.
func (s *hostScheduler[R]) submit(host string, run func() R) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.queue) == cap(s.queue) || s.pending > s.maxPending {
		s.room.Wait()
	}
	t := hostTask[R]{host: host, run: run, done: make(chan R, 1)}
	s.queue <- t.done // only submit sends: the room seen stays
	// Each task's end starts the waiting tasks that can start, so those
	// still waiting wait for their hosts (or for jobs, which then are all
	// running): the new task goes first only if it can start now.
	if s.running < s.jobs && s.free(host) {
		s.start(t)
	} else {
		s.waiting = append(s.waiting, t)
	}
}

// close says no more tasks come.
func (s *hostScheduler[R]) close() { close(s.queue) }

// each hands the results to emit in the order their tasks were
// submitted, until close and the last result.
func (s *hostScheduler[R]) each(emit func(R)) {
	for done := range s.queue {
		r := <-done
		s.mu.Lock()
		s.pending -= s.size(r)
		s.room.Broadcast()
		s.mu.Unlock()
		emit(r)
	}
}

func (s *hostScheduler[R]) free(host string) bool {
	return host == "" || s.hosts[host] < s.perHost
}

// start runs t; the caller holds mu.
func (s *hostScheduler[R]) start(t hostTask[R]) {
	s.running++
	if t.host != "" {
		s.hosts[t.host]++
	}
	go func() {
		r := t.run()
		s.mu.Lock()
		s.running--
		if t.host != "" {
			if s.hosts[t.host]--; s.hosts[t.host] == 0 {
				delete(s.hosts, t.host)
			}
		}
		s.pending += s.size(r)
		for i := 0; i < len(s.waiting) && s.running < s.jobs; {
			if w := s.waiting[i]; s.free(w.host) {
				s.waiting = slices.Delete(s.waiting, i, i+1)
				s.start(w)
				continue
			}
			i++
		}
		s.room.Broadcast()
		s.mu.Unlock()
		t.done <- r
	}()
}
