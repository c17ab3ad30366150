// Package migrate moves A2A agent cards between releases: 0.2 and 0.3
// cards to 1.0, 1.0 cards to 0.3. It edits the card's bytes rather than
// re-encoding it, so the author's indentation, member order and final
// newline survive and a diff shows only the members that moved; every
// migrated card is judged by the target release's profile at once.
package migrate

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/cardscan/cardscan/cardsig"
	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/go-jose/go-jose/v4"
)

// The releases migrate reads and writes, as fastvalidate's profiles name
// them.
const (
	V02 = "a2a/0.2"
	V03 = "a2a/0.3"
	V10 = "a2a/1.0"
)

// Options says how cards are migrated.
type Options struct {
	To   string // V10 or V03
	From string // "auto" (detected per card), V02, V03 or V10
	// KeepLegacy keeps the 0.x members beside the 1.0 ones (to 1.0 only),
	// for readers of either release.
	KeepLegacy bool
	// DropSignatures drops a signed card's signatures, which the migration
	// breaks; without it or SignKey a signed card is refused.
	DropSignatures bool
	// SignKey, when not nil, signs each migrated card that was signed, in
	// place of its old signatures.
	SignKey  *jose.JSONWebKey
	SignOpts cardsig.SignOptions
	// Validate are the options of the validators that judge source and
	// target (the policy).
	Validate []fastvalidate.Option
}

// Status says what became of a card.
const (
	StatusMigrated  = "migrated"  // the card changed
	StatusUnchanged = "unchanged" // already in the target's shape
	StatusRefused   = "refused"   // left as it was: see the changes
	StatusFailed    = "failed"    // migrated, but the target rejects it where the source passed
)

// Change is one thing the migration did to a card, or could not do.
type Change struct {
	Rule   string `json:"rule"`
	Action string `json:"action"` // moved, rewrote, dropped, kept, added, refused, signed
	From   string `json:"from,omitempty"`
	To     string `json:"to,omitempty"`
	// Message says what happened in a sentence.
	Message string `json:"message"`
	// SourceSpec and TargetSpec name the sections of the two releases.
	SourceSpec string `json:"source_spec"`
	TargetSpec string `json:"target_spec"`
}

// Issue is one error the target profile found in the migrated card.
type Issue struct {
	Rule    string `json:"rule"`
	Path    string `json:"path"`
	Message string `json:"message"`
}

// Record is the report of one card.
type Record struct {
	Input       string   `json:"input"`
	Line        int      `json:"line,omitempty"`
	From        string   `json:"from"`
	To          string   `json:"to"`
	Status      string   `json:"status"`
	ValidBefore bool     `json:"valid_before"`
	ValidAfter  bool     `json:"valid_after"`
	Changes     []Change `json:"changes"`
	Errors      []Issue  `json:"target_errors,omitempty"`
}

// Changed reports whether the card's bytes changed.
func (r *Record) Changed() bool { return r.Status == StatusMigrated }

// Migrator migrates cards. It may be reused for any number of cards; it
// is not safe for concurrent use: use one per goroutine.
type Migrator struct {
	opts   Options
	detect *fastvalidate.Validator
	forced map[string]*fastvalidate.Validator
}

// ErrOptions is returned by New for options it cannot honour.
var ErrOptions = errors.New("migrate: bad options")

