package cardhttp

import (
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/cardscan/cardscan/fastvalidate"
)

// ProblemMediaType is the media type of RFC 9457 problem details.
const ProblemMediaType = "application/problem+json"

// Rejection describes a request Middleware turns away, or an upstream card
// ModifyResponse replaces.
type Rejection struct {
	// Status is the response status: 422 for an invalid card, 413 for a
	// body over the cap, 415 for a body of another media type or of a
	// content encoding other than gzip, 400 for a body that could not be
	// read or decoded, and 502 for an upstream card ModifyResponse
	// replaces.
	Status int
	// Result holds the findings on an invalid card, nil otherwise. It is
	// owned by a pooled validator: valid only until the reject func
	// returns.
	Result *fastvalidate.Result
	// Profile names the profile that judged an invalid card: the
	// Result's, or, when that names none (a body that is not a JSON
	// object), the profile configured unless it is "auto", as in
	// cardscan serve's verdicts. "" when no profile applied.
	Profile string
	// MaxBytes is the cap a 413 rejection exceeded.
	MaxBytes int64
	// Err says why the body could not be read, for 400 and some 502s, or
	// why a card that passed its profile failed the WithSignatures check
	// (with 422 or 502).
	Err error
}

// WriteProblem writes the rejection as an RFC 9457 problem response.
func (rej *Rejection) WriteProblem(w http.ResponseWriter) {
	body := rej.AppendProblem(nil)
	h := w.Header()
	h.Set("Content-Type", ProblemMediaType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Cache-Control", "no-store")
	if rej.Status == http.StatusRequestEntityTooLarge {
		// The unread rest of the body makes the connection unusable.
		h.Set("Connection", "close")
	}
	w.WriteHeader(rej.Status)
	w.Write(body)
}

// AppendProblem appends the rejection as an RFC 9457 problem details
// object. An invalid card's findings are listed in the extension members
// "errors" and "warnings", each as {"rule", "path", "message"}: the same
// shape cardscan's JSON Lines reports use.
func (rej *Rejection) AppendProblem(dst []byte) []byte {
	dst = append(dst, `{"type":"about:blank","title":`...)
	dst = appendJSONString(dst, http.StatusText(rej.Status))
	dst = append(dst, `,"status":`...)
	dst = strconv.AppendInt(dst, int64(rej.Status), 10)
	dst = append(dst, `,"detail":`...)
	dst = appendJSONString(dst, string(rej.appendDetail(nil)))
	if res := rej.Result; res != nil {
		dst = append(dst, `,"profile":`...)
		dst = appendJSONString(dst, rej.profile())
		dst = appendFindings(dst, `,"errors":[`, res, fastvalidate.SeverityError)
		dst = appendFindings(dst, `,"warnings":[`, res, fastvalidate.SeverityWarning)
	}
	return append(dst, '}')
}

func (rej *Rejection) appendDetail(dst []byte) []byte {
	res := rej.Result
	switch {
	case res != nil:
		if rej.Status == http.StatusBadGateway {
			dst = append(dst, "the upstream agent card fails"...)
		} else {
			dst = append(dst, "the agent card fails"...)
		}
		if p := rej.profile(); p != "" {
			dst = append(dst, " profile "...)
			dst = append(dst, p...)
		}
		dst = append(dst, ": "...)
		dst = appendCount(dst, res.Errors(), "error")
		dst = append(dst, ", "...)
		return appendCount(dst, res.Warnings(), "warning")
	case rej.Status == http.StatusRequestEntityTooLarge:
		dst = append(dst, "the body exceeds the limit of "...)
		dst = strconv.AppendInt(dst, rej.MaxBytes, 10)
		return append(dst, " bytes"...)
	case rej.Err != nil:
		return append(dst, rej.Err.Error()...)
	}
	return append(dst, http.StatusText(rej.Status)...)
}

func (rej *Rejection) profile() string {
	if rej.Result != nil && rej.Result.Profile != "" {
		return rej.Result.Profile
	}
	return rej.Profile
}

func appendCount(dst []byte, n int, noun string) []byte {
	dst = strconv.AppendInt(dst, int64(n), 10)
	dst = append(dst, ' ')
	dst = append(dst, noun...)
	if n != 1 {
		dst = append(dst, 's')
	}
	return dst
}

func appendFindings(dst []byte, open string, res *fastvalidate.Result, sev fastvalidate.Severity) []byte {
	dst = append(dst, open...)
	first := true
	for i := range res.Findings() {
		f := &res.Findings()[i]
		if f.Severity != sev {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, `{"rule":`...)
		dst = appendJSONString(dst, f.Rule())
		dst = append(dst, `,"path":`...)
		dst = appendJSONString(dst, f.Path)
		dst = append(dst, `,"message":`...)
		dst = appendJSONString(dst, string(f.AppendMessage(nil)))
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

const hexDigits = "0123456789abcdef"

// appendJSONString quotes s as a JSON string. Bytes that are not UTF-8
// become U+FFFD: a finding can quote a fragment of a broken card, and the
// problem document itself must stay valid JSON.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c < 0x20:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, `\ufffd`...)
		} else {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}
