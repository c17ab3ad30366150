// Package linger reads what is left of a rejected request's body before the
// connection closes, as reverse proxies do.
//
// A server that answers 413 or 503 before reading a whole body and then
// closes the connection leaves the rest of the body unread in its socket;
// closing such a socket sends a reset, and a client still sending (most
// send the whole body before reading: curl below 1 MiB, Python's urllib,
// Go's http.Client) loses the answer with it. Reading and discarding the
// rest, up to a bound in bytes and in time, lets the close be orderly so
// that the client reads the rejection.
package linger

import (
	"io"
	"net/http"
	"strings"
	"time"
)

// Defaults sized for a small server (2 cores, a few GiB): discarding costs
// no memory (io.Discard reuses a shared buffer), only bandwidth and one
// connection held open, so the bound is mostly one of time. 16 MiB covers
// an ordinary client's mistake (a dump posted as one card) several times
// over; 5 s lets it arrive at 30 Mbit/s and is what a stalled client can
// hold a connection for.
const (
	DefaultMaxBytes = 16 << 20
	DefaultTimeout  = 5 * time.Second
)

// Drain sends the response already written to w, then reads and discards
// what is left of r's body, up to maxBytes more bytes and for at most
// timeout. read is how many body bytes the handler consumed. The response
// must carry "Connection: close": the connection is not reused.
//
// Drain does nothing when the rest cannot be read in bounds: a declared
// length more than maxBytes beyond what was read, a client that awaits
// "100 Continue" before sending (it will not get one once a final answer
// is written, and sends nothing), or a writer whose read deadline cannot
// be set.
func Drain(w http.ResponseWriter, r *http.Request, read, maxBytes int64, timeout time.Duration) {
	if r.Body == nil || r.Body == http.NoBody || maxBytes <= 0 || timeout <= 0 {
		return
	}
	if r.ContentLength >= 0 && r.ContentLength-read > maxBytes {
		return
	}
	if read == 0 && strings.EqualFold(r.Header.Get("Expect"), "100-continue") {
		return
	}
	rc := http.NewResponseController(w)
	if rc.Flush() != nil || rc.SetReadDeadline(time.Now().Add(timeout)) != nil {
		return
	}
	io.CopyN(io.Discard, r.Body, maxBytes)
}
