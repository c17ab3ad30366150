package serve

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cardscan/cardscan/cardhttp"
	"github.com/cardscan/cardscan/cardsig"
	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/linger"
	"github.com/cardscan/cardscan/internal/mediatype"
	"github.com/cardscan/cardscan/internal/pipeline"
	"github.com/cardscan/cardscan/internal/report"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// inputName stands in a verdict's "input" for the request body, as
// "<stdin>" does in the CLI's.
const inputName = "<request>"

const ndjsonType = "application/x-ndjson"

// acceptPost lists the request types /v1/validate takes (RFC 9110's
// Accept-Post, sent with a 415).
const acceptPost = cardhttp.MediaType + ", application/json, " + ndjsonType

// streamReadSize is an NDJSON stream's read buffer: a line that fits is
// judged in it, a longer one is copied out as it grows. It is made only for
// streams; a single card is read into chunks.
const streamReadSize = 64 << 10

// flushThreshold bounds how many verdict bytes a stream holds before
// writing them even while more input is waiting.
const flushThreshold = 32 << 10

type server struct {
	cfg      config
	requests budget                        // validation requests in flight
	bytes    budget                        // request body bytes buffered
	pools    map[string]*fastvalidate.Pool // by profile name
	metrics  *metrics
	scratch  sync.Pool // of *scratch
}

// scratch is one request's reusable buffers.
type scratch struct {
	chunks chunkedBody // a single card's body
	out    []byte
	lines  *pipeline.LineReader // an NDJSON stream's
	enc    report.Encoder
	head   headReader // an NDJSON stream's first bytes
	// sig verifies signatures, when the server does; the verdicts it
	// adds findings to borrow its buffers.
	sig *pipeline.SignatureChecker
}

// maxPooledScratch keeps one huge card from pinning its buffers in the
// pool.
const maxPooledScratch = 1 << 20

func newHandler(cfg config) (http.Handler, error) {
	s := &server{cfg: cfg, pools: map[string]*fastvalidate.Pool{}}
	s.requests.max = int64(cfg.maxInflight)
	s.bytes.max = cfg.maxInflightBytes
	for _, name := range fastvalidate.Profiles() {
		p, err := fastvalidate.NewPool(name)
		if err != nil {
			return nil, err
		}
		s.pools[name] = p
	}
	if s.pools[cfg.profile] == nil {
		return nil, errors.New("unknown profile " + strconv.Quote(cfg.profile))
	}
	s.scratch.New = func() any {
		sc := new(scratch)
		if cfg.signatures != nil {
			sc.sig = pipeline.NewSignatureChecker(cfg.signatures)
		}
		return sc
	}
	s.metrics = newMetrics()

	mux := http.NewServeMux()
	mux.Handle("/v1/validate", s.metrics.instrument("/v1/validate", http.HandlerFunc(s.validate)))
	mux.Handle("/healthz", s.metrics.instrument("/healthz", http.HandlerFunc(healthz)))
	mux.Handle("/metrics", s.metrics.instrument("/metrics", promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{})))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeProblem(w, http.StatusNotFound, "no such endpoint: "+r.URL.Path+" (try POST /v1/validate)")
	})
	return closeAfterChunked(mux), nil
}

// closeAfterChunked closes the connection after every request with a
// chunked body. A request with both Content-Length and Transfer-Encoding
// is the shape of request smuggling: a proxy in front that frames it by
// its Content-Length sees one request where the server, framing it by its
// chunks, sees a second one in the same bytes. RFC 9112 (section 6.1) has
// the server close the connection after responding to it, so that nothing
// after it is read as a request. net/http (as of Go 1.26) neither does
// that nor lets a handler tell such a request from a chunked one (it
// deletes the Content-Length first), so every chunked
// request ends its connection. Chunked bodies are NDJSON streams and
// uploads of unknown length, for which a new connection costs little.
func closeAfterChunked(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(r.TransferEncoding) > 0 {
			w.Header().Set("Connection", "close")
		}
		next.ServeHTTP(w, r)
	})
}

func healthz(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeProblem(w, http.StatusMethodNotAllowed, "use GET")
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	io.WriteString(w, "ok\n")
}

func writeProblem(w http.ResponseWriter, status int, detail string) {
	rej := cardhttp.Rejection{Status: status, Err: errors.New(detail)}
	rej.WriteProblem(w)
}

