// Package mediatype holds the request rules that cardhttp's middleware and
// cardscan serve share, so that both judge the same bodies and word the
// same refusals: which Content-Types are JSON, and which Content-Encodings
// can be read.
package mediatype

import (
	"compress/gzip"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// Parse returns the type/subtype of a Content-Type header, lowercased and
// without parameters, and whether the header is one well-formed media
// type. A list such as "application/json, text/plain" is not: a
// Content-Type names one type, and guessing which one a client meant is
// how unjudged bodies slip through. It allocates only for a header with
// upper-case letters: mime.ParseMediaType allocates every time.
func Parse(header string) (string, bool) {
	if i := strings.IndexByte(header, ';'); i >= 0 {
		header = header[:i]
	}
	t := strings.ToLower(strings.TrimSpace(header))
	slash := strings.IndexByte(t, '/')
	if slash <= 0 || slash == len(t)-1 {
		return t, false
	}
	for i := 0; i < len(t); i++ {
		if i != slash && !isTokenChar(t[i]) {
			return t, false
		}
	}
	return t, true
}

// ContentType returns a request's Content-Type and whether it came as at
// most one line. Content-Type names one type (RFC 9110, section 8.3); of
// two lines net/http's Header.Get reads the first, where a proxy or a
// handler may read the last, so a request with two is judged by neither.
func ContentType(h http.Header) (string, bool) {
	switch v := h["Content-Type"]; len(v) {
	case 0:
		return "", true
	case 1:
		return v[0], true
	}
	return "", false
}

// ContentEncoding returns a request's Content-Encoding with its lines read
// as one list (RFC 9110, sections 5.3 and 8.4): lines "identity" and
// "gzip" are the codings "identity, gzip", which ParseEncoding refuses as
// it refuses any two, rather than the first line alone.
func ContentEncoding(h http.Header) string {
	switch v := h["Content-Encoding"]; len(v) {
	case 0:
		return ""
	case 1:
		return v[0]
	default:
		return strings.Join(v, ", ")
	}
}

// isTokenChar reports whether c may appear in an RFC 9110 token.
func isTokenChar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// IsJSON reports whether a parsed media type is JSON: application/json,
// the older text/json, or any structured "+json" type (RFC 6839), such as
// application/agentcard+json or application/vnd.api+json.
func IsJSON(t string) bool {
	return t == "application/json" || t == "text/json" || strings.HasSuffix(t, "+json")
}

// Encoding is how a request body is encoded.
type Encoding int

const (
	Identity Encoding = iota
	Gzip
	Unsupported
)

// ParseEncoding reads a Content-Encoding header. Only identity and gzip
// are read: a body that cannot be decoded cannot be judged.
func ParseEncoding(header string) Encoding {
	switch strings.ToLower(strings.TrimSpace(header)) {
	case "", "identity":
		return Identity
	case "gzip", "x-gzip":
		return Gzip
	}
	return Unsupported
}

// AcceptEncoding is the Accept-Encoding sent with a 415 for an encoding
// that cannot be read (RFC 9110, section 12.5.3).
const AcceptEncoding = "gzip, identity"

// UnsupportedEncoding is the detail of that 415.
func UnsupportedEncoding(header string) string {
	return "Content-Encoding " + strconv.Quote(strings.TrimSpace(header)) + " is not supported; send the body gzip-compressed or uncompressed"
}

// ErrBadGzip says a body declared gzip could not be decoded.
var ErrBadGzip = errors.New("the request body is not valid gzip")

// NewGzipReader wraps r in a gzip decoder; a header that is not gzip's is
// ErrBadGzip.
func NewGzipReader(r io.Reader) (io.Reader, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, ErrBadGzip
	}
	return zr, nil
}
