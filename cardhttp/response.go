package cardhttp

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/cardscan/cardscan/internal/mediatype"
)

// ModifyResponse returns a hook for httputil.ReverseProxy's ModifyResponse
// field. It checks every response to a GET of a card path (the well-known
// paths of both specs unless WithPaths says otherwise) that a client would
// read as the card: any 2xx with a body, 203 Non-Authoritative
// Information among them. It replaces with a 502 problem response:
//
//   - a card served as anything but JSON (application/json, text/json or
//     a +json type such as application/agentcard+json), with no
//     Content-Type, or with more than one: served as text/html, even a
//     valid card is a page a browser renders, and a client that trusts
//     the type misreads it;
//   - a 206 Partial Content: a range of a card cannot be checked;
//   - an invalid, oversized, unreadable or undecodable card, or one in
//     UTF-16 or UTF-32 text.
//
// 204 and 205 (no body) and every other status pass untouched. A valid
// card is passed on exactly as the upstream sent it, headers and bytes.
// Identity and gzip content encodings are judged; any other encoding, or
// a list of them (on one line or several), is refused, since a card that
// cannot be read cannot be vouched for.
//
// Of the options it honours WithProfile, WithValidatorOptions, WithPaths
// and WithMaxBytes (which caps the card as sent and as decoded). It fails
// only as fastvalidate.New does: for an unknown profile, or a validator
// option New refuses.
func ModifyResponse(opts ...Option) (func(*http.Response) error, error) {
	cfg, pool, err := newConfig(wellKnownPaths, opts)
	if err != nil {
		return nil, err
	}
	c := &checker{cfg: cfg, pool: pool}
	return c.checkResponse, nil
}

func (c *checker) checkResponse(resp *http.Response) error {
	req := resp.Request
	if req == nil || req.Method != http.MethodGet || !c.cfg.pathMatches(req.URL.Path) {
		return nil
	}
	switch code := resp.StatusCode; {
	case code < 200 || code > 299 || code == http.StatusNoContent || code == http.StatusResetContent:
		return nil
	case code == http.StatusPartialContent:
		resp.Body.Close()
		replaceWithProblem(resp, &Rejection{Status: http.StatusBadGateway, Err: errUpstreamRange})
		return nil
	}
	// Read whole, as the client reads it: a type on two lines is no one
	// type, and a browser takes the last.
	header, single := mediatype.ContentType(resp.Header)
	if !single || !isJSONType(header) {
		resp.Body.Close()
		what := "with no Content-Type"
		switch {
		case !single:
			what = "with more than one Content-Type"
		case header != "":
			what = "as " + strconv.Quote(header)
		}
		replaceWithProblem(resp, &Rejection{Status: http.StatusBadGateway, Err: errors.New("the upstream served the agent card " + what + ", not as JSON")})
		return nil
	}
	st := getState()
	card, rej := c.readUpstream(st, resp)
	if rej.Status == 0 {
		rej = upstreamEncoding(card)
	}
	if rej.Status == 0 {
		v := c.pool.Get()
		if res := v.Validate(card); !res.Valid() {
			rej = Rejection{Status: http.StatusBadGateway, Result: res, Profile: c.cfg.judgedBy(res), card: card}
			replaceWithProblem(resp, &rej)
		} else if err := c.cfg.requireSignature(card, upstreamURL(resp)); err != nil {
			rej = signatureRejection(http.StatusBadGateway, err, card, c.cfg.judgedBy(res))
			replaceWithProblem(resp, &rej)
		}
		c.pool.Put(v)
	} else {
		replaceWithProblem(resp, &rej)
	}
	if rej.Status != 0 {
		putState(st)
		return nil
	}
	// The reverse proxy closes the body once copied, which returns the
	// buffer to the pool.
	resp.Body = &cardBody{st: st}
	return nil
}

func isJSONType(header string) bool {
	t, ok := mediatype.Parse(header)
	return ok && mediatype.IsJSON(t)
}