// queryOf parses a request's query strictly. url.Query drops what does
// not parse (a bad escape, a semicolon) and Get takes a parameter's first
// value: a request would be judged by the default profile, or the first
// origin, where a proxy or a log reading the last saw another. Either is
// an error naming the query.
func queryOf(raw string) (url.Values, error) {
	q, err := url.ParseQuery(raw)
	if err != nil {
		return nil, fmt.Errorf("the query %s does not parse: %v", strconv.Quote(raw), err)
	}
	for _, name := range []string{"profile", "from"} {
		if len(q[name]) > 1 {
			return nil, fmt.Errorf("the query gives %s %d times: give it once", name, len(q[name]))
		}
	}
	return q, nil
}

func (s *server) validate(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		writeProblem(w, http.StatusMethodNotAllowed, "use POST with a card, or NDJSON of cards, as the body")
		return
	}
	if !s.requests.take(1) {
		s.busy(w, r, 0, "the server is serving its limit of "+strconv.Itoa(s.cfg.maxInflight)+" requests")
		return
	}
	defer s.requests.give(1)
	query, err := queryOf(r.URL.RawQuery)
	if err != nil {
		writeProblem(w, http.StatusBadRequest, err.Error())
		return
	}
	profile := s.cfg.profile
	if p := query.Get("profile"); p != "" {
		profile = p
	}
	pool := s.pools[profile]
	if pool == nil {
		writeProblem(w, http.StatusBadRequest, "unknown profile "+strconv.Quote(profile)+"; profiles are "+strings.Join(fastvalidate.Profiles(), ", "))
		return
	}
	// ?from= is where the caller fetched the card: its signing key must be
	// allowed for that origin too, as in cardscan fetch.
	from := query.Get("from")
	if _, err := cardsig.Origin(from); from != "" && err != nil {
		writeProblem(w, http.StatusBadRequest, "?from="+strconv.Quote(from)+": want the absolute URL the card was fetched from")
		return
	}
	enc := mediatype.ContentEncoding(r.Header)
	coding := mediatype.ParseEncoding(enc)
	if coding == mediatype.Unsupported {
		w.Header().Set("Accept-Encoding", mediatype.AcceptEncoding)
		writeProblem(w, http.StatusUnsupportedMediaType, mediatype.UnsupportedEncoding(enc))
		return
	}
	// The JSON family is judged as a card, as by cardhttp's middleware.
	header, single := mediatype.ContentType(r.Header)
	if !single {
		writeProblem(w, http.StatusBadRequest, "the request has more than one Content-Type line; send one (RFC 9110, section 8.3)")
		return
	}
	t, ok := mediatype.Parse(header)
	switch {
	case ok && mediatype.IsJSON(t):
		s.single(w, r, pool, coding, from)
	case ok && t == ndjsonType:
		s.stream(w, r, pool, profile, coding, from)
	default:
		w.Header().Set("Accept-Post", acceptPost)
		writeProblem(w, http.StatusUnsupportedMediaType, "Content-Type must be one of "+acceptPost)
	}
}

func (s *server) getScratch() *scratch { return s.scratch.Get().(*scratch) }

func (s *server) putScratch(sc *scratch) {
	if sc.lines != nil {
		sc.lines.Reset(nil)
		if sc.lines.LongLineCap() > maxPooledScratch {
			return
		}
	}
	sc.head.reset(nil)
	if cap(sc.out) > maxPooledScratch {
		return
	}
	sc.out = sc.out[:0]
	s.scratch.Put(sc)
}

var (
	errTooLarge = errors.New("body too large")
	errBusy     = errors.New("bytes in flight at the limit")
)

// busy answers 503 with Retry-After, then reads what is left of the body
// (read bytes of it were consumed) so that the client can read the answer.
func (s *server) busy(w http.ResponseWriter, r *http.Request, read int64, detail string) {
	h := w.Header()
	h.Set("Retry-After", retryAfterValue)
	h.Set("Connection", "close")
	writeProblem(w, http.StatusServiceUnavailable, detail+"; retry after "+retryAfterValue+" s")
	linger.Drain(w, r, read, s.cfg.lingerBytes, s.cfg.lingerTimeout)
}

// bodyChunkSize is the unit single-card bodies are read in. A body grows
// by whole chunks taken from bodyChunks, each counted against the bytes
// budget when taken, so that a stalled upload holds what it was sent
// rounded up to a chunk, and growing leaves no garbage behind: a buffer
// that doubled as bytes arrived left as many bytes of garbage as it held,
// which the budget did not count and the collector was slow to return.
// Most cards fit in one chunk and are judged in it; a larger body is
// copied once, when complete, into a buffer of exactly its length.
const bodyChunkSize = 64 << 10

