package fetch

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/cmdflag"
)

// maxAnswer bounds the bytes of an answer probe reads: an error object is
// a few hundred bytes, and a page that is not one is judged by its start.
const maxAnswer = 64 << 10

// tlsExpiryWarning is how close to its expiry a certificate is warned of.
const tlsExpiryWarning = 21 * 24 * time.Hour

// Classes of outcome, as the summary counts interfaces.
const (
	classAnswering    = "answering"     // the declared binding answered
	classAuthRequired = "auth_required" // asked for credentials first
	classWrongBinding = "wrong_binding" // another binding, HTML, a 404 page, no binding's shape
	classTLS          = "tls"           // the certificate did not verify
	classUnreachable  = "unreachable"   // no answer: refused, timed out, blocked, redirected away
	classNotProbed    = "not_probed"
)

// outcome is what probing one interface found.
type outcome struct {
	class    string
	answer   string // what answered, in a few words
	status   int    // the HTTP status of the main call, 0 for none
	ttfb     time.Duration
	server   string // the A2A-Version the server answered with, if any
	tls      *tlsInfo
	extended string // what the extended card's endpoint answered, "" when not asked
	findings []fastvalidate.Finding
}

type tlsInfo struct {
	verified bool
	daysLeft int
	notAfter time.Time
}

// add records a finding. Its message goes into records as it is: every
// format's encoder shows hidden characters and controls its own way.
func (o *outcome) add(code fastvalidate.Code, path, msg string) {
	o.findings = append(o.findings, fastvalidate.NewFinding(code, code.Severity(), path, msg))
}

// answer is one HTTP answer, its body read up to maxAnswer.
type answer struct {
	status int
	header http.Header
	body   []byte
	cut    bool // the body went on past maxAnswer
	ttfb   time.Duration
	tls    *tlsInfo
}

// shape is what an answer's body looks like.
type shape int

const (
	shapeNone     shape = iota // empty, or in no binding's shape
	shapeHTML                  // a web page
	shapeJSONRPC               // a JSON-RPC 2.0 response
	shapeREST                  // an HTTP+JSON error (google.rpc.Status, or 0.3's {code, message})
	shapeGRPC                  // a gRPC response over HTTP
	shapeJSON                  // a JSON object of no binding's error shape
	shapeTooLarge              // longer than maxAnswer, not a web page: not judged
)

func (s shape) String() string {
	return [...]string{"a body in no binding's shape", "an HTML page", "JSON-RPC", "HTTP+JSON", "gRPC", "JSON in no binding's shape",
		"a body larger than " + cmdflag.FormatSize(maxAnswer) + ", read no further"}[s]
}

// rpcError is the error member of a JSON-RPC response.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// shaped reads an answer's body as each binding writes its errors.
type shaped struct {
	shape     shape
	rpcErr    *rpcError // JSON-RPC: the error object, nil without one
	rpcResult bool      // JSON-RPC: a result member, null included
	restCode  int       // HTTP+JSON: error.code (1.0) or code (0.3)
	restState string    // HTTP+JSON 1.0: error.status, such as NOT_FOUND
	message   string
}

