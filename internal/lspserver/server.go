package lspserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"go.lsp.dev/jsonrpc2"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/pipeline"
)

// Policy is what a policy file (.cardscan.yaml) sets for a document, as
// the CLI reads it: File is the file's path ("" for none), Profile and
// Policy its profile and policy keys ("" when unset), Rules the validator
// options of its rules: map, Levels the same levels by rule (for the
// signature rules, which no validator reports: they are set on the
// findings verification makes, as the CLI sets them), and Skip whether
// its include and exclude globs leave the document out.
type Policy struct {
	File            string
	Profile, Policy string
	Rules           []fastvalidate.Option
	Levels          map[fastvalidate.Code]fastvalidate.Severity
	Skip            bool
}

// PolicyFunc finds and reads the policy file that governs the document at
// path (a file path; "" for a document that is not a file), as the CLI
// would for a run in the document's directory.
type PolicyFunc func(path string) (Policy, error)

// Config is what the server needs besides its connection.
type Config struct {
	// Profile and PolicyName are --profile and --policy: set, they
	// override the policy file, as on the command line.
	Profile, PolicyName string
	// MaxDocument bounds the text of a document the server keeps and
	// judges; a larger one gets one input.too-large diagnostic.
	MaxDocument int
	// LoadPolicy reads the policy file of a document; nil for none.
	LoadPolicy PolicyFunc
	// Signatures verifies the signatures of A2A cards, as --keys does on
	// the command line; nil checks only their form.
	Signatures *pipeline.Signatures
}

// Server answers one client. Its handler runs on the connection's read
// loop, one message at a time, so its state needs no lock.
type Server struct {
	cfg  Config
	conn jsonrpc2.Conn
	docs map[string]*document
	// validators are built once per profile and options in force, keyed
	// by the profile and the policy file's path.
	validators map[string]*fastvalidate.Validator
	held       int // bytes of the open documents' text
	// sig verifies the documents' signatures; nil without keys.
	sig *pipeline.SignatureChecker
	// encoding is the position encoding picked at initialize.
	encoding    positionEncoding
	initialized bool
	shutdown    bool
	exited      chan struct{}
}

// NewServer returns a Server that notifies the client over conn.
func NewServer(cfg Config, conn jsonrpc2.Conn) *Server {
	s := &Server{cfg: cfg, conn: conn, docs: map[string]*document{},
		validators: map[string]*fastvalidate.Validator{}, exited: make(chan struct{})}
	if cfg.Signatures != nil {
		s.sig = pipeline.NewSignatureChecker(cfg.Signatures)
	}
	return s
}

// Exited is closed when the client sends exit.
func (s *Server) Exited() <-chan struct{} { return s.exited }

// Handle is the connection's jsonrpc2.Handler.
func (s *Server) Handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	if err := s.outOfOrder(req); err != nil {
		return nil, err
	}
	if !req.IsCall() && req.Method() != "exit" && (!s.initialized || s.shutdown) {
		// Dropped, as the specification has it before initialize; after
		// shutdown, only exit has a use.
		return nil, nil
	}
	result, err := s.dispatch(ctx, req)
	if err != nil && !req.IsCall() {
		// A notification's error would end the connection: a client's
		// mistake is logged to it instead, and the session goes on.
		s.logf(ctx, "%s: %v", req.Method(), err)
		return nil, nil
	}
	return result, err
}

// serverNotInitialized is the LSP specification's error code for a
// request before initialize.
const serverNotInitialized = -32002

// outOfOrder returns the error that the LSP specification (section
// "Lifecycle Messages") gives a request out of the session's order: one
// before initialize, initialize again, and one after shutdown. Without
// it, a client that had shut the server down still got answers, and one
// that never initialized it got them under capabilities it never read.
func (s *Server) outOfOrder(req *jsonrpc2.Request) error {
	if !req.IsCall() {
		return nil
	}
	switch {
	case s.shutdown:
		return jsonrpc2.NewError(jsonrpc2.InvalidRequest, fmt.Sprintf("%s after shutdown: the server takes only exit now", req.Method()))
	case !s.initialized && req.Method() != "initialize":
		return jsonrpc2.NewError(serverNotInitialized, fmt.Sprintf("%s before initialize", req.Method()))
	case s.initialized && req.Method() == "initialize":
		return jsonrpc2.NewError(jsonrpc2.InvalidRequest, "initialize again: it is sent once a session")
	}
	return nil
}