type bodyChunk = [bodyChunkSize]byte

var bodyChunks = sync.Pool{New: func() any { return new(bodyChunk) }}

// chunkedBody is a body read into chunks: all full but the last, which
// holds n modulo bodyChunkSize bytes.
type chunkedBody struct {
	chunks []*bodyChunk
	n      int
}

// free gives the chunks back to the pool.
func (b *chunkedBody) free() {
	for i, c := range b.chunks {
		bodyChunks.Put(c)
		b.chunks[i] = nil
	}
	b.chunks, b.n = b.chunks[:0], 0
}

// readBody reads a whole single-card body into b, failing with
// errTooLarge as soon as it passes limit bytes, and with errBusy when res
// cannot cover the next chunk.
func readBody(b *chunkedBody, r io.Reader, limit int64, res *reservation) error {
	for {
		if b.n == len(b.chunks)*bodyChunkSize {
			if !res.cover((len(b.chunks) + 1) * bodyChunkSize) {
				return errBusy
			}
			b.chunks = append(b.chunks, bodyChunks.Get().(*bodyChunk))
		}
		last := b.chunks[len(b.chunks)-1]
		n, err := r.Read(last[b.n%bodyChunkSize:])
		b.n += n
		if int64(b.n) > limit {
			return errTooLarge
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// contiguous returns the body as one slice: the first chunk itself when it
// holds the whole body, else a copy of exactly its length, which res must
// cover as well as the chunks until they are freed.
func (b *chunkedBody) contiguous(res *reservation) ([]byte, bool) {
	switch len(b.chunks) {
	case 0:
		return nil, true
	case 1:
		return b.chunks[0][:b.n], true
	}
	if !res.cover(len(b.chunks)*bodyChunkSize + b.n) {
		return nil, false
	}
	out := make([]byte, 0, b.n)
	for i, c := range b.chunks {
		out = append(out, c[:min(bodyChunkSize, b.n-i*bodyChunkSize)]...)
	}
	return out, true
}

// single answers one verdict object for a one-card body.
// A gzip body is judged decoded; the cap holds for it as sent and as
// decoded.
func (s *server) single(w http.ResponseWriter, r *http.Request, pool *fastvalidate.Pool, coding mediatype.Encoding, from string) {
	if r.ContentLength > s.cfg.maxBytes {
		s.tooLarge(w, r, 0)
		return
	}
	sc := s.getScratch()
	defer s.putScratch(sc)
	res := reservation{b: &s.bytes}
	defer res.release()
	defer sc.chunks.free()
	raw := &cappedReader{r: r.Body, left: s.cfg.maxBytes}
	var body io.Reader = raw
	var err error
	if coding == mediatype.Gzip {
		body, err = mediatype.NewGzipReader(raw)
	}
	if err == nil {
		err = readBody(&sc.chunks, body, s.cfg.maxBytes, &res)
	}
	var whole []byte
	if err == nil {
		var ok bool
		if whole, ok = sc.chunks.contiguous(&res); !ok {
			err = errBusy
		}
	}
	switch {
	case errors.Is(err, errTooLarge):
		s.tooLarge(w, r, raw.read)
		return
	case errors.Is(err, errBusy):
		s.busy(w, r, raw.read, "the server holds its limit of "+strconv.FormatInt(s.cfg.maxInflightBytes, 10)+" bytes of request bodies")
		return
	case coding == mediatype.Gzip && err != nil && (raw.err == nil || raw.err == io.EOF):
		writeProblem(w, http.StatusBadRequest, mediatype.ErrBadGzip.Error())
		return
	case err != nil:
		writeProblem(w, http.StatusBadRequest, "the request body could not be read")
		return
	}
	if err := mediatype.CheckEncoding(whole); err != nil {
		writeProblem(w, http.StatusUnsupportedMediaType, encodingDetail(err))
		return
	}
	// Line and offset locate the card as the CLI does for a .json file:
	// where its first non-blank byte is. White space before it changes no
	// verdict.
	card, line, col, first := report.Start(whole)
	v := pool.Get()
	vd := s.judge(v, sc.sig, card, line, col, first, from)
	sc.out = sc.enc.AppendJSONL(sc.out[:0], &vd)
	pool.Put(v)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(sc.out)))
	h.Set("X-Content-Type-Options", "nosniff")
	w.Write(sc.out)
}

// cappedReader fails with errTooLarge once more than left bytes are read,
// and keeps count and its last error.
type cappedReader struct {
	r    io.Reader
	left int64
	read int64
	err  error
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.left < 0 {
		return 0, errTooLarge
	}
	n, err := c.r.Read(p[:min(int64(len(p)), c.left+1)])
	c.read += int64(n)
	c.left -= int64(n)
	c.err = err
	if c.left < 0 {
		return n, errTooLarge
	}
	return n, err
}

// tooLarge answers 413, then reads what is left of the body (read bytes of
// it were consumed) so that the client can read the answer.
func (s *server) tooLarge(w http.ResponseWriter, r *http.Request, read int64) {
	s.metrics.rejected.Inc()
	rej := cardhttp.Rejection{Status: http.StatusRequestEntityTooLarge, MaxBytes: s.cfg.maxBytes}
	w.Header().Set("Connection", "close")
	rej.WriteProblem(w)
	linger.Drain(w, r, read, s.cfg.lingerBytes, s.cfg.lingerTimeout)
}

// judge validates one card, verifies its signatures when sig is not nil
// (from is where it was fetched, "" if unknown), and counts it. The
// verdict borrows v's result and sig's buffers.
func (s *server) judge(v *fastvalidate.Validator, sig *pipeline.SignatureChecker, card []byte, line, col int, offset int64, from string) report.Verdict {
	res := v.Validate(card)
	vd := report.FromResult(inputName, line, col, offset, card, res)
	if sig != nil {
		out := sig.Check(&vd, card, from)
		s.metrics.observeSignatures(&out)
	}
	s.metrics.observe(&vd)
	return vd
}

// stream answers an NDJSON body with one verdict line per card, in order,
// as the cards arrive: verdicts are written whenever the input runs dry,
// so a client can send a card, read its verdict, and send the next.
func (s *server) stream(w http.ResponseWriter, r *http.Request, pool *fastvalidate.Pool, profile string, coding mediatype.Encoding, from string) {
	rc := http.NewResponseController(w)
	// HTTP/1 otherwise forbids reading the body after writing the
	// response; HTTP/2 is always full duplex and says so by failing.
	_ = rc.EnableFullDuplex()
	w.Header().Set("Content-Type", ndjsonType)
	w.Header().Set("Cache-Control", "no-store")
	// A verdict quotes its card, which a browser sniffing the body could
	// take for HTML; every body the server writes says nosniff.
	w.Header().Set("X-Content-Type-Options", "nosniff")
	sc := s.getScratch()
	defer s.putScratch(sc)
	// The stream's fixed buffers count from the start; a line longer
	// than the read buffer counts as its own buffer grows.
	res := reservation{b: &s.bytes}
	defer res.release()
	fixed := streamReadSize + flushThreshold
	if !res.cover(fixed) {
		s.busy(w, r, 0, "the server holds its limit of "+strconv.FormatInt(s.cfg.maxInflightBytes, 10)+" bytes of request bodies")
		return
	}
	growLine := func(n int) error {
		if !res.cover(fixed + n) {
			return errBusy
		}
		return nil
	}
	// Nothing has been read yet: the client has the read timeout, up to
	// the idle bound, to send the first bytes, as for every later wait.
	rc.SetReadDeadline(time.Now().Add(min(s.cfg.readTimeout, s.cfg.idleTimeout)))
	var body io.Reader = r.Body
	if coding == mediatype.Gzip {
		zr, err := mediatype.NewGzipReader(r.Body)
		if err != nil {
			writeProblem(w, http.StatusBadRequest, err.Error())
			return
		}
		body = zr
	}
	sc.head.reset(body)
	if s.refuseEncoding(w, r, &sc.head, coding) {
		return
	}
	if sc.lines == nil {
		sc.lines = pipeline.NewLineReader(&sc.head, streamReadSize)
	} else {
		sc.lines.Reset(&sc.head)
	}
	v := pool.Get()
	defer pool.Put(v)

	flush := func() bool {
		if len(sc.out) == 0 {
			return true
		}
		rc.SetWriteDeadline(time.Now().Add(s.cfg.writeTimeout))
		_, err := w.Write(sc.out)
		sc.out = sc.out[:0]
		return err == nil && rc.Flush() == nil
	}
	var offset int64
	// Only a card is progress: a client that sends blank lines, or a line
	// a byte at a time, must still finish a card every idleTimeout.
	lastCard := time.Now()
	for lineNo := 1; ; lineNo++ {
		if sc.lines.Buffered() == 0 {
			// About to wait for the client: send what is done, and give
			// the client a fresh read timeout, up to the idle bound.
			if !flush() {
				return
			}
			deadline := time.Now().Add(s.cfg.readTimeout)
			if idle := lastCard.Add(s.cfg.idleTimeout); idle.Before(deadline) {
				deadline = idle
			}
			rc.SetReadDeadline(deadline)
		}
		rec, n, over, err := sc.lines.Next(s.cfg.maxBytes, growLine)
		if errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, errBusy) {
			// The verdicts so far are sent; ending without the last
			// chunk tells the client the stream was cut, not done.
			flush()
			panic(http.ErrAbortHandler)
		}
		if n == 0 && err != nil {
			if err == io.EOF {
				flush()
			}
			return
		}
		start := offset
		offset += n
		switch {
		case over:
			vd := report.TooLarge(inputName, lineNo, 1, start, s.cfg.maxBytes)
			if profile != "auto" {
				vd.Profile = profile
			}
			s.metrics.observe(&vd)
			sc.out = sc.enc.AppendJSONL(sc.out, &vd)
		case !pipeline.BlankRecord(rec):
			vd := s.judge(v, sc.sig, rec, lineNo, 1, start, from)
			sc.out = sc.enc.AppendJSONL(sc.out, &vd)
			lastCard = time.Now()
		}
		if err != nil {
			// The last line had no newline; a read error other than EOF
			// leaves the stream cut short, and its verdicts so far stand.
			if err == io.EOF {
				flush()
			}
			return
		}
		if len(sc.out) >= flushThreshold && !flush() {
			return
		}
	}
}

