// Package serve implements `cardscan serve`: card validation as an HTTP
// service, for teams that call it over the network.
//
//	POST /v1/validate   one card (application/json, application/agentcard+json,
//	                    text/json or any +json type, plain or gzip)
//	                    answers one verdict object; application/x-ndjson
//	                    answers one verdict line per card, streamed both ways.
//	                    ?profile= picks the profile; ?from=URL names the
//	                    URL the card was fetched from, for --trust.
//	GET  /healthz       200 while the server runs.
//	GET  /metrics       Prometheus text format.
//
// A verdict has exactly the shape of a `cardscan --format jsonl` record. A
// request that is not a card request at all (a wrong content type, an
// oversized body, an unknown profile) gets an RFC 9457 problem response.
//
// # Limits
//
// The server is meant to face clients that are not friendly, so what they
// can hold is bounded, with defaults sized for a 2-core machine with
// 24 GiB of memory:
//
//   - --max-inflight (256) validation requests at once; one more gets 503
//     with Retry-After. Judging a card takes microseconds of CPU, so
//     requests in flight are waiting on their clients, and 256 of them is
//     far more than 2 cores keep busy.
//   - --max-inflight-bytes (256 MiB) of request bodies buffered at once,
//     counted as buffers grow, never from Content-Length; a request that
//     would pass it gets 503 with Retry-After (an NDJSON stream already
//     answering is cut). 256 MiB is 128 cards of the 2 MiB cap, about 1%
//     of the machine's memory. Bodies are read into 64 KiB chunks, so
//     that a stalled upload holds what it sent and growing leaves no
//     garbage; the runtime's memory limit is set to the budget plus
//     32 MiB, so that the process's RSS stays within it plus 64 MiB.
//   - four connections per in-flight request (1024); more wait in the
//     listen backlog until one closes. Each costs some 20-40 KiB, and one
//     stalled inside its header block up to 20 KiB more: headers are
//     limited to 16 KiB (431 past it), which keeps 1024 such connections
//     and a full budget of stalled bodies within the bound above.
//   - --idle-timeout (30 s) for a keep-alive connection between requests,
//     and for an NDJSON stream between cards: blank lines and bytes that
//     never finish a line do not count as progress. A stream cut this way
//     ends without its final chunk, so the client sees an error, not a
//     clean end.
//   - a body turned away with 413 or 503 is read and discarded, up to
//     16 MiB and 5 s (see internal/linger), before the connection closes,
//     so that a client that sends its whole body before reading sees the
//     answer rather than a reset.
package serve

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/cardscan/cardscan/cardhttp"
	"github.com/cardscan/cardscan/cardsig"
	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/cmderr"
	"github.com/cardscan/cardscan/internal/cmdflag"
	"github.com/cardscan/cardscan/internal/console"
	"github.com/cardscan/cardscan/internal/fetch"
	"github.com/cardscan/cardscan/internal/linger"
	"github.com/cardscan/cardscan/internal/pipeline"
	"github.com/cardscan/cardscan/internal/trustfile"
)

// Timeouts bound what a slow or stalled client can hold. A streamed
// request's deadlines are renewed as it makes progress, so that only a
// stall, not a long stream, hits them.
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 60 * time.Second
	writeTimeout      = 60 * time.Second
	// maxHeaderBytes bounds a request's header block (net/http allows
	// 4 KiB more). The bytes budget does not count headers, so what the
	// connection limit's worth of header blocks stalled before their end
	// hold comes on top of it: with 64 KiB, 1024 of them added 56 MiB and
	// took the process past the budget plus 64 MiB. A validation request
	// needs a few hundred bytes of headers; 16 KiB leaves room for
	// tokens and proxies' additions.
	maxHeaderBytes = 16 << 10
)

// Defaults of the limits in the package documentation.
const (
	defaultMaxInflight = 256
	// maxMaxInflight is --max-inflight's bound, mcp's: more requests at
	// once than that only queue for the same two to a few dozen cores,
	// while their connections (connsPerRequest times as many) hold memory.
	maxMaxInflight          = 1024
	defaultMaxInflightBytes = 256 << 20
	defaultIdleTimeout      = 30 * time.Second
	// connsPerRequest caps connections at a multiple of --max-inflight:
	// enough for keep-alive clients between requests, few enough that
	// connections which never send a request hold little.
	connsPerRequest = 4
)

