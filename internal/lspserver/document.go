package lspserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/cmdflag"
	"github.com/cardscan/cardscan/internal/report"
	"github.com/cardscan/cardscan/internal/ruledoc"
)

// document is an open card.
type document struct {
	uri, path string
	// nameSize is the bytes of uri and path, which the document holds
	// while it is open whatever its text, and which count with it
	// against the most the open documents hold.
	nameSize int
	version  int
	// enc is the session's position encoding, which the client picked
	// before any document opened.
	enc positionEncoding
	// text is the document's content; nil when it is larger than
	// MaxDocument, which size then holds, or when unheld: the open
	// documents hold the most the server keeps.
	text   []byte
	size   int
	unheld bool
	// outOfSync says the client sent a change with a range, which this
	// server does not ask for: the text it holds is no longer the
	// client's, so it is dropped until a full text comes.
	outOfSync bool

	// policyRead says policy, policyErr and v are current: they are read
	// when the document opens and again when it is saved.
	policyRead bool
	policy     Policy
	policyErr  error
	v          *fastvalidate.Validator
	// opts are v's options (the policy's), which the migrate actions'
	// validators share; migrators are built from them when first asked
	// for, by target release, and dropped when the policy is read again.
	opts      []fastvalidate.Option
	migrators map[string]*migrator
	// migrations are the migrate actions of the current text, worked
	// out on the first request after a change, since clients ask for
	// actions at every move of the cursor; migrationsDone says they are.
	migrations     []CodeAction
	migrationsDone bool

	findings []finding
	// judged is the profile that judged the last text (a2a/1.0 for an
	// A2A 1.0 card under auto), whose members hover and completion offer.
	judged string
}

// finding is a validator finding the server keeps between messages: the
// validator's own borrow its buffers, which the next card reuses.
type finding struct {
	code    fastvalidate.Code
	sev     fastvalidate.Severity
	path    string
	message string
	// offset is the byte offset in the document's text.
	offset int
}

func (s *Server) open(ctx context.Context, uri string, version int, text string) {
	s.forget(uri) // opened again: a new document
	s.change(ctx, uri, version, text)
}

func (s *Server) change(ctx context.Context, uri string, version int, text string) {
	d := s.docs[uri]
	if d == nil {
		// A change to a document never opened: open it, as a client that
		// restarted the server mid-session would expect.
		if len(s.docs) >= maxDocuments {
			s.notKept(ctx, uri, version, fmt.Sprintf("%d documents open, the most this server keeps", len(s.docs)))
			return
		}
		d = &document{uri: uri, path: filePath(uri), enc: s.encoding}
		d.nameSize = len(d.uri) + len(d.path)
		if s.held+d.nameSize > s.maxHeld() {
			s.notKept(ctx, uri, version, s.heldMessage())
			return
		}
		s.held += d.nameSize
		s.docs[uri] = d
	}
	s.held -= len(d.text)
	d.version, d.size = version, len(text)
	d.text, d.migrations, d.migrationsDone, d.unheld, d.outOfSync = nil, nil, false, false, false
	switch {
	case len(text) > s.cfg.MaxDocument:
	case s.held+len(text) > s.maxHeld():
		d.unheld = true
	default:
		d.text = []byte(text)
		s.held += len(text)
	}
	s.judge(ctx, d)
}

// loseSync drops the text of a document the client changed by a range:
// answers from the text before the change (a code action's edits above
// all) would be placed wrongly in the client's text.
func (s *Server) loseSync(ctx context.Context, uri string, version int) {
	d := s.docs[uri]
	if d == nil {
		return
	}
	s.held -= len(d.text)
	d.version, d.size, d.text, d.migrations, d.migrationsDone = version, 0, nil, nil, false
	d.unheld, d.outOfSync = false, true
	s.judge(ctx, d)
}

// forget lets go of a document, closed or opened again.
func (s *Server) forget(uri string) {
	if d := s.docs[uri]; d != nil {
		s.held -= len(d.text) + d.nameSize
		delete(s.docs, uri)
	}
}

