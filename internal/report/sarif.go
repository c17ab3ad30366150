package report

import (
	"bytes"
	"hash/fnv"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cardscan/cardscan/fastvalidate"
)

// SARIF 2.1.0 (OASIS), as GitHub code scanning reads it. A run is written
// in three parts so that it streams: AppendSARIFHead before the first
// card, AppendSARIF per verdict as the cards are judged, and
// AppendSARIFTail after the last. JSON leaves the order of an object's
// members free, so the run's results come before its tool: the tool's
// rules[] lists only the rules that fired, which are known only at the end,
// and they are at most the rule table's size however many findings there
// are. Nothing else is kept between verdicts.
//
// Columns are counted in Unicode code points, as in every other format
// (the run's columnKind says so), and input paths are made relative to the
// working directory, under the uriBaseId SARIFBase.

// SARIFBase is the uriBaseId of every input path relative to the working
// directory. GitHub's upload action resolves it to the checkout.
const SARIFBase = "%SRCROOT%"

// SARIFResultLimit is how many results GitHub code scanning accepts in one
// run; cardscan writes them all and says so when a run holds more.
const SARIFResultLimit = 25000

// sarifResultStart begins every result AppendSARIF writes. Each result is
// preceded by a comma, which SARIFWriter removes before the first; the
// sequence cannot occur inside a JSON string, whose quotes are escaped, so
// counting it counts results.
const sarifResultStart = ",\n{\"ruleId\":"

// AppendSARIFHead appends the start of a SARIF log with one run, up to the
// opening of the run's results array. workDir is the absolute working
// directory, declared as SARIFBase's location ("" leaves it out).
func AppendSARIFHead(dst []byte, workDir string) []byte {
	dst = append(dst, `{"$schema":"https://json.schemastore.org/sarif-2.1.0.json","version":"2.1.0","runs":[{`...)
	dst = append(dst, `"columnKind":"unicodeCodePoints"`...)
	if workDir != "" {
		dst = append(dst, `,"originalUriBaseIds":{`...)
		dst = AppendJSONString(dst, SARIFBase)
		dst = append(dst, `:{"uri":`...)
		dst = AppendJSONString(dst, fileURI(filepath.ToSlash(workDir)+"/"))
		dst = append(dst, `}}`...)
	}
	return append(dst, `,"results":[`...)
}

// SARIFRule describes a rule in the run's tool.driver.rules.
type SARIFRule struct {
	ID               string
	ShortDescription string
	FullDescription  string
	Help             string // plain text
	HelpMarkdown     string
	HelpURI          string
	Level            string // "error" or "warning": the default level
	Tags             []string
}

// SARIFTail is what the end of the run says: the tool, the rules that
// fired, and how the invocation went.
type SARIFTail struct {
	Name, Version, InformationURI string
	Rules                         []SARIFRule
	// Successful is false when an input could not be read or the run was
	// cut short; Notes say why, as the invocation's notifications.
	Successful bool
	ExitCode   int
	Notes      []SARIFNote
	// Overrides are the levels the run's configuration (a policy file,
	// --rule) gave rules in Rules other than their default level.
	Overrides []SARIFOverride
}

// SARIFOverride is a rule's level in this run where it differs from the
// rule's default: Rule is the rule's index in SARIFTail.Rules.
type SARIFOverride struct {
	Rule  int
	Level string // "error" or "warning"
}

// SARIFNote is a notification about the run itself, not a card.
type SARIFNote struct {
	Level string // "error", "warning" or "note"
	Text  string
}

