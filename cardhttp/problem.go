package cardhttp

import (
	"net/http"
	"strconv"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/report"
)

// ProblemMediaType is the media type of RFC 9457 problem details.
const ProblemMediaType = "application/problem+json"

// Rejection describes a request Middleware turns away, or an upstream card
// ModifyResponse replaces.
type Rejection struct {
	// Status is the response status: 422 for an invalid card, 413 for a
	// body over the cap, 415 for a body of another media type, of a
	// content encoding other than gzip or in UTF-16 or UTF-32 text, 400 for a body that could not be
	// read or decoded or a request framed two ways or typed twice
	// (Content-Length with Transfer-Encoding, two Content-Type lines),
	// and 502 for an upstream card ModifyResponse replaces.
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
	// MaxBytes is the cap a 413 rejection exceeded: the middleware's, or
	// the server's when an http.MaxBytesReader stopped the read first.
	MaxBytes int64
	// Err says why the body could not be read, for 400 and some 502s, or
	// why a card that passed its profile failed the WithSignatures check
	// (with 422 or 502).
	Err error

	// card is the body Result judged, in which its findings are located,
	// or the card that failed the WithSignatures check.
	card []byte
	// signature lists why the card failed the WithSignatures check, as
	// Result lists a profile's findings.
	signature []fastvalidate.Finding
}

// WriteProblem writes the rejection as an RFC 9457 problem response, with
// X-Content-Type-Options: nosniff: its detail and findings quote the card,
// which a browser sniffing the body could take for HTML. It
// leaves the connection to the caller: after a 413 whose body was left
// unread, an HTTP/1 server must also send Connection: close, which
// Middleware does, and an HTTP/2 one must not, as it would end every
// other stream on the connection.
func (rej *Rejection) WriteProblem(w http.ResponseWriter) {
	body := rej.AppendProblem(nil)
	h := w.Header()
	h.Set("Content-Type", ProblemMediaType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(rej.Status)
	w.Write(body)
}

// AppendProblem appends the rejection as an RFC 9457 problem details
// object. An invalid card's findings are listed in the extension members
// "errors" and "warnings", each as {"rule", "path", "message", "line",
// "column"}, with the finding's line and column in the body: the same
// members, in the same bytes, as cardscan's JSON Lines records. So are
// the a2a.signature-* errors of a card that failed the WithSignatures or
// WithTrust check (see WithSignatures).
func (rej *Rejection) AppendProblem(dst []byte) []byte {
	dst = append(dst, `{"type":"about:blank","title":`...)
	dst = report.AppendJSONString(dst, statusTitle(rej.Status))
	dst = append(dst, `,"status":`...)
	dst = strconv.AppendInt(dst, int64(rej.Status), 10)
	dst = append(dst, `,"detail":`...)
	dst = report.AppendJSONString(dst, string(rej.appendDetail(nil)))
	if res := rej.Result; res != nil {
		dst = append(dst, `,"profile":`...)
		dst = report.AppendJSONString(dst, rej.profile())
		dst = append(dst, ',')
		var enc report.Encoder
		vd := report.Verdict{Line: 1, Column: 1, Card: rej.card, Findings: res.Findings()}
		dst = enc.AppendFindingArrays(dst, &vd)
	} else if rej.signature != nil {
		if p := rej.profile(); p != "" {
			dst = append(dst, `,"profile":`...)
			dst = report.AppendJSONString(dst, p)
		}
		dst = append(dst, ',')
		var enc report.Encoder
		vd := report.Verdict{Line: 1, Column: 1, Card: rej.card, Findings: rej.signature}
		dst = enc.AppendFindingArrays(dst, &vd)
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
	return append(dst, statusTitle(rej.Status)...)
}

// statusTitle is the name RFC 9110, section 15, gives status, the title of
// its problem responses. It is http.StatusText but for the two statuses
// RFC 9110 renamed from RFC 7231's names, which net/http still returns (as
// of Go 1.26): 413 is "Content Too Large", not "Request Entity Too
// Large", and 422 "Unprocessable Content", not "Unprocessable Entity".
func statusTitle(status int) string {
	switch status {
	case http.StatusRequestEntityTooLarge:
		return "Content Too Large"
	case http.StatusUnprocessableEntity:
		return "Unprocessable Content"
	}
	return http.StatusText(status)
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
