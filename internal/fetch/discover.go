package fetch

import (
	"bytes"
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cardscan/cardscan/fastvalidate"
)

// wellKnownPaths are tried in this order: the AgentCard draft (section 4),
// then A2A from 0.3 on, then A2A before 0.3.
var wellKnownPaths = []string{"/.well-known/agentcard", "/.well-known/agent-card.json", "/.well-known/agent.json"}

// acceptHeader is what the draft's discovery example sends, with the
// media type it says implementations should also accept.
const acceptHeader = "application/agentcard+json, application/json"

// maxRedirects bounds a discovery's redirect chain.
const maxRedirects = 3

// maxHeaderBytes bounds an answer's header lines, which net/http reads
// up to 10 MB of by default: 10 MB of tiny lines allocate some 160 MB
// as a header map, whatever --max-record says. A card's server sends a
// few KiB; nginx in front of one refuses more than 8 KiB by default.
const maxHeaderBytes = 64 << 10

// netConfig is how the fetcher reaches the network.
type netConfig struct {
	timeout        time.Duration // each request (a redirect is another), body included
	connectTimeout time.Duration
	maxBytes       int64
	perHost        int // requests in flight per host
	retries        int // further tries of a path that answers 429 or 503
	maxRetryWait   time.Duration
	// maxTime bounds all that is done for one URL (fetch) or one
	// interface (probe); 0 for no bound, the caller's context's.
	maxTime      time.Duration
	userAgent    string
	allowPrivate bool
	hooks        *testHooks
}

// testHooks stand in for the network's parts that tests cannot use: DNS,
// the public CAs and the environment's proxy settings.
type testHooks struct {
	lookup  lookupFunc
	rootCAs *x509.CertPool
	proxy   func(*http.Request) (*url.URL, error)
	backoff time.Duration // first wait before retrying without Retry-After
	// public lists loopback addresses (IP:port) the guard lets through
	// as if they were public, to play sites on the internet.
	public map[string]bool
	// transport replaces the network (and the guard) under the per-host
	// limit: tests of the output serve fixed host names in process, and
	// Client's callers bring a transport guarded as they see fit.
	transport http.RoundTripper
}

// defaultUserAgent names cardscan and its version, and where to read
// about it, as a crawler's operator would want a site's logs to show.
func defaultUserAgent() string {
	v := "devel"
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		v = info.Main.Version
	}
	return "cardscan/" + v + " (agent card validator; +https://github.com/cardscan/cardscan)"
}

// fetcher discovers and downloads cards. It is safe for concurrent use.
type fetcher struct {
	client       *http.Client
	maxBytes     int64
	retries      int
	maxRetryWait time.Duration
	maxTime      time.Duration
	backoff      time.Duration
	userAgent    string
	// What probe's gRPC client needs of the network: the guarded dial,
	// the trusted CAs (nil: the system's) and the time limits.
	dial           func(ctx context.Context, network, addr string) (net.Conn, error)
	rootCAs        *x509.CertPool
	timeout        time.Duration
	connectTimeout time.Duration
	// prober, under fetch --probe, asks the interfaces of each card found.
	prober *prober
}

func newFetcher(c netConfig) *fetcher {
	h := c.hooks
	if h == nil {
		h = &testHooks{}
	}
	d := newDialer(net.Dialer{Timeout: c.connectTimeout, KeepAlive: 30 * time.Second}, c.allowPrivate, h.lookup, h.public)
	proxy := h.proxy
	if proxy == nil {
		proxy = http.ProxyFromEnvironment
	}
	transport := &http.Transport{
		Proxy:                  d.proxyFunc(proxy, c.allowPrivate),
		DialContext:            d.DialContext,
		TLSClientConfig:        &tls.Config{RootCAs: h.rootCAs},
		TLSHandshakeTimeout:    c.connectTimeout,
		ResponseHeaderTimeout:  c.timeout,
		MaxResponseHeaderBytes: maxHeaderBytes,
		MaxIdleConns:           256,
		MaxIdleConnsPerHost:    c.perHost,
		IdleConnTimeout:        30 * time.Second,
		ForceAttemptHTTP2:      true,
	}
	var next http.RoundTripper = locationCheck{transport}
	if h.transport != nil {
		next = h.transport
	}
	backoff := h.backoff
	if backoff == 0 {
		backoff = 500 * time.Millisecond
	}
	return &fetcher{
		client: &http.Client{
			Transport:     newHostLimiter(next, c.perHost, c.timeout),
			CheckRedirect: checkRedirect,
		},
		maxBytes:     c.maxBytes,
		retries:      c.retries,
		maxRetryWait: c.maxRetryWait,
		maxTime:      c.maxTime,
		backoff:      backoff,
		userAgent:    c.userAgent,

		dial:           d.DialContext,
		rootCAs:        h.rootCAs,
		timeout:        c.timeout,
		connectTimeout: c.connectTimeout,
	}
}

