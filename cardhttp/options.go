package cardhttp

import (
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/linger"
	"github.com/cardscan/cardscan/internal/mediatype"
)

// DefaultMaxBytes caps a card body unless WithMaxBytes says otherwise. Real
// cards are a few kilobytes; the cap bounds what one request can make a
// server buffer.
const DefaultMaxBytes = 2 << 20

// MediaType is the media type the AgentCard draft registers for cards.
const MediaType = "application/agentcard+json"

// wellKnownPaths are where the specs publish cards: the AgentCard draft,
// A2A from 0.3 on, and A2A before 0.3.
var wellKnownPaths = []string{"/.well-known/agentcard", "/.well-known/agent-card.json", "/.well-known/agent.json"}

// Option configures Middleware and ModifyResponse; a nil Option is
// skipped. Options copy the slices they are given, which the middleware
// reads on every request.
type Option func(*config)

type config struct {
	profile      string
	validation   []fastvalidate.Option
	methods      []string
	paths        []string
	contentTypes []string
	passOthers   bool
	maxBytes     int64
	drainBytes   int64
	drainTimeout time.Duration
	reject       func(http.ResponseWriter, *http.Request, *Rejection)
	signatures   func(card []byte) error
	trust        func(card []byte, fetchedFrom string) error
}

// WithProfile sets the profile cards are judged by (see
// fastvalidate.Profiles).
func WithProfile(name string) Option { return func(c *config) { c.profile = name } }

// WithValidatorOptions passes options to the validators that judge cards,
// such as fastvalidate.WithPolicy(fastvalidate.PolicyProduction) or
// fastvalidate.WithMaxDepth(64). Options given in several calls add up.
func WithValidatorOptions(opts ...fastvalidate.Option) Option {
	return func(c *config) { c.validation = append(c.validation, opts...) }
}

// WithMethods sets the request methods Middleware checks (POST, PUT and PATCH
// by default, and when methods is empty), in any letter case: methods are
// case-sensitive, but a handler or router that is not would otherwise see
// "post" unchecked. Requests with other methods pass through unchecked.
// An empty list keeps the default rather than checking nothing: a list
// from configuration that came empty must not switch the checks off.
func WithMethods(methods ...string) Option {
	methods = slices.Clone(methods)
	if len(methods) == 0 {
		methods = defaultMethods
	}
	return func(c *config) { c.methods = methods }
}

var defaultMethods = []string{http.MethodPost, http.MethodPut, http.MethodPatch}

// WithPaths sets the URL paths checked. A pattern ending in "/" matches every
// path below it, as in http.ServeMux; any other pattern matches exactly.
// Middleware checks every path by default; ModifyResponse checks the
// well-known card paths. No patterns at all, nil or empty, means every
// path, for both.
//
// Patterns are compared with the request's URL.Path as it is, byte for
// byte. A router that folds letter case or trailing slashes routes paths
// that a pattern does not match: wrap the handler the router chose rather
// than the router, or list every spelling the router accepts.
func WithPaths(patterns ...string) Option {
	// nil, not "/": it matches paths that do not start with a slash too,
	// such as the empty path of a request to "http://host".
	patterns = slices.Clone(patterns)
	if len(patterns) == 0 {
		patterns = nil
	}
	return func(c *config) { c.paths = patterns }
}

// WithContentTypes sets the request media types Middleware checks besides
// the JSON family (application/json, text/json and every "+json" type,
// application/agentcard+json among them), which is always checked;
// parameters such as charset are ignored. ModifyResponse ignores it (see
// ModifyResponse).
func WithContentTypes(types ...string) Option {
	return func(c *config) { c.contentTypes = slices.Clone(types) }
}

// WithRejectOtherTypes sets what Middleware does with a request on a
// checked method and path whose body is of another media type, or of no
// declared or a malformed one: answer 415 Unsupported Media Type (true,
// the default) or pass it on unchecked (false). The default is to refuse
// because a guard that passes what it cannot judge is a guard with a
// door: most handlers decode a body as JSON whatever its Content-Type,
// and curl's default type for --data is a form. Pass others only when the
// middleware covers paths that also take non-card bodies, and better,
// narrow it with WithPaths. A request with neither a body nor a
// Content-Type passes either way: there is nothing to judge.
func WithRejectOtherTypes(reject bool) Option {
	return func(c *config) { c.passOthers = !reject }
}

