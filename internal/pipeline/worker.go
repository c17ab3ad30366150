package pipeline

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/report"
)

type chunkKind uint8

const (
	// kindLines holds whole NDJSON lines.
	kindLines chunkKind = iota
	// kindDocument holds a whole .json document.
	kindDocument
	// kindPiece holds bytes of a record too long to judge, on their way to
	// --invalid-out.
	kindPiece
	// kindTooLarge reports the record whose pieces went before it.
	kindTooLarge
	// kindDiagnostic carries an input error, to be reported in order.
	kindDiagnostic
)

// chunk is the unit of work: bytes read from one input, and what judging
// them produced. Chunks are reused; every buffer keeps its capacity.
type chunk struct {
	kind   chunkKind
	input  string
	buf    []byte
	line   int   // line number of buf[0]
	offset int64 // offset of buf[0] in the decompressed input

	// For kindTooLarge: whether the record ended without a newline.
	unterminated bool
	diag         string

	out        []byte
	validOut   []byte
	invalidOut []byte
	st         chunkStats

	done chan struct{}
}

type chunkStats struct {
	records, valid, invalid int64
	errors, warnings        int64
	anyFindings             bool
	rules                   []int64 // by fastvalidate.Code
	profiles                []profileCount
}

type profileCount struct {
	name string
	n    int64
}

func (s *chunkStats) reset(ruleSlots int) {
	s.records, s.valid, s.invalid, s.errors, s.warnings = 0, 0, 0, 0, 0
	if s.anyFindings || len(s.rules) != ruleSlots {
		if cap(s.rules) < ruleSlots {
			s.rules = make([]int64, ruleSlots)
		}
		s.rules = s.rules[:ruleSlots]
		clear(s.rules)
	}
	s.anyFindings = false
	for i := range s.profiles {
		s.profiles[i].n = 0
	}
}

func (s *chunkStats) countProfile(name string) {
	for i := range s.profiles {
		if s.profiles[i].name == name {
			s.profiles[i].n++
			return
		}
	}
	// A new name, once per chunk for its lifetime: keep a copy, since a
	// Result's strings may live in the validator's buffers.
	s.profiles = append(s.profiles, profileCount{name: strings.Clone(name), n: 1})
}

// worker judges chunks with a Validator of its own.
type worker struct {
	cfg       *Config
	v         *fastvalidate.Validator
	splitter  *fastvalidate.Validator // splits .json arrays; ArrayElements needs a Validator not in use
	enc       report.Encoder
	ruleSlots int
	// autoProfile marks the auto profile, under which a card no profile
	// judged is counted under "" rather than the profile asked for.
	autoProfile bool
	elems       []element
	tooLarge    [1]fastvalidate.Finding
}

type element struct {
	start, end int
}

func newWorker(cfg *Config, ruleSlots int) *worker {
	w := &worker{
		cfg:         cfg,
		v:           fastvalidate.MustNew(cfg.Profile, cfg.Options...),
		ruleSlots:   ruleSlots,
		autoProfile: cfg.Profile == "auto",
	}
	w.tooLarge[0] = fastvalidate.Finding{Code: fastvalidate.CodeInputTooLarge, Severity: fastvalidate.SeverityError}
	return w
}

// process judges c's records. With limit > 0 it stops after that many
// invalid cards, for the chunk in which --max-invalid is reached.
func (w *worker) process(c *chunk, limit int64) {
	c.out = c.out[:0]
	c.validOut = c.validOut[:0]
	c.invalidOut = c.invalidOut[:0]
	c.st.reset(w.ruleSlots)
	switch c.kind {
	case kindLines:
		w.lines(c, limit)
	case kindDocument:
		w.document(c, limit)
	case kindPiece:
		if w.cfg.InvalidOut != nil {
			c.invalidOut = append(c.invalidOut, c.buf...)
		}
	case kindTooLarge:
		w.judgeTooLarge(c, c.line, c.offset, nil)
		if c.unterminated && w.cfg.InvalidOut != nil {
			c.invalidOut = append(c.invalidOut, '\n')
		}
	}
}

func (w *worker) lines(c *chunk, limit int64) {
	b := c.buf
	line := c.line
	for start := 0; start < len(b); line++ {
		end := bytes.IndexByte(b[start:], '\n')
		next := 0
		if end < 0 {
			end, next = len(b), len(b)
		} else {
			end += start
			next = end + 1
		}
		raw := b[start:next]
		rec := b[start:end]
		if len(rec) > 0 && rec[len(rec)-1] == '\r' {
			rec = rec[:len(rec)-1]
		}
		offset := c.offset + int64(start)
		length := end - start
		start = next
		if isBlank(rec) {
			continue
		}
		if length > w.cfg.MaxRecord {
			w.judgeTooLarge(c, line, offset, raw)
		} else {
			w.judge(c, rec, raw, line, offset)
		}
		if limit > 0 && c.st.invalid >= limit {
			return
		}
	}
}

