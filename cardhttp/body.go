package cardhttp

import (
	"errors"
	"io"
	"math"
	"net/http"
	"sync"

	"github.com/cardscan/cardscan/fastvalidate"
)

// state is one request's scratch: the buffered card and, while a rejection
// is being written, the validator holding its findings. States are pooled
// so that reading and judging a card allocates nothing once warm.
type state struct {
	buf   []byte
	plain []byte // a gzip-encoded upstream card, decoded for judging
	v     *fastvalidate.Validator
	rej   Rejection
}

// maxPooledBuffer keeps a rare huge card from pinning its buffer in the
// pool for every later small one.
const maxPooledBuffer = 256 << 10

var states = sync.Pool{New: func() any { return new(state) }}

func getState() *state { return states.Get().(*state) }

func putState(st *state) {
	if cap(st.buf) > maxPooledBuffer {
		st.buf = nil
	}
	if cap(st.plain) > maxPooledBuffer {
		st.plain = nil
	}
	st.buf, st.plain = st.buf[:0], st.plain[:0]
	st.v = nil
	st.rej = Rejection{}
	states.Put(st)
}

// errTooLarge reports a body over the cap.
var errTooLarge = errors.New("cardhttp: body exceeds the size limit")

// readCapped appends r's content to dst, stopping after maxBytes+1 bytes so
// that an oversized body is never read whole. The buffer grows as bytes
// arrive, not to the declared length at once: a Content-Length is a
// promise the client need not keep, and allocating it up front let
// connections that send only headers hold the cap each. It doubles, and
// goes straight to where the body must end (the declared length, or the
// cap and the byte that shows a body over it) once a doubling would pass
// half of that: a body never holds more than that end, nor more than four
// times what it sent, and the buffers allocated on the way add up to less
// than twice the end (doubling to a power of two just under it, then
// copying into the end, took three times).
// A declared length says only where the body ends; a body that ends
// sooner is an error.
func readCapped(dst []byte, r io.Reader, declared, maxBytes int64) ([]byte, error) {
	// A cap past what a slice can hold is no cap; clamping it keeps the
	// limits below from overflowing.
	maxBytes = min(maxBytes, int64(math.MaxInt-1-len(dst)))
	if declared > maxBytes {
		return dst, errTooLarge
	}
	limit := len(dst) + int(maxBytes) + 1
	if declared >= 0 {
		limit = len(dst) + int(declared)
	}
	for len(dst) < limit {
		if len(dst) == cap(dst) {
			dst = grow(dst, min(max(512, cap(dst)), limit-len(dst)), limit)
		}
		n, err := r.Read(dst[len(dst):min(cap(dst), limit)])
		dst = dst[:len(dst)+n]
		if err == io.EOF {
			if declared >= 0 && len(dst) < limit {
				return dst, io.ErrUnexpectedEOF
			}
			return dst, nil
		}
		if err != nil {
			return dst, err
		}
	}
	if declared < 0 {
		return dst, errTooLarge
	}
	return dst, nil
}

// grow makes room for n more bytes, like slices.Grow but doubling so a
// stream of small reads costs few copies, and to ceiling at once when a
// doubling would pass half of it.
func grow(b []byte, n, ceiling int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	next := 2 * cap(b)
	if next > ceiling/2 {
		next = ceiling
	}
	nb := make([]byte, len(b), max(next, len(b)+n))
	copy(nb, b)
	return nb
}

// cardBody serves a buffered card to the next handler. It gives the buffer
// back to the pool when closed or when the handler returns, whichever comes
// first; the lock keeps a reader that outlives the handler (a transport
// still sending the body upstream) from reading a buffer already reused.
type cardBody struct {
	mu  sync.Mutex
	st  *state
	off int
}

func (b *cardBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.st == nil {
		return 0, http.ErrBodyReadAfterClose
	}
	if b.off >= len(b.st.buf) {
		return 0, io.EOF
	}
	n := copy(p, b.st.buf[b.off:])
	b.off += n
	return n, nil
}

func (b *cardBody) Close() error {
	b.release()
	return nil
}

func (b *cardBody) release() {
	b.mu.Lock()
	if b.st != nil {
		putState(b.st)
		b.st = nil
	}
	b.mu.Unlock()
}
