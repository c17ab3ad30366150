package pipeline

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/report"
	"github.com/cardscan/cardscan/rule"
)

type chunkKind uint8

const (
	// kindLines holds whole NDJSON lines.
	kindLines chunkKind = iota
	// kindValues holds whole records of a JSON-framed input, found by
	// the reader's splitter and listed in spans.
	kindValues
	// kindPiece holds bytes of a record too long to judge, on their way to
	// --invalid-out.
	kindPiece
	// kindTooLarge reports the record whose pieces went before it.
	kindTooLarge
	// kindDiagnostic carries an input error, to be reported in order.
	kindDiagnostic
	// kindFault marks where the reader met a fault on a mapped input.
	kindFault
)

// chunk is the unit of work: bytes read from one input, and what judging
// them produced. Chunks are reused; every buffer keeps its capacity.
type chunk struct {
	kind  chunkKind
	input string
	buf   []byte
	// mem is the allocation buf starts at: buf's capacity may stop short
	// of it, so that a read fills a chunk only to the size wanted, and
	// the rest is used again when the chunk is grown or reused.
	mem    []byte
	line   int   // line number of buf[0]
	col    int   // column of buf[0], in code points
	offset int64 // offset of buf[0] in the decompressed input
	spans  []span

	// For kindPiece: the offset of the record the piece is of, which
	// decides its slice (Config.Slice).
	recordOffset int64

	// For kindTooLarge: whether the record ended without a newline.
	unterminated bool
	// For kindValues: whether buf runs to the end of its input.
	inputEnd bool
	diag     string

	out        []byte
	also       [][]byte // Config.Also's verdicts, by output
	validOut   []byte
	invalidOut []byte
	extracted  []byte // what Config.Extract appended
	st         chunkStats

	// done tells the writer that out, validOut, invalidOut and st are
	// ready: the whole chunk's, or with partial set, a piece of it that the
	// worker stopped at to keep the verdicts within a chunk's size. The
	// writer then sends on resume once it has written and reset them.
	done    chan struct{}
	resume  chan struct{}
	partial bool
	// from is the record (an index among the chunk's records) the current
	// piece starts with, where --max-invalid re-judges from.
	from int

	// The input the chunk belongs to: its number in the run, and whether
	// it is compressed (for Config.HoldCompressed).
	seq        int
	compressed bool

	// mapped is the mapping buf views, nil when buf was read. chainAt is
	// the chunk's number in its line chain and lines its count of
	// newlines, -1 until its worker counts them.
	mapped  *mapping
	chainAt int
	lines   int
	// published is set once the chunk's count of newlines is in its line
	// chain, and newlines is the count its judging found walking every
	// line (kindLines), -1 when it stopped short.
	published bool
	newlines  int
	// ends holds where the first newlines of a kindLines chunk's buf are
	// (one place per lineEndsPer bytes at most), found by the pass that
	// counts its lines: the reader's for a chunk read, the worker's for
	// a mapped one. lines cuts by them rather than search for each
	// line's end again, and searches past the last.
	ends []int32
	// fault is set when the mapped file was found shorter than the
	// chunk: buf was cut after its last whole line before the missing
	// bytes, and faultLine and faultOffset say where judging stopped.
	fault       bool
	faultLine   int
	faultOffset int64
}

type chunkStats struct {
	records, valid, invalid int64
	errors, warnings        int64
	anyFindings             bool
	rules                   []int64 // by fastvalidate.Code
	profiles                []profileCount

	// Signature verification: cards carrying signatures, cards a trusted
	// key signed, and the findings of the signature rules.
	signed, verified, signatureFindings int64
	// schemaWouldPass counts the invalid AgentCards that the
	// agentcard-schema profile passes (Stats.SchemaWouldPass).
	schemaWouldPass int64
	// outcomes counts signatures by cardsig.Status.
	outcomes [signatureStatuses]int64
}

type profileCount struct {
	name       string
	n, invalid int64
}

