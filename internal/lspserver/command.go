package lspserver

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"go.lsp.dev/jsonrpc2"

	"github.com/cardscan/cardscan/cardsig"
	"github.com/cardscan/cardscan/internal/cmderr"
	"github.com/cardscan/cardscan/internal/cmdflag"
	"github.com/cardscan/cardscan/internal/fetch"
	"github.com/cardscan/cardscan/internal/pipeline"
	"github.com/cardscan/cardscan/internal/trustfile"
)

// Defaults of the size flags. A card is a few kilobytes; a document far
// larger is not one, and a message carries one document, escaped as a
// JSON string (which may make it up to six times longer).
const (
	DefaultMaxDocument = 2 << 20
	DefaultMaxMessage  = 16 << 20
)

const usageHead = `usage: cardscan lsp [flags]

Serves cardscan as a Language Server Protocol server over standard input and
output, for an editor that starts it. For each card the editor opens it
publishes the findings as diagnostics on every change, explains a member or
a finding on hover, offers the mechanical fixes as code actions, and
completes member names and enumerated values. A policy file (.cardscan.yaml)
in the card's directory or a parent sets the profile, policy and rules, as
for a run of cardscan there; a flag overrides it.

flags:
`

const usageTail = `
exit status: 0 the client sent shutdown then exit, or closed the connection,
1 exit came without shutdown, 2 usage error, 3 the connection failed or a
message was larger than --max-message.
`

func usage() string { return usageHead + newFlagSet(&options{}).Help() + usageTail }

type options struct {
	profile, policy         string
	maxDocument, maxMessage cmdflag.Size
	sig                     trustfile.Flags
}

func newFlagSet(o *options) *cmdflag.Set {
	var fs cmdflag.Set
	fs.String(&o.profile, "--profile NAME", "", "rule set, overriding the policy file's (auto when\n"+
		"neither names one)").HideDefault()
	fs.String(&o.policy, "--policy NAME", "", "default or production, overriding the policy file's").HideDefault()
	o.maxDocument, o.maxMessage = DefaultMaxDocument, DefaultMaxMessage
	fs.Var(&o.maxDocument, "--max-document SIZE", "largest document judged, e.g. 2MiB; a larger one\n"+
		"gets one input.too-large diagnostic and is not kept")
	fs.Var(&o.maxMessage, "--max-message SIZE", "largest message read from the client; a larger one\n"+
		"ends the session")
	o.sig.AddFlags(&fs)
	return &fs
}

func parseArgs(args []string) (*options, error) {
	o := &options{}
	fs := newFlagSet(o)
	operands, err := fs.Parse(args)
	if err != nil {
		return nil, err
	}
	switch {
	case len(operands) > 0:
		return nil, fmt.Errorf("lsp takes no arguments, got %q", operands[0])
	case o.profile != "" && cmdflag.CheckProfile(o.profile) != nil:
		return nil, cmdflag.CheckProfile(o.profile)
	case o.policy != "" && o.policy != "default" && o.policy != "production":
		return nil, fmt.Errorf("--policy %q: want default or production", o.policy)
	case o.maxDocument < 1 || o.maxDocument > 1<<30:
		// A document comes in one message, and no message is larger.
		return nil, fmt.Errorf("--max-document %s: want 1 byte to 1GiB", fs.Typed("max-document"))
	case o.maxMessage < 1<<10 || o.maxMessage > 1<<30:
		return nil, fmt.Errorf("--max-message %s: want 1KiB to 1GiB", fs.Typed("max-message"))
	}
	if err := o.sig.Check(false); err != nil {
		return nil, err
	}
	return o, nil
}

// Run is `cardscan lsp ARGS`: it serves one client on stdin and stdout
// until the client sends exit or closes the connection. loadPolicy reads
// a document's policy file, as the CLI does.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer, loadPolicy PolicyFunc) error {
	o, err := parseArgs(args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage())
			return nil
		}
		return cmderr.Usage("cardscan lsp", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	// Key sets a trust policy names are fetched as cardscan fetch fetches
	// them, never from a private address: a card's jku is its author's
	// word, and the editor may have opened anyone's card.
	v, err := o.sig.Verifier(nil, fetch.KeySetClient(cardsig.JKUTimeout, false))
	if err != nil {
		return cmderr.UsageStop(err)
	}
	cfg := Config{Profile: o.profile, PolicyName: o.policy, MaxDocument: int(o.maxDocument), LoadPolicy: loadPolicy}
	if v != nil {
		cfg.Signatures = &pipeline.Signatures{Verifier: v, Require: o.sig.Signatures == "require"}
	}
	return Serve(ctx, cfg, stdin, stdout, int64(o.maxMessage))
}

// Serve runs one session over in and out and returns the way it ended: the
// spec's exit status 1 for an exit without shutdown is cmderr.ErrFailed.
func Serve(ctx context.Context, cfg Config, in io.Reader, out io.Writer, maxMessage int64) error {
	conn := jsonrpc2.NewConn(newStream(in, out, maxMessage))
	server := NewServer(cfg, conn)
	conn.Go(ctx, server.Handle)
	return sessionEnd(ctx, server, conn)
}

// sessionEnd waits for the session to end and says how. A client that
// sends exit and closes its end ends it both ways at once; exit decides,
// since the handler runs on the read loop and so has closed Exited before
// the loop reads the end of input and closes Done.
func sessionEnd(ctx context.Context, server *Server, conn interface {
	Done() <-chan struct{}
	Err() error
}) error {
	select {
	case <-server.Exited():
	case <-conn.Done():
	case <-ctx.Done():
		return nil
	}
	select {
	case <-server.Exited():
		// The spec's exit status: 0 after shutdown, 1 without.
		if server.shutdown {
			return nil
		}
		return cmderr.ErrFailed
	default:
	}
	if err := conn.Err(); err != nil {
		return cmderr.IOf("lsp session: %v", err)
	}
	return nil
}

// FlagSet returns cardscan lsp's flags, for completion and the manual
// page.
func FlagSet() *cmdflag.Set { return newFlagSet(&options{}) }