// refuseEncoding reads a stream's first bytes and, when they are UTF-16
// or UTF-32, answers the stream with one 415 and reports true. Nothing is
// written before: the refusal is the whole response. The rest of the body
// is discarded, as after a 413, so that the client can read it.
func (s *server) refuseEncoding(w http.ResponseWriter, r *http.Request, head *headReader, coding mediatype.Encoding) bool {
	err := mediatype.CheckEncoding(head.fill())
	if err == nil {
		return false
	}
	w.Header().Set("Connection", "close")
	writeProblem(w, http.StatusUnsupportedMediaType, encodingDetail(err))
	// A gzip body's bytes read so far are not counted; none counts as
	// fewer, which only drains less.
	read := int64(0)
	if coding != mediatype.Gzip {
		read = int64(len(head.buf()))
	}
	linger.Drain(w, r, read, s.cfg.lingerBytes, s.cfg.lingerTimeout)
	return true
}

// encodingDetail is the problem detail for a body in UTF-16 or UTF-32,
// err from mediatype.CheckEncoding.
func encodingDetail(err error) string {
	var enc *mediatype.EncodingError
	if !errors.As(err, &enc) {
		return err.Error()
	}
	return mediatype.EncodingDetail(enc)
}

// headReader reads a body's first bytes, as many as tell whether it is
// UTF-16 or UTF-32 (mediatype.EncodingKnown: at most 4, fewer for a text
// that shows it is neither sooner, so that a client that sends "{}\n" and
// waits gets its verdict), then reads the body from its start: those bytes
// again, then the rest.
type headReader struct {
	r      io.Reader
	head   [4]byte
	n, off int
	// err ended the read of the first bytes; the reads after them meet
	// it, as they would have without headReader.
	err error
}

func (h *headReader) reset(r io.Reader) { *h = headReader{r: r} }

// fill reads the first bytes, until they tell or the body ends or fails,
// and returns them.
func (h *headReader) fill() []byte {
	for h.err == nil && !mediatype.EncodingKnown(h.head[:h.n]) {
		var n int
		n, h.err = h.r.Read(h.head[h.n:])
		h.n += n
	}
	return h.buf()
}

func (h *headReader) buf() []byte { return h.head[:h.n] }

func (h *headReader) Read(p []byte) (int, error) {
	if h.off < h.n {
		n := copy(p, h.head[h.off:h.n])
		h.off += n
		return n, nil
	}
	if h.err != nil {
		return 0, h.err
	}
	return h.r.Read(p)
}
