package cardhttp

import (
	"bytes"
	"errors"
	"io"
	"net/http"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/linger"
	"github.com/cardscan/cardscan/internal/mediatype"
)

// Middleware returns a function that wraps a handler so that the agent
// cards sent to it are judged first (see the package documentation);
// wrapping a nil handler panics, as http.Handle does. It
// fails only as fastvalidate.New does: for an unknown profile, or a
// validator option New refuses.
func Middleware(opts ...Option) (func(http.Handler) http.Handler, error) {
	cfg, pool, err := newConfig(nil, opts)
	if err != nil {
		return nil, err
	}
	c := &checker{cfg: cfg, pool: pool}
	return func(next http.Handler) http.Handler {
		if next == nil {
			panic("cardhttp: Middleware wrapping a nil handler")
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c.serve(w, r, next)
		})
	}, nil
}

type checker struct {
	cfg  *config
	pool *fastvalidate.Pool
}

// verdict is what Middleware does with a request before reading it.
type verdict int

const (
	pass      verdict = iota // not a card request: on to the handler unread
	judge                    // read and judge the card
	refuse                   // a body that cannot be judged: 415
	ambiguous                // two Content-Type lines: 400
)

func (c *checker) classify(r *http.Request) verdict {
	if !c.cfg.methodMatches(r.Method) || !c.cfg.pathMatches(r.URL.Path) {
		return pass
	}
	header, single := mediatype.ContentType(r.Header)
	if !single {
		return ambiguous
	}
	if header == "" && (r.Body == nil || r.Body == http.NoBody) {
		return pass
	}
	if t, ok := mediatype.Parse(header); ok && c.cfg.judgesType(t) {
		return judge
	}
	if c.cfg.passOthers {
		return pass
	}
	return refuse
}

