package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/net/netutil"
	"golang.org/x/sync/semaphore"

	"github.com/cardscan/cardscan/cardsig"
	"github.com/cardscan/cardscan/internal/cmderr"
	"github.com/cardscan/cardscan/internal/cmdflag"
	"github.com/cardscan/cardscan/internal/console"
)

// HTTP timeouts: a client's request is a JSON-RPC message of at most
// --max-message bytes, and the answer comes within --timeout.
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 30 * time.Second
	idleTimeout       = 30 * time.Second
	maxHeaderBytes    = 64 << 10
	shutdownTimeout   = 10 * time.Second
	// Endpoint is where the streamable HTTP transport is served.
	Endpoint = "/mcp"
)

// usageHead and usageTail frame the flags' help, which the flag
// declarations write.
const usageHead = `usage: cardscan mcp [flags]

Serves cardscan as a Model Context Protocol server: over standard input and
output (newline-delimited JSON-RPC) by default, for a client that starts it,
or with --listen over the streamable HTTP transport at http://ADDR/mcp.

tools:
  validate_card      judge a card (a JSON value, or a string holding its
                     text): the verdict as a --format jsonl record
  fetch_card         discover and judge the card at a URL, as cardscan fetch
  list_rules         every rule a verdict can name
  explain_rule       what one rule checks
  verify_signatures  an A2A card's signatures, against the caller's keys
                     (argument jwks) or --keys; never keys the card names

flags:
`

const usageTail = `
exit status: 0 the client hung up or a signal ended the server, 2 usage
error, 3 --keys could not be read, the server could not listen or its
connection failed.
`

// usage is the text of --help.
func usage() string { return usageHead + newFlagSet(&options{}).Help() + usageTail }

// FlagSet returns mcp's flags as declared, for cardscan's completion
// scripts and manual page.
func FlagSet() *cmdflag.Set { return newFlagSet(&options{}) }

// newFlagSet declares the command's flags, to be parsed into o.
func newFlagSet(o *options) *cmdflag.Set {
	var fs cmdflag.Set
	fs.String(&o.listen, "--listen ADDR", "", "serve HTTP on ADDR instead of stdio; a bare :PORT\n"+
		"listens on 127.0.0.1 (loopback)")
	fs.Bool(&o.allowRemote, "--allow-remote", "let --listen take a non-loopback address: the server\n"+
		"has no authentication, so only behind one that does")
	fs.Bool(&o.AllowPrivate, "--allow-private", "let fetch_card connect to loopback, private and\n"+
		"link-local addresses (refused by default)")
	fs.String(&o.keys, "--keys FILE", "", "the JWK Set verify_signatures trusts when a call\n"+
		"passes none, and validate_card and fetch_card verify\n"+
		"every card's signatures with, as serve --keys does")
	o.maxRecord, o.maxMessage = DefaultMaxRecord, DefaultMaxMessage
	fs.Var(&o.maxRecord, "--max-record SIZE", "largest card judged, e.g. 2MiB; a larger one gets\n"+
		"the input.too-large verdict")
	fs.Var(&o.maxMessage, "--max-message SIZE", "largest JSON-RPC message read; a larger one gets an\n"+
		"invalid request error over stdio and 413 over HTTP")
	fs.Duration(&o.Timeout, "--timeout D", DefaultTimeout, "time limit of a tool call, fetches included")
	fs.Int(&o.MaxInflight, "--max-inflight N", DefaultMaxInflight, "tool calls run at once; as many again wait for\n"+
		"a slot, and more are refused as busy")
	return &fs
}

type options struct {
	Config
	listen                string
	allowRemote           bool
	keys                  string
	maxRecord, maxMessage cmdflag.Size
}

// Run is `cardscan mcp ARGS`: it serves one session on stdin and stdout
// until the client closes it, or HTTP until SIGTERM or SIGINT.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	o, err := parseArgs(args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage())
			return nil
		}
		return cmderr.Usage("cardscan mcp", err)
	}
	if o.keys != "" {
		if o.Keys, err = readKeySet(o.keys); err != nil {
			return cmderr.IOf("--keys %s: %s", o.keys, err)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	server := New(o.Config)
	if o.listen == "" {
		t := &stdioTransport{in: stdin, out: stdout, maxLine: int(o.MaxMessage)}
		if err := server.Run(ctx, t); err != nil && !errors.Is(err, io.EOF) && ctx.Err() == nil {
			return cmderr.IOf("mcp session: %v", err)
		}
		return nil
	}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return cmderr.IOf("%v", err)
	}
	return serveHTTP(ctx, server, &o.Config, ln, console.New(stderr), stderr)
}