func shapeOf(a *answer) shaped {
	ct := mediaType(a.header.Get("Content-Type"))
	if strings.HasPrefix(ct, "application/grpc") {
		return shaped{shape: shapeGRPC}
	}
	first := firstByte(a.body)
	if ct == "text/html" || ct == "application/xhtml+xml" || first == '<' {
		return shaped{shape: shapeHTML}
	}
	if a.cut {
		// Its start alone would parse as no JSON at all.
		return shaped{shape: shapeTooLarge}
	}
	if first != '{' {
		return shaped{shape: shapeNone}
	}
	var m struct {
		JSONRPC *string         `json:"jsonrpc"`
		Result  json.RawMessage `json:"result"` // "null" for a null result
		Error   json.RawMessage `json:"error"`
		Code    *int            `json:"code"`
		Message *string         `json:"message"`
	}
	if json.Unmarshal(a.body, &m) != nil {
		return shaped{shape: shapeNone}
	}
	if m.JSONRPC != nil && *m.JSONRPC == "2.0" {
		s := shaped{shape: shapeJSONRPC, rpcResult: m.Result != nil}
		var e rpcError
		if firstByte(m.Error) == '{' && json.Unmarshal(m.Error, &e) == nil {
			s.rpcErr, s.message = &e, e.Message
		}
		return s
	}
	var status struct {
		Code    *int   `json:"code"`
		Status  string `json:"status"`
		Message string `json:"message"`
	}
	if m.Error != nil && json.Unmarshal(m.Error, &status) == nil && (status.Status != "" || status.Code != nil) {
		s := shaped{shape: shapeREST, restState: status.Status, message: status.Message}
		if status.Code != nil {
			s.restCode = *status.Code
		}
		return s
	}
	if m.Code != nil && m.Message != nil {
		return shaped{shape: shapeREST, restCode: *m.Code, message: *m.Message}
	}
	return shaped{shape: shapeJSON}
}

// prober asks interfaces, through the fetcher's client: its address guard,
// per-host limit, timeouts and User-Agent.
type prober struct {
	f *fetcher
	// grpc asks GRPC interfaces; nil leaves them not probed.
	grpc func(ctx context.Context, it *iface, taskID string) outcome
}

// taskID makes a task id no server has: random, and saying where it came
// from to whoever reads the server's logs.
func taskID() string {
	var b [12]byte
	rand.Read(b[:])
	return "cardscan-probe-" + hex.EncodeToString(b[:])
}

// majorMinor is "1.0" of "1.0.1"; "" stays "".
func majorMinor(v string) string {
	v = strings.TrimPrefix(strings.TrimSpace(v), "v")
	parts := strings.SplitN(v, ".", 3)
	if len(parts) >= 2 {
		return parts[0] + "." + parts[1]
	}
	return v
}

// headerVersion is the A2A-Version an interface's requests carry: its
// Major.Minor from 1.0 on, none for 0.x.
func (it *iface) headerVersion() string {
	return versionHeader(it.is1x(), it.version)
}

// versionHeader is the A2A-Version of a request: "" for 0.x, else the
// declared version's MAJOR.MINOR, or 1.0 when it has none. Card text
// goes into a header only when it is MAJOR.MINOR: net/http refuses a
// control character, and would send other text as it is.
func versionHeader(oneX bool, declared string) string {
	if !oneX {
		return ""
	}
	if v := majorMinor(declared); isMajorMinor(v) && !strings.HasPrefix(v, "0.") {
		return v
	}
	return "1.0"
}

// isMajorMinor says whether v is two runs of ASCII digits joined by a dot.
func isMajorMinor(v string) bool {
	major, minor, ok := strings.Cut(v, ".")
	digits := func(s string) bool {
		return s != "" && len(s) <= 9 && strings.Trim(s, "0123456789") == ""
	}
	return ok && digits(major) && digits(minor)
}

// is1x says the interface speaks A2A 1.x: it says so, or says nothing and
// sits in a 1.0 card's supportedInterfaces.
func (it *iface) is1x() bool {
	if it.version == "" {
		return strings.HasPrefix(it.pointer, "/supportedInterfaces/")
	}
	return !strings.HasPrefix(majorMinor(it.version), "0.")
}

// is02 reports whether the interface is a 0.2 card's (or older): one
// that names a 0.2 release, or a 0.x card that names none, since
// protocolVersion is required from 0.3 on.
func (it *iface) is02() bool {
	if it.is1x() {
		return false
	}
	return it.version == "" || strings.HasPrefix(majorMinor(it.version), "0.2") || strings.HasPrefix(majorMinor(it.version), "0.1")
}

