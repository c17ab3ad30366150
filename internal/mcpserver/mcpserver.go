// Package mcpserver implements `cardscan mcp`: the validator as a Model
// Context Protocol server, so that the programs that write agent cards can
// have them judged exactly as the CLI judges them.
//
// Its tools are
//
//	validate_card      a card (a JSON value, or a string holding its text)
//	                   → the verdict as a `cardscan --format jsonl` record
//	fetch_card         a URL → discovery as `cardscan fetch`, and the record
//	                   of `cardscan fetch --format cards`
//	list_rules         every rule, from fastvalidate's rule table
//	explain_rule       one rule
//	verify_signatures  a card's signatures against the caller's keys or the
//	                   server's (--keys), never the card's
//
// Each returns its result as structured content, whose JSON Schema is
// derived from the Go types in tools.go, and as a short text. A verdict is
// produced by internal/report's encoder, the CLI's own, and passed on as
// those bytes, so that it cannot drift from the CLI's record.
//
// # Limits
//
// A client is not trusted to be reasonable, so every call is bounded:
// MaxMessage bytes for a JSON-RPC message (a larger one gets an invalid
// request error over stdio, where the session goes on, and 413 over
// HTTP), MaxRecord bytes for a card (a larger one gets the
// input.too-large verdict, as in the CLI), Timeout for a call, MaxInflight
// calls at once with as many again waiting for a slot and the rest refused
// at once, so that a flood of calls holds at most 2*MaxInflight messages.
// Over stdio a malformed line is answered with a JSON-RPC error and the
// session goes on (stdio.go).
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cardscan/cardscan/cardsig"
	"github.com/cardscan/cardscan/internal/fetch"
	"github.com/cardscan/cardscan/internal/pipeline"
)

// Defaults of Config's limits.
const (
	// DefaultMaxRecord is the fetch command's: far above any real card.
	DefaultMaxRecord = 2 << 20
	// DefaultMaxMessage leaves room for a card of DefaultMaxRecord sent as
	// a JSON string, whose escapes may double it, and for its arguments.
	DefaultMaxMessage = 8 << 20
	// DefaultTimeout is the fetch command's per-request limit; judging a
	// card of DefaultMaxRecord takes milliseconds.
	DefaultTimeout = 10 * time.Second
	// DefaultMaxInflight keeps a 2-core machine busy with validations and
	// lets fetches, which mostly wait, overlap.
	DefaultMaxInflight = 8
)

// Config configures a server. The zero value of a field is its default.
type Config struct {
	MaxRecord   int64         // largest card judged
	MaxMessage  int64         // largest JSON-RPC message read
	Timeout     time.Duration // time limit of one tool call
	MaxInflight int           // tool calls run at once

	// AllowPrivate lets fetch_card connect to loopback, private,
	// link-local and other non-public addresses. Only the operator can
	// set it: no tool argument does.
	AllowPrivate bool
	// Keys are the keys verify_signatures trusts when a call passes none,
	// and validate_card and fetch_card verify every card's signatures
	// with (--keys);
	// nil for none.
	Keys *cardsig.KeySet
	// Transport replaces fetch_card's HTTP transport, for tests; the
	// private-address guard does not apply to it.
	Transport http.RoundTripper
}

func (c *Config) setDefaults() {
	if c.MaxRecord <= 0 {
		c.MaxRecord = DefaultMaxRecord
	}
	if c.MaxMessage <= 0 {
		c.MaxMessage = DefaultMaxMessage
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.MaxInflight <= 0 {
		c.MaxInflight = DefaultMaxInflight
	}
}

// New returns an MCP server with cardscan's tools. One server may serve any
// number of sessions at once.
func New(cfg Config) *mcp.Server {
	cfg.setDefaults()
	s := mcp.NewServer(&mcp.Implementation{Name: "cardscan", Title: "cardscan agent card validator", Version: version()}, &mcp.ServerOptions{
		Instructions: "Validates agent cards (AgentCard draft, A2A, MA2D) exactly as the cardscan CLI does. " +
			"validate_card judges a card you hold; fetch_card discovers and judges a published one; " +
			"list_rules and explain_rule say what each rule ID in a verdict means; " +
			"verify_signatures checks an A2A card's signatures against keys you trust.",
		// No logging, prompts or resources: tools only.
		Capabilities: &mcp.ServerCapabilities{},
	})
	transport := cfg.Transport
	if transport == nil && !cfg.AllowPrivate {
		transport = guardedTransport(cfg.Timeout)
	}
	t := &tools{cfg: cfg, fetch: fetch.NewClient(cfg.Timeout, cfg.MaxRecord, transport)}
	if cfg.Keys != nil {
		// No jku is followed and no signature required: serve's
		// defaults with --keys alone.
		var v *cardsig.Verifier
		if v, t.signaturesErr = cardsig.NewVerifier(cfg.Keys); t.signaturesErr == nil {
			t.signatures = &pipeline.Signatures{Verifier: v}
		}
	}
	t.register(s)
	s.AddReceivingMiddleware(newLimiter(cfg.MaxInflight, cfg.Timeout).middleware)
	return s
}

// errBusy is the answer to a call that finds every slot taken and the
// waiting line full.
var errBusy = errors.New("server busy: too many tool calls at once; retry later")

// limiter bounds the tool calls that run at once and the time each takes.
type limiter struct {
	run     chan struct{} // a slot per call running
	admit   chan struct{} // a slot per call running or waiting to
	timeout time.Duration
}

func newLimiter(n int, timeout time.Duration) *limiter {
	return &limiter{run: make(chan struct{}, n), admit: make(chan struct{}, 2*n), timeout: timeout}
}

func (l *limiter) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		// A call past the waiting line is refused at once rather than
		// queued: each one waiting holds its message in memory.
		select {
		case l.admit <- struct{}{}:
		default:
			return toolError(errBusy), nil
		}
		defer func() { <-l.admit }()
		ctx, cancel := context.WithTimeout(ctx, l.timeout)
		defer cancel()
		select {
		case l.run <- struct{}{}:
		case <-ctx.Done():
			return toolError(fmt.Errorf("no slot free within %v; retry later", l.timeout)), nil
		}
		defer func() { <-l.run }()
		return next(ctx, method, req)
	}
}

// toolError is a tool's failure as MCP reports it: a result the model
// reads, not a protocol error.
func toolError(err error) *mcp.CallToolResult {
	res := &mcp.CallToolResult{}
	res.SetError(err)
	return res
}

func version() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "devel"
}
