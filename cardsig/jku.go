package cardsig

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// The limits a jku fetch runs under, as cardscan fetch's for a card: a
// time limit with redirects included, a body cap and at most three
// redirects, each of which must itself lie below a trusted prefix.
const (
	JKUTimeout   = 10 * time.Second
	JKUMaxBytes  = 2 << 20
	jkuRedirects = 3
)

// How long a fetched key set is kept, how long a key set that failed is
// answered from memory before it is fetched again, and how many key sets,
// and bytes of their bodies in all, a fetcher keeps at most.
const (
	jkuKeepFor     = 15 * time.Minute
	jkuRetryAfter  = 30 * time.Second
	jkuMaxSets     = 256
	jkuMaxSetBytes = 16 << 20
)

// jkuResolver follows trusted jku URLs through a keyFetcher, so a run
// fetches a key set once however many cards name it.
type jkuResolver struct {
	prefixes []*url.URL
	*keyFetcher
}

// keyFetcher fetches key sets by URL and keeps what each gave: a key set
// for jkuKeepFor, so a key its owner removed stops verifying in a
// long-running serve; a failure for jkuRetryAfter, so a server that failed
// once is tried again without a restart but is not asked once per card
// while it fails. Concurrent callers needing the same URL share one fetch,
// and at most jkuMaxSets URLs are kept: the URLs come from the cards.
type keyFetcher struct {
	client *http.Client
	now    func() time.Time
	flight singleflight.Group
	mu     sync.Mutex
	sets   map[string]jkuEntry
}

// newKeyFetcher returns a keyFetcher whose client is a copy of client
// (bounded by JKUTimeout when nil or unbounded) that follows a redirect
// only when redirect allows it.
func newKeyFetcher(client *http.Client, redirect func(*http.Request, []*http.Request) error) *keyFetcher {
	if client == nil {
		client = &http.Client{Timeout: JKUTimeout}
	}
	c := *client
	c.CheckRedirect = redirect
	if c.Timeout == 0 {
		c.Timeout = JKUTimeout
	}
	return &keyFetcher{client: &c, now: time.Now, sets: map[string]jkuEntry{}}
}

// jkuEntry is what one fetch gave: keys, or why there are none.
type jkuEntry struct {
	keys    *KeySet
	err     string
	expires time.Time
	size    int
}

// ParseJKUPrefix checks a trusted jku prefix: an absolute https URL with a
// host, no user info, query or fragment.
func ParseJKUPrefix(prefix string) (*url.URL, error) {
	u, err := url.Parse(prefix)
	switch {
	case err != nil:
		return nil, fmt.Errorf("cardsig: jku prefix %s: %w", strconv.Quote(prefix), err)
	case u.Scheme != "https" || u.Host == "" || u.Opaque != "":
		return nil, fmt.Errorf("cardsig: jku prefix %s is not an https URL", strconv.Quote(prefix))
	case u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return nil, fmt.Errorf("cardsig: jku prefix %s has user info, a query or a fragment", strconv.Quote(prefix))
	case hasDotSegment(u):
		return nil, fmt.Errorf("cardsig: jku prefix %s has dot segments or encoded slashes", strconv.Quote(prefix))
	}
	return u, nil
}

func newJKUResolver(client *http.Client, prefixes []string) (*jkuResolver, error) {
	r := &jkuResolver{}
	for _, p := range prefixes {
		u, err := ParseJKUPrefix(p)
		if err != nil {
			return nil, err
		}
		r.prefixes = append(r.prefixes, u)
	}
	r.keyFetcher = newKeyFetcher(client, func(req *http.Request, via []*http.Request) error {
		if len(via) > jkuRedirects {
			return errors.New("more than 3 redirects")
		}
		if !r.trusted(req.URL) {
			return errors.New("redirect to " + req.URL.Redacted() + ", outside the trusted jku prefixes")
		}
		return nil
	})
	return r, nil
}