// probe asks one interface, and its extended card when the card promises
// one, within --max-time.
func (p *prober) probe(ctx context.Context, it *iface) outcome {
	ctx, cancel := p.f.withinMaxTime(ctx)
	defer cancel()
	var o outcome
	if it.beyond {
		o = outcome{class: classNotProbed, answer: "not probed"}
		o.add(fastvalidate.CodeProbeNotProbed, it.pointer, fmt.Sprintf("the card lists more than %d interfaces; only its first %d are probed", maxProbedInterfaces, maxProbedInterfaces))
		return o
	}
	switch strings.ToUpper(it.binding) {
	case bindingJSONRPC:
		o = p.jsonrpc(ctx, it)
	case bindingREST:
		o = p.rest(ctx, it)
	case bindingGRPC:
		if p.grpc == nil {
			o = outcome{class: classNotProbed, answer: "not probed"}
			o.add(fastvalidate.CodeProbeNotProbed, it.pointer, "gRPC interfaces are not probed")
			return o
		}
		return p.grpc(ctx, it, taskID())
	default:
		o = outcome{class: classNotProbed, answer: "not probed"}
		o.add(fastvalidate.CodeProbeNotProbed, it.pointer, fmt.Sprintf("binding %q is not one cardscan probes (JSONRPC, HTTP+JSON, GRPC)", it.binding))
		return o
	}
	if it.extended && (o.class == classAnswering || o.class == classAuthRequired) {
		p.extendedCard(ctx, it, &o)
	}
	return o
}

// httpURL parses an interface's URL, which must be http or https.
func httpURL(it *iface, o *outcome) (*url.URL, bool) {
	u, err := url.Parse(it.url)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		*o = outcome{class: classNotProbed, answer: "not probed"}
		o.add(fastvalidate.CodeProbeNotProbed, it.pointer, fmt.Sprintf("%q is not an http or https URL", it.shown()))
		return nil, false
	}
	if err := checkPort(u); err != nil {
		*o = outcome{class: classNotProbed, answer: "not probed"}
		o.add(fastvalidate.CodeProbeNotProbed, it.pointer, fmt.Sprintf("%q: %v", it.shown(), err))
		return nil, false
	}
	u.Fragment = ""
	// net/http would send userinfo as an Authorization header: a card's
	// credentials, on calls meant to show what a caller without any gets.
	u.User = nil
	return u, true
}

// rpcMethods are the JSON-RPC methods of GetTask and of the extended card,
// by release.
func rpcMethods(oneX bool) (getTask, extended string) {
	if oneX {
		return "GetTask", "GetExtendedAgentCard"
	}
	return "tasks/get", "agent/getAuthenticatedExtendedCard"
}

// restPaths are the HTTP+JSON paths of GetTask and of the extended card,
// below the interface's URL, by release.
func restPaths(oneX bool, id string) (getTask, extended string) {
	if oneX {
		return "/tasks/" + url.PathEscape(id), "/extendedAgentCard"
	}
	return "/v1/tasks/" + url.PathEscape(id), "/v1/card"
}

func below(u *url.URL, path string) string {
	c := *u
	c.Path = strings.TrimSuffix(c.Path, "/") + path
	c.RawPath = ""
	return c.String()
}

func rpcBody(method, id string) []byte {
	var params string
	if id != "" {
		params = `,"params":{"id":` + strconv.Quote(id) + `}`
	}
	return []byte(`{"jsonrpc":"2.0","id":1,"method":` + strconv.Quote(method) + params + `}`)
}