func (s *Server) dispatch(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	params := req.Params()
	switch req.Method() {
	case "initialize":
		s.initialized = true
		// Params that do not decode leave the default, UTF-16: they
		// are the client's to get right, and the session can go on.
		var p initializeParams
		if json.Unmarshal(params, &p) == nil {
			s.encoding = pickEncoding(p.Capabilities.General.PositionEncodings)
		}
		return initializeResult(s.encoding), nil
	case "initialized", "$/cancelRequest", "$/setTrace", "workspace/didChangeConfiguration", "workspace/didChangeWatchedFiles":
		return nil, nil
	case "shutdown":
		s.shutdown = true
		return nil, nil
	case "exit":
		select {
		case <-s.exited:
		default:
			close(s.exited)
		}
		return nil, nil
	case "textDocument/didOpen":
		var p didOpenParams
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		s.open(ctx, p.TextDocument.URI, p.TextDocument.Version, p.TextDocument.Text)
		return nil, nil
	case "textDocument/didChange":
		var p didChangeParams
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		if len(p.ContentChanges) == 0 {
			return nil, nil
		}
		last := p.ContentChanges[len(p.ContentChanges)-1]
		if last.Range != nil {
			s.loseSync(ctx, p.TextDocument.URI, p.TextDocument.Version)
			return nil, invalidParams("an incremental change: the server asked for full text (textDocumentSync 1)")
		}
		s.change(ctx, p.TextDocument.URI, p.TextDocument.Version, last.Text)
		return nil, nil
	case "textDocument/didSave":
		var p didSaveParams
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		if d := s.docs[p.TextDocument.URI]; d != nil {
			// A save is when the policy file is read again: an edit to
			// .cardscan.yaml shows on the next save of a card.
			d.policyRead = false
			s.judge(ctx, d)
		}
		return nil, nil
	case "textDocument/didClose":
		var p didCloseParams
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		s.forget(p.TextDocument.URI)
		// The client keeps a closed document's diagnostics until told.
		return nil, s.conn.Notify(ctx, "textDocument/publishDiagnostics", publishDiagnosticsParams{URI: p.TextDocument.URI, Diagnostics: []Diagnostic{}})
	case "textDocument/hover":
		var p textDocumentPositionParams
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		return s.hover(p), nil
	case "textDocument/codeAction":
		var p codeActionParams
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		return s.codeActions(p), nil
	case "textDocument/completion":
		var p textDocumentPositionParams
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		return s.complete(p), nil
	}
	if strings.HasPrefix(req.Method(), "$/") && !req.IsCall() {
		// The specification lets a server ignore a "$/" notification;
		// a request of one gets MethodNotFound, as any other it does
		// not implement.
		return nil, nil
	}
	return nil, fmt.Errorf("%q: %w", req.Method(), jsonrpc2.ErrMethodNotFound)
}

func initializeResult(enc positionEncoding) any {
	type sync struct {
		OpenClose bool           `json:"openClose"`
		Change    int            `json:"change"`
		Save      map[string]any `json:"save"`
	}
	return map[string]any{
		"capabilities": map[string]any{
			"positionEncoding":   enc.String(),
			"textDocumentSync":   sync{OpenClose: true, Change: 1, Save: map[string]any{"includeText": false}},
			"hoverProvider":      true,
			"codeActionProvider": map[string]any{"codeActionKinds": []string{"quickfix", "refactor.rewrite"}},
			"completionProvider": map[string]any{"triggerCharacters": []string{`"`, ":"}},
		},
		"serverInfo": map[string]any{"name": "cardscan"},
	}
}

func invalidParams(msg string) error {
	return jsonrpc2.NewError(jsonrpc2.InvalidParams, msg)
}

// decode reads a request's params, which must be an object.
func decode(params []byte, v any) error {
	if len(params) == 0 {
		return invalidParams("params missing")
	}
	if err := json.Unmarshal(params, v); err != nil {
		return invalidParams("params: " + err.Error())
	}
	return nil
}

func (s *Server) logf(ctx context.Context, format string, args ...any) {
	_ = s.conn.Notify(ctx, "window/logMessage", logMessageParams{Type: 1, Message: "cardscan: " + fmt.Sprintf(format, args...)})
}

// filePath returns the file path of a file: URI, or "".
func filePath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return ""
	}
	return filepath.FromSlash(u.Path)
}