// AppendSARIFTail closes the results array and appends the rest of the
// run and the log, ending with a newline.
func AppendSARIFTail(dst []byte, t *SARIFTail) []byte {
	dst = append(dst, "\n],\"tool\":{\"driver\":{\"name\":"...)
	dst = AppendJSONString(dst, t.Name)
	if t.Version != "" {
		dst = append(dst, `,"version":`...)
		dst = AppendJSONString(dst, t.Version)
	}
	dst = append(dst, `,"informationUri":`...)
	dst = AppendJSONString(dst, t.InformationURI)
	dst = append(dst, `,"rules":[`...)
	for i := range t.Rules {
		r := &t.Rules[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, "\n{\"id\":"...)
		dst = AppendJSONString(dst, r.ID)
		dst = append(dst, `,"shortDescription":{"text":`...)
		dst = AppendJSONString(dst, r.ShortDescription)
		dst = append(dst, `},"fullDescription":{"text":`...)
		dst = AppendJSONString(dst, r.FullDescription)
		dst = append(dst, `},"help":{"text":`...)
		dst = AppendJSONString(dst, r.Help)
		if r.HelpMarkdown != "" {
			dst = append(dst, `,"markdown":`...)
			dst = AppendJSONString(dst, r.HelpMarkdown)
		}
		dst = append(dst, `},"helpUri":`...)
		dst = AppendJSONString(dst, r.HelpURI)
		dst = append(dst, `,"defaultConfiguration":{"level":`...)
		dst = AppendJSONString(dst, r.Level)
		dst = append(dst, `},"properties":{"tags":[`...)
		for j, tag := range r.Tags {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = AppendJSONString(dst, tag)
		}
		dst = append(dst, "]}}"...)
	}
	dst = append(dst, "]}},\n\"invocations\":[{\"executionSuccessful\":"...)
	dst = strconv.AppendBool(dst, t.Successful)
	dst = append(dst, `,"exitCode":`...)
	dst = strconv.AppendInt(dst, int64(t.ExitCode), 10)
	if len(t.Overrides) > 0 {
		// SARIF 2.1.0 §3.20.5: a rule's defaultConfiguration stays its
		// default; what this run's configuration made of it is said here,
		// so that a reader need not infer it from the results' levels.
		dst = append(dst, `,"ruleConfigurationOverrides":[`...)
		for i, o := range t.Overrides {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"descriptor":{"id":`...)
			dst = AppendJSONString(dst, t.Rules[o.Rule].ID)
			dst = append(dst, `,"index":`...)
			dst = strconv.AppendInt(dst, int64(o.Rule), 10)
			dst = append(dst, `},"configuration":{"level":`...)
			dst = AppendJSONString(dst, o.Level)
			dst = append(dst, `}}`...)
		}
		dst = append(dst, ']')
	}
	notes := t.Notes
	var shown []byte
	if len(notes) > 0 {
		dst = append(dst, `,"toolExecutionNotifications":[`...)
		for i, n := range notes {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"level":`...)
			dst = AppendJSONString(dst, n.Level)
			dst = append(dst, `,"message":{"text":`...)
			// A note names inputs, whose names are as untrusted as card
			// text: shown as a result's message is.
			dst = appendSARIFText(dst, n.Text, &shown)
			dst = append(dst, `}}`...)
		}
		dst = append(dst, ']')
	}
	return append(dst, "}]}]}\n"...)
}

// AppendSARIF appends one SARIF result per finding of v, each on a line
// of its own and preceded by a comma (see SARIFWriter). Findings past a
// card's cap are not results: the summary counts them.
//
// A result's partialFingerprints hash the rule, the input's URI and the
// finding's JSON Pointer, not its line, so that an edit above a finding
// does not make it a new alert. Two cards of one input that break the
// same rule at the same pointer share a fingerprint.
func (e *Encoder) AppendSARIF(dst []byte, v *Verdict) []byte {
	if len(v.Findings) == 0 {
		return dst
	}
	uri, based := e.sarifURI(v.Input)
	locs := e.locate(v)
	for _, i := range e.order {
		f := &v.Findings[i]
		id := f.Code.String()
		dst = append(dst, sarifResultStart...)
		dst = AppendJSONString(dst, id)
		if f.Severity == fastvalidate.SeverityWarning {
			dst = append(dst, `,"level":"warning"`...)
		} else {
			dst = append(dst, `,"level":"error"`...)
		}
		dst = append(dst, `,"message":{"text":`...)
		e.msg = e.msg[:0]
		if f.Path != "" {
			e.msg = append(append(e.msg, f.Path...), ": "...)
		}
		e.msg = f.AppendMessage(e.msg)
		dst = appendSARIFText(dst, e.msg, &e.shown)
		dst = append(dst, `},"locations":[{`...)
		dst = appendPhysicalLocation(dst, uri, based, locs[i])
		dst = append(dst, `}],"partialFingerprints":{"cardscanFinding/v1":"`...)
		dst = e.appendFingerprint(dst, id, uri, f.Path)
		dst = append(dst, `"},"properties":{"pointer":`...)
		dst = AppendJSONString(dst, f.Path)
		dst = append(dst, "}}"...)
	}
	return dst
}

// appendPhysicalLocation appends a location's physicalLocation member:
// the input as sarifURI returned it, and the place in it.
func appendPhysicalLocation(dst []byte, uri []byte, based bool, at Location) []byte {
	dst = append(dst, `"physicalLocation":{"artifactLocation":{`...)
	switch {
	case uri == nil:
		dst = append(dst, `"description":{"text":"standard input"}`...)
	case based:
		dst = append(dst, `"uri":`...)
		dst = appendJSONBytes(dst, uri)
		dst = append(dst, `,"uriBaseId":`...)
		dst = AppendJSONString(dst, SARIFBase)
	default:
		dst = append(dst, `"uri":`...)
		dst = appendJSONBytes(dst, uri)
	}
	dst = append(dst, `},"region":{"startLine":`...)
	dst = strconv.AppendInt(dst, int64(at.Line), 10)
	dst = append(dst, `,"startColumn":`...)
	dst = strconv.AppendInt(dst, int64(at.Column), 10)
	return append(dst, `}}`...)
}

// Place is a record that a finding about several records names.
type Place struct {
	Input string
	Line  int
}