// memoryHeadroom is what the runtime may hold beyond the bytes budget:
// the connections around the bodies (the server's buffers and goroutine
// stacks), the validators' pools and the metrics. With the binary's code
// and data, which the runtime does not manage (some 10 to 25 MiB of RSS),
// it stays within the documented 64 MiB over the budget.
const memoryHeadroom = 32 << 20

// limitMemory sets the Go runtime's memory limit to the bytes budget plus
// memoryHeadroom, so that the documented bound is what the process holds:
// the budget counts bodies as buffers grow, but the collector would let
// the heap grow to twice what is live before collecting (300 stalled
// uploads held 346 MiB of RSS against a 256 MiB budget). Past the limit
// the collector runs more often, not the process out of memory. A lower
// limit the operator set (GOMEMLIMIT) stays.
func limitMemory(budget int64) {
	limit := budget + memoryHeadroom
	if debug.SetMemoryLimit(-1) > limit {
		debug.SetMemoryLimit(limit)
	}
}

type config struct {
	listen          string
	profile         string
	maxBytes        int64
	shutdownTimeout time.Duration
	readTimeout     time.Duration
	writeTimeout    time.Duration
	idleTimeout     time.Duration

	maxInflight          int
	maxInflightBytes     int64
	maxInflightBytesFlag cmdflag.Size
	maxConns             int
	// lingerBytes and lingerTimeout bound how much of a rejected body is
	// read before closing (see internal/linger).
	lingerBytes   int64
	lingerTimeout time.Duration

	// sig holds the signature flags; signatures, built from them, is nil
	// when cards' signatures are not verified.
	sig        trustfile.Flags
	signatures *pipeline.Signatures
}

// usageHead comes before the flags' help, which the flag declarations
// write.
const usageHead = `usage: cardscan serve [flags]

Serves card validation over HTTP until SIGTERM or SIGINT, then finishes the
requests in flight.

  POST /v1/validate   a card (application/json, application/agentcard+json,
                      any +json type; plain or gzip): one verdict object,
                      as a --format jsonl record;
                      NDJSON (application/x-ndjson): one verdict line per card,
                      streamed; ?profile=NAME picks the profile;
                      ?from=URL names where the card was fetched from,
                      whose origin its signing key must be allowed for
  GET  /healthz       200 while serving
  GET  /metrics       Prometheus text format

flags:
`

// usage is the text of --help.
func usage() string {
	var maxRecord cmdflag.Size
	return usageHead + newFlagSet(&config{}, &maxRecord).Help()
}

// FlagSet returns serve's flags as declared, for cardscan's completion
// scripts and manual page.
func FlagSet() *cmdflag.Set {
	var maxRecord cmdflag.Size
	return newFlagSet(&config{}, &maxRecord)
}

// newFlagSet declares serve's flags, to be parsed into cfg and maxRecord.
func newFlagSet(cfg *config, maxRecord *cmdflag.Size) *cmdflag.Set {
	var fs cmdflag.Set
	fs.String(&cfg.listen, "--listen ADDR", "127.0.0.1:8089", "address to listen on")
	fs.String(&cfg.profile, "--profile NAME", "auto", "profile when a request names none")
	*maxRecord = cardhttp.DefaultMaxBytes
	fs.Var(maxRecord, "--max-record SIZE", "largest card, e.g. 2MiB: a larger body gets 413,\n"+
		"a larger NDJSON line an input.too-large verdict")
	fs.Duration(&cfg.shutdownTimeout, "--shutdown-timeout D", 30*time.Second, "on SIGTERM, how long requests in flight may take")
	fs.Int(&cfg.maxInflight, "--max-inflight N", defaultMaxInflight, "validation requests served at once; more get 503\n"+
		"with Retry-After, and connections are capped at 4 times N")
	cfg.maxInflightBytesFlag = defaultMaxInflightBytes
	fs.Var(&cfg.maxInflightBytesFlag, "--max-inflight-bytes SIZE", "request bodies buffered at once; past it, 503\n"+
		"with Retry-After")
	fs.Duration(&cfg.idleTimeout, "--idle-timeout D", defaultIdleTimeout, "how long a connection may wait between requests,\n"+
		"and an NDJSON stream between cards")
	cfg.sig.AddFlags(&fs)
	return &fs
}