// jsonrpc asks a JSONRPC interface GetTask (tasks/get in 0.x) for a task
// that does not exist, expecting -32001.
func (p *prober) jsonrpc(ctx context.Context, it *iface) outcome {
	var o outcome
	u, ok := httpURL(it, &o)
	if !ok {
		return o
	}
	oneX := it.is1x()
	id := taskID()
	method, _ := rpcMethods(oneX)
	a, err := p.call(ctx, http.MethodPost, u.String(), rpcBody(method, id), it.headerVersion())
	if err != nil {
		return failed(it, err)
	}
	o.status, o.ttfb, o.tls, o.server = a.status, a.ttfb, a.tls, a.header.Get("A2A-Version")
	p.checkTLS(it, &o)
	s := shapeOf(a)
	switch {
	case a.status == http.StatusUnauthorized || a.status == http.StatusForbidden:
		o.class, o.answer = classAuthRequired, strconv.Itoa(a.status)
		o.add(fastvalidate.CodeProbeAuthRequired, it.pointer, fmt.Sprintf("%s answered %d to %s without credentials", method, a.status, method))
	case s.shape == shapeJSONRPC:
		o.class = classAnswering
		p.judgeRPC(ctx, it, u, method, s, &o)
	case s.shape == shapeREST || s.shape == shapeGRPC:
		o.class, o.answer = classWrongBinding, s.shape.String()
		o.add(fastvalidate.CodeProbeWrongBinding, it.pointer, fmt.Sprintf("declared JSONRPC, answered %s in %s's shape", method, s.shape))
	default:
		// Nothing of JSON-RPC: an HTTP+JSON server would 404 or 405 a
		// POST to its base; its GetTask says whether it is one.
		if rest := p.otherBinding(ctx, u, oneX, id, it, false); rest != shapeNone {
			o.class, o.answer = classWrongBinding, rest.String()
			o.add(fastvalidate.CodeProbeWrongBinding, it.pointer, fmt.Sprintf("declared JSONRPC, but %s answers no JSON-RPC (%d, %s) and GET %s answers in %s's shape", it.shown(), a.status, s.shape, restPathName(oneX), rest))
			return o
		}
		p.noBinding(it, a, s, method, &o)
	}
	p.checkVersion(it, &o)
	return o
}

func restPathName(oneX bool) string {
	p, _ := restPaths(oneX, "{id}")
	return strings.ReplaceAll(p, "%7Bid%7D", "{id}")
}

// judgeRPC judges a JSON-RPC answer to GetTask.
func (p *prober) judgeRPC(ctx context.Context, it *iface, u *url.URL, method string, s shaped, o *outcome) {
	switch {
	case s.rpcErr == nil && !s.rpcResult:
		// An error member that is no error object, or none and no result.
		o.answer = "neither a result nor an error object"
		o.add(fastvalidate.CodeProbeUnexpected, it.pointer, fmt.Sprintf("%s answered JSON-RPC with neither a result nor an error object, not error -32001", method))
	case s.rpcErr == nil:
		o.answer = "a result"
		o.add(fastvalidate.CodeProbeUnexpected, it.pointer, fmt.Sprintf("%s for a task id that cannot exist answered a result, not error -32001", method))
	case s.rpcErr.Code == -32001:
		o.answer = "task not found (-32001)"
	case s.rpcErr.Code == -32009:
		o.answer = "version not supported (-32009)"
		o.add(fastvalidate.CodeProbeVersion, it.pointer, fmt.Sprintf("answered VersionNotSupportedError (-32009) to protocol version %s: %s", declared(it), clip(s.message)))
	case s.rpcErr.Code == -32601:
		// The method of another release? Ask that release's.
		other, _ := rpcMethods(!it.is1x())
		a, err := p.call(ctx, http.MethodPost, u.String(), rpcBody(other, taskID()), versionHeader(!it.is1x(), ""))
		if err == nil {
			if s2 := shapeOf(a); s2.shape == shapeJSONRPC && s2.rpcErr != nil && s2.rpcErr.Code == -32001 {
				o.answer = "task not found (-32001) to " + other
				o.add(fastvalidate.CodeProbeVersion, it.pointer, fmt.Sprintf("declares protocol version %s, but answers %s (-32601, method not found) and %s, another release's method", declared(it), method, other))
				return
			}
		}
		o.answer = "method not found (-32601)"
		o.add(fastvalidate.CodeProbeUnexpected, it.pointer, fmt.Sprintf("answered %s with -32601, method not found, not -32001", method))
	default:
		o.answer = fmt.Sprintf("error %d", s.rpcErr.Code)
		o.add(fastvalidate.CodeProbeUnexpected, it.pointer, fmt.Sprintf("answered %s for a task id that cannot exist with error %d (%s), not -32001", method, s.rpcErr.Code, clip(s.message)))
	}
}

func declared(it *iface) string {
	if it.version == "" {
		if it.is1x() {
			return "1.0 (the card's release)"
		}
		return "0.x (the card's release)"
	}
	return it.version
}

