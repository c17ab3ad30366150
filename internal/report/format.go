package report

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/visible"
)

// Format is an output format of verdicts. ParseFormat is the only way from
// a format's name to a Format, and Format.Writer the only way from a Format
// to the writer that renders it, so a new format is a constant, a name and
// a writer here.
type Format uint8

const (
	// FormatNone writes nothing (--quiet).
	FormatNone Format = iota
	// FormatText writes one compiler-style line per finding.
	FormatText
	// FormatJSONL writes one JSON object per invalid card (per card with
	// WriterOptions.All).
	FormatJSONL
	// FormatGitHub writes GitHub Actions workflow commands.
	FormatGitHub
	// FormatSARIF writes a SARIF 2.1.0 log.
	FormatSARIF
	// FormatJUnit writes a JUnit XML document, a test case per card.
	FormatJUnit
	// FormatCodeQuality writes a GitLab Code Quality report.
	FormatCodeQuality
)

// formatNames are the formats' names, in the order help lists them.
var formatNames = [...]string{
	FormatNone:        "none",
	FormatText:        "text",
	FormatJSONL:       "jsonl",
	FormatGitHub:      "github",
	FormatSARIF:       "sarif",
	FormatJUnit:       "junit",
	FormatCodeQuality: "codequality",
}

// Formats are the formats a --format may name, in the order help lists
// them.
var Formats = []Format{FormatText, FormatJSONL, FormatGitHub, FormatSARIF, FormatJUnit, FormatCodeQuality}

func (f Format) String() string {
	if int(f) < len(formatNames) {
		return formatNames[f]
	}
	return "format(" + strconv.Itoa(int(f)) + ")"
}

// Document reports whether f frames its verdicts in a document, whose
// head and tail Writer's Head and Tail write.
func (f Format) Document() bool {
	return f == FormatSARIF || f == FormatJUnit || f == FormatCodeQuality
}

// FormatError is a format name that is not among those a command offers.
type FormatError struct {
	Name    string
	Allowed []Format
}

func (e *FormatError) Error() string { return strconv.Quote(e.Name) + ": " + e.Want() }

// Want says which formats were allowed: "want text or jsonl".
func (e *FormatError) Want() string { return "want " + Choice(e.Allowed) }

