// Package serve implements `cardscan serve`: card validation as an HTTP
// service, for teams that call it over the network.
//
//	POST /v1/validate   one card (application/json, application/agentcard+json,
//	                    text/json or any +json type, plain or gzip)
//	                    answers one verdict object; application/x-ndjson
//	                    answers one verdict line per card, streamed both ways.
//	                    ?profile= picks the profile.
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
//     of the machine's memory, and keeps the worst case well under 1 GiB.
//   - four connections per in-flight request (1024); more wait in the
//     listen backlog until one closes. Each costs some 20-40 KiB.
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
	"strings"
	"syscall"
	"time"

	"github.com/cardscan/cardscan/cardhttp"
	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/cmdflag"
	"github.com/cardscan/cardscan/internal/linger"
)

// Exit codes, as the CLI's.
const (
	exitOK    = 0
	exitUsage = 2
	exitIO    = 3
)

// Timeouts bound what a slow or stalled client can hold. A streamed
// request's deadlines are renewed as it makes progress, so that only a
// stall, not a long stream, hits them.
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 60 * time.Second
	writeTimeout      = 60 * time.Second
	maxHeaderBytes    = 64 << 10
)

// Defaults of the limits in the package documentation.
const (
	defaultMaxInflight      = 256
	defaultMaxInflightBytes = 256 << 20
	defaultIdleTimeout      = 30 * time.Second
	// connsPerRequest caps connections at a multiple of --max-inflight:
	// enough for keep-alive clients between requests, few enough that
	// connections which never send a request hold little.
	connsPerRequest = 4
)

type config struct {
	listen          string
	profile         string
	maxBytes        int64
	shutdownTimeout time.Duration
	readTimeout     time.Duration
	writeTimeout    time.Duration
	idleTimeout     time.Duration

	maxInflight      int
	maxInflightBytes int64
	maxConns         int
	// lingerBytes and lingerTimeout bound how much of a rejected body is
	// read before closing (see internal/linger).
	lingerBytes   int64
	lingerTimeout time.Duration
}

const usageText = `usage: cardscan serve [flags]

Serves card validation over HTTP until SIGTERM or SIGINT, then finishes the
requests in flight.

  POST /v1/validate   a card (application/json, application/agentcard+json,
                      any +json type; plain or gzip): one verdict object,
                      as a --format jsonl record;
                      NDJSON (application/x-ndjson): one verdict line per card,
                      streamed; ?profile=NAME picks the profile
  GET  /healthz       200 while serving
  GET  /metrics       Prometheus text format

flags:
      --listen ADDR             address to listen on (default 127.0.0.1:8089)
      --profile NAME            profile when a request names none (default auto)
      --max-record SIZE         largest card, e.g. 2MiB (default 2MiB): a larger
                                body gets 413, a larger NDJSON line an
                                input.too-large verdict
      --shutdown-timeout D      on SIGTERM, how long requests in flight may take
                                (default 30s)
      --max-inflight N          validation requests served at once (default
                                256); more get 503 with Retry-After, and
                                connections are capped at 4 times N
      --max-inflight-bytes SIZE request bodies buffered at once (default
                                256MiB); past it, 503 with Retry-After
      --idle-timeout D          how long a connection may wait between
                                requests, and an NDJSON stream between cards
                                (default 30s)
`

// Run is `cardscan serve ARGS`: it serves until SIGTERM or SIGINT, then
// finishes the requests in flight and returns 0.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cfg, code, ok := parseArgs(args, stdout, stderr)
	if !ok {
		return code
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	ln, err := net.Listen("tcp", cfg.listen)
	if err != nil {
		fmt.Fprintf(stderr, "cardscan: error: %v\n", err)
		return exitIO
	}
	return serve(ctx, cfg, ln, stderr)
}

