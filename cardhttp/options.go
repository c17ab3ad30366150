package cardhttp

import (
	"net/http"
	"strings"

	"github.com/cardscan/cardscan/fastvalidate"
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

// Option configures Middleware and ModifyResponse.
type Option func(*config)

type config struct {
	profile      string
	validation   []fastvalidate.Option
	methods      []string
	paths        []string
	contentTypes []string
	maxBytes     int64
	reject       func(http.ResponseWriter, *http.Request, *Rejection)
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
// by default). Requests with other methods pass through unchecked.
func WithMethods(methods ...string) Option {
	return func(c *config) { c.methods = methods }
}

// WithPaths sets the URL paths checked. A pattern ending in "/" matches every
// path below it, as in http.ServeMux; any other pattern matches exactly.
// Middleware checks every path by default; ModifyResponse checks the
// well-known card paths.
func WithPaths(patterns ...string) Option {
	return func(c *config) { c.paths = patterns }
}

// WithContentTypes sets the request media types Middleware checks
// (application/agentcard+json and application/json by default); parameters
// such as charset are ignored. Requests of other types pass through
// unchecked. ModifyResponse judges whatever an upstream serves at a card
// path, whatever its type.
func WithContentTypes(types ...string) Option {
	return func(c *config) { c.contentTypes = types }
}

// WithMaxBytes sets the largest card body accepted (DefaultMaxBytes by
// default).
func WithMaxBytes(n int64) Option { return func(c *config) { c.maxBytes = max(n, 0) } }

// WithRejectFunc replaces Middleware's problem responses. fn must write the
// whole response; the Rejection is valid only until fn returns. It can
// call rej.WriteProblem to fall back to the default.
func WithRejectFunc(fn func(w http.ResponseWriter, r *http.Request, rej *Rejection)) Option {
	return func(c *config) { c.reject = fn }
}

func newConfig(defaultPaths []string, opts []Option) (*config, *fastvalidate.Pool, error) {
	c := &config{
		methods:      []string{http.MethodPost, http.MethodPut, http.MethodPatch},
		paths:        defaultPaths,
		contentTypes: []string{MediaType, "application/json"},
		maxBytes:     DefaultMaxBytes,
	}
	for _, o := range opts {
		o(c)
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
		if m == method {
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

// contentTypeMatches compares the media type without parsing parameters:
// mime.ParseMediaType allocates, and only the type decides.
func (c *config) contentTypeMatches(header string) bool {
	if i := strings.IndexByte(header, ';'); i >= 0 {
		header = header[:i]
	}
	header = strings.TrimSpace(header)
	for _, t := range c.contentTypes {
		if strings.EqualFold(t, header) {
			return true
		}
	}
	return false
}
