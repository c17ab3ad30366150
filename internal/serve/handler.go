package serve

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cardscan/cardscan/cardhttp"
	"github.com/cardscan/cardscan/fastvalidate"
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

// flushThreshold bounds how many verdict bytes a stream holds before
// writing them even while more input is waiting.
const flushThreshold = 32 << 10

type server struct {
	cfg     config
	pools   map[string]*fastvalidate.Pool // by profile name
	metrics *metrics
	scratch sync.Pool // of *scratch
}

// scratch is one request's reusable buffers.
type scratch struct {
	body []byte
	line []byte
	out  []byte
	br   *bufio.Reader
	enc  report.Encoder
}

// maxPooledScratch keeps one huge card from pinning its buffers in the
// pool.
const maxPooledScratch = 1 << 20

func newHandler(cfg config) (http.Handler, error) {
	s := &server{cfg: cfg, pools: map[string]*fastvalidate.Pool{}}
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
	s.scratch.New = func() any { return &scratch{br: bufio.NewReaderSize(nil, 64<<10)} }
	s.metrics = newMetrics()

	mux := http.NewServeMux()
	mux.Handle("/v1/validate", s.metrics.instrument("/v1/validate", http.HandlerFunc(s.validate)))
	mux.Handle("/healthz", s.metrics.instrument("/healthz", http.HandlerFunc(healthz)))
	mux.Handle("/metrics", s.metrics.instrument("/metrics", promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{})))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeProblem(w, http.StatusNotFound, "no such endpoint: "+r.URL.Path+" (try POST /v1/validate)")
	})
	return mux, nil
}

func healthz(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeProblem(w, http.StatusMethodNotAllowed, "use GET")
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	io.WriteString(w, "ok\n")
}

func writeProblem(w http.ResponseWriter, status int, detail string) {
	rej := cardhttp.Rejection{Status: status, Err: errors.New(detail)}
	rej.WriteProblem(w)
}

func (s *server) validate(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		writeProblem(w, http.StatusMethodNotAllowed, "use POST with a card, or NDJSON of cards, as the body")
		return
	}
	profile := s.cfg.profile
	if r.URL.RawQuery != "" {
		if p := r.URL.Query().Get("profile"); p != "" {
			profile = p
		}
	}
	pool := s.pools[profile]
	if pool == nil {
		writeProblem(w, http.StatusBadRequest, "unknown profile "+strconv.Quote(profile)+"; profiles are "+strings.Join(fastvalidate.Profiles(), ", "))
		return
	}
	if enc := r.Header.Get("Content-Encoding"); enc != "" && !strings.EqualFold(enc, "identity") {
		w.Header().Set("Accept-Encoding", "identity")
		writeProblem(w, http.StatusUnsupportedMediaType, "Content-Encoding "+strconv.Quote(enc)+" is not supported; send the body uncompressed")
		return
	}
	switch mediaType(r.Header.Get("Content-Type")) {
	case cardhttp.MediaType, "application/json":
		s.single(w, r, pool, profile)
	case ndjsonType:
		s.stream(w, r, pool, profile)
	default:
		w.Header().Set("Accept-Post", acceptPost)
		writeProblem(w, http.StatusUnsupportedMediaType, "Content-Type must be one of "+acceptPost)
	}
}

// mediaType returns the lowercased type of a Content-Type header, without
// parameters.
func mediaType(header string) string {
	if i := strings.IndexByte(header, ';'); i >= 0 {
		header = header[:i]
	}
	return strings.ToLower(strings.TrimSpace(header))
}

func (s *server) getScratch() *scratch { return s.scratch.Get().(*scratch) }

func (s *server) putScratch(sc *scratch) {
	sc.br.Reset(nil)
	if cap(sc.body) > maxPooledScratch || cap(sc.line) > maxPooledScratch || cap(sc.out) > maxPooledScratch {
		return
	}
	sc.body, sc.line, sc.out = sc.body[:0], sc.line[:0], sc.out[:0]
	s.scratch.Put(sc)
}

var errTooLarge = errors.New("body too large")

// readBody reads a whole single-card body into dst, failing with
// errTooLarge as soon as it passes limit bytes.
func readBody(dst []byte, r io.Reader, limit int64) ([]byte, error) {
	for {
		if len(dst) == cap(dst) {
			dst = slices.Grow(dst, max(4096, cap(dst)))
		}
		n, err := r.Read(dst[len(dst):cap(dst)])
		dst = dst[:len(dst)+n]
		if int64(len(dst)) > limit {
			return dst, errTooLarge
		}
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return dst, err
		}
	}
}