func (s *chunkStats) reset(ruleSlots int) {
	s.records, s.valid, s.invalid, s.errors, s.warnings = 0, 0, 0, 0, 0
	s.signed, s.verified, s.signatureFindings, s.schemaWouldPass = 0, 0, 0, 0
	s.outcomes = [signatureStatuses]int64{}
	if s.anyFindings || len(s.rules) != ruleSlots {
		if cap(s.rules) < ruleSlots {
			s.rules = make([]int64, ruleSlots)
		}
		s.rules = s.rules[:ruleSlots]
		clear(s.rules)
	}
	s.anyFindings = false
	for i := range s.profiles {
		s.profiles[i].n, s.profiles[i].invalid = 0, 0
	}
}

func (s *chunkStats) countProfile(name string, valid bool) {
	var invalid int64
	if !valid {
		invalid = 1
	}
	for i := range s.profiles {
		if s.profiles[i].name == name {
			s.profiles[i].n++
			s.profiles[i].invalid += invalid
			return
		}
	}
	// A new name, once per chunk for its lifetime: keep a copy, since a
	// Result's strings may live in the validator's buffers.
	s.profiles = append(s.profiles, profileCount{name: strings.Clone(name), n: 1, invalid: invalid})
}

// worker judges chunks with a Validator of its own.
type worker struct {
	cfg *Config
	// pieceLimit is the size of verdicts at which the worker hands a piece
	// of its chunk's output to the writer and waits (0: never). It bounds
	// the verdicts held per chunk whatever the records' sizes: a chunk of
	// two-byte records would otherwise hold a hundred times its size in
	// verdicts.
	pieceLimit int
	halted     <-chan struct{} // closed when the writer has stopped
	v          *fastvalidate.Validator
	// schema judges again, by the AgentCard JSON Schema v1.0, the cards v
	// judged invalid by the draft; made for the first of them.
	schema *fastvalidate.Validator
	enc    report.Encoder
	// render renders Config.Findings' verdicts (the zero Renderer none),
	// and renderAlso Config.Also's.
	render     report.Renderer
	renderAlso []report.Renderer
	ruleSlots  int
	// autoProfile marks the auto profile, under which a card no profile
	// judged is counted under "" rather than the profile asked for.
	autoProfile bool
	// lazyLines is set when no verdict's line number is shown or kept
	// (no findings rendered, nothing extracted): a mapped chunk's lines
	// are then numbered after it is judged, not found before (lineChain).
	lazyLines bool
	syntax    [1]fastvalidate.Finding
	// sig is nil unless the run verifies signatures.
	sig *signatureJudge
	// extract is this worker's Config.Extract, or nil; recall its
	// Config.Recall.
	extract func(dst []byte, vd report.Verdict, v *fastvalidate.Validator) []byte
	recall  func(dst, rec []byte, input string, line int) ([]byte, bool)

	// The record being judged among the chunk's, those before skip are
	// passed over (a re-judge from a piece's start), limit is the
	// --max-invalid budget, and aborted ends the chunk.
	index, skip int
	limit       int64
	aborted     bool
	// colPos and col are the offset in a chunk of JSON-framed records up
	// to which column has counted, and the column there.
	colPos, col int
}

func newWorker(cfg *Config, ruleSlots int) *worker {
	w := &worker{
		cfg:         cfg,
		v:           fastvalidate.MustNew(cfg.Profile, cfg.Options...),
		ruleSlots:   ruleSlots,
		autoProfile: cfg.Profile == "auto",
	}
	w.syntax[0] = fastvalidate.Finding{Code: fastvalidate.CodeJSONSyntax, Severity: fastvalidate.SeverityError}
	w.lazyLines = cfg.Extract == nil
	if cfg.Findings != nil {
		w.render = cfg.Findings.Renderer()
		w.lazyLines = w.lazyLines && cfg.Findings.Format() == report.FormatNone
	}
	for _, out := range cfg.Also {
		w.renderAlso = append(w.renderAlso, out.W.Renderer())
		w.lazyLines = w.lazyLines && out.W.Format() == report.FormatNone
	}
	if cfg.Signatures != nil {
		w.sig = &signatureJudge{cfg: cfg.Signatures}
	}
	if cfg.Extract != nil {
		w.extract = cfg.Extract()
		if cfg.Recall != nil && w.sig == nil {
			w.recall = cfg.Recall()
		}
	}
	return w
}