// Choice lists formats as prose: "text, jsonl or github".
func Choice(formats []Format) string {
	names := make([]string, len(formats))
	for i, f := range formats {
		names[i] = f.String()
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// ParseFormat returns the format named name, if it is one of allowed
// (every format of Formats when none is given); else a *FormatError.
func ParseFormat(name string, allowed ...Format) (Format, error) {
	if len(allowed) == 0 {
		allowed = Formats
	}
	for _, f := range allowed {
		if f.String() == name {
			return f, nil
		}
	}
	return FormatNone, &FormatError{Name: name, Allowed: allowed}
}

// WriterOptions say how a Writer renders.
type WriterOptions struct {
	// All writes a verdict for every card: an ok line in text, a record
	// in jsonl, a passing test case in junit.
	All bool
	// Style decorates text.
	Style Style
	// Through, when not nil, is the writer the verdicts go through on
	// their way to the destination (a terminal's progress line is cleared
	// around them); heads and tails go to the destination directly.
	Through io.Writer
}

// Across is a finding about several records (a dump-wide finding): the
// records are its places, the first of which it is reported at.
type Across struct {
	Code     fastvalidate.Code
	Severity fastvalidate.Severity
	// Kind names what Key is ("id", "url", "digest").
	Kind, Key, Message string
}

// RunEnd is what a document's tail says about the run.
type RunEnd struct {
	Name, Version, InformationURI string
	// Successful says the run read every input and wrote every output.
	Successful  bool
	ExitCode    int
	Interrupted bool
	// Rules are the descriptors of the rules that fired, in the rule
	// table's order, and Overrides the levels the policy gave them.
	Rules     []SARIFRule
	Overrides []SARIFOverride
}

// VerdictWriter renders verdicts in one format and writes them, in order,
// to a destination, framed as its format wants.
//
// Renderer().Verdict and Across only render, into dst, and may run
// concurrently, each goroutine with its own Encoder; what they render is then written, in
// input order, through Write. Head is written before the first verdict and
// Tail after the last. The unexported methods seal the interface: every
// format is defined here.
type VerdictWriter interface {
	io.Writer
	// Format is the format written.
	Format() Format
	// Head writes the start of the document, if the format has one.
	Head() error
	// Renderer renders the verdicts: a value, so that a worker's call
	// to its Verdict keeps the verdict on the worker's stack.
	Renderer() Renderer
	// Across appends the rendering of a finding at places (at least one).
	Across(dst []byte, enc *Encoder, a *Across, places []Place) []byte
	// Note records an input that could not be read, for the formats
	// whose documents list them.
	Note(msg string)
	// Tail writes the end of the document, if the format has one.
	Tail(end *RunEnd) error

	// acrossCut says where, in the rendering of a finding at its first
	// place alone, the others go (the head ends at cut, then open, the
	// places, shut and the rest), for a finding whose places are streamed.
	acrossCut(head []byte, msg string, first Place) (cut int, open, shut string)
	// appendAcrossPlace appends the i-th place (from 1) of a streamed
	// finding.
	appendAcrossPlace(dst []byte, enc *Encoder, i int, p Place) []byte
}

// Writer returns the writer of f's verdicts to dst.
func (f Format) Writer(dst io.Writer, o WriterOptions) VerdictWriter {
	through := o.Through
	if through == nil {
		through = dst
	}
	r := f.Renderer(o)
	plain := plainWriter{w: through, r: r}
	switch f {
	case FormatText:
		return &textWriter{plain}
	case FormatJSONL:
		return &jsonlWriter{plain}
	case FormatGitHub:
		return &githubWriter{plainWriter: plain}
	case FormatSARIF:
		return &sarifWriter{dst: dst, r: r, results: SARIFWriter{W: through}}
	case FormatJUnit:
		return &junitWriter{dst: dst, r: r}
	case FormatCodeQuality:
		return &codeQualityWriter{dst: dst, r: r, list: ListWriter{W: through}}
	}
	r.format = FormatNone
	return &noneWriter{plainWriter{w: through, r: r}}
}

// Renderer returns the renderer of f's verdicts, for a caller that
// frames and writes them itself.
func (f Format) Renderer(o WriterOptions) Renderer {
	return Renderer{format: f, all: o.All, style: o.Style}
}

// Renderer renders verdicts in a format.
type Renderer struct {
	format Format
	all    bool
	style  Style
}

// Verdict appends vd's rendering to dst.
func (r Renderer) Verdict(dst []byte, enc *Encoder, vd *Verdict) []byte {
	switch r.format {
	case FormatText:
		if vd.Valid && r.all {
			dst = enc.AppendTextOK(dst, vd, r.style)
		}
		dst = enc.AppendText(dst, vd, r.style)
	case FormatJSONL:
		if !vd.Valid || r.all {
			dst = enc.AppendJSONL(dst, vd)
		}
	case FormatGitHub:
		dst = enc.AppendGitHub(dst, vd)
	case FormatSARIF:
		dst = enc.AppendSARIF(dst, vd)
	case FormatJUnit:
		dst = enc.AppendJUnit(dst, vd, r.all)
	case FormatCodeQuality:
		dst = enc.AppendCodeQuality(dst, vd)
	}
	return dst
}

// maxNotes bounds the unreadable inputs a document lists; the summary
// counts them all.
const maxNotes = 100

// notes are a document's unreadable inputs.
type notes struct {
	list    []string
	dropped int
}

func (n *notes) Note(msg string) {
	if len(n.list) < maxNotes {
		n.list = append(n.list, msg)
	} else {
		n.dropped++
	}
}

// all returns the notes, with how many more there were, and what an
// interruption left out, where "what" names the document's items.
func (n *notes) all(interrupted bool, what string) []string {
	list := n.list
	if n.dropped > 0 {
		list = append(list, strconv.Itoa(n.dropped)+" more inputs could not be read")
	}
	if interrupted {
		list = append(list, "interrupted: the "+what+" are those of the cards judged before")
	}
	return list
}

// plainWriter is what the formats without a document share: verdicts are
// written as they are, and nothing frames them.
type plainWriter struct {
	w io.Writer
	r Renderer
}

func (p *plainWriter) Format() Format     { return p.r.format }
func (p *plainWriter) Renderer() Renderer { return p.r }

func (p *plainWriter) Write(b []byte) (int, error) { return p.w.Write(b) }
func (*plainWriter) Head() error                   { return nil }
func (*plainWriter) Note(string)                   {}
func (*plainWriter) Tail(*RunEnd) error            { return nil }

// appendAcrossVerdict renders a finding across records as a card's
// finding at the first place, with every place at the end of its message,
// through appendVerdict.
func appendAcrossVerdict(dst []byte, a *Across, places []Place, appendVerdict func([]byte, *Verdict) []byte) []byte {
	full := []byte(a.Message + ": ")
	for i, p := range places {
		if i > 0 {
			full = append(full, ", "...)
		}
		full = append(full, p.Input...)
		full = append(full, ':')
		full = strconv.AppendInt(full, int64(p.Line), 10)
	}
	fs := []fastvalidate.Finding{fastvalidate.NewFinding(a.Code, a.Severity, "", string(full))}
	vd := Verdict{Input: places[0].Input, Line: places[0].Line, Column: 1, Valid: true, Findings: fs}
	return appendVerdict(dst, &vd)
}

// placeText is a place at the end of a text or github message.
func placeText(p Place) string { return ", " + p.Input + ":" + strconv.Itoa(p.Line) }

type noneWriter struct{ plainWriter }

func (*noneWriter) Format() Format                                             { return FormatNone }
func (*noneWriter) Across(dst []byte, _ *Encoder, _ *Across, _ []Place) []byte { return dst }
func (*noneWriter) acrossCut(head []byte, _ string, _ Place) (int, string, string) {
	return len(head), "", ""
}
func (*noneWriter) appendAcrossPlace(dst []byte, _ *Encoder, _ int, _ Place) []byte { return dst }

type textWriter struct{ plainWriter }

func (t *textWriter) Across(dst []byte, enc *Encoder, a *Across, places []Place) []byte {
	return appendAcrossVerdict(dst, a, places, func(dst []byte, vd *Verdict) []byte { return enc.AppendText(dst, vd, t.r.style) })
}

func (*textWriter) acrossCut(head []byte, msg string, first Place) (int, string, string) {
	// The message lists the places; the others go at its end.
	esc := []byte(TextSafe(msg + ": " + first.Input + ":" + strconv.Itoa(first.Line)))
	return cutAfter(head, esc), "", ""
}

func (*textWriter) appendAcrossPlace(dst []byte, _ *Encoder, _ int, p Place) []byte {
	return append(dst, TextSafe(placeText(p))...)
}

// cutAfter returns where esc last ends in head, or -1.
func cutAfter(head, esc []byte) int {
	i := bytes.LastIndex(head, esc)
	if i < 0 {
		return -1
	}
	return i + len(esc)
}

// githubWriter writes workflow commands; the inputs that could not be
// read get an error annotation each when the run ends, since a pull
// request shows annotations, not a job's log.
type githubWriter struct {
	plainWriter
	notes
}

func (g *githubWriter) Note(msg string) { g.notes.Note(msg) }

func (g *githubWriter) Tail(end *RunEnd) error {
	var dst, shown []byte
	for _, n := range g.notes.all(end.Interrupted, "annotations") {
		dst = append(dst, "::error title=cardscan::"...)
		// A note names inputs, whose names are as untrusted as card
		// text: shown as a finding's message is.
		if visible.Has(n) {
			shown = visible.Append(shown[:0], n)
			dst = appendGitHubData(dst, shown)
		} else {
			dst = appendGitHubData(dst, n)
		}
		dst = append(dst, '\n')
	}
	if len(dst) == 0 {
		return nil
	}
	_, err := g.w.Write(dst)
	return err
}

func (*githubWriter) Across(dst []byte, enc *Encoder, a *Across, places []Place) []byte {
	return appendAcrossVerdict(dst, a, places, enc.AppendGitHub)
}

func (*githubWriter) acrossCut(head []byte, msg string, first Place) (int, string, string) {
	esc := AppendGitHubData(nil, msg+": "+first.Input+":"+strconv.Itoa(first.Line))
	return cutAfter(head, esc), "", ""
}

func (*githubWriter) appendAcrossPlace(dst []byte, _ *Encoder, _ int, p Place) []byte {
	return AppendGitHubData(dst, placeText(p))
}

type jsonlWriter struct{ plainWriter }

// Across renders a finding across records as a record of its own kind,
// with the records as an array.
func (*jsonlWriter) Across(dst []byte, _ *Encoder, a *Across, places []Place) []byte {
	dst = append(dst, `{"input":`...)
	dst = AppendJSONString(dst, places[0].Input)
	dst = append(dst, `,"line":`...)
	dst = strconv.AppendInt(dst, int64(places[0].Line), 10)
	dst = append(dst, `,"rule":`...)
	dst = AppendJSONString(dst, a.Code.String())
	dst = append(dst, `,"severity":`...)
	dst = AppendJSONString(dst, a.Severity.String())
	dst = append(dst, `,"key":`...)
	dst = AppendJSONString(dst, a.Key)
	dst = append(dst, `,"key_kind":`...)
	dst = AppendJSONString(dst, a.Kind)
	dst = append(dst, `,"message":`...)
	dst = AppendJSONString(dst, a.Message)
	dst = append(dst, `,"records":[`...)
	for i, p := range places {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONPlace(dst, p)
	}
	return append(dst, "]}\n"...)
}

// appendJSONPlace appends a record of a jsonl finding's "records".
func appendJSONPlace(dst []byte, p Place) []byte {
	dst = append(dst, `{"input":`...)
	dst = AppendJSONString(dst, p.Input)
	dst = append(dst, `,"line":`...)
	dst = strconv.AppendInt(dst, int64(p.Line), 10)
	return append(dst, '}')
}

func (*jsonlWriter) acrossCut(head []byte, _ string, _ Place) (int, string, string) {
	return len(head) - len("]}\n"), "", ""
}

func (*jsonlWriter) appendAcrossPlace(dst []byte, _ *Encoder, _ int, p Place) []byte {
	return appendJSONPlace(append(dst, ','), p)
}

// sarifWriter writes a SARIF log: the head, the results, and a tail with
// the tool's rules that fired and the run's invocation.
type sarifWriter struct {
	dst     io.Writer
	r       Renderer
	results SARIFWriter
	notes
}

func (*sarifWriter) Format() Format                { return FormatSARIF }
func (s *sarifWriter) Renderer() Renderer          { return s.r }
func (s *sarifWriter) Write(b []byte) (int, error) { return s.results.Write(b) }

func (s *sarifWriter) Head() error {
	wd, _ := os.Getwd()
	_, err := s.dst.Write(AppendSARIFHead(nil, wd))
	return err
}

func (*sarifWriter) Across(dst []byte, enc *Encoder, a *Across, places []Place) []byte {
	return enc.AppendSARIFAcross(dst, a.Code, a.Severity, a.Message, a.Kind, a.Key, places)
}

func (*sarifWriter) acrossCut(head []byte, _ string, _ Place) (int, string, string) {
	return bytes.Index(head, []byte(`,"partialFingerprints":`)), `,"relatedLocations":[`, "]"
}

func (*sarifWriter) appendAcrossPlace(dst []byte, enc *Encoder, i int, p Place) []byte {
	if i > 1 {
		dst = append(dst, ',')
	}
	return enc.AppendSARIFRelated(dst, i, p)
}

func (s *sarifWriter) Tail(end *RunEnd) error {
	t := SARIFTail{
		Name:           end.Name,
		Version:        end.Version,
		InformationURI: end.InformationURI,
		Successful:     end.Successful,
		ExitCode:       end.ExitCode,
		Rules:          end.Rules,
		Overrides:      end.Overrides,
	}
	for _, n := range s.notes.all(end.Interrupted, "results") {
		t.Notes = append(t.Notes, SARIFNote{Level: "error", Text: n})
	}
	if msg := s.overLimit(); msg != "" {
		t.Notes = append(t.Notes, SARIFNote{Level: "warning", Text: msg})
	}
	_, err := s.dst.Write(AppendSARIFTail(nil, &t))
	return err
}

// overLimit says, when the run wrote more results than GitHub code
// scanning accepts in one, how many; all are written all the same, since
// other readers of SARIF take them all and cutting the log would hide
// findings without a trace in the file.
func (s *sarifWriter) overLimit() string {
	n := s.results.Results()
	if n <= SARIFResultLimit {
		return ""
	}
	return strconv.FormatInt(n, 10) + " results: GitHub code scanning accepts at most " +
		strconv.Itoa(SARIFResultLimit) + " in a run (split the inputs over several runs)"
}

// Warning returns what a run's writer has to say on the console once its
// tail is written: a SARIF log with more results than GitHub accepts.
func Warning(w VerdictWriter) string {
	if s, ok := w.(*sarifWriter); ok {
		return s.overLimit()
	}
	return ""
}

// junitWriter writes a JUnit document: the test cases are spooled to an
// unlinked temporary file, since the document's head gives their counts,
// and Tail writes the head, the test cases and the tail.
type junitWriter struct {
	dst   io.Writer
	r     Renderer
	spool *os.File
	buf   *bufio.Writer
	cases JUnitWriter
	notes
}

var errNoHead = errors.New("junit: verdicts written before the head")

func (*junitWriter) Format() Format       { return FormatJUnit }
func (j *junitWriter) Renderer() Renderer { return j.r }

func (j *junitWriter) Head() error {
	f, err := os.CreateTemp("", "cardscan-junit-")
	if err != nil {
		return err
	}
	os.Remove(f.Name())
	j.spool, j.buf = f, bufio.NewWriterSize(f, 64<<10)
	j.cases = JUnitWriter{W: j.buf}
	return nil
}

func (j *junitWriter) Write(b []byte) (int, error) {
	if j.buf == nil {
		return 0, errNoHead
	}
	return j.cases.Write(b)
}

// Across has no test case: a finding across records is no card's.
func (*junitWriter) Across(dst []byte, _ *Encoder, _ *Across, _ []Place) []byte { return dst }
func (*junitWriter) acrossCut(head []byte, _ string, _ Place) (int, string, string) {
	return len(head), "", ""
}
func (*junitWriter) appendAcrossPlace(dst []byte, _ *Encoder, _ int, _ Place) []byte { return dst }

func (j *junitWriter) Tail(end *RunEnd) error {
	if j.spool == nil {
		return errNoHead
	}
	defer j.spool.Close()
	notes := j.notes.all(end.Interrupted, "test cases")
	t := j.cases.Totals()
	t.Errors = int64(len(notes))
	t.Tests += t.Errors
	if err := j.buf.Flush(); err != nil {
		return err
	}
	if _, err := j.spool.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if _, err := j.dst.Write(AppendJUnitHead(nil, "cardscan", t)); err != nil {
		return err
	}
	if _, err := io.Copy(j.dst, j.spool); err != nil {
		return err
	}
	_, err := j.dst.Write(AppendJUnitTail(nil, notes))
	return err
}

// codeQualityWriter writes a GitLab Code Quality report: a JSON array of
// issues.
type codeQualityWriter struct {
	dst  io.Writer
	r    Renderer
	list ListWriter
}

func (*codeQualityWriter) Format() Format                { return FormatCodeQuality }
func (c *codeQualityWriter) Renderer() Renderer          { return c.r }
func (c *codeQualityWriter) Write(b []byte) (int, error) { return c.list.Write(b) }
func (*codeQualityWriter) Note(string)                   {}

func (c *codeQualityWriter) Head() error {
	_, err := io.WriteString(c.dst, CodeQualityHead)
	return err
}

// Across has no issue: Code Quality issues are a file's.
func (*codeQualityWriter) Across(dst []byte, _ *Encoder, _ *Across, _ []Place) []byte { return dst }
func (*codeQualityWriter) acrossCut(head []byte, _ string, _ Place) (int, string, string) {
	return len(head), "", ""
}
func (*codeQualityWriter) appendAcrossPlace(dst []byte, _ *Encoder, _ int, _ Place) []byte {
	return dst
}

func (c *codeQualityWriter) Tail(*RunEnd) error {
	_, err := io.WriteString(c.dst, CodeQualityTail)
	return err
}

// StreamAcross writes a finding whose places are too many to hold, as
// w.Across would render it with all of them, a place at a time, to out (w
// itself, or a buffer in front of it): first is the first place, and each
// yields the others in order.
func StreamAcross(w VerdictWriter, out io.Writer, enc *Encoder, a *Across, first Place, each func(yield func(Place) error) error) error {
	head := w.Across(nil, enc, a, []Place{first})
	cut, open, shut := w.acrossCut(head, a.Message, first)
	if cut < 0 || cut > len(head) {
		return errors.New("cannot stream a " + w.Format().String() + " finding")
	}
	if _, err := io.WriteString(out, string(head[:cut])+open); err != nil {
		return err
	}
	var line []byte
	i := 0
	if err := each(func(p Place) error {
		i++
		line = w.appendAcrossPlace(line[:0], enc, i, p)
		_, err := out.Write(line)
		return err
	}); err != nil {
		return err
	}
	_, err := io.WriteString(out, shut+string(head[cut:]))
	return err
}