func parseArgs(args []string) (*options, error) {
	o := &options{}
	fs := newFlagSet(o)
	operands, err := fs.Parse(args)
	if err != nil {
		return nil, err
	}
	o.MaxRecord, o.MaxMessage = int64(o.maxRecord), int64(o.maxMessage)
	switch {
	case len(operands) > 0:
		return nil, fmt.Errorf("mcp takes no arguments, got %q", operands[0])
	case o.MaxRecord < 1:
		return nil, errors.New("--max-record must be at least 1 byte")
	case o.MaxMessage < 1<<10 || o.MaxMessage > 1<<30:
		return nil, fmt.Errorf("--max-message %s: want 1KiB to 1GiB", fs.Typed("max-message"))
	case o.Timeout <= 0:
		return nil, fmt.Errorf("--timeout %v: want a positive duration", o.Timeout)
	case o.MaxInflight < 1 || o.MaxInflight > 1024:
		return nil, fmt.Errorf("--max-inflight %s: want 1 to 1024", fs.Typed("max-inflight"))
	case o.allowRemote && o.listen == "":
		return nil, errors.New("--allow-remote needs --listen")
	}
	if o.listen != "" {
		addr, err := listenAddr(o.listen, o.allowRemote)
		if err != nil {
			return nil, err
		}
		o.listen = addr
	}
	return o, nil
}

// listenAddr checks a --listen address: loopback unless allowRemote, and
// loopback when it names no host.
func listenAddr(addr string, allowRemote bool) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("--listen %q: want HOST:PORT or :PORT", addr)
	}
	if host == "" {
		return net.JoinHostPort("127.0.0.1", port), nil
	}
	if allowRemote || host == "localhost" {
		return addr, nil
	}
	if ip, err := netip.ParseAddr(host); err == nil && ip.Unmap().IsLoopback() {
		return addr, nil
	}
	return "", fmt.Errorf("--listen %s: %s is not a loopback address; the MCP server has no authentication, "+
		"so anyone who reached it could use it, fetch_card included, to make requests from this machine "+
		"(pass --allow-remote to listen there anyway, behind a proxy that authenticates)", addr, host)
}

// serveHTTP serves the streamable HTTP transport on ln until ctx is done.
//
// The handler is stateless: every request stands alone, so a client
// cannot make the server keep sessions, and JSON answers, not event
// streams, so that no request outlives its tool call.
func serveHTTP(ctx context.Context, server *mcp.Server, cfg *Config, ln net.Listener, con *console.Console, stderr io.Writer) error {
	srv := &http.Server{
		Handler:           NewHTTPHandler(server, cfg),
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      cfg.Timeout + readTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          log.New(stderr, "cardscan: http: ", 0),
	}
	con.Printf("MCP over streamable HTTP at http://%s%s", ln.Addr(), Endpoint)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(netutil.LimitListener(ln, maxConns(cfg))) }()
	select {
	case err := <-served:
		return cmderr.IOf("%v", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	<-served
	return nil
}

// connsPerRequest caps connections at a multiple of the requests served
// at once (4 * --max-inflight): clients keep idle connections between
// requests, and each connection, a goroutine and its buffers (a header up
// to maxHeaderBytes), costs the server whether or not it ever sends a
// request. The rest wait in the listen backlog, where they cost nothing,
// until one closes or times out (readHeaderTimeout, idleTimeout).
const connsPerRequest = 4

func maxConns(cfg *Config) int {
	c := *cfg
	c.setDefaults()
	return connsPerRequest * 4 * c.MaxInflight
}

// NewHTTPHandler serves server over the streamable HTTP transport at
// Endpoint. Past 4*MaxInflight requests at once, or past MaxInflight
// messages of MaxMessage bytes in the bodies of the requests served at
// once, it answers 503: the SDK decodes a message several times over, so
// a request holds several times its body while it is served (see
// docs/mcp.md, Limits), and counting requests alone let 4*MaxInflight
// messages near MaxMessage be held at once.
func NewHTTPHandler(server *mcp.Server, cfg *Config) http.Handler {
	c := *cfg
	c.setDefaults()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{
		Stateless:           true,
		JSONResponse:        true,
		MaxRequestBodyBytes: c.MaxMessage,
	})
	slots := make(chan struct{}, 4*c.MaxInflight)
	bodies := semaphore.NewWeighted(int64(c.MaxInflight) * c.MaxMessage)
	mux := http.NewServeMux()
	mux.Handle(Endpoint, http.NewCrossOriginProtection().Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case slots <- struct{}{}:
			defer func() { <-slots }()
		default:
			busy(w, "too many requests at once")
			return
		}
		if enc := r.Header.Get("Content-Encoding"); enc != "" && !strings.EqualFold(enc, "identity") {
			// The SDK decodes none: the compressed bytes would be
			// refused as JSON, for their first byte.
			http.Error(w, fmt.Sprintf("Content-Encoding %q is not supported: send the message uncompressed", enc), http.StatusUnsupportedMediaType)
			return
		}
		if r.Method == http.MethodPost && r.Body != nil {
			body, held, ok := readBody(w, r, bodies, c.MaxMessage)
			defer bodies.Release(held)
			if !ok || refuseMalformed(w, body) {
				return
			}
			r.Body = struct {
				io.Reader
				io.Closer
			}{bytes.NewReader(body), r.Body}
		}
		h.ServeHTTP(w, r)
	})))
	return mux
}