// process judges c's records from the from'th on. With limit > 0 it stops
// after that many invalid cards, for the chunk in which --max-invalid is
// reached. It reports false when the writer stopped while the worker
// waited for it to take a piece.
func (w *worker) process(c *chunk, from int, limit int64) bool {
	c.out = c.out[:0]
	c.validOut = c.validOut[:0]
	c.invalidOut = c.invalidOut[:0]
	c.extracted = c.extracted[:0]
	if len(c.also) != len(w.cfg.Also) {
		c.also = make([][]byte, len(w.cfg.Also))
	}
	c.resetAlso()
	c.st.reset(w.ruleSlots)
	c.partial, c.from = false, from
	w.index, w.skip, w.limit, w.aborted = 0, from, limit, false
	switch c.kind {
	case kindLines:
		w.lines(c)
	case kindValues:
		w.values(c)
	case kindPiece:
		if w.cfg.InvalidOut != nil && w.cfg.Slice.Owns(c.recordOffset) {
			c.invalidOut = append(c.invalidOut, c.buf...)
		}
	case kindTooLarge:
		if !w.cfg.Slice.Owns(c.offset) {
			break
		}
		w.judgeTooLarge(c, c.line, c.col, c.offset, nil)
		if c.unterminated && w.cfg.InvalidOut != nil {
			c.invalidOut = append(c.invalidOut, '\n')
		}
	}
	return !w.aborted
}

// next is called after each record: it reports whether to go on, handing
// the output so far to the writer first when it has grown to pieceLimit.
func (w *worker) next(c *chunk) bool {
	w.index++
	if w.limit > 0 && c.st.invalid >= w.limit {
		return false
	}
	if w.pieceLimit == 0 || len(c.out)+len(c.extracted)+c.alsoLen() < w.pieceLimit {
		return true
	}
	if c.mapped != nil && c.mapped.size() < c.offset+int64(len(c.buf)) {
		// The file shrank under the chunk: the records judged since the
		// last part may be made of the zeros of a page it kept in part.
		// Stop here, unwritten; processMapped cuts the chunk where the
		// file now ends and judges this part again.
		return false
	}
	c.partial = true
	c.done <- struct{}{}
	select {
	case <-c.resume:
		// The writer has written and reset the piece.
		c.partial, c.from = false, w.index
		return true
	case <-w.halted:
		w.aborted = true
		return false
	}
}

// skipping reports whether the current record was judged in an earlier
// piece; it counts it as passed.
func (w *worker) skipping() bool {
	if w.index < w.skip {
		w.index++
		return true
	}
	return false
}

func (w *worker) lines(c *chunk) {
	b := c.buf
	line := c.line
	ends := c.ends
	c.newlines = -1
	for start := 0; start < len(b); line++ {
		var end int
		if len(ends) > 0 && int(ends[0]) < len(b) {
			end, ends = int(ends[0]), ends[1:]
		} else if end = bytes.IndexByte(b[start:], '\n'); end >= 0 {
			end += start
		}
		next := 0
		if end < 0 {
			end, next = len(b), len(b)
		} else {
			next = end + 1
		}
		raw := b[start:next]
		rec, length := LineRecord(b[start:end])
		offset := c.offset + int64(start)
		start = next
		if !w.cfg.Slice.Owns(offset) || w.skipping() {
			continue
		}
		// Length before content: a line that crosses chunks is found too
		// large before its bytes are seen, so a long blank line is too.
		if length > w.cfg.MaxRecord {
			w.judgeTooLarge(c, line, 1, offset, raw)
		} else if BlankRecord(rec) {
			continue
		} else {
			w.judge(c, rec, raw, line, offset)
		}
		if !w.next(c) {
			return
		}
	}
	// Every line was walked: their count is the newlines', but for an
	// unterminated last one.
	c.newlines = line - c.line
	if len(b) > 0 && b[len(b)-1] != '\n' {
		c.newlines--
	}
}