// locationCheck refuses a redirect whose Location is no URL as a
// redirect refused. net/http's client would fail the whole request on it
// ("failed to parse Location header"), which ended a discovery as if the
// host could not be reached, where a redirect refused goes on to the next
// path.
type locationCheck struct{ next http.RoundTripper }

func (l locationCheck) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := l.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	switch resp.StatusCode {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		// The codes net/http's client follows.
	default:
		return resp, nil
	}
	if loc := resp.Header.Get("Location"); loc != "" {
		if _, perr := req.URL.Parse(loc); perr != nil {
			resp.Body.Close()
			return nil, &redirectError{"refused redirect to " + quoteHeader(loc) + ", not a URL"}
		}
	}
	return resp, nil
}

// redirectError is a redirect the fetcher refused to follow.
type redirectError struct{ msg string }

func (e *redirectError) Error() string { return e.msg }

func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > maxRedirects {
		return &redirectError{fmt.Sprintf("more than %d redirects", maxRedirects)}
	}
	if s := req.URL.Scheme; s != "http" && s != "https" {
		return &redirectError{"refused redirect to a " + strconv.Quote(s) + " URL"}
	}
	if err := checkPort(req.URL); err != nil {
		return &redirectError{"refused redirect to " + req.URL.Redacted() + ": " + err.Error()}
	}
	if prev := via[len(via)-1]; prev.URL.Scheme == "https" && req.URL.Scheme != "https" {
		// A downgrade would let an on-path attacker substitute the card
		// (draft section 8.5).
		return &redirectError{"refused redirect from https to " + req.URL.Scheme + " (" + req.URL.Redacted() + ")"}
	}
	return nil
}

// found is a card candidate as served.
type found struct {
	url    *url.URL // where it was served, after redirects
	header http.Header
	body   []byte
	size   int64 // bytes read
	// plainHop is the first URL of the redirect chain asked over plain
	// http when url is https, else nil.
	plainHop *url.URL
}