// heldDocuments is how many documents of --max-document the open ones may
// hold in all: a session keeps every document the client opens until it
// closes it, and a client that never closes any would otherwise hold
// without end.
const heldDocuments = 64

func (s *Server) maxHeld() int { return heldDocuments * s.cfg.MaxDocument }

// heldMessage says why a document is not held: the others hold the most.
func (s *Server) heldMessage() string {
	return fmt.Sprintf("the open documents hold %d bytes (texts and URIs), the most this server keeps (%d times --max-document)", s.held, heldDocuments)
}

// maxDocuments bounds the documents a session keeps open, whatever their
// size (each holds its URI, its findings and validators' state). A
// variable, for a test to lower.
var maxDocuments = 4096

// notKept tells the client that a document is neither kept nor judged,
// and why: past maxDocuments, or its URI past the bytes the open
// documents may hold.
func (s *Server) notKept(ctx context.Context, uri string, version int, why string) {
	diag := Diagnostic{Severity: severityError, Source: "cardscan", Message: "not judged: " + why + "; close some"}
	_ = s.conn.Notify(ctx, "textDocument/publishDiagnostics", publishDiagnosticsParams{URI: uri, Version: &version, Diagnostics: []Diagnostic{diag}})
}

// judge validates the document and publishes its diagnostics.
func (s *Server) judge(ctx context.Context, d *document) {
	diags := s.diagnose(d)
	v := d.version
	_ = s.conn.Notify(ctx, "textDocument/publishDiagnostics", publishDiagnosticsParams{URI: d.uri, Version: &v, Diagnostics: diags})
}

// diagnose judges the document and returns its diagnostics.
func (s *Server) diagnose(d *document) []Diagnostic {
	d.findings = d.findings[:0]
	top := Range{}
	if d.outOfSync {
		return []Diagnostic{{Range: top, Severity: severityError, Source: "cardscan",
			Message: "not judged: the client sent an incremental change, but this server takes full text (textDocumentSync 1); reopen the document or send its full text"}}
	}
	if d.unheld {
		return []Diagnostic{{Range: top, Severity: severityError, Source: "cardscan",
			Message: "not judged: " + s.heldMessage() + "; close some"}}
	}
	if d.text == nil {
		return []Diagnostic{{Range: top, Severity: severityError, Code: fastvalidate.CodeInputTooLarge.String(),
			CodeDescription: ruleLink(fastvalidate.CodeInputTooLarge), Source: "cardscan",
			Message: fmt.Sprintf("not judged: %d bytes, more than --max-document %s", d.size, cmdflag.FormatSize(int64(s.cfg.MaxDocument)))}}
	}
	if !d.policyRead {
		s.readPolicy(d)
	}
	if d.policyErr != nil {
		return []Diagnostic{{Range: top, Severity: severityError, Source: "cardscan", Message: "not judged: " + d.policyErr.Error()}}
	}
	if d.policy.Skip {
		return []Diagnostic{}
	}
	d.findings, d.judged = validate(d.v, d.text, d.findings)
	d.findings = s.signatureFindings(d.text, d.policy.Levels, d.findings)
	li := newLineIndex(d.text, d.enc)
	diags := make([]Diagnostic, 0, len(d.findings))
	for _, f := range d.findings {
		diags = append(diags, f.diagnostic(li, d.text))
	}
	return diags
}

// readPolicy reads the document's policy file and builds its validator.
func (s *Server) readPolicy(d *document) {
	d.policyRead, d.policy, d.policyErr, d.v, d.opts, d.migrators = true, Policy{}, nil, nil, nil, nil
	d.migrations, d.migrationsDone = nil, false
	if s.cfg.LoadPolicy != nil {
		if d.policy, d.policyErr = s.cfg.LoadPolicy(d.path); d.policyErr != nil {
			return
		}
	}
	profile := firstSet(s.cfg.Profile, d.policy.Profile, "auto")
	var opts []fastvalidate.Option
	if firstSet(s.cfg.PolicyName, d.policy.Policy) == "production" {
		opts = append(opts, fastvalidate.WithPolicy(fastvalidate.PolicyProduction))
	}
	opts = append(opts, d.policy.Rules...)
	d.opts = opts
	d.v, d.policyErr = fastvalidate.New(profile, opts...)
	if d.policyErr != nil && d.policy.File != "" {
		d.policyErr = fmt.Errorf("%s: %w", d.policy.File, d.policyErr)
	}
}