// values judges the records of a JSON-framed chunk.
func (w *worker) values(c *chunk) {
	line, counted := c.line, 0
	w.colPos, w.col = 0, c.col
	for _, sp := range c.spans {
		start, end := int(sp.start-c.offset), int(sp.end-c.offset)
		line += bytes.Count(c.buf[counted:start], nl)
		counted = start
		offset := c.offset + int64(start)
		if !w.cfg.Slice.Owns(offset) || w.skipping() {
			continue
		}
		// A broken record is as long as framed, white space before its
		// comma or ']' included, as when it is streamed too large. One
		// that runs to the end of the input is judged whole, as a parser
		// of the whole input judges it: "{ " lacks a name at 1:3.
		framed := c.buf[start:end:end]
		if sp.broken && !(c.inputEnd && end == len(c.buf)) {
			end = start + len(trimBrokenRecord(framed))
		}
		rec := c.buf[start:end:end]
		if rec == nil {
			rec = []byte{} // copied as an empty line, unlike a too-large record's nil
		}
		switch {
		case len(framed) > w.cfg.MaxRecord:
			w.judgeTooLarge(c, line, w.column(c, start), offset, framed)
		case sp.broken:
			w.judgeBroken(c, rec, line, offset)
		default:
			w.judge(c, rec, rec, line, offset)
		}
		if !w.next(c) {
			return
		}
	}
}

var nl = []byte{'\n'}

// trimBrokenRecord drops the white space at the end of a broken record
// that more input follows, so that a fault at its end (no value, no
// comma) is reported where its last token ends rather than where the
// next record or the array's comma starts, unless that white space is in
// a string cut short: a raw newline, tab or carriage return there is the
// fault itself (an unescaped control character, as Python's json and a
// whole document's validation say), which "unterminated string" would
// hide.
func trimBrokenRecord(rec []byte) []byte {
	end := len(rec)
	for end > 0 && isSpace(rec[end-1]) {
		end--
	}
	if end < len(rec) && endsInString(rec[:end]) {
		return rec
	}
	return rec[:end]
}

// endsInString reports whether b ends inside a string, strings read as
// the splitter reads them: from a quote to the next unescaped quote or
// raw newline.
func endsInString(b []byte) bool {
	for i := 0; i < len(b); {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return false
		}
		end, st := stringEnd(b, i+q+1)
		switch st {
		case strOpen, strOpenEscaped:
			return true
		case strClosed:
			end++ // the closing quote
		}
		i = end
	}
	return false
}

// column returns the column at which a record starting at c.buf[i]
// starts. NDJSON records start a line; JSON-framed ones are counted on
// from the last record asked for, and only for a verdict that shows the
// column, so that valid cards cost nothing.
func (w *worker) column(c *chunk, i int) int {
	if c.kind != kindValues {
		return 1
	}
	seg := c.buf[w.colPos:i]
	if j := bytes.LastIndexByte(seg, '\n'); j >= 0 {
		w.col = 1 + report.CodePoints(seg[j+1:])
	} else {
		w.col += report.CodePoints(seg)
	}
	w.colPos = i
	return w.col
}

func (w *worker) judge(c *chunk, rec, raw []byte, line int, offset int64) {
	if w.recall != nil {
		if ext, ok := w.recall(c.extracted, rec, c.input, line); ok {
			c.extracted = ext
			c.st.records++
			c.st.valid++
			return
		}
	}
	res := w.v.Validate(rec)
	col := 1
	if c.kind == kindValues && (len(res.Findings()) > 0 || w.cfg.All) {
		col = w.column(c, int(offset-c.offset))
	}
	vd := report.FromResult(c.input, line, col, offset, rec, res)
	errs, warns := res.Errors(), res.Warnings()
	if w.sig != nil {
		w.sig.judge(&c.st, &vd, rec, "", &errs, &warns)
	}
	if w.cfg.FailOnWarning && warns > 0 {
		vd.Valid = false
	}
	if !vd.Valid && res.Profile == "agentcard" && w.schemaPasses(rec) {
		c.st.schemaWouldPass++
	}
	w.account(c, &vd, raw, errs, warns, w.v)
	if len(rec) > bigRecord {
		// The validator's working space grew with the record (about 16
		// bytes per JSON value); a fresh one lets it go.
		w.v = fastvalidate.MustNew(w.cfg.Profile, w.cfg.Options...)
		w.schema = nil
	}
}

