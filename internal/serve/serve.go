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

// usageHead comes before the flags' help, which the flag declarations
// write.
const usageHead = `usage: cardscan serve [flags]

Serves card validation over HTTP until SIGTERM or SIGINT, then finishes the
requests in flight.

  POST /v1/validate   a card (application/json, application/agentcard+json):
                      one verdict object, as a --format jsonl record;
                      NDJSON (application/x-ndjson): one verdict line per card,
                      streamed; ?profile=NAME picks the profile
  GET  /healthz       200 while serving
  GET  /metrics       Prometheus text format

flags:
`

// usage is the text of --help.
func usage() string {
	var maxRecord cmdflag.Size
	return usageHead + newFlagSet(&config{}, &maxRecord).Help()
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
	return &fs
}

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
	var maxRecord cmdflag.Size
	operands, err := newFlagSet(&cfg, &maxRecord).Parse(args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage())
			return cfg, console.ExitOK, false
		}
		return cfg, con.UsageError("cardscan serve", err), false
	}
	cfg.maxBytes = int64(maxRecord)
	switch {
	case len(operands) > 0:
		con.Errorf("serve takes no arguments, got %q", operands[0])
		return cfg, console.ExitUsage, false
	case cfg.maxBytes <= 0:
		con.Errorf("--max-record must be at least 1 byte")
		return cfg, console.ExitUsage, false
	}
	if cfg.profile == "" { // --profile= names no profile: the default
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