// document judges a .json input: each element of a top-level array is a
// card, anything else is one card.
func (w *worker) document(c *chunk, limit int64) {
	doc := c.buf
	first := 0
	for first < len(doc) && isSpace(doc[first]) {
		first++
	}
	if first == len(doc) {
		// No JSON value at all: one record, which the validator calls
		// json.syntax, rather than a file that passes unseen.
		w.judge(c, doc[first:], doc, c.line, c.offset)
		return
	}
	if len(doc) > w.cfg.MaxRecord {
		// The record is the whole document, as when it is streamed.
		w.judgeTooLarge(c, c.line, c.offset, doc)
		return
	}
	if w.splitter == nil {
		w.splitter = fastvalidate.MustNew(w.cfg.Profile, w.cfg.Options...)
	}
	w.elems = w.elems[:0]
	isArray := w.splitter.ArrayElements(doc, func(elem []byte, offset int) {
		w.elems = append(w.elems, element{offset, offset + len(elem)})
	})
	last := len(doc)
	for last > first && isSpace(doc[last-1]) {
		last--
	}
	if !isArray && !(doc[first] == '[' && w.salvageElements(doc, first, last)) {
		w.elems = append(w.elems[:0], element{first, last})
	}
	line, counted := c.line, 0
	for _, e := range w.elems {
		line += bytes.Count(doc[counted:e.start], nl)
		counted = e.start
		card := doc[e.start:e.end]
		w.judge(c, card, card, line, c.offset+int64(e.start))
		if limit > 0 && c.st.invalid >= limit {
			return
		}
	}
}

var nl = []byte{'\n'}

// salvageElements splits an array that is not strictly valid JSON into
// records, so that one bad card does not hide the verdicts on the others:
// each element up to the first one the lenient encoding/json reader cannot
// get past is a record, and the rest of the document after it is one more.
// A card judged on its own still meets the strict scanner. It reports
// whether the document began as an array with at least one element it
// could split off; otherwise the document stays one record.
//
// encoding/json, not the scanner or sonic, because it reads past what the
// scanner must reject (duplicate names, bad UTF-8) and tells the offset of
// each element; speed does not matter on this path.
func (w *worker) salvageElements(doc []byte, first, last int) bool {
	dec := json.NewDecoder(bytes.NewReader(doc[:last]))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return false
	}
	w.elems = w.elems[:0]
	next := int(dec.InputOffset()) // where the next element may start
	for {
		start := skipSeparator(doc, next, last)
		var raw json.RawMessage
		if !dec.More() || dec.Decode(&raw) != nil {
			break
		}
		end := int(dec.InputOffset())
		w.elems = append(w.elems, element{start, end})
		next = end
	}
	if len(w.elems) == 0 {
		return false
	}
	// The rest: whatever broke the document, or its missing end.
	if tok, err := dec.Token(); err != nil || tok != json.Delim(']') || dec.More() || int(dec.InputOffset()) != last {
		start := skipSeparator(doc, next, last)
		w.elems = append(w.elems, element{start, last})
	}
	return true
}

// skipSeparator returns the first offset at or after i, before last, past
// white space and at most one comma.
func skipSeparator(doc []byte, i, last int) int {
	for i < last && isSpace(doc[i]) {
		i++
	}
	if i < last && doc[i] == ',' {
		i++
	}
	for i < last && isSpace(doc[i]) {
		i++
	}
	return i
}

func (w *worker) judge(c *chunk, rec, raw []byte, line int, offset int64) {
	res := w.v.Validate(rec)
	vd := report.FromResult(c.input, line, offset, res)
	w.account(c, &vd, raw, res.Errors(), res.Warnings())
}

func (w *worker) judgeTooLarge(c *chunk, line int, offset int64, raw []byte) {
	vd := report.Verdict{Input: c.input, Line: line, Offset: offset, Findings: w.tooLarge[:]}
	if !w.autoProfile {
		vd.Profile = w.v.Profile()
	}
	w.account(c, &vd, raw, 1, 0)
}

// account counts a verdict, renders it, and copies the record's bytes as
// read (raw, including any line ending) to the output for its class.
func (w *worker) account(c *chunk, vd *report.Verdict, raw []byte, errs, warns int) {
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
	s.countProfile(vd.Profile)

	switch w.cfg.Format {
	case FormatText:
		if vd.Valid && w.cfg.All {
			c.out = w.enc.AppendTextOK(c.out, vd, w.cfg.Style)
		}
		c.out = w.enc.AppendText(c.out, vd, w.cfg.Style)
	case FormatJSONL:
		if !vd.Valid || w.cfg.All {
			c.out = w.enc.AppendJSONL(c.out, vd)
		}
	case FormatGitHub:
		c.out = w.enc.AppendGitHub(c.out, vd)
	}

	if len(raw) == 0 {
		return // kindTooLarge, whose pieces carried the bytes, or an empty record
	}
	dst := &c.validOut
	if !vd.Valid {
		dst = &c.invalidOut
	}
	if (vd.Valid && w.cfg.ValidOut == nil) || (!vd.Valid && w.cfg.InvalidOut == nil) {
		return
	}
	*dst = append(*dst, raw...)
	if raw[len(raw)-1] != '\n' {
		*dst = append(*dst, '\n')
	}
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\r' || b == '\n' }

// isBlank reports whether a line holds only JSON whitespace.
func isBlank(b []byte) bool {
	for _, c := range b {
		if !isSpace(c) {
			return false
		}
	}
	return true
}