// failure is why a URL yielded no card to judge: a rule of the fetch
// group and what happened.
type failure struct {
	rule   fastvalidate.Code
	detail string
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
	if err := checkPort(u); err != nil {
		return nil, err
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

// maxTimeError is what ends a URL's, or an interface's, work when
// --max-time runs out: the cause of its context.
type maxTimeError struct{ d time.Duration }

func (e *maxTimeError) Error() string { return fmt.Sprintf("--max-time %v ran out", e.d) }

// withinMaxTime is ctx bounded by f.maxTime, when there is one.
func (f *fetcher) withinMaxTime(ctx context.Context) (context.Context, context.CancelFunc) {
	if f.maxTime <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeoutCause(ctx, f.maxTime, &maxTimeError{f.maxTime})
}

// maxTimeOf says whether ctx ended because --max-time ran out.
func maxTimeOf(ctx context.Context) *maxTimeError {
	var mt *maxTimeError
	if ctx.Err() != nil && errors.As(context.Cause(ctx), &mt) {
		return mt
	}
	return nil
}

// checkPort refuses a URL whose port names no TCP port, before any
// lookup: url.Parse takes any run of digits.
func checkPort(u *url.URL) error {
	p := u.Port()
	if p == "" {
		return nil
	}
	if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("port %s is not 1 to 65535", clip(p))
	}
	return nil
}

// attempt is what one candidate URL answered when it held no card.
type attempt struct {
	rule   fastvalidate.Code
	reason string
	final  bool // the other candidates would fare no better: stop
	// answered says the URL answered, with headers, but its body could
	// not be read: its host was reached, whatever the rule.
	answered bool
	// host is the host (name and port) that got no answer: the URL's,
	// or a redirect's; "" for the URL's.
	host string
	// silent says the host took the request and did not answer it.
	silent bool
	// spent says --max-time ran out, whatever the URL was doing.
	spent bool
}

// rank orders the rules of attempts that let discovery go on, most
// telling first, to name the failure of a site where no path held a card:
// a refused redirect may have been the card; a page that answered 200
// shows the site is there.
func rank(c fastvalidate.Code) int {
	switch c {
	case fastvalidate.CodeHTTPRedirect:
		return 3
	case fastvalidate.CodeHTTPNotACard:
		return 2
	}
	return 1
}

// discover finds the card for raw as the specs describe discovery: the
// first candidate that answers 200 with a card candidate holds it. A
// candidate that is missing, redirects wrongly or answers something that
// is not a card (a single-page app's HTML fallback) moves on to the next;
// a host that cannot be reached, a timeout, a blocked address or a body
// over the cap ends the search.
func (f *fetcher) discover(ctx context.Context, raw string) (*found, *failure) {
	cands, err := candidates(raw)
	if err != nil {
		return nil, &failure{fastvalidate.CodeHTTPUnreachable, err.Error()}
	}
	var reasons []string
	rule := fastvalidate.CodeHTTPStatus
	for _, c := range cands {
		fd, at := f.get(ctx, c)
		if fd != nil {
			return fd, nil
		}
		name := c.Path
		if len(cands) == 1 {
			name = c.Redacted()
		}
		if at.final {
			detail := name + ": " + at.reason
			if !at.answered && !at.spent && (at.rule == fastvalidate.CodeHTTPUnreachable || at.rule == fastvalidate.CodeHTTPTimeout) {
				host := cmp.Or(at.host, c.Host)
				detail = "cannot reach " + host + ": " + at.reason
				if at.silent {
					detail = host + " " + at.reason
				}
			}
			if len(reasons) > 0 {
				detail += " (after " + strings.Join(reasons, "; ") + ")"
			}
			return nil, &failure{at.rule, detail}
		}
		reasons = append(reasons, name+": "+at.reason)
		if rank(at.rule) > rank(rule) {
			rule = at.rule
		}
	}
	return nil, &failure{rule, "no agent card found (" + strings.Join(reasons, "; ") + ")"}
}

// get fetches one candidate, trying again after a 429 or 503 as the
// server asks. Without a card candidate it says what the URL answered.
func (f *fetcher) get(ctx context.Context, u *url.URL) (*found, attempt) {
	for try := 0; ; try++ {
		fd, at, hint := f.getOnce(ctx, u)
		if !hint.retry || try >= f.retries {
			return fd, at
		}
		wait := hint.after
		if !hint.given {
			wait = f.backoff << try
		}
		if wait > f.maxRetryWait {
			at.reason += fmt.Sprintf(" (Retry-After %v is longer than %v: not retried)", wait, f.maxRetryWait)
			return nil, at
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			if mt := maxTimeOf(ctx); mt != nil {
				return nil, attempt{rule: fastvalidate.CodeHTTPTimeout, reason: mt.Error() + " waiting to retry after " + at.reason, final: true, spent: true}
			}
			return nil, attempt{rule: fastvalidate.CodeHTTPTimeout, reason: "cancelled while waiting to retry", final: true}
		}
	}
}

// retryHint says whether an answer may be retried, and after how long
// the server asked for.
type retryHint struct {
	retry bool
	given bool // the server sent a Retry-After that could be read
	after time.Duration
}

// getOnce makes one request.
func (f *fetcher) getOnce(ctx context.Context, u *url.URL) (fd *found, at attempt, hint retryHint) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, attempt{rule: fastvalidate.CodeHTTPUnreachable, reason: err.Error(), final: true}, hint
	}
	req.Header.Set("Accept", acceptHeader)
	req.Header.Set("User-Agent", f.userAgent)
	trace := traceRequest(req)
	resp, err := f.client.Do(req)
	if err != nil {
		var re *redirectError
		if errors.As(err, &re) {
			return nil, attempt{rule: fastvalidate.CodeHTTPRedirect, reason: re.msg, final: false}, hint
		}
		if mt := maxTimeOf(ctx); mt != nil {
			return nil, attempt{rule: fastvalidate.CodeHTTPTimeout, reason: mt.Error(), final: true, spent: true}, hint
		}
		err = trace.silence(err, f.timeout, f.connectTimeout)
		at := classify(err)
		at.host = errHost(err, u.Host)
		return nil, at, hint
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
			hint.retry = true
			hint.after, hint.given = retryAfter(resp.Header.Get("Retry-After"), time.Now())
		}
		// Drain a little so the connection can be reused for the next
		// candidate; a large error page is not worth reading.
		io.CopyN(io.Discard, resp.Body, 4<<10)
		return nil, attempt{rule: fastvalidate.CodeHTTPStatus, reason: resp.Status, final: false}, hint
	}
	if mt := mediaType(resp.Header.Get("Content-Type")); mt == "text/html" || mt == "application/xhtml+xml" {
		io.CopyN(io.Discard, resp.Body, 4<<10)
		return nil, attempt{rule: fastvalidate.CodeHTTPNotACard, reason: "200, served as " + mt + ", not a card", final: false}, hint
	}
	body, verdict, err := readCandidate(resp.Body, f.maxBytes)
	if err != nil {
		if mt := maxTimeOf(ctx); mt != nil {
			return nil, attempt{rule: fastvalidate.CodeHTTPTimeout, reason: mt.Error() + " reading the body", final: true, spent: true, answered: true}, hint
		}
		// The path answered: the error says what, as probe's does.
		be := &bodyError{status: resp.StatusCode, mediaType: mediaType(resp.Header.Get("Content-Type")), timeout: f.timeout, err: err}
		at := classify(err)
		at.reason, at.answered = be.Error(), true
		return nil, at, hint
	}
	switch verdict {
	case notJSON:
		what := "an empty body"
		if b := firstByte(body); b >= 0 {
			what = "a body starting with " + strconv.QuoteRuneToASCII(rune(b))
		}
		// net/http decodes the gzip it asks for, and drops the header:
		// one left is an encoding nobody asked for, which explains the
		// bytes better than they do.
		if ce := resp.Header.Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
			what = "Content-Encoding " + quoteHeader(ce) + ", which was not asked for"
		}
		return nil, attempt{rule: fastvalidate.CodeHTTPNotACard, reason: "200 with " + what + ", not a card", final: false}, hint
	case overCap:
		return nil, attempt{rule: fastvalidate.CodeHTTPTooLarge, reason: fmt.Sprintf("the body is larger than --max-record (%d bytes)", f.maxBytes), final: true}, hint
	}
	return &found{url: resp.Request.URL, header: resp.Header, body: body, size: int64(len(body)), plainHop: plainHop(resp)}, attempt{}, hint
}