// rest asks an HTTP+JSON interface GET /tasks/{id} (/v1/tasks/{id} in
// 0.3) for a task that does not exist, expecting 404 with an error object.
func (p *prober) rest(ctx context.Context, it *iface) outcome {
	var o outcome
	u, ok := httpURL(it, &o)
	if !ok {
		return o
	}
	oneX := it.is1x()
	id := taskID()
	path, _ := restPaths(oneX, id)
	what := "GET " + restPathName(oneX)
	a, err := p.call(ctx, http.MethodGet, below(u, path), nil, it.headerVersion())
	if err != nil {
		return failed(it, err)
	}
	o.status, o.ttfb, o.tls, o.server = a.status, a.ttfb, a.tls, a.header.Get("A2A-Version")
	p.checkTLS(it, &o)
	s := shapeOf(a)
	switch {
	case a.status == http.StatusUnauthorized || a.status == http.StatusForbidden:
		o.class, o.answer = classAuthRequired, strconv.Itoa(a.status)
		o.add(fastvalidate.CodeProbeAuthRequired, it.pointer, fmt.Sprintf("%s answered %d without credentials", what, a.status))
	case s.shape == shapeREST:
		o.class = classAnswering
		switch {
		case a.status == http.StatusNotFound:
			o.answer = "task not found (404)"
		default:
			o.answer = fmt.Sprintf("error %d", a.status)
			o.add(fastvalidate.CodeProbeUnexpected, it.pointer, fmt.Sprintf("%s for a task id that cannot exist answered %d (%s), not 404", what, a.status, clip(s.message)))
		}
	case s.shape == shapeJSON && a.status == http.StatusOK:
		o.class, o.answer = classAnswering, "a task"
		o.add(fastvalidate.CodeProbeUnexpected, it.pointer, fmt.Sprintf("%s for a task id that cannot exist answered 200 with JSON, not 404", what))
	case s.shape == shapeJSONRPC || s.shape == shapeGRPC:
		o.class, o.answer = classWrongBinding, s.shape.String()
		o.add(fastvalidate.CodeProbeWrongBinding, it.pointer, fmt.Sprintf("declared HTTP+JSON, answered %s in %s's shape", what, s.shape))
	default:
		// The other release's path, then JSON-RPC at the URL itself.
		otherPath, _ := restPaths(!oneX, taskID())
		if a2, err := p.call(ctx, http.MethodGet, below(u, otherPath), nil, versionHeader(!oneX, "")); err == nil && a2.status == http.StatusNotFound && shapeOf(a2).shape == shapeREST {
			o.class, o.answer = classAnswering, "task not found (404) at "+restPathName(!oneX)
			o.add(fastvalidate.CodeProbeVersion, it.pointer, fmt.Sprintf("declares protocol version %s, but %s answers %d and GET %s, another release's path, answers task not found", declared(it), what, a.status, restPathName(!oneX)))
			break
		}
		if other := p.otherBinding(ctx, u, oneX, id, it, true); other != shapeNone {
			o.class, o.answer = classWrongBinding, other.String()
			o.add(fastvalidate.CodeProbeWrongBinding, it.pointer, fmt.Sprintf("declared HTTP+JSON, but %s answers %d (%s) and a JSON-RPC call to %s answers in %s's shape", what, a.status, s.shape, it.shown(), other))
			return o
		}
		p.noBinding(it, a, s, what, &o)
	}
	p.checkVersion(it, &o)
	return o
}

// otherBinding asks the interface's URL in the binding it was not declared
// with (JSON-RPC when toRPC, else HTTP+JSON), and returns the shape it
// answered in when that is the binding asked, else shapeNone.
func (p *prober) otherBinding(ctx context.Context, u *url.URL, oneX bool, id string, it *iface, toRPC bool) shape {
	if toRPC {
		method, _ := rpcMethods(oneX)
		a, err := p.call(ctx, http.MethodPost, u.String(), rpcBody(method, id), it.headerVersion())
		if err == nil && shapeOf(a).shape == shapeJSONRPC {
			return shapeJSONRPC
		}
		return shapeNone
	}
	path, _ := restPaths(oneX, id)
	a, err := p.call(ctx, http.MethodGet, below(u, path), nil, it.headerVersion())
	if err == nil && shapeOf(a).shape == shapeREST {
		return shapeREST
	}
	return shapeNone
}