var (
	errUpstreamRange    = errors.New("the upstream answered with a range of the agent card, which cannot be checked")
	errUpstreamRead     = errors.New("the upstream agent card could not be read")
	errUpstreamTooLarge = errors.New("the upstream agent card exceeds the size limit")
)

// readUpstream buffers the upstream body in st.buf (the bytes to forward)
// and returns the card to judge: the same bytes, or their gzip decoding.
func (c *checker) readUpstream(st *state, resp *http.Response) ([]byte, Rejection) {
	// Codings on several lines are one list, applied in turn: only
	// identity or gzip alone is judged, as for requests.
	encoding := mediatype.ContentEncoding(resp.Header)
	coding := mediatype.ParseEncoding(encoding)
	if coding == mediatype.Unsupported {
		resp.Body.Close()
		return nil, Rejection{Status: http.StatusBadGateway, Err: errors.New("the upstream agent card has content encoding " + strconv.Quote(strings.TrimSpace(encoding)) + ", which cannot be checked")}
	}
	var err error
	st.buf, err = readCapped(st.buf[:0], resp.Body, resp.ContentLength, c.cfg.maxBytes)
	resp.Body.Close()
	switch {
	case errors.Is(err, errTooLarge):
		return nil, Rejection{Status: http.StatusBadGateway, Err: errUpstreamTooLarge}
	case err != nil:
		return nil, Rejection{Status: http.StatusBadGateway, Err: errUpstreamRead}
	}
	if coding != mediatype.Gzip {
		return st.buf, Rejection{}
	}
	zr, err := gzip.NewReader(bytes.NewReader(st.buf))
	if err == nil {
		st.plain, err = readCapped(st.plain[:0], zr, -1, c.cfg.maxBytes)
	}
	switch {
	case errors.Is(err, errTooLarge):
		return nil, Rejection{Status: http.StatusBadGateway, Err: errUpstreamTooLarge}
	case err != nil:
		return nil, Rejection{Status: http.StatusBadGateway, Err: errors.New("the upstream agent card is not valid gzip")}
	}
	return st.plain, Rejection{}
}

// upstreamEncoding is the rejection of an upstream card in UTF-16 or
// UTF-32, named as the middleware names such a request body; judged as
// UTF-8 its one finding was a json.syntax error at its first byte.
func upstreamEncoding(card []byte) Rejection {
	err := mediatype.CheckEncoding(card)
	if err == nil {
		return Rejection{}
	}
	var enc *mediatype.EncodingError
	if !errors.As(err, &enc) {
		return Rejection{Status: http.StatusBadGateway, Err: err}
	}
	return Rejection{Status: http.StatusBadGateway, Err: errors.New("the upstream agent card is " + enc.Encoding + " text, not UTF-8 (RFC 8259, section 8.1)")}
}

// replaceWithProblem turns resp into a problem response. The upstream's
// headers are dropped, not merged: they describe a body that is gone.
func replaceWithProblem(resp *http.Response, rej *Rejection) {
	body := rej.AppendProblem(nil)
	resp.StatusCode = rej.Status
	resp.Status = strconv.Itoa(rej.Status) + " " + statusTitle(rej.Status)
	resp.Header = http.Header{
		"Content-Type":   {ProblemMediaType},
		"Content-Length": {strconv.Itoa(len(body))},
		"Cache-Control":  {"no-store"},
		// As WriteProblem's: the problem quotes the upstream's card.
		"X-Content-Type-Options": {"nosniff"},
	}
	resp.Trailer = nil
	resp.TransferEncoding = nil
	resp.Uncompressed = false
	resp.ContentLength = int64(len(body))
	resp.Body = io.NopCloser(bytes.NewReader(body))
}

// upstreamURL is the URL the card was fetched from, "" when unknown.
func upstreamURL(resp *http.Response) string {
	if resp.Request == nil || resp.Request.URL == nil {
		return ""
	}
	return resp.Request.URL.String()
}