// plainHop is the first request of resp's redirect chain made over plain
// http, when resp itself came over https, else nil.
func plainHop(resp *http.Response) *url.URL {
	if resp.Request.URL.Scheme != "https" {
		return nil
	}
	var first *url.URL
	for r := resp.Request; r.Response != nil; {
		r = r.Response.Request
		if r.URL.Scheme == "http" {
			first = r.URL
		}
	}
	return first
}

// classify names the rule of an error of a request or of its body.
func classify(err error) attempt {
	var be *blockedError
	if errors.As(err, &be) {
		return attempt{rule: fastvalidate.CodeHTTPBlockedAddress, reason: be.Error(), final: true}
	}
	var se *silentError
	if errors.As(err, &se) {
		return attempt{rule: se.rule(), reason: se.Error(), final: true, silent: true}
	}
	if isTimeout(err) {
		return attempt{rule: fastvalidate.CodeHTTPTimeout, reason: "timed out", final: true}
	}
	return attempt{rule: fastvalidate.CodeHTTPUnreachable, reason: describe(err), final: true}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded)
}

// requestTrace follows the last of a chain of requests (a redirect is
// another) far enough to tell a host that could not be reached from one
// that took the connection and then said nothing. The transport calls
// its hooks from its own goroutines.
type requestTrace struct {
	// sent says the request was written whole: a failure after that is
	// the server's silence.
	sent atomic.Bool
	// shaking says a TLS handshake began and did not succeed (the
	// transport ends a stalled one with an error).
	shaking atomic.Bool
}

// traceRequest traces req's chain of requests.
func traceRequest(req *http.Request) *requestTrace {
	tr := new(requestTrace)
	*req = *req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		GetConn: func(string) {
			tr.sent.Store(false)
			tr.shaking.Store(false)
		},
		TLSHandshakeStart: func() { tr.shaking.Store(true) },
		TLSHandshakeDone:  func(_ tls.ConnectionState, err error) { tr.shaking.Store(err != nil) },
		WroteRequest:      func(i httptrace.WroteRequestInfo) { tr.sent.Store(i.Err == nil) },
	}))
	return tr
}

// silence returns err, the request's failure, as a silentError when the
// host took the request, or took the connection and timed out in the TLS
// handshake (a certificate's failure stays as it is), else err itself.
func (tr *requestTrace) silence(err error, timeout, connectTimeout time.Duration) error {
	switch {
	case tr.sent.Load():
		return &silentError{timeout: timeout, err: err}
	case tr.shaking.Load() && isTimeout(err):
		return &silentError{timeout: connectTimeout, err: err, conn: true, handshake: true}
	}
	return err
}