// New returns a Migrator for opts.
func New(opts Options) (*Migrator, error) {
	if opts.To != V10 && opts.To != V03 {
		return nil, fmt.Errorf("%w: --to %q: want a2a/1.0 or a2a/0.3", ErrOptions, opts.To)
	}
	switch opts.From {
	case "", "auto":
		opts.From = "auto"
	case V02, V03, V10:
	default:
		return nil, fmt.Errorf("%w: --from %q: want auto, a2a/0.2, a2a/0.3 or a2a/1.0", ErrOptions, opts.From)
	}
	if opts.KeepLegacy && opts.To != V10 {
		return nil, fmt.Errorf("%w: --keep-legacy writes 1.0 cards that keep their 0.x members: it needs --to a2a/1.0", ErrOptions)
	}
	m := &Migrator{opts: opts, forced: map[string]*fastvalidate.Validator{}}
	var err error
	if m.detect, err = fastvalidate.New("a2a", opts.Validate...); err != nil {
		return nil, err
	}
	for _, p := range []string{V02, V03, V10} {
		if m.forced[p], err = fastvalidate.New(p, opts.Validate...); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Migrate migrates one card, appending the result to dst: the migrated
// card, or the card as it was when it is unchanged or refused.
func (m *Migrator) Migrate(dst, card []byte, rec *Record) []byte {
	changes := rec.Changes[:0]
	if changes == nil {
		changes = make([]Change, 0, 8)
	}
	*rec = Record{Input: rec.Input, Line: rec.Line, To: m.opts.To, Changes: changes}
	from, valid, ok := m.source(card, rec)
	rec.From, rec.ValidBefore = from, valid
	if !ok {
		rec.Status = StatusRefused
		return append(dst, card...)
	}
	if from == m.opts.To {
		rec.Status, rec.ValidAfter = StatusUnchanged, valid
		return append(dst, card...)
	}
	if !(from == V10 && m.opts.To == V03) && !((from == V02 || from == V03) && m.opts.To == V10) {
		m.refuse(rec, fastvalidate.CodeMigrateUnsupported, "migrate moves a2a/0.2 and a2a/0.3 cards to a2a/1.0 and a2a/1.0 cards to a2a/0.3; not "+from+" to "+m.opts.To)
		return append(dst, card...)
	}
	root, err := locate(card)
	if err != nil || root.kind != '{' {
		m.refuse(rec, fastvalidate.CodeMigrateUnsupported, "the card is not a JSON object")
		return append(dst, card...)
	}
	signed := root.get("signatures") != nil
	if signed && !m.opts.DropSignatures && m.opts.SignKey == nil {
		m.refuse(rec, fastvalidate.CodeMigrateSigned, "the card is signed and migrating it changes the signed content: refused (--drop-signatures drops the signatures, --key K signs the migrated card)")
		return append(dst, card...)
	}
	w := newWriter(card, detectStyle(card, root))
	c := &card10{w: w, rec: rec, from: from, legacy: m.opts.KeepLegacy}
	e := w.edit(root)
	if signed {
		e.Drop("signatures")
	}
	if m.opts.To == V10 {
		c.up(root, e)
	} else {
		c.down(root, e)
	}
	if c.refusal != "" {
		rec.Changes = rec.Changes[:0]
		m.refuse(rec, fastvalidate.CodeMigrateSchemeUnsupported, c.refusal)
		return append(dst, card...)
	}
	start := len(dst)
	dst = append(dst, card[:root.start]...)
	dst = append(dst, e.Text()...)
	dst = append(dst, card[root.end:]...)
	if signed {
		dst = m.resign(dst, start, rec)
	}
	res := m.forced[m.opts.To].Validate(dst[start:])
	rec.ValidAfter = res.Valid()
	for _, f := range res.Findings() {
		if f.Severity == fastvalidate.SeverityError {
			rec.Errors = append(rec.Errors, Issue{Rule: f.Rule(), Path: f.Path, Message: f.Message()})
		}
	}
	rec.Status = StatusMigrated
	if bytes.Equal(dst[start:], card) {
		rec.Status = StatusUnchanged
	}
	if rec.ValidBefore && !rec.ValidAfter {
		rec.Status = StatusFailed
		rec.add(fastvalidate.CodeMigrateInvalidResult, "refused", "", "", fmt.Sprintf("the migrated card has %d error(s) under %s (target_errors) although the card passed %s", len(rec.Errors), m.opts.To, from), specCard[from], specCard[m.opts.To])
	}
	return dst
}

// Unread fills rec (its Input and Line kept) for a card that was not
// read, such as a dump's line past the reader's size limit: refused as it
// is, under the rule of every card migrate cannot read, msg saying why.
// Its release is unknown unless Options.From named one.
func (m *Migrator) Unread(rec *Record, msg string) {
	*rec = Record{Input: rec.Input, Line: rec.Line, To: m.opts.To, Changes: rec.Changes[:0]}
	if m.opts.From != "auto" {
		rec.From = m.opts.From
	}
	m.refuse(rec, fastvalidate.CodeMigrateUnsupported, msg)
}

// source finds the card's release and whether it passes it; ok is false,
// with a change saying why, when it cannot be migrated.
func (m *Migrator) source(card []byte, rec *Record) (from string, valid, ok bool) {
	var res *fastvalidate.Result
	if m.opts.From == "auto" {
		res = m.detect.Validate(card)
	} else {
		res = m.forced[m.opts.From].Validate(card)
	}
	from = res.Profile
	if f, ok := unreadable(res); ok {
		line, col := lineColumn(card, f.Offset)
		m.refuse(rec, fastvalidate.CodeMigrateUnsupported, fmt.Sprintf("the card is no JSON text migrate can read one way: %s at %s (line %d, column %d): %s",
			f.Rule(), pointer(f.Path), line, col, f.Message()))
		return from, false, false
	}
	if m.opts.From == "auto" && !res.Detected {
		msg := "the card is not an A2A card migrate can read"
		for _, f := range res.Findings() {
			if f.Severity == fastvalidate.SeverityError {
				msg += ": " + f.Rule() + " at " + pointer(f.Path) + ": " + f.Message()
				break
			}
		}
		m.refuse(rec, fastvalidate.CodeMigrateUnsupported, msg)
		return from, false, false
	}
	if m.opts.From == "auto" && res.Assumed && !res.Valid() {
		// The a2a profile assumes 0.2 for a card that names no release;
		// one that fails it too is some other kind of card.
		m.refuse(rec, fastvalidate.CodeMigrateUnsupported, "the card names no A2A release (no supportedInterfaces, protocolVersion, securitySchemes or security) and fails a2a/0.2: not an A2A card migrate can read")
		return from, false, false
	}
	return from, res.Valid(), true
}

// unreadable returns the first finding of res that makes the card no
// JSON text a reader reads one way (a member named twice, which readers
// resolve differently; bytes that are no JSON or no UTF-8; nesting or a
// number beyond the limits), which the migration would otherwise resolve
// by itself, writing a clean card from an ambiguous one.
func unreadable(res *fastvalidate.Result) (fastvalidate.Finding, bool) {
	for _, f := range res.Findings() {
		switch f.Code {
		case fastvalidate.CodeJSONSyntax, fastvalidate.CodeJSONUTF8, fastvalidate.CodeJSONDuplicateKey,
			fastvalidate.CodeJSONDepth, fastvalidate.CodeJSONNumberRange:
			if f.Severity == fastvalidate.SeverityError {
				return f, true
			}
		}
	}
	return fastvalidate.Finding{}, false
}

// lineColumn returns the 1-based line and column (in bytes) of offset in
// card.
func lineColumn(card []byte, offset int) (line, column int) {
	offset = min(max(offset, 0), len(card))
	before := card[:offset]
	return bytes.Count(before, []byte("\n")) + 1, offset - bytes.LastIndexByte(before, '\n')
}

func pointer(p string) string {
	if p == "" {
		return `""`
	}
	return p
}

func (m *Migrator) refuse(rec *Record, code fastvalidate.Code, msg string) {
	rec.Status = StatusRefused
	rec.add(code, "refused", "", "", msg, specCard[rec.From], specCard[m.opts.To])
}

// resign signs the migrated card at dst[start:] in place of the
// signatures it had.
func (m *Migrator) resign(dst []byte, start int, rec *Record) []byte {
	if m.opts.SignKey == nil {
		rec.add(fastvalidate.CodeMigrateSigned, "dropped", "/signatures", "", "the signatures no longer matched the migrated card and were dropped (--drop-signatures)", specSign[rec.From], specSign[m.opts.To])
		return dst
	}
	signed, err := cardsig.Sign(dst[start:], *m.opts.SignKey, m.opts.SignOpts)
	if err != nil {
		rec.add(fastvalidate.CodeMigrateSigned, "dropped", "/signatures", "", "the old signatures were dropped and signing the migrated card failed: "+err.Error(), specSign[rec.From], specSign[m.opts.To])
		return dst
	}
	rec.add(fastvalidate.CodeMigrateSigned, "signed", "/signatures", "/signatures", "the old signatures were replaced by one over the migrated card (--key)", specSign[rec.From], specSign[m.opts.To])
	return append(dst[:start], signed...)
}

func (r *Record) add(code fastvalidate.Code, action, from, to, msg, srcSpec, dstSpec string) {
	r.Changes = append(r.Changes, Change{Rule: code.String(), Action: action, From: from, To: to, Message: msg, SourceSpec: srcSpec, TargetSpec: dstSpec})
}

// The sections each change cites, per release.
var (
	specCard = map[string]string{V02: "A2A 0.2.5 section 5.5", V03: "A2A 0.3.0 section 5.5", V10: "A2A 1.0.1 section 4.4.1", "a2a/0.1": "A2A 0.1.0", "": ""}
	specSign = map[string]string{V02: "A2A 0.2.5 (no signatures)", V03: "A2A 0.3.0 section 5.5.6", V10: "A2A 1.0.1 section 8.4"}
	specIfc  = map[string]string{V02: "A2A 0.2.5 section 5.5 (url, preferredTransport, additionalInterfaces)", V03: "A2A 0.3.0 sections 5.6.1 and 5.6.2", V10: "A2A 1.0.1 sections 4.4.6 and 8.3.1"}
	specCaps = map[string]string{V02: "A2A 0.2.5 sections 5.5 and 5.5.2", V03: "A2A 0.3.0 sections 5.5 and 5.5.2", V10: "A2A 1.0.1 section 4.4.3 and Appendix A.2.2"}
	specSec  = map[string]string{V02: "A2A 0.2.5 sections 5.5 and 5.5.4 (security)", V03: "A2A 0.3.0 sections 5.5 and 5.5.4 (security)", V10: "A2A 1.0.1 sections 4.4.1 and 4.4.5 (securityRequirements)"}
	specSch  = map[string]string{V02: "A2A 0.2.5 section 5.5.3", V03: "A2A 0.3.0 section 5.5.3", V10: "A2A 1.0.1 sections 4.5.1 to 4.5.10"}
)