// WithMaxBytes sets the largest card body accepted (DefaultMaxBytes by
// default); a negative n counts as 0, which turns away every body that
// is not empty as too large. The cap holds for a gzip body both as sent and as decoded.
func WithMaxBytes(n int64) Option { return func(c *config) { c.maxBytes = max(n, 0) } }

// WithRejectFunc replaces Middleware's problem responses. fn must write the
// whole response; the Rejection is valid only until fn returns. It can
// call rej.WriteProblem to fall back to the default.
func WithRejectFunc(fn func(w http.ResponseWriter, r *http.Request, rej *Rejection)) Option {
	return func(c *config) { c.reject = fn }
}

// WithSignatures requires a card on the checked paths, once it has passed
// its profile, to pass check: usually the Check method of a
// cardsig.Verifier, which asks for at least one signature a trusted key
// verifies. A card check refuses is turned away with 422 by Middleware and
// replaced by a 502 problem by ModifyResponse, the error's text as the
// problem's detail and its "errors" entries (rule, path, message, line,
// column) those the error places in the card through a method
// Findings(card []byte) []fastvalidate.Finding, as cardsig's
// UnverifiedError does, the scan's a2a.signature-* findings: each
// signature that did not verify, and a2a.signature-missing at the
// signatures member or the card. An error without that method gives one
// a2a.signature-missing entry at the card, saying the error. Taking a
// func keeps cardsig and its dependencies out of this package's;
// cardsig's verification costs what the signature's crypto costs.
func WithSignatures(check func(card []byte) error) Option {
	return func(c *config) { c.signatures = check }
}

// WithTrust is WithSignatures for a verifier that binds keys to origins:
// check is told, besides the card, the URL it was fetched from, which
// ModifyResponse knows (the upstream request's URL) and Middleware does
// not (""). Usually it is a cardsig.Verifier made WithTrust:
//
//	cardhttp.WithTrust(func(card []byte, from string) error {
//		res, err := verifier.VerifyFrom(card, from)
//		...
//	})
//
// or cardsig.Verifier.CheckFrom. It replaces WithSignatures when both are given.
func WithTrust(check func(card []byte, fetchedFrom string) error) Option {
	return func(c *config) { c.trust = check }
}

func newConfig(defaultPaths []string, opts []Option) (*config, *fastvalidate.Pool, error) {
	c := &config{
		methods:      defaultMethods,
		paths:        defaultPaths,
		contentTypes: nil,
		maxBytes:     DefaultMaxBytes,
		drainBytes:   linger.DefaultMaxBytes,
		drainTimeout: linger.DefaultTimeout,
	}
	for _, o := range opts {
		if o != nil {
			o(c)
		}
	}
	if c.profile == "" {
		c.profile = "auto"
	}
	pool, err := fastvalidate.NewPool(c.profile, c.validation...)
	if err != nil {
		return nil, nil, err
	}
	return c, pool, nil
}

func (c *config) methodMatches(method string) bool {
	for _, m := range c.methods {
		if strings.EqualFold(m, method) {
			return true
		}
	}
	return false
}

func (c *config) pathMatches(path string) bool {
	if c.paths == nil {
		return true
	}
	for _, p := range c.paths {
		if p == path || strings.HasSuffix(p, "/") && strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// judgesType reports whether a parsed media type is one Middleware checks.
func (c *config) judgesType(t string) bool {
	if mediatype.IsJSON(t) {
		return true
	}
	for _, ct := range c.contentTypes {
		if strings.EqualFold(ct, t) {
			return true
		}
	}
	return false
}

// judgedBy is the profile a rejection names for res: the one the result
// names, else the one configured, unless that is "auto", which is a way
// of choosing, not a rule set, and so is never named.
func (c *config) judgedBy(res *fastvalidate.Result) string {
	if res.Profile != "" {
		return res.Profile
	}
	if c.profile == "auto" {
		return ""
	}
	return c.profile
}