// schemaPasses reports whether the agentcard-schema profile, with the
// run's options, passes an AgentCard the draft's profile failed: the
// draft and its schema disagree on it. Valid cards never come here, so
// that the second judgement costs only the failures.
//
// The content rules are off in that judgement: they are no part of the
// JSON Schema, so the production policy's content errors would make the
// count say the schema fails a card it passes, and reading the card's
// texts again would only cost.
func (w *worker) schemaPasses(rec []byte) bool {
	if w.schema == nil {
		w.schema = fastvalidate.MustNew("agentcard-schema", schemaOptions(w.cfg.Options)...)
	}
	return w.schema.Validate(rec).Valid()
}

// schemaOptions returns the run's options with every content rule turned
// off after them, where an override has the last word.
func schemaOptions(opts []fastvalidate.Option) []fastvalidate.Option {
	out := slices.Clip(opts)
	for _, r := range rule.All() {
		if strings.HasPrefix(r.ID, "content.") {
			out = append(out, fastvalidate.WithSeverity(r.Code, fastvalidate.SeverityOff))
		}
	}
	return out
}

// judgeBroken judges bytes the splitter found to be no complete value. The
// validator's verdict names the fault when it sees one; when the fault lies
// outside the bytes (a missing comma before them, the end of input after
// a complete element), they are still invalid, as json.syntax.
func (w *worker) judgeBroken(c *chunk, rec []byte, line int, offset int64) {
	res := w.v.Validate(rec)
	vd := report.FromResult(c.input, line, w.column(c, int(offset-c.offset)), offset, rec, res)
	if vd.Profile == "" && !w.autoProfile {
		vd.Profile = w.v.Profile()
	}
	errs, warns := res.Errors(), res.Warnings()
	switch {
	case len(rec) == 0:
		// The input ended inside the array of cards, where an element or
		// its ']' was due (see splitter.finish): the validator would say
		// "expected a value", wrong after a whole element.
		w.syntax[0] = unclosedArrayFault
		vd.Findings, vd.Unlisted = w.syntax[:], nil
		errs, warns = 1, 0
	case vd.Valid:
		// Where the comma was due, as below.
		w.syntax[0] = missingCommaFault
		w.syntax[0].Offset = len(rec)
		vd.Valid, vd.Findings, vd.Unlisted = false, w.syntax[:], nil
		errs, warns = 1, 0
	case !hasJSONFault(vd.Findings) && json.Valid(rec):
		// The bytes are one JSON value, judged on its own merits, but the
		// document is broken just after it (a missing comma): say so
		// where the comma should be, or the syntax error would be lost
		// behind the card's own findings. The validator stops at its
		// first fault, so bad UTF-8 before the end says nothing of the
		// rest; encoding/json.Valid, which takes bad UTF-8, repeated
		// names and huge numbers, tells a whole value from one cut short
		// (a string cut short after a bad byte is no element that another
		// follows).
		fault := missingCommaFault
		fault.Offset = len(rec)
		vd.Findings = append(append(make([]fastvalidate.Finding, 0, len(vd.Findings)+1), vd.Findings...), fault)
		errs++
	}
	w.account(c, &vd, rec, errs, warns, w.v)
}

// The faults judgeBroken reports itself: of an element whose value is
// whole but that the next one follows with no comma between, and of the
// record with no bytes that stands for the ']' an array of cards lacks.
var (
	missingCommaFault = fastvalidate.NewFinding(fastvalidate.CodeJSONSyntax, fastvalidate.SeverityError, "",
		"missing comma: expected ',' or ']' after the element")
	unclosedArrayFault = fastvalidate.NewFinding(fastvalidate.CodeJSONSyntax, fastvalidate.SeverityError, "",
		"unexpected end of input: the array of cards has no closing ']'")
)

