package cardhttp

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// ModifyResponse returns a hook for httputil.ReverseProxy's ModifyResponse
// field. It judges the agent card in every 200 response to a GET of a card
// path (the well-known paths of both specs unless WithPaths says
// otherwise), whatever its Content-Type, and replaces an invalid,
// oversized, unreadable or undecodable one with a 502 problem response. A
// valid card is passed on exactly as the upstream sent it, headers and
// bytes. Identity and gzip content encodings are judged; any other encoding
// is refused, since a card that cannot be read cannot be vouched for.
//
// Of the options it honours WithProfile, WithValidatorOptions, WithPaths
// and WithMaxBytes (which caps the card as sent and as decoded). It fails
// only for an unknown profile.
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
	if req == nil || req.Method != http.MethodGet || resp.StatusCode != http.StatusOK || !c.cfg.pathMatches(req.URL.Path) {
		return nil
	}
	st := getState()
	card, rej := c.readUpstream(st, resp)
	if rej.Status == 0 {
		v := c.pool.Get()
		if res := v.Validate(card); !res.Valid() {
			rej = Rejection{Status: http.StatusBadGateway, Result: res}
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

var (
	errUpstreamRead     = errors.New("the upstream agent card could not be read")
	errUpstreamTooLarge = errors.New("the upstream agent card exceeds the size limit")
)

// readUpstream buffers the upstream body in st.buf (the bytes to forward)
// and returns the card to judge: the same bytes, or their gzip decoding.
func (c *checker) readUpstream(st *state, resp *http.Response) ([]byte, Rejection) {
	encoding := strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding")))
	if encoding != "" && encoding != "identity" && encoding != "gzip" {
		resp.Body.Close()
		return nil, Rejection{Status: http.StatusBadGateway, Err: errors.New("the upstream agent card has content encoding " + strconv.Quote(encoding) + ", which cannot be checked")}
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
	if encoding != "gzip" {
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

// replaceWithProblem turns resp into a problem response. The upstream's
// headers are dropped, not merged: they describe a body that is gone.
func replaceWithProblem(resp *http.Response, rej *Rejection) {
	body := rej.AppendProblem(nil)
	resp.StatusCode = rej.Status
	resp.Status = strconv.Itoa(rej.Status) + " " + http.StatusText(rej.Status)
	resp.Header = http.Header{
		"Content-Type":   {ProblemMediaType},
		"Content-Length": {strconv.Itoa(len(body))},
		"Cache-Control":  {"no-store"},
	}
	resp.Trailer = nil
	resp.TransferEncoding = nil
	resp.Uncompressed = false
	resp.ContentLength = int64(len(body))
	resp.Body = io.NopCloser(bytes.NewReader(body))
}