// silentError is a request written whole that got no answer: the server
// said nothing within --timeout, hung up, or sent something that is no
// HTTP answer.
type silentError struct {
	timeout time.Duration
	err     error
	// conn says only a connection was made (gRPC's, whose call waits
	// for the server's HTTP/2 preface), not a request written; handshake
	// that its TLS handshake then stalled.
	conn, handshake bool
}

func (e *silentError) Error() string {
	took := "took the request"
	if e.conn {
		took = "took the connection"
	}
	switch {
	case e.handshake:
		return fmt.Sprintf("%s, then stalled in the TLS handshake: none finished within %v", took, e.timeout)
	case isTimeout(e.err):
		return fmt.Sprintf("%s, then timed out: no answer within --timeout %v", took, e.timeout)
	case errors.Is(e.err, io.EOF) || errors.Is(e.err, io.ErrUnexpectedEOF):
		return took + ", then closed the connection without answering"
	}
	return took + ", then: " + describe(e.err)
}

func (e *silentError) Unwrap() error { return e.err }

// rule is fetch's rule for the silence.
func (e *silentError) rule() fastvalidate.Code {
	if isTimeout(e.err) {
		return fastvalidate.CodeHTTPTimeout
	}
	return fastvalidate.CodeHTTPUnreachable
}

// errHost is the host of the request err is about (a redirect's, when
// that is the one that failed), or else fallback.
func errHost(err error, fallback string) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil && u.Host != "" {
			return u.Host
		}
	}
	return fallback
}

// retryAfter reads a Retry-After header: delay-seconds or an HTTP date
// (RFC 9110 section 10.2.3). ok is false when it is absent or unreadable.
func retryAfter(v string, now time.Time) (d time.Duration, ok bool) {
	v = strings.TrimSpace(v)
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0, false
		}
		// Past a day the number means "not today"; a Duration would
		// overflow long before the int64 does.
		return time.Duration(min(n, 86400)) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// mediaType is the lower-case type/subtype of a Content-Type.
func mediaType(ct string) string {
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	return strings.ToLower(strings.TrimSpace(ct))
}

type bodyVerdict int

const (
	candidate bodyVerdict = iota
	notJSON               // empty, blank, or a first byte no card starts with
	overCap               // a candidate longer than the cap
)

// readCandidate reads a body up to limit bytes, stopping early when its
// first non-blank byte shows it cannot be a card: an HTML page served with a
// JSON media type, or a 50 MB error page, costs a few bytes.
func readCandidate(r io.Reader, limit int64) ([]byte, bodyVerdict, error) {
	body := make([]byte, 0, 4<<10)
	decided := false
	for {
		if len(body) == cap(body) {
			body = append(body, 0)[:len(body)]
		}
		room := min(int64(cap(body)-len(body)), limit+1-int64(len(body)))
		n, err := r.Read(body[len(body) : len(body)+int(room)])
		body = body[:len(body)+n]
		if !decided {
			switch b := firstByte(body); {
			case b >= 0 && !startsCard(byte(b)):
				return body, notJSON, nil
			case b >= 0:
				decided = true
			}
		}
		if int64(len(body)) > limit {
			// Past the limit, undecided means nothing but white space so
			// far: the body is too large to judge, which is what is known
			// of it, not empty.
			return nil, overCap, nil
		}
		if err == io.EOF {
			if !decided {
				return body, notJSON, nil
			}
			return body, candidate, nil
		}
		if err != nil {
			return nil, candidate, err
		}
	}
}

// firstByte returns the first byte of b after a UTF-8 byte order mark and
// JSON white space, or -1 when there is none yet.
func firstByte(b []byte) int {
	const bom = "\xEF\xBB\xBF"
	if len(b) < len(bom) && bom[:len(b)] == string(b) {
		return -1 // perhaps a byte order mark, cut by a short read
	}
	b = bytes.TrimPrefix(b, []byte(bom))
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return int(c)
	}
	return -1
}

// startsCard says whether a card can start with c: a JSON object, or a
// JSON string holding one (the embedded form). The other JSON values are
// no card either, and letting them through would let a body such as "top
// secret" (which starts as true does) into the output.
func startsCard(c byte) bool {
	return c == '{' || c == '"'
}

// describe strips what net/http and net wrap around an error (the method,
// URL and address), which the message names already.
func describe(err error) string {
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