// AppendSARIFAcross appends the result of a finding about several records
// (--cross-card's), preceded by a comma as AppendSARIF's are: located at
// the first record, with every other one in relatedLocations. Its
// fingerprint hashes the rule and the finding's key, not a record's place,
// since the records that share a key come and go as a dump changes while
// the finding stays the same one.
func (e *Encoder) AppendSARIFAcross(dst []byte, code fastvalidate.Code, sev fastvalidate.Severity, msg, keyKind, key string, places []Place) []byte {
	id := code.String()
	dst = append(dst, sarifResultStart...)
	dst = AppendJSONString(dst, id)
	if sev == fastvalidate.SeverityWarning {
		dst = append(dst, `,"level":"warning"`...)
	} else {
		dst = append(dst, `,"level":"error"`...)
	}
	dst = append(dst, `,"message":{"text":`...)
	dst = appendSARIFText(dst, msg, &e.shown)
	dst = append(dst, `},"locations":[{`...)
	uri, based := e.sarifURI(places[0].Input)
	dst = appendPhysicalLocation(dst, uri, based, Location{Line: places[0].Line, Column: 1})
	dst = append(dst, `}]`...)
	if len(places) > 1 {
		dst = append(dst, `,"relatedLocations":[`...)
		for i, p := range places[1:] {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = e.AppendSARIFRelated(dst, i+1, p)
		}
		dst = append(dst, ']')
	}
	dst = append(dst, `,"partialFingerprints":{"cardscanFinding/v1":"`...)
	dst = e.appendFingerprint(dst, id, []byte(keyKind), key)
	dst = append(dst, `"},"properties":{"key":`...)
	dst = AppendJSONString(dst, key)
	dst = append(dst, `,"key_kind":`...)
	dst = AppendJSONString(dst, keyKind)
	return append(dst, "}}"...)
}

// AppendSARIFRelated appends the related location of id, one of the
// places after the first that AppendSARIFAcross lists, for a writer that
// streams a result with more places than it holds.
func (e *Encoder) AppendSARIFRelated(dst []byte, id int, p Place) []byte {
	dst = append(dst, `{"id":`...)
	dst = strconv.AppendInt(dst, int64(id), 10)
	dst = append(dst, ',')
	uri, based := e.sarifURI(p.Input)
	dst = appendPhysicalLocation(dst, uri, based, Location{Line: p.Line, Column: 1})
	return append(dst, '}')
}

// appendFingerprint appends the hex FNV-1a hash of rule, input and
// pointer (AppendSARIFAcross: rule, key kind and key), each ended by a
// NUL so that no two triples run together.
func (e *Encoder) appendFingerprint(dst []byte, rule string, uri []byte, pointer string) []byte {
	if e.fp == nil {
		e.fp = fnv.New64a()
	}
	e.fp.Reset()
	e.fpBuf = append(append(append(append(append(append(e.fpBuf[:0], rule...), 0), uri...), 0), pointer...), 0)
	e.fp.Write(e.fpBuf)
	sum := e.fp.Sum64()
	const hex = "0123456789abcdef"
	for s := 60; s >= 0; s -= 4 {
		dst = append(dst, hex[sum>>uint(s)&0xf])
	}
	return dst
}

// sarifURI returns the URI of input, relative to the working directory
// when based is true, or nil for standard input. The last input's is kept,
// since a chunk's verdicts share theirs.
func (e *Encoder) sarifURI(input string) (uri []byte, based bool) {
	if e.uriOf == input && e.uriSet {
		return e.uri, e.uriBased
	}
	e.uriOf, e.uriSet = input, true
	e.uri, e.uriBased = nil, false
	if input == "<stdin>" {
		return nil, false
	}
	p := filepath.Clean(input)
	if filepath.IsAbs(p) {
		if wd, err := os.Getwd(); err == nil {
			if rel, err := filepath.Rel(wd, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				p = rel
			}
		}
	}
	p = filepath.ToSlash(p)
	if strings.HasPrefix(p, "/") {
		e.uri = []byte(fileURI(p))
		return e.uri, false
	}
	// String, not EscapedPath: a first segment holding a colon ("c:1.json")
	// would read as a scheme, so String writes it "./c:1.json" (RFC 3986,
	// section 4.2).
	e.uri = []byte((&url.URL{Path: p}).String())
	if bytes.HasPrefix(e.uri, []byte("..")) {
		// Outside the working directory: a relative reference with ..
		// names no file in the repository, so say where it is.
		if abs, err := filepath.Abs(input); err == nil {
			e.uri = []byte(fileURI(filepath.ToSlash(abs)))
			return e.uri, false
		}
	}
	e.uriBased = true
	return e.uri, true
}

func fileURI(slashed string) string {
	return (&url.URL{Scheme: "file", Path: slashed}).String()
}

// SARIFWriter passes the results AppendSARIF rendered on to w, dropping
// the comma before the first, and counts them. It must see every result
// in order, so a run's findings writer is wrapped once.
type SARIFWriter struct {
	W       io.Writer
	started bool
	results int64
}

func (s *SARIFWriter) Write(p []byte) (int, error) {
	n := len(p)
	if n == 0 {
		return 0, nil
	}
	s.results += int64(bytes.Count(p, []byte(sarifResultStart)))
	if !s.started {
		s.started = true
		if p[0] == ',' {
			p = p[1:]
		}
	}
	if _, err := s.W.Write(p); err != nil {
		return 0, err
	}
	return n, nil
}

// Results returns how many results have been written.
func (s *SARIFWriter) Results() int64 { return s.results }
