package fetch

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/cmdflag"
	"github.com/cardscan/cardscan/internal/pipeline"
	"github.com/cardscan/cardscan/internal/report"
)

// Client discovers and judges the card of one URL at a time exactly as the
// fetch command does each of its URLs, for callers other than the command
// (cardscan mcp). It is safe for concurrent use.
type Client struct {
	f     *fetcher
	pools map[string]*fastvalidate.Pool
}

// NewClient returns a Client whose requests are bounded as the command's:
// timeout for each request (a redirect is another) and for each
// connection, and maxRecord bytes of a card read. A nil transport is the
// command's own without its address guard: the caller, which decides what
// may be reached, passes a transport of its own to guard it.
func NewClient(timeout time.Duration, maxRecord int64, transport http.RoundTripper) *Client {
	f := newFetcher(netConfig{
		timeout:        timeout,
		connectTimeout: timeout,
		maxBytes:       maxRecord,
		perHost:        4,
		retries:        0, // a caller waiting on one answer retries itself
		userAgent:      defaultUserAgent(),
		allowPrivate:   true,
		hooks:          &testHooks{transport: transport},
	})
	c := &Client{f: f, pools: map[string]*fastvalidate.Pool{}}
	// One pool per profile, made up front so that Fetch needs no lock.
	for _, name := range fastvalidate.Profiles() {
		c.pools[name], _ = fastvalidate.NewPool(name)
	}
	return c
}

// Fetched is what Fetch found for a URL, rendered.
type Fetched struct {
	// Record is the line `cardscan fetch --format cards` prints: the JSONL
	// verdict with the serving rules' findings, the URL as given and the
	// card as served.
	Record []byte
	// Text is what `cardscan fetch --all` prints, an ok line for a valid
	// card, else a line per finding, with the card's text in them quoted
	// (report.Quoted) under report.QuoteNote: the client is the MCP
	// server, whose reader is a language model.
	Text []byte
	// Valid is the verdict, the serving rules' errors included.
	Valid bool
}

// Fetch discovers the card of url and judges it with the named profile,
// and, when sig is not nil, verifies its signatures as the command does
// with --keys (sig is not safe for concurrent use: one per call). The
// error says why no card was found.
func (c *Client) Fetch(ctx context.Context, url, profile string, sig *pipeline.SignatureChecker) (Fetched, error) {
	pool, ok := c.pools[profile]
	if !ok {
		return Fetched{}, cmdflag.CheckProfile(profile)
	}
	cards := renderer{cards: true}
	text := renderer{r: report.FormatText.Renderer(report.WriterOptions{All: true, Style: report.Quoted})}
	res := fetchOne(ctx, c.f, pool, sig, &cards, &text, url)
	if res.fail != nil {
		return Fetched{}, errors.New(printable(redactPassword(url)) + ": " + res.fail.detail)
	}
	if res.stats.Invalid+res.stats.Warnings > 0 {
		res.text = append(append([]byte(report.QuoteNote), '\n'), res.text...)
	}
	return Fetched{Record: res.out, Text: res.text, Valid: res.stats.Invalid == 0}, nil
}

// KeySetClient returns a client for the key sets a trust policy fetches
// from origins (origin-jwks, a same-origin jku): cardscan fetch's network
// with its address guard, so that a card naming a private address cannot
// make cardscan reach into the network it runs in, unless allowPrivate.
func KeySetClient(timeout time.Duration, allowPrivate bool) *http.Client {
	f := newFetcher(netConfig{
		timeout:        timeout,
		connectTimeout: timeout,
		maxBytes:       1,
		perHost:        4,
		userAgent:      defaultUserAgent(),
		allowPrivate:   allowPrivate,
	})
	c := *f.client
	c.Timeout = timeout
	return &c
}