// trusted reports whether u is https, with a prefix's exact scheme and host
// (port included), and a path that is the prefix's path or lies below it.
// Paths with dot segments or encoded slashes, dots or backslashes are
// refused: a server may resolve them to somewhere outside the prefix.
func (r *jkuResolver) trusted(u *url.URL) bool {
	if u.Scheme != "https" || u.User != nil || u.Opaque != "" || u.Fragment != "" || hasDotSegment(u) {
		return false
	}
	for _, p := range r.prefixes {
		if !strings.EqualFold(u.Host, p.Host) {
			continue
		}
		pp, up := p.EscapedPath(), u.EscapedPath()
		if up == pp || strings.HasPrefix(up, pp) && (strings.HasSuffix(pp, "/") || up[len(pp)] == '/') {
			return true
		}
	}
	return false
}

func hasDotSegment(u *url.URL) bool {
	p := strings.ToLower(u.EscapedPath())
	if strings.Contains(p, "%2f") || strings.Contains(p, "%2e") || strings.Contains(p, "%5c") || strings.Contains(p, `\`) {
		return true
	}
	for seg := range strings.SplitSeq(p, "/") {
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}

// lookup finds kid in the key set at jku, or says why it cannot.
func (r *jkuResolver) lookup(jku, kid string) (trustedKey, string) {
	u, err := url.Parse(jku)
	if err != nil || !r.trusted(u) {
		return trustedKey{}, "no trusted key has kid " + quoted(kid) + ", and jku " + quoted(jku) + " is outside the trusted jku prefixes"
	}
	keys, why := r.get(u)
	if why != "" {
		return trustedKey{}, "jku " + quoted(jku) + ": " + why
	}
	k, ok := keys.lookup(kid)
	if !ok {
		return k, "no key with kid " + quoted(kid) + " in the trusted jku " + quoted(jku)
	}
	return k, ""
}

// get returns the key set at u, fetching it when the fetcher has none or
// what it has expired.
func (f *keyFetcher) get(u *url.URL) (*KeySet, string) {
	key := u.String()
	if e, ok := f.cached(key); ok {
		return e.keys, e.err
	}
	v, _, _ := f.flight.Do(key, func() (any, error) {
		// A flight that ended between the look above and this one has
		// already stored what it got.
		if e, ok := f.cached(key); ok {
			return e, nil
		}
		keys, size, why := f.fetch(u)
		e := jkuEntry{keys: keys, err: why, size: size, expires: f.now().Add(jkuKeepFor)}
		if why != "" {
			e.expires = f.now().Add(jkuRetryAfter)
		}
		f.store(key, e)
		return e, nil
	})
	e := v.(jkuEntry)
	return e.keys, e.err
}

func (f *keyFetcher) cached(key string) (jkuEntry, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	e, ok := f.sets[key]
	if !ok || !f.now().Before(e.expires) {
		return jkuEntry{}, false
	}
	return e, true
}

// store keeps e for key, making room first while the fetcher is full (in
// entries or bytes): the expired entries go, then those nearest their
// expiry.
func (f *keyFetcher) store(key string, e jkuEntry) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.sets, key)
	now, held := f.now(), e.size
	for k, old := range f.sets {
		if now.Before(old.expires) {
			held += old.size
		} else {
			delete(f.sets, k)
		}
	}
	for len(f.sets) > 0 && (len(f.sets) >= jkuMaxSets || held > jkuMaxSetBytes) {
		var soonest string
		for k, old := range f.sets {
			if soonest == "" || old.expires.Before(f.sets[soonest].expires) {
				soonest = k
			}
		}
		held -= f.sets[soonest].size
		delete(f.sets, soonest)
	}
	f.sets[key] = e
}

// fetch fetches the key set at u: its keys and the size of its body, or
// why there are none.
func (f *keyFetcher) fetch(u *url.URL) (*KeySet, int, string) {
	ctx, cancel := context.WithTimeout(context.Background(), f.client.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, 0, err.Error()
	}
	req.Header.Set("Accept", "application/jwk-set+json, application/json")
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, 0, "fetch failed: " + err.Error()
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, 0, "fetch failed: " + resp.Status
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, JKUMaxBytes+1))
	if err != nil {
		return nil, 0, "fetch failed: " + err.Error()
	}
	if len(body) > JKUMaxBytes {
		return nil, 0, "key set larger than " + strconv.Itoa(JKUMaxBytes) + " bytes"
	}
	ks, err := ParseKeySet(body)
	if err != nil {
		return nil, 0, err.Error()
	}
	return ks, len(body), ""
}
