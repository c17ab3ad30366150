package cardhttp

import (
	"errors"
	"net/http"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/linger"
)

// Middleware returns a function that wraps a handler so that the agent
// cards sent to it are judged first (see the package documentation). It
// fails only for an unknown profile.
func Middleware(opts ...Option) (func(http.Handler) http.Handler, error) {
	cfg, pool, err := newConfig(nil, opts)
	if err != nil {
		return nil, err
	}
	c := &checker{cfg: cfg, pool: pool}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c.serve(w, r, next)
		})
	}, nil
}

type checker struct {
	cfg  *config
	pool *fastvalidate.Pool
}

func (c *checker) applies(r *http.Request) bool {
	return c.cfg.methodMatches(r.Method) &&
		c.cfg.pathMatches(r.URL.Path) &&
		c.cfg.contentTypeMatches(r.Header.Get("Content-Type"))
}

func (c *checker) serve(w http.ResponseWriter, r *http.Request, next http.Handler) {
	if !c.applies(r) {
		next.ServeHTTP(w, r)
		return
	}
	st, ok := c.check(r)
	if !ok {
		tooLarge := st.rej.Status == http.StatusRequestEntityTooLarge
		if tooLarge {
			// The rest of the body stays unread: the connection cannot
			// carry another request.
			w.Header().Set("Connection", "close")
		}
		if c.cfg.reject != nil {
			c.cfg.reject(w, r, &st.rej)
		} else {
			st.rej.WriteProblem(w)
		}
		if tooLarge {
			linger.Drain(w, r, int64(len(st.buf)), c.cfg.drainBytes, c.cfg.drainTimeout)
		}
		if st.v != nil {
			c.pool.Put(st.v)
		}
		putState(st)
		return
	}
	body := &cardBody{st: st}
	r.Body = body
	// Per the http.Handler contract nothing reads the body once the
	// handler has returned; anything that tries gets an error, not a
	// later request's bytes.
	defer body.release()
	next.ServeHTTP(w, r)
}

// check reads and judges the request's card. On success the state holds the
// card's bytes; otherwise its rejection is filled in, and for an invalid
// card the validator that holds the findings is kept in the state until the
// rejection has been written. It allocates nothing once the pools are warm.
func (c *checker) check(r *http.Request) (st *state, ok bool) {
	st = getState()
	var err error
	if r.Body != nil {
		st.buf, err = readCapped(st.buf[:0], r.Body, r.ContentLength, c.cfg.maxBytes)
	}
	switch {
	case errors.Is(err, errTooLarge):
		st.rej = Rejection{Status: http.StatusRequestEntityTooLarge, MaxBytes: c.cfg.maxBytes}
		return st, false
	case err != nil:
		st.rej = Rejection{Status: http.StatusBadRequest, Err: errReadBody}
		return st, false
	}
	v := c.pool.Get()
	res := v.Validate(st.buf)
	if res.Valid() {
		c.pool.Put(v)
		return st, true
	}
	st.v = v
	st.rej = Rejection{Status: http.StatusUnprocessableEntity, Result: res}
	return st, false
}

// errReadBody stands for any failure to read a request body: the details
// (a reset connection, a malformed chunk) come from the transport and tell
// the client nothing it can act on.
var errReadBody = errors.New("the request body could not be read")