// busy answers 503, for the client to retry.
func busy(w http.ResponseWriter, why string) {
	w.Header().Set("Retry-After", "1")
	http.Error(w, why, http.StatusServiceUnavailable)
}

// bodyChunk is the least a body's buffer grows by, and takes from the
// budget, as its bytes come.
const bodyChunk = 32 << 10

// readBody reads a request's body within maxMessage bytes, its buffer
// taking its bytes from bodies as it grows with the bytes that come, so
// that a request holds of the budget what it has sent, not what its
// Content-Length declares (a client declaring --max-message and sending
// nothing would hold it until the read timeout). It returns the body and
// the bytes taken, which the caller gives back when the request is done;
// when it has answered the request itself (413 over maxMessage, 503 over
// the budget, 400 for a body cut short), ok is false.
func readBody(w http.ResponseWriter, r *http.Request, bodies *semaphore.Weighted, maxMessage int64) (body []byte, held int64, ok bool) {
	declared := r.ContentLength
	if declared > maxMessage {
		http.Error(w, fmt.Sprintf("a message of %d bytes is larger than --max-message %s", declared, cmdflag.FormatSize(maxMessage)), http.StatusRequestEntityTooLarge)
		return nil, 0, false
	}
	limit := maxMessage + 1 // a byte more shows a body without a Content-Length is too long
	if declared >= 0 {
		limit = declared
	}
	for int64(len(body)) < limit {
		if len(body) == cap(body) {
			grow := min(int64(max(len(body), bodyChunk)), limit-int64(len(body)))
			if !bodies.TryAcquire(grow) {
				busy(w, "too many bytes of messages at once")
				return nil, held, false
			}
			held += grow
			body = slices.Grow(body, int(grow))
		}
		n, err := r.Body.Read(body[len(body):min(int64(cap(body)), limit)])
		body = body[:len(body)+n]
		if err == io.EOF && declared < 0 {
			break
		}
		if err != nil && (err != io.EOF || int64(len(body)) < limit) {
			http.Error(w, "reading the request body: "+err.Error(), http.StatusBadRequest)
			return nil, held, false
		}
	}
	if int64(len(body)) > maxMessage {
		http.Error(w, fmt.Sprintf("a message larger than --max-message %s", cmdflag.FormatSize(maxMessage)), http.StatusRequestEntityTooLarge)
		return nil, held, false
	}
	return body, held, true
}

// refuseMalformed answers 400, with the JSON-RPC error stdio would answer
// (see classify), a POST whose message stdio would refuse, and reports
// whether it did. The SDK's HTTP handler takes what its decoder takes: an
// id it rounds (1.5 answered as 1, an integer past 2^53 as another), a
// message followed by other bytes, members given twice.
func refuseMalformed(w http.ResponseWriter, body []byte) bool {
	if len(bytes.Trim(body, jsonSpace)) == 0 {
		return false
	}
	_, rej := classify(body, bodyMessage)
	if rej == nil {
		return false
	}
	answer, _ := rej.encode()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	w.Write(answer)
	return true
}

// readKeySet reads the JWK Set of --keys.
func readKeySet(path string) (*cardsig.KeySet, error) {
	f, err := os.Open(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxKeySet+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxKeySet {
		return nil, fmt.Errorf("larger than %d bytes", maxKeySet)
	}
	return cardsig.ParseKeySet(b)
}