// single answers one verdict object for a one-card body.
func (s *server) single(w http.ResponseWriter, r *http.Request, pool *fastvalidate.Pool, profile string) {
	if r.ContentLength > s.cfg.maxBytes {
		s.tooLarge(w)
		return
	}
	sc := s.getScratch()
	defer s.putScratch(sc)
	var err error
	sc.body, err = readBody(sc.body[:0], r.Body, s.cfg.maxBytes)
	switch {
	case errors.Is(err, errTooLarge):
		s.tooLarge(w)
		return
	case err != nil:
		writeProblem(w, http.StatusBadRequest, "the request body could not be read")
		return
	}
	// Line and offset locate the card as the CLI does for a .json file:
	// where its first non-blank byte is.
	card := sc.body
	first := 0
	for first < len(card) && isSpace(card[first]) {
		first++
	}
	line := 1 + bytes.Count(card[:first], newline)
	v := pool.Get()
	vd := s.judge(v, card, profile, line, int64(first))
	sc.out = sc.enc.AppendJSONL(sc.out[:0], &vd)
	pool.Put(v)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(sc.out)))
	w.Write(sc.out)
}

func (s *server) tooLarge(w http.ResponseWriter) {
	s.metrics.rejected.Inc()
	rej := cardhttp.Rejection{Status: http.StatusRequestEntityTooLarge, MaxBytes: s.cfg.maxBytes}
	rej.WriteProblem(w)
}

// judge validates one card and counts it. The verdict borrows v's result.
func (s *server) judge(v *fastvalidate.Validator, card []byte, profile string, line int, offset int64) report.Verdict {
	res := v.Validate(card)
	vd := report.FromResult(inputName, line, offset, res)
	if vd.Profile == "" && profile != "auto" {
		vd.Profile = profile
	}
	s.metrics.observe(&vd)
	return vd
}

var newline = []byte{'\n'}

// stream answers an NDJSON body with one verdict line per card, in order,
// as the cards arrive: verdicts are written whenever the input runs dry,
// so a client can send a card, read its verdict, and send the next.
func (s *server) stream(w http.ResponseWriter, r *http.Request, pool *fastvalidate.Pool, profile string) {
	rc := http.NewResponseController(w)
	// HTTP/1 otherwise forbids reading the body after writing the
	// response; HTTP/2 is always full duplex and says so by failing.
	_ = rc.EnableFullDuplex()
	w.Header().Set("Content-Type", ndjsonType)
	w.Header().Set("Cache-Control", "no-store")
	sc := s.getScratch()
	defer s.putScratch(sc)
	sc.br.Reset(r.Body)
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
	for lineNo := 1; ; lineNo++ {
		if sc.br.Buffered() == 0 {
			// About to wait for the client: send what is done, and give
			// the client a fresh read timeout.
			if !flush() {
				return
			}
			rc.SetReadDeadline(time.Now().Add(s.cfg.readTimeout))
		}
		rec, n, over, err := readLine(sc.br, &sc.line, s.cfg.maxBytes)
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
			vd := report.TooLarge(inputName, lineNo, start)
			if profile != "auto" {
				vd.Profile = profile
			}
			s.metrics.observe(&vd)
			sc.out = sc.enc.AppendJSONL(sc.out, &vd)
		case !isBlank(rec):
			vd := s.judge(v, rec, profile, lineNo, start)
			sc.out = sc.enc.AppendJSONL(sc.out, &vd)
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

// readLine reads the next line of br, without its line ending. The slice is
// br's own buffer when the line fits in it, else *buf; either way it is
// valid until the next read. n counts the bytes consumed, ending included.
// A line longer than limit is consumed but not kept: over is set.
func readLine(br *bufio.Reader, buf *[]byte, limit int64) (line []byte, n int64, over bool, err error) {
	frag, err := br.ReadSlice('\n')
	n = int64(len(frag))
	if err != bufio.ErrBufferFull {
		line = frag
	} else {
		*buf = append((*buf)[:0], frag...)
		for err == bufio.ErrBufferFull {
			frag, err = br.ReadSlice('\n')
			n += int64(len(frag))
			if !over && int64(len(*buf)+len(frag)) > limit+1 {
				over = true
				*buf = (*buf)[:0]
			}
			if !over {
				*buf = append(*buf, frag...)
			}
		}
		line = *buf
	}
	if len(line) > 0 && line[len(line)-1] == '\n' {
		line = line[:len(line)-1]
	}
	if int64(len(line)) > limit {
		over = true
	}
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	return line, n, over, err
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\r' || b == '\n' }

// isBlank reports whether a line holds only JSON whitespace; such lines
// carry no card, as in the CLI.
func isBlank(b []byte) bool {
	for _, c := range b {
		if !isSpace(c) {
			return false
		}
	}
	return true
}