// noBinding names an answer in no binding's shape.
func (p *prober) noBinding(it *iface, a *answer, s shaped, what string, o *outcome) {
	o.class = classWrongBinding
	switch {
	case a.status == http.StatusNotFound:
		o.answer = "404, " + s.shape.String()
		o.add(fastvalidate.CodeProbeNotFound, it.pointer, fmt.Sprintf("%s answered 404 with %s: nothing serves %s there", what, s.shape, it.binding))
	case s.shape == shapeHTML:
		o.answer = "an HTML page"
		o.add(fastvalidate.CodeProbeHTML, it.pointer, fmt.Sprintf("%s answered %d with an HTML page, not %s", what, a.status, it.binding))
	default:
		o.answer = fmt.Sprintf("%d, %s", a.status, s.shape)
		o.add(fastvalidate.CodeProbeStatus, it.pointer, fmt.Sprintf("%s answered %d with %s", what, a.status, s.shape))
	}
}

// checkTLS warns of a certificate close to its expiry.
func (p *prober) checkTLS(it *iface, o *outcome) {
	if o.tls != nil && o.tls.verified && time.Until(o.tls.notAfter) < tlsExpiryWarning {
		o.add(fastvalidate.CodeProbeTLSExpiring, it.pointer, fmt.Sprintf("the certificate of %s expires in %d days (%s)", hostOf(it.url), o.tls.daysLeft, o.tls.notAfter.UTC().Format(time.DateOnly)))
	}
}

func hostOf(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		return u.Host
	}
	return raw
}

// checkVersion compares the A2A-Version the server answered with to the
// one the interface declares.
func (p *prober) checkVersion(it *iface, o *outcome) {
	if o.server == "" || it.version == "" {
		return
	}
	if majorMinor(o.server) != majorMinor(it.version) {
		o.add(fastvalidate.CodeProbeVersion, it.pointer, fmt.Sprintf("declares protocol version %s, the server answered with A2A-Version %s", it.version, clip(o.server)))
	}
}

// extendedCard asks for the extended card without credentials: a server
// that has one asks for them (401, 403); one that has none says so.
func (p *prober) extendedCard(ctx context.Context, it *iface, o *outcome) {
	var none outcome
	u, ok := httpURL(it, &none)
	if !ok {
		return
	}
	oneX := it.is1x()
	var a *answer
	var err error
	var what string
	switch {
	case strings.EqualFold(it.binding, bindingJSONRPC) && it.is02():
		// 0.2.5 section 7.10: "This is an HTTP GET endpoint, not a
		// JSON-RPC method", at {AgentCard.url}/../agent/authenticatedExtendedCard.
		c := *u
		c.Path = path.Clean(strings.TrimSuffix(c.Path, "/") + "/../agent/authenticatedExtendedCard")
		c.RawPath = ""
		what = "GET " + c.Path
		a, err = p.call(ctx, http.MethodGet, c.String(), nil, it.headerVersion())
	case strings.EqualFold(it.binding, bindingJSONRPC):
		_, method := rpcMethods(oneX)
		what = method
		a, err = p.call(ctx, http.MethodPost, u.String(), rpcBody(method, ""), it.headerVersion())
	default:
		_, rest := restPaths(oneX, "")
		what = "GET " + rest
		a, err = p.call(ctx, http.MethodGet, below(u, rest), nil, it.headerVersion())
	}
	if err != nil {
		o.extended = "no answer"
		return
	}
	s := shapeOf(a)
	switch {
	case a.status == http.StatusUnauthorized || a.status == http.StatusForbidden:
		o.extended = "asks for authentication (" + strconv.Itoa(a.status) + ")"
	case s.shape == shapeJSONRPC && s.rpcErr == nil && s.rpcResult, s.shape == shapeJSON && a.status == http.StatusOK:
		o.extended = "served without authentication"
		o.add(fastvalidate.CodeProbeExtendedCardOpen, it.pointer, fmt.Sprintf("%s served the extended card to a request without credentials", what))
	case s.shape == shapeJSONRPC && s.rpcErr != nil && (s.rpcErr.Code == -32601 || s.rpcErr.Code == -32007 || s.rpcErr.Code == -32004),
		a.status == http.StatusNotFound,
		s.shape == shapeREST && (s.restState == "UNIMPLEMENTED" || s.restState == "FAILED_PRECONDITION"):
		o.extended = "missing"
		detail := strconv.Itoa(a.status)
		if s.rpcErr != nil {
			detail = "error " + strconv.Itoa(s.rpcErr.Code)
		}
		o.add(fastvalidate.CodeProbeExtendedCardMissing, it.pointer, fmt.Sprintf("the card promises an extended card, and %s answered %s (%s)", what, detail, clip(s.message)))
	default:
		o.extended = fmt.Sprintf("answered %d, %s", a.status, s.shape)
	}
}