// hasJSONFault reports whether findings say the bytes are no complete
// JSON value. A repeated name, bad UTF-8 or a huge number are faults of a
// value that is otherwise whole, and say nothing of the framing.
func hasJSONFault(findings []fastvalidate.Finding) bool {
	for _, f := range findings {
		if f.Code == fastvalidate.CodeJSONSyntax || f.Code == fastvalidate.CodeJSONDepth {
			return true
		}
	}
	return false
}

func (w *worker) judgeTooLarge(c *chunk, line, col int, offset int64, raw []byte) {
	vd := report.TooLarge(c.input, line, col, offset, int64(w.cfg.MaxRecord))
	if !w.autoProfile {
		vd.Profile = w.v.Profile()
	}
	w.account(c, &vd, raw, 1, 0, nil)
}

// account counts a verdict, renders it, and copies the record's bytes as
// read (raw, including any line ending) to the output for its class. v is
// the Validator that judged the record, nil if none did.
func (w *worker) account(c *chunk, vd *report.Verdict, raw []byte, errs, warns int, v *fastvalidate.Validator) {
	s := &c.st
	s.records++
	if vd.Valid {
		s.valid++
	} else {
		s.invalid++
	}
	s.errors += int64(errs)
	s.warnings += int64(warns)
	vd.CountRules(func(code fastvalidate.Code, _ fastvalidate.Severity, n int) {
		if int(code) < len(s.rules) {
			s.rules[code] += int64(n)
			s.anyFindings = true
		}
	})
	s.countProfile(vd.Profile, vd.Valid)
	if w.extract != nil {
		c.extracted = w.extract(c.extracted, *vd, v)
	}
	if w.cfg.MinLevel == fastvalidate.SeverityError && warns > 0 {
		hideWarnings(vd)
	}

	c.out = w.render.Verdict(c.out, &w.enc, vd)
	for i, r := range w.renderAlso {
		c.also[i] = r.Verdict(c.also[i], &w.enc, vd)
	}

	if raw == nil {
		return // kindTooLarge, whose pieces carried the bytes
	}
	dst := &c.validOut
	if !vd.Valid {
		dst = &c.invalidOut
	}
	if (vd.Valid && w.cfg.ValidOut == nil) || (!vd.Valid && w.cfg.InvalidOut == nil) {
		return
	}
	// A record with no bytes (an input that ended where an element of a
	// JSON array or its ']' was due) is copied as an empty line, so that
	// every record is a line or more in exactly one of the files.
	*dst = append(*dst, raw...)
	if len(raw) == 0 || raw[len(raw)-1] != '\n' {
		*dst = append(*dst, '\n')
	}
}

func (c *chunk) resetAlso() {
	for i := range c.also {
		c.also[i] = c.also[i][:0]
	}
}

func (c *chunk) alsoLen() int {
	n := 0
	for _, b := range c.also {
		n += len(b)
	}
	return n
}

// bigRecord is the size past which a record's validator is dropped after
// use, so that the working space it grew for one large record is not kept
// for the rest of the run.
const bigRecord = 1 << 20

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\r' || b == '\n' }

// hideWarnings drops the warnings from the verdict's findings, in place:
// the Result (or the signature judge) that holds them is done with them
// once the verdict is written.
func hideWarnings(vd *report.Verdict) {
	keep := vd.Findings[:0]
	for _, f := range vd.Findings {
		if f.Severity != fastvalidate.SeverityWarning {
			keep = append(keep, f)
		}
	}
	vd.Findings = keep
	unlisted := vd.Unlisted[:0]
	for _, u := range vd.Unlisted {
		if u.Severity != fastvalidate.SeverityWarning {
			unlisted = append(unlisted, u)
		}
	}
	vd.Unlisted = unlisted
}