func parseArgs(args []string, stdout, stderr io.Writer) (cfg config, code int, ok bool) {
	fs := flag.NewFlagSet("cardscan serve", flag.ContinueOnError)
	// Parse errors are reported below in the CLI's own words.
	fs.SetOutput(io.Discard)
	fs.StringVar(&cfg.listen, "listen", "127.0.0.1:8089", "")
	fs.StringVar(&cfg.profile, "profile", "", "")
	maxRecord := cmdflag.Size(cardhttp.DefaultMaxBytes)
	fs.Var(&maxRecord, "max-record", "")
	fs.DurationVar(&cfg.shutdownTimeout, "shutdown-timeout", 30*time.Second, "")
	fs.IntVar(&cfg.maxInflight, "max-inflight", defaultMaxInflight, "")
	maxInflightBytes := cmdflag.Size(defaultMaxInflightBytes)
	fs.Var(&maxInflightBytes, "max-inflight-bytes", "")
	fs.DurationVar(&cfg.idleTimeout, "idle-timeout", defaultIdleTimeout, "")
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usageText)
			return cfg, exitOK, false
		}
		fmt.Fprintf(stderr, "cardscan: error: %s\ncardscan: hint: run 'cardscan serve --help' for usage\n", cmdflag.ParseError(err))
		return cfg, exitUsage, false
	}
	cfg.maxBytes = int64(maxRecord)
	cfg.maxInflightBytes = int64(maxInflightBytes)
	switch {
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "cardscan: error: serve takes no arguments, got %q\n", fs.Arg(0))
		return cfg, exitUsage, false
	case cfg.maxBytes <= 0:
		fmt.Fprintf(stderr, "cardscan: error: --max-record must be at least 1 byte\n")
		return cfg, exitUsage, false
	case cfg.maxInflight <= 0:
		fmt.Fprintf(stderr, "cardscan: error: --max-inflight must be at least 1\n")
		return cfg, exitUsage, false
	case cfg.maxInflightBytes <= 0:
		fmt.Fprintf(stderr, "cardscan: error: --max-inflight-bytes must be at least 1 byte\n")
		return cfg, exitUsage, false
	case cfg.idleTimeout <= 0:
		fmt.Fprintf(stderr, "cardscan: error: --idle-timeout must be positive\n")
		return cfg, exitUsage, false
	}
	if cfg.profile == "" {
		cfg.profile = "auto"
	} else if _, err := fastvalidate.New(cfg.profile); err != nil {
		fmt.Fprintf(stderr, "cardscan: error: unknown profile %q\ncardscan: hint: profiles are %s\n", cfg.profile, strings.Join(fastvalidate.Profiles(), ", "))
		return cfg, exitUsage, false
	}
	cfg.readTimeout, cfg.writeTimeout = readTimeout, writeTimeout
	cfg.maxConns = connsPerRequest * cfg.maxInflight
	cfg.lingerBytes, cfg.lingerTimeout = linger.DefaultMaxBytes, linger.DefaultTimeout
	return cfg, exitOK, true
}

// serve runs the service on ln until ctx is done, then shuts it down
// gracefully.
func serve(ctx context.Context, cfg config, ln net.Listener, stderr io.Writer) int {
	h, err := newHandler(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "cardscan: error: %v\n", err)
		ln.Close()
		return exitUsage
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
	fmt.Fprintf(stderr, "cardscan: listening on http://%s\n", ln.Addr())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(limitListener(ln, cfg.maxConns)) }()
	select {
	case err := <-served:
		fmt.Fprintf(stderr, "cardscan: error: %v\n", err)
		return exitIO
	case <-ctx.Done():
	}
	fmt.Fprintf(stderr, "cardscan: shutting down: finishing requests in flight\n")
	sctx, cancel := context.WithTimeout(context.Background(), cfg.shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
		<-served
		fmt.Fprintf(stderr, "cardscan: error: requests still running after %v were cut off\n", cfg.shutdownTimeout)
		return exitIO
	}
	<-served
	return exitOK
}