// call makes one request, trying again after a 429 or 503 as the server
// asks. A request for a version other than "" carries it as A2A-Version
// (0.x requests carry none: 1.0 section 3.6 has servers assume 0.3
// without it).
func (p *prober) call(ctx context.Context, method, target string, body []byte, version string) (*answer, error) {
	for try := 0; ; try++ {
		a, err := p.callOnce(ctx, method, target, body, version)
		if err != nil || (a.status != http.StatusTooManyRequests && a.status != http.StatusServiceUnavailable) || try >= p.f.retries {
			return a, err
		}
		wait, given := retryAfter(a.header.Get("Retry-After"), time.Now())
		if !given {
			wait = p.f.backoff << try
		}
		if wait > p.f.maxRetryWait {
			return a, nil
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			if mt := maxTimeOf(ctx); mt != nil {
				return nil, mt
			}
			return nil, ctx.Err()
		}
	}
}

func (p *prober) callOnce(ctx context.Context, method, target string, body []byte, version string) (*answer, error) {
	var sent, first time.Time
	trace := &httptrace.ClientTrace{
		WroteRequest:         func(httptrace.WroteRequestInfo) { sent = time.Now() },
		GotFirstResponseByte: func() { first = time.Now() },
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), method, target, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", p.f.userAgent)
	req.Header.Set("Accept", "application/json, application/a2a+json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if version != "" {
		req.Header.Set("A2A-Version", version)
	}
	requests := traceRequest(req)
	resp, err := p.f.client.Do(req)
	if mt := maxTimeOf(ctx); err != nil && mt != nil {
		return nil, mt
	}
	if err != nil {
		var re *redirectError
		if !errors.As(err, &re) {
			err = requests.silence(err, p.f.timeout, p.f.connectTimeout)
		}
		return nil, err
	}
	defer resp.Body.Close()
	a := &answer{status: resp.StatusCode, header: resp.Header}
	if !sent.IsZero() && !first.IsZero() {
		a.ttfb = first.Sub(sent)
	}
	if cs := resp.TLS; cs != nil && len(cs.PeerCertificates) > 0 {
		leaf := cs.PeerCertificates[0]
		a.tls = &tlsInfo{verified: true, notAfter: leaf.NotAfter, daysLeft: int(time.Until(leaf.NotAfter).Hours() / 24)}
	}
	a.body, err = io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if len(a.body) > maxAnswer {
		a.body, a.cut = a.body[:maxAnswer], true
	}
	if mt := maxTimeOf(ctx); err != nil && mt != nil {
		return nil, mt
	}
	if err != nil {
		return nil, &bodyError{status: resp.StatusCode, mediaType: mediaType(resp.Header.Get("Content-Type")), timeout: p.f.timeout, err: err}
	}
	return a, nil
}

