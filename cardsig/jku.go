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
// answered from memory before it is fetched again, and how many key sets
// a fetcher keeps at most.
const (
	jkuKeepFor    = 15 * time.Minute
	jkuRetryAfter = 30 * time.Second
	jkuMaxSets    = 256
)

// jkuResolver follows trusted jku URLs and keeps what each one gave for
// its whole life, so a run fetches a key set once however many cards name
// it, and a key set that failed stays failed.
type jkuResolver struct {
	prefixes []*url.URL
	*keyFetcher
}

// keyFetcher fetches key sets by URL, each once for its whole life.
type keyFetcher struct {
	client *http.Client
	now    func() time.Time
	mu     sync.Mutex
	sets   map[string]*jkuEntry
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
	return &keyFetcher{client: &c, now: time.Now, sets: map[string]*jkuEntry{}}
}

type jkuEntry struct {
	once sync.Once
	keys *KeySet
	err  string
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
		return trustedKey{}, "no trusted key has kid " + strconv.Quote(kid) + ", and jku " + strconv.Quote(jku) + " is outside the trusted jku prefixes"
	}
	keys, why := r.get(u)
	if why != "" {
		return trustedKey{}, "jku " + strconv.Quote(jku) + ": " + why
	}
	k, ok := keys.lookup(kid)
	if !ok {
		return k, "no key with kid " + strconv.Quote(kid) + " in the trusted jku " + strconv.Quote(jku)
	}
	return k, ""
}

// get returns the key set at u, fetching it the first time it is asked
// for; a key set that failed stays failed.
func (f *keyFetcher) get(u *url.URL) (*KeySet, string) {
	f.mu.Lock()
	e := f.sets[u.String()]
	if e == nil {
		e = &jkuEntry{}
		f.sets[u.String()] = e
	}
	f.mu.Unlock()
	e.once.Do(func() { e.keys, e.err = f.fetch(u) })
	return e.keys, e.err
}

func (f *keyFetcher) fetch(u *url.URL) (*KeySet, string) {
	ctx, cancel := context.WithTimeout(context.Background(), f.client.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err.Error()
	}
	req.Header.Set("Accept", "application/jwk-set+json, application/json")
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, "fetch failed: " + err.Error()
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, "fetch failed: " + resp.Status
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, JKUMaxBytes+1))
	if err != nil {
		return nil, "fetch failed: " + err.Error()
	}
	if len(body) > JKUMaxBytes {
		return nil, "key set larger than " + strconv.Itoa(JKUMaxBytes) + " bytes"
	}
	ks, err := ParseKeySet(body)
	if err != nil {
		return nil, err.Error()
	}
	return ks, ""
}