// Run is `cardscan serve ARGS`: it serves until SIGTERM or SIGINT, then
// finishes the requests in flight and returns nil.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cfg, err := parseArgs(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, usage())
		return nil
	}
	if err != nil {
		return err
	}
	limitMemory(cfg.maxInflightBytes)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	ln, err := net.Listen("tcp", cfg.listen)
	if err != nil {
		return cmderr.IOf("%v", err)
	}
	return serve(ctx, cfg, ln, stderr)
}

// NewHandler returns the handler `cardscan serve ARGS` serves, without
// listening or setting the process's memory limit: for a program that
// serves it on a listener of its own, or judges requests in process as
// the tests that hold serve to the CLI's verdicts do.
func NewHandler(args []string) (http.Handler, error) {
	cfg, err := parseArgs(args)
	if err != nil {
		return nil, err
	}
	return newHandler(cfg)
}

// parseArgs reads serve's flags; flag.ErrHelp means --help was asked for.
func parseArgs(args []string) (cfg config, err error) {
	var maxRecord cmdflag.Size
	fs := newFlagSet(&cfg, &maxRecord)
	operands, err := fs.Parse(args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cfg, err
		}
		return cfg, cmderr.Usage("cardscan serve", err)
	}
	cfg.maxBytes = int64(maxRecord)
	cfg.maxInflightBytes = int64(cfg.maxInflightBytesFlag)
	switch {
	case len(operands) > 0:
		return cfg, cmderr.UsageStop(fmt.Errorf("serve takes no arguments, got %q", operands[0]))
	case cfg.maxBytes <= 0:
		return cfg, cmderr.UsageStop(errors.New("--max-record must be at least 1 byte"))
	case cfg.maxInflight < 1 || cfg.maxInflight > maxMaxInflight:
		return cfg, cmderr.UsageStop(fmt.Errorf("--max-inflight %s: want 1 to %d", fs.Typed("max-inflight"), maxMaxInflight))
	case cfg.maxInflightBytes <= 0:
		return cfg, cmderr.UsageStop(errors.New("--max-inflight-bytes must be at least 1 byte"))
	case cfg.idleTimeout <= 0:
		return cfg, cmderr.UsageStop(errors.New("--idle-timeout must be positive"))
	}
	if cfg.profile == "" { // --profile= names no profile: the default
		cfg.profile = "auto"
	} else if _, err := fastvalidate.New(cfg.profile); err != nil {
		return cfg, cmderr.UsageHint(fmt.Errorf("unknown profile %q", cfg.profile),
			"profiles are "+strings.Join(fastvalidate.Profiles(), ", "))
	}
	if err := cfg.sig.Check(false); err != nil {
		return cfg, cmderr.UsageStop(err)
	}
	// Key sets a policy names are fetched as cardscan fetch fetches, never
	// from a private address: a card's jku is the client's word.
	v, err := cfg.sig.Verifier(nil, fetch.KeySetClient(cardsig.JKUTimeout, false))
	if err != nil {
		return cfg, cmderr.UsageStop(err)
	}
	if v != nil {
		cfg.signatures = &pipeline.Signatures{Verifier: v, Require: cfg.sig.Signatures == "require"}
	}
	cfg.readTimeout, cfg.writeTimeout = readTimeout, writeTimeout
	cfg.maxConns = connsPerRequest * cfg.maxInflight
	cfg.lingerBytes, cfg.lingerTimeout = linger.DefaultMaxBytes, linger.DefaultTimeout
	return cfg, nil
}

// serve runs the service on ln until ctx is done, then shuts it down
// gracefully.
func serve(ctx context.Context, cfg config, ln net.Listener, stderr io.Writer) error {
	con := console.New(stderr)
	h, err := newHandler(cfg)
	if err != nil {
		ln.Close()
		return cmderr.UsageStop(err)
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       cfg.readTimeout,
		WriteTimeout:      cfg.writeTimeout,
		IdleTimeout:       cfg.idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          log.New(stderr, "cardscan: http: ", 0),
	}
	con.Printf("listening on http://%s", ln.Addr())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(limitListener(ln, cfg.maxConns)) }()
	select {
	case err := <-served:
		return cmderr.IOf("%v", err)
	case <-ctx.Done():
	}
	con.Printf("shutting down: finishing requests in flight")
	sctx, cancel := context.WithTimeout(context.Background(), cfg.shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
		<-served
		return cmderr.IOf("requests still running after %v were cut off", cfg.shutdownTimeout)
	}
	<-served
	return nil
}