// bodyError is an answer whose headers came but whose body did not: an
// event stream, a body that trickles or a connection cut. The interface
// was reached, which the error says, with what it answered.
type bodyError struct {
	status    int
	mediaType string
	timeout   time.Duration
	err       error
}

func (e *bodyError) Error() string {
	what := "no Content-Type"
	if e.mediaType != "" {
		what = clip(e.mediaType)
	}
	head := fmt.Sprintf("answered %d (%s), but ", e.status, what)
	if at := classify(e.err); at.rule == fastvalidate.CodeHTTPTimeout {
		return head + fmt.Sprintf("its body did not end within --timeout %v", e.timeout)
	}
	return head + "reading its body failed: " + describe(e.err)
}

func (e *bodyError) Unwrap() error { return e.err }

// failed names a request that got no answer.
func failed(it *iface, err error) outcome {
	o := outcome{class: classUnreachable}
	var mt *maxTimeError
	if errors.As(err, &mt) {
		o.answer = "cut off"
		o.add(fastvalidate.CodeProbeTimeout, it.pointer, hostOf(it.url)+": "+mt.Error()+" before the probe ended")
		return o
	}
	var re *redirectError
	if errors.As(err, &re) {
		o.answer = "redirect refused"
		o.add(fastvalidate.CodeProbeRedirect, it.pointer, re.msg)
		return o
	}
	if msg, ok := certFailure(err); ok {
		o.class, o.answer = classTLS, "certificate not verified"
		o.add(fastvalidate.CodeProbeTLS, it.pointer, fmt.Sprintf("the certificate of %s does not verify: %s", hostOf(it.url), msg))
		o.tls = &tlsInfo{verified: false}
		return o
	}
	at := classify(err)
	o.answer = at.reason
	var be *bodyError
	if errors.As(err, &be) {
		rule := fastvalidate.CodeProbeUnreachable
		if at.rule == fastvalidate.CodeHTTPTimeout {
			rule = fastvalidate.CodeProbeTimeout
		}
		o.answer = fmt.Sprintf("%d, body cut off (%s)", be.status, at.reason)
		o.add(rule, it.pointer, hostOf(it.url)+" "+be.Error())
		return o
	}
	if at.silent {
		rule := fastvalidate.CodeProbeUnreachable
		if at.rule == fastvalidate.CodeHTTPTimeout {
			rule = fastvalidate.CodeProbeTimeout
		}
		o.answer = "no answer"
		o.add(rule, it.pointer, errHost(err, hostOf(it.url))+" "+at.reason)
		return o
	}
	switch at.rule {
	case fastvalidate.CodeHTTPBlockedAddress:
		o.add(fastvalidate.CodeProbeBlockedAddress, it.pointer, at.reason)
	case fastvalidate.CodeHTTPTimeout:
		o.add(fastvalidate.CodeProbeTimeout, it.pointer, "cannot reach "+hostOf(it.url)+": timed out")
	default:
		o.add(fastvalidate.CodeProbeUnreachable, it.pointer, "cannot reach "+hostOf(it.url)+": "+at.reason)
	}
	return o
}

// certFailure says why Go's verifier refused the certificate, when that
// is what err is.
func certFailure(err error) (string, bool) {
	var hn x509.HostnameError
	var ua x509.UnknownAuthorityError
	var ci x509.CertificateInvalidError
	var ve *tls.CertificateVerificationError
	switch {
	case errors.As(err, &hn):
		msg := hn.Error()
		if c := hn.Certificate; c != nil {
			names := slices.Clone(c.DNSNames)
			for _, ip := range c.IPAddresses {
				names = append(names, ip.String())
			}
			if len(names) > 0 {
				msg += " (it is for " + strings.Join(names, ", ") + ")"
			}
		}
		return msg, true
	case errors.As(err, &ua):
		return ua.Error(), true
	case errors.As(err, &ci):
		return ci.Error(), true
	case errors.As(err, &ve):
		return ve.Err.Error(), true
	}
	return "", false
}

// clip shortens what a server said to what a record can carry.
func clip(s string) string {
	const max = 200
	if len(s) > max {
		return s[:max] + "..."
	}
	return s
}
