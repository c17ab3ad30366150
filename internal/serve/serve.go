// Package serve implements `cardscan serve`: card validation as an HTTP
// service, for teams that call it over the network.
//
//	POST /v1/validate   one card (application/json, application/agentcard+json)
//	                    answers one verdict object; application/x-ndjson
//	                    answers one verdict line per card, streamed both ways.
//	                    ?profile= picks the profile.
//	GET  /healthz       200 while the server runs.
//	GET  /metrics       Prometheus text format.
//
// A verdict has exactly the shape of a `cardscan --format jsonl` record. A
// request that is not a card request at all (a wrong content type, an
// oversized body, an unknown profile) gets an RFC 9457 problem response.
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
	"github.com/cardscan/cardscan/internal/console"
)

// Timeouts bound what a slow or stalled client can hold. A streamed
// request's deadlines are renewed as it makes progress, so that only a
// stall, not a long stream, hits them.
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 60 * time.Second
	writeTimeout      = 60 * time.Second
	idleTimeout       = 120 * time.Second
	maxHeaderBytes    = 64 << 10
)

type config struct {
	listen          string
	profile         string
	maxBytes        int64
	shutdownTimeout time.Duration
	readTimeout     time.Duration
	writeTimeout    time.Duration
}

const usageText = `usage: cardscan serve [flags]

Serves card validation over HTTP until SIGTERM or SIGINT, then finishes the
requests in flight.

  POST /v1/validate   a card (application/json, application/agentcard+json):
                      one verdict object, as a --format jsonl record;
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
`

// Run is `cardscan serve ARGS`: it serves until SIGTERM or SIGINT, then
// finishes the requests in flight and returns 0.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	con := console.New(stderr)
	cfg, code, ok := parseArgs(args, stdout, con)
	if !ok {
		return code
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	ln, err := net.Listen("tcp", cfg.listen)
	if err != nil {
		con.Errorf("%v", err)
		return console.ExitIO
	}
	return serve(ctx, cfg, ln, stderr)
}

func parseArgs(args []string, stdout io.Writer, con *console.Console) (cfg config, code int, ok bool) {
	fs := flag.NewFlagSet("cardscan serve", flag.ContinueOnError)
	// Parse errors are reported below in the CLI's own words.
	fs.SetOutput(io.Discard)
	fs.StringVar(&cfg.listen, "listen", "127.0.0.1:8089", "")
	fs.StringVar(&cfg.profile, "profile", "", "")
	maxRecord := cmdflag.Size(cardhttp.DefaultMaxBytes)
	fs.Var(&maxRecord, "max-record", "")
	fs.DurationVar(&cfg.shutdownTimeout, "shutdown-timeout", 30*time.Second, "")
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usageText)
			return cfg, console.ExitOK, false
		}
		return cfg, con.UsageError("cardscan serve", errors.New(cmdflag.ParseError(err))), false
	}
	cfg.maxBytes = int64(maxRecord)
	switch {
	case fs.NArg() > 0:
		con.Errorf("serve takes no arguments, got %q", fs.Arg(0))
		return cfg, console.ExitUsage, false
	case cfg.maxBytes <= 0:
		con.Errorf("--max-record must be at least 1 byte")
		return cfg, console.ExitUsage, false
	}
	if cfg.profile == "" {
		cfg.profile = "auto"
	} else if _, err := fastvalidate.New(cfg.profile); err != nil {
		con.Errorf("unknown profile %q", cfg.profile)
		con.Hintf("profiles are %s", strings.Join(fastvalidate.Profiles(), ", "))
		return cfg, console.ExitUsage, false
	}
	cfg.readTimeout, cfg.writeTimeout = readTimeout, writeTimeout
	return cfg, console.ExitOK, true
}

// serve runs the service on ln until ctx is done, then shuts it down
// gracefully.
func serve(ctx context.Context, cfg config, ln net.Listener, stderr io.Writer) int {
	con := console.New(stderr)
	h, err := newHandler(cfg)
	if err != nil {
		con.Errorf("%v", err)
		ln.Close()
		return console.ExitUsage
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       cfg.readTimeout,
		WriteTimeout:      cfg.writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          log.New(stderr, "cardscan: http: ", 0),
	}
	con.Printf("listening on http://%s", ln.Addr())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		con.Errorf("%v", err)
		return console.ExitIO
	case <-ctx.Done():
	}
	con.Printf("shutting down: finishing requests in flight")
	sctx, cancel := context.WithTimeout(context.Background(), cfg.shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
		<-served
		con.Errorf("requests still running after %v were cut off", cfg.shutdownTimeout)
		return console.ExitIO
	}
	<-served
	return console.ExitOK
}
