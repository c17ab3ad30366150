package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// wellKnownPaths are tried in this order: the AgentCard draft (section 4),
// then A2A from 0.3 on, then A2A before 0.3.
var wellKnownPaths = []string{"/.well-known/agentcard", "/.well-known/agent-card.json", "/.well-known/agent.json"}

// acceptHeader is what the draft's discovery example sends, with the
// media type it says implementations should also accept.
const acceptHeader = "application/agentcard+json, application/json"

// maxRedirects bounds a discovery's redirect chain.
const maxRedirects = 3

// fetcher discovers and downloads cards. It is safe for concurrent use.
type fetcher struct {
	client   *http.Client
	maxBytes int64
}

func newFetcher(timeout time.Duration, maxBytes int64, transport http.RoundTripper) *fetcher {
	if transport == nil {
		transport = &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}).DialContext,
			TLSHandshakeTimeout:   timeout,
			ResponseHeaderTimeout: timeout,
			MaxIdleConnsPerHost:   4,
			IdleConnTimeout:       30 * time.Second,
			ForceAttemptHTTP2:     true,
		}
	}
	return &fetcher{
		client: &http.Client{
			Transport:     transport,
			Timeout:       timeout,
			CheckRedirect: checkRedirect,
		},
		maxBytes: maxBytes,
	}
}

// redirectError is a redirect the fetcher refused to follow.
type redirectError struct{ msg string }

func (e *redirectError) Error() string { return e.msg }

func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > maxRedirects {
		return &redirectError{fmt.Sprintf("more than %d redirects", maxRedirects)}
	}
	if prev := via[len(via)-1]; prev.URL.Scheme == "https" && req.URL.Scheme != "https" {
		// A downgrade would let an on-path attacker substitute the card
		// (draft section 8.5).
		return &redirectError{"refused redirect from https to " + req.URL.Scheme + " (" + req.URL.Redacted() + ")"}
	}
	return nil
}

// found is a card as served.
type found struct {
	url      *url.URL // where it was served, after redirects
	header   http.Header
	body     []byte // nil when tooLarge
	size     int64  // bytes read
	tooLarge bool
}

// candidates returns the URLs to try for raw, in order: a base URL gets
// the well-known paths below its path; a URL that already names a card
// (a well-known path, or a .json file) is fetched as it is. A URL without
// a scheme is taken to be https.
func candidates(raw string) ([]*url.URL, error) {
	if !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, errors.New("not a URL")
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, errors.New("not an http or https URL")
	}
	if u.Host == "" {
		return nil, errors.New("the URL has no host")
	}
	u.Fragment = ""
	for _, wk := range wellKnownPaths {
		if strings.HasSuffix(u.Path, wk) {
			return []*url.URL{u}, nil
		}
	}
	if strings.HasSuffix(strings.ToLower(u.Path), ".json") {
		return []*url.URL{u}, nil
	}
	base := strings.TrimSuffix(u.Path, "/")
	out := make([]*url.URL, len(wellKnownPaths))
	for i, wk := range wellKnownPaths {
		c := *u
		c.Path, c.RawPath, c.RawQuery = base+wk, "", ""
		out[i] = &c
	}
	return out, nil
}

// discoverError says why no card was found for a URL.
type discoverError struct {
	url      string
	attempts []string // one reason per URL tried
	fatal    string   // the host could not be reached at all
}

func (e *discoverError) Error() string {
	if e.fatal != "" {
		return e.url + ": " + e.fatal
	}
	return e.url + ": no agent card found (" + strings.Join(e.attempts, "; ") + ")"
}

// discover finds the card for raw as the specs describe discovery: the
// first candidate that answers 200 holds it. A candidate that is missing,
// refused or redirected wrongly moves on to the next; a host that cannot be
// reached ends the search.
func (f *fetcher) discover(ctx context.Context, raw string) (*found, error) {
	cands, err := candidates(raw)
	if err != nil {
		return nil, &discoverError{url: raw, fatal: err.Error()}
	}
	derr := &discoverError{url: raw}
	for _, c := range cands {
		fd, reason, fatal := f.get(ctx, c)
		if fd != nil {
			return fd, nil
		}
		if fatal {
			derr.fatal = "cannot reach " + c.Host + ": " + reason
			return nil, derr
		}
		name := c.Path
		if len(cands) == 1 {
			name = c.Redacted()
		}
		derr.attempts = append(derr.attempts, name+": "+reason)
	}
	return nil, derr
}

// get fetches one candidate. Without a card it says why, and whether the
// failure rules out the other candidates too.
func (f *fetcher) get(ctx context.Context, u *url.URL) (fd *found, reason string, fatal bool) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err.Error(), true
	}
	req.Header.Set("Accept", acceptHeader)
	req.Header.Set("User-Agent", "cardscan")
	resp, err := f.client.Do(req)
	if err != nil {
		var re *redirectError
		if errors.As(err, &re) {
			return nil, re.msg, false
		}
		return nil, describe(err), true
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		// Drain a little so the connection can be reused for the next
		// candidate; a large error page is not worth reading.
		io.CopyN(io.Discard, resp.Body, 4<<10)
		return nil, resp.Status, false
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.maxBytes+1))
	if err != nil {
		return nil, "reading the body: " + describe(err), true
	}
	fd = &found{url: resp.Request.URL, header: resp.Header, body: body, size: int64(len(body))}
	if int64(len(body)) > f.maxBytes {
		fd.body, fd.tooLarge = nil, true
	}
	return fd, "", false
}

// describe strips what net/http and net wrap around an error (the method,
// URL and address), which the message names already.
func describe(err error) string {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded) {
		return "timed out"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	// "dial tcp 10.0.0.1:443: connect: connection refused" names the host
	// again; the message already does.
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		err = oe.Err
	}
	return err.Error()
}