func firstSet(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

// validate judges text as the CLI judges a file holding one card, and
// appends the findings to dst with their offsets in text. It returns them
// with the profile that judged the card.
func validate(v *fastvalidate.Validator, text []byte, dst []finding) ([]finding, string) {
	card, _, _, start := report.Start(text)
	res := v.Validate(card)
	for _, f := range res.Findings() {
		dst = append(dst, finding{code: f.Code, sev: f.Severity, path: strings.Clone(f.Path),
			message: f.Message(), offset: int(start) + f.Offset})
	}
	return dst, res.Profile
}

// signatureFindings verifies the signatures of the card in text, when the
// server has keys, and appends the findings that makes to dst, placed as
// the CLI places them (pipeline.SignatureChecker, which cardscan serve
// uses too): at the entry or its member at fault, found by
// cardsig.Locator. levels are the policy file's rule levels, which the
// CLI gives these findings too (pipeline.Signatures.Overrides).
func (s *Server) signatureFindings(text []byte, levels map[fastvalidate.Code]fastvalidate.Severity, dst []finding) []finding {
	if s.sig == nil {
		return dst
	}
	card, _, _, start := report.Start(text)
	vd := report.Verdict{Card: card, Valid: true}
	s.sig.Check(&vd, card, "")
	for _, f := range vd.Findings {
		if level, ok := levels[f.Code]; ok {
			if level == fastvalidate.SeverityOff {
				continue
			}
			f.Severity = level
		}
		dst = append(dst, finding{code: f.Code, sev: f.Severity, path: strings.Clone(f.Path),
			message: f.Message(), offset: int(start) + f.Offset})
	}
	return dst
}

func (f *finding) diagnostic(li *lineIndex, text []byte) Diagnostic {
	sev := severityError
	if f.sev == fastvalidate.SeverityWarning {
		sev = severityWarning
	}
	msg := f.message
	if f.path != "" {
		msg = f.path + ": " + msg
	}
	// The message quotes card text: its hidden characters (a U+202E that
	// reorders the line, a zero-width space) and controls are written as
	// the CLI's text format writes them.
	msg = report.TextSafe(msg)
	return Diagnostic{
		Range:           Range{Start: li.position(f.offset), End: li.position(tokenEnd(text, f.offset))},
		Severity:        sev,
		Code:            f.code.String(),
		CodeDescription: ruleLink(f.code),
		Source:          "cardscan",
		Message:         msg,
		Data:            &diagnosticData{Path: f.path},
	}
}

func ruleLink(c fastvalidate.Code) *codeDescription {
	return &codeDescription{Href: ruledoc.HelpURI(c.String())}
}

// tokenEnd returns the end of the JSON token at off, which a diagnostic
// underlines: a string to its closing quote (or, unterminated, its line's
// end), a number or literal to its last character, an object or array
// its opening bracket alone (the whole of a card would hide every other
// underline).
func tokenEnd(text []byte, off int) int {
	if off < 0 || off >= len(text) {
		return max(min(off, len(text)), 0)
	}
	switch text[off] {
	case '"':
		for i := off + 1; i < len(text); i++ {
			switch text[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			case '\n', '\r':
				return i
			}
		}
		return len(text)
	case '{', '[', '}', ']', ',', ':':
		return off + 1
	}
	i := off
	for i < len(text) && !strings.ContainsRune(",}] \t\r\n:", rune(text[i])) {
		i++
	}
	return max(i, off+1)
}