func (c *checker) serve(w http.ResponseWriter, r *http.Request, next http.Handler) {
	if len(r.TransferEncoding) > 0 && r.Header.Get("Content-Length") != "" {
		// The shape of request smuggling, which RFC 9112 (section 6.1)
		// lets a server reject and has it close the connection after.
		// net/http deletes the Content-Length of a chunked request
		// before any handler runs; another server may hand it on.
		w.Header().Set("Connection", "close")
		c.rejectWith(w, r, &Rejection{Status: http.StatusBadRequest, Err: errFramingConflict})
		return
	}
	switch c.classify(r) {
	case pass:
		next.ServeHTTP(w, r)
		return
	case refuse:
		rej := Rejection{Status: http.StatusUnsupportedMediaType, Err: errNotJSON}
		w.Header().Set("Accept-Post", acceptPost)
		c.rejectWith(w, r, &rej)
		return
	case ambiguous:
		c.rejectWith(w, r, &Rejection{Status: http.StatusBadRequest, Err: errTwoTypes})
		return
	}
	st, ok := c.check(r)
	if !ok {
		// Over HTTP/1 the rest of the body stays unread: the connection
		// cannot carry another request. HTTP/2 resets the one stream and
		// reads Connection: close as a request to end the connection,
		// with every other stream on it; its client, answered, stops
		// sending, so there is nothing to drain either.
		tooLarge := st.rej.Status == http.StatusRequestEntityTooLarge && r.ProtoMajor < 2
		if tooLarge {
			w.Header().Set("Connection", "close")
		}
		if st.rej.Status == http.StatusUnsupportedMediaType && mediatype.ParseEncoding(mediatype.ContentEncoding(r.Header)) == mediatype.Unsupported {
			w.Header().Set("Accept-Encoding", mediatype.AcceptEncoding)
		}
		c.rejectWith(w, r, &st.rej)
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

func (c *checker) rejectWith(w http.ResponseWriter, r *http.Request, rej *Rejection) {
	if c.cfg.reject != nil {
		c.cfg.reject(w, r, rej)
	} else {
		rej.WriteProblem(w)
	}
}

// acceptPost is the Accept-Post sent with a 415 (RFC 9110's 415 asks for
// one): the JSON family, in its two usual names.
const acceptPost = MediaType + ", application/json, application/*+json"

var errFramingConflict = errors.New("the request has both Content-Length and Transfer-Encoding, which frame its body differently (RFC 9112, section 6.1)")

var errTwoTypes = errors.New("the request has more than one Content-Type line; send one (RFC 9110, section 8.3)")

var errNotJSON = errors.New("the body is not declared as JSON: send a card as application/agentcard+json or application/json")

// check reads and judges the request's card. On success the state holds the
// card's bytes; otherwise its rejection is filled in, and for an invalid
// card the validator that holds the findings is kept in the state until the
// rejection has been written. It allocates nothing once the pools are warm.
func (c *checker) check(r *http.Request) (st *state, ok bool) {
	st = getState()
	enc := mediatype.ContentEncoding(r.Header)
	coding := mediatype.ParseEncoding(enc)
	if coding == mediatype.Unsupported {
		st.rej = Rejection{Status: http.StatusUnsupportedMediaType, Err: errors.New(mediatype.UnsupportedEncoding(enc))}
		return st, false
	}
	var err error
	if r.Body != nil {
		st.buf, err = readCapped(st.buf[:0], r.Body, r.ContentLength, c.cfg.maxBytes)
	}
	card := st.buf
	if err == nil && coding == mediatype.Gzip {
		// The handler gets the body as sent, still compressed; the
		// cap holds for the card decoded too.
		var zr io.Reader
		zr, err = mediatype.NewGzipReader(bytes.NewReader(st.buf))
		if err == nil {
			st.plain, err = readCapped(st.plain[:0], zr, -1, c.cfg.maxBytes)
			if err != nil && !errors.Is(err, errTooLarge) {
				err = mediatype.ErrBadGzip
			}
		}
		card = st.plain
	}
	switch {
	case errors.Is(err, errTooLarge):
		st.rej = Rejection{Status: http.StatusRequestEntityTooLarge, MaxBytes: c.cfg.maxBytes}
		return st, false
	case errors.Is(err, mediatype.ErrBadGzip):
		st.rej = Rejection{Status: http.StatusBadRequest, Err: err}
		return st, false
	case err != nil:
		st.rej = readFailure(err)
		return st, false
	}
	if err := mediatype.CheckEncoding(card); err != nil {
		st.rej = foreignEncoding(err)
		return st, false
	}
	v := c.pool.Get()
	res := v.Validate(card)
	if res.Valid() {
		profile := c.cfg.judgedBy(res) // res is v's, which Put hands on
		c.pool.Put(v)
		if err := c.cfg.requireSignature(st.buf, ""); err != nil {
			st.rej = signatureRejection(http.StatusUnprocessableEntity, err, st.buf, profile)
			return st, false
		}
		return st, true
	}
	st.v = v
	st.rej = Rejection{Status: http.StatusUnprocessableEntity, Result: res, Profile: c.cfg.judgedBy(res), card: card}
	return st, false
}

// foreignEncoding is the rejection of a card in UTF-16 or UTF-32, err
// from mediatype.CheckEncoding: 415, as cardscan serve answers, naming the
// encoding; judged as UTF-8 it was a 422 for a json.syntax error at a byte
// order mark or a NUL, which says nothing of the card. Apart from check so
// that the error escapes only on failure.
func foreignEncoding(err error) Rejection {
	var enc *mediatype.EncodingError
	if errors.As(err, &enc) {
		err = errors.New(mediatype.EncodingDetail(enc))
	}
	return Rejection{Status: http.StatusUnsupportedMediaType, Err: err}
}

// readFailure is the rejection of a body whose read failed with err: 413
// when a cap of the server's (http.MaxBytesReader) stopped it, else 400.
// Apart from check so that the error's target escapes only on failure.
func readFailure(err error) Rejection {
	var serverCap *http.MaxBytesError
	if errors.As(err, &serverCap) {
		return Rejection{Status: http.StatusRequestEntityTooLarge, MaxBytes: serverCap.Limit}
	}
	return Rejection{Status: http.StatusBadRequest, Err: errReadBody}
}

// errReadBody stands for any failure to read a request body: the details
// (a reset connection, a malformed chunk) come from the transport and tell
// the client nothing it can act on.
var errReadBody = errors.New("the request body could not be read")

// signatureRejection turns away card, which failed the signature check
// with err, with the errors err places in it when it can (cardsig's
// UnverifiedError can), else with one a2a.signature-missing error at the
// card that says err: the errors entries every rejection of a card has.
func signatureRejection(status int, err error, card []byte, profile string) Rejection {
	var placed interface {
		Findings(card []byte) []fastvalidate.Finding
	}
	var findings []fastvalidate.Finding
	if errors.As(err, &placed) {
		findings = placed.Findings(card)
	}
	if len(findings) == 0 {
		findings = []fastvalidate.Finding{fastvalidate.NewFinding(fastvalidate.CodeA2ASignatureMissing,
			fastvalidate.SeverityError, "", err.Error())}
	}
	return Rejection{Status: status, Err: err, Profile: profile, card: card, signature: findings}
}

// requireSignature returns why card, fetched from the URL from ("" when
// posted), lacks a signature WithTrust or WithSignatures requires, or nil.
func (c *config) requireSignature(card []byte, from string) error {
	switch {
	case c.trust != nil:
		return c.trust(card, from)
	case c.signatures != nil:
		return c.signatures(card)
	}
	return nil
}
