package fastvalidate

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/cardscan/cardscan/fastvalidate/internal/tape"
)

// Finding is one rule violation or warning in a card.
//
// Path and the text in Message are backed by the Result's buffers: they
// stay valid until the Validator that produced them validates the next
// card. Use strings.Clone to keep them longer.
type Finding struct {
	Code     Code
	Severity Severity
	// Path is an RFC 6901 JSON Pointer into the card as decoded ("" is the
	// card itself). For a missing member it names the member that should
	// be there, e.g. "/endpoint/url".
	Path string
	// Offset is the byte offset in the card of the offending value (a
	// string's opening quote), of the object that lacks a member, or, for
	// a json.* rule, of the byte where the text stops being JSON (see
	// json.syntax's messages for the few faults Python's json module
	// places a byte or two earlier, where this does too). For a card given
	// in embedded-string form it is still an offset in the card as given:
	// of the byte of the string's text that the offending byte of the
	// decoded card comes from, or of the escape it comes from.
	Offset int
	// Count is how many times the card has this fault with this value:
	// a finding that quotes a value stands for every later one of the
	// same rule, severity, message and value, and Path and Offset name
	// the first. 0 and 1 both mean once.
	Count int

	msg string // a static text, possibly with one %d verb for arg
	got string // an excerpt of the offending value as it appears in the card
	arg int64
	// folds marks a finding that quotes a value, which later ones with
	// the same value fold into (see Result.addValue).
	folds bool
	// note is the disagreement of the draft and the schema the finding
	// reports, if any: its message says so.
	note disagreement
}

// Rule returns the finding's rule ID, e.g. "capability.id".
func (f *Finding) Rule() string { return f.Code.String() }

// Message describes the finding in English. It allocates; it is meant for
// reports, not for the hot path.
func (f *Finding) Message() string {
	return string(f.AppendMessage(nil))
}

// AppendMessage appends the message to dst.
func (f *Finding) AppendMessage(dst []byte) []byte { return f.AppendMessageQuoting(dst, nil) }

// AppendMessageQuoting is AppendMessage with the excerpt of the card's
// value that the finding quotes, if it quotes one, written by quote
// rather than as it is: a reader that must tell the card's text from
// cardscan's words (a language model reading a tool's result) gets it
// delimited. A nil quote appends the excerpt as it is.
func (f *Finding) AppendMessageQuoting(dst []byte, quote func(dst []byte, excerpt string) []byte) []byte {
	appendGot := func(dst []byte) []byte {
		if quote != nil && f.folds {
			return quote(dst, f.got)
		}
		return append(dst, f.got...)
	}
	msg := f.msg
	if msg == "" {
		msg = f.Code.Description()
	}
	// A message names the value itself with %s (a missing member, say), or
	// a number with %d; otherwise the value follows in parentheses.
	if i := strings.Index(msg, "%s"); i >= 0 {
		dst = append(dst, msg[:i]...)
		dst = appendGot(dst)
		return f.appendCount(f.appendNote(append(dst, msg[i+2:]...)))
	}
	if i := strings.Index(msg, "%d"); i >= 0 {
		dst = append(dst, msg[:i]...)
		dst = strconv.AppendInt(dst, f.arg, 10)
		dst = append(dst, msg[i+2:]...)
	} else {
		dst = append(dst, msg...)
	}
	if f.got != "" {
		dst = append(dst, " (got "...)
		dst = appendGot(dst)
		dst = append(dst, ')')
	}
	return f.appendCount(f.appendNote(dst))
}

// appendNote says where the draft and the schema disagree on the value.
func (f *Finding) appendNote(dst []byte) []byte {
	if f.note == noDisagreement || f.note >= numDisagreements {
		return dst
	}
	dst = append(dst, "; "...)
	return append(dst, disagreementNotes[f.note]...)
}

// appendCount says how many times a folded finding occurs.
func (f *Finding) appendCount(dst []byte) []byte {
	if f.Count <= 1 {
		return dst
	}
	dst = append(dst, "; "...)
	dst = strconv.AppendInt(dst, int64(f.Count), 10)
	return append(dst, " times in the card, the first here"...)
}

// String formats the finding as "severity: rule: path: message".
func (f Finding) String() string {
	return fmt.Sprintf("%s: %s: %s: %s", f.Severity, f.Code, f.Path, f.Message())
}

// Result is the verdict on one card. It is owned by the Validator that
// returned it and reused by its next Validate call.
type Result struct {
	// Profile names the rule set that judged the card: "agentcard",
	// "agentcard-schema", "a2a/1.0", .... Every card gets one, those that
	// fail strict JSON too, but under "auto" a card whose members name no
	// dialect (or that is no object), which gets "".
	Profile string
	// Detected says Profile was chosen for this card by its members, as
	// the auto and a2a profiles do, rather than fixed by the Validator,
	// and the card judged by it. It is false for a card that failed
	// strict JSON or is no object: its Profile only counts it with its
	// dialect, and its one finding does not depend on the version.
	Detected bool
	// Assumed says the card marks no A2A version (none of
	// supportedInterfaces, protocolVersion, securitySchemes, security,
	// authentication), so that Profile names the version assumed for it:
	// a2a/0.2, whose 0.2.0 to 0.2.4 had none of them.
	Assumed bool

	findings []Finding
	unlisted []RuleCount
	arena    []byte
	errors   int
	warnings int
	// over is the Validator's severity overrides (WithSeverity), or nil.
	over *[maxCode]Severity
}

// RuleCount is a number of findings of one rule and severity.
type RuleCount struct {
	Code     Code
	Severity Severity
	Count    int
}

// Valid reports whether the card has no error-severity finding.
func (r *Result) Valid() bool { return r.errors == 0 }

// Findings returns errors and warnings in the order they were found.
func (r *Result) Findings() []Finding { return r.findings }

// Errors returns the number of error findings.
func (r *Result) Errors() int { return r.errors }

// Warnings returns the number of warning findings.
func (r *Result) Warnings() int { return r.warnings }

// Unlisted counts, per rule and severity, the findings that Errors and
// Warnings count but Findings does not list, because the card has more
// than 100. It is empty for other cards.
func (r *Result) Unlisted() []RuleCount { return r.unlisted }

func (r *Result) reset() {
	r.Profile = ""
	r.Detected, r.Assumed = false, false
	r.findings = r.findings[:0]
	r.unlisted = r.unlisted[:0]
	r.arena = r.arena[:0]
	r.errors, r.warnings = 0, 0
}

// maxFindings caps the findings of one card, so that a hostile card with a
// million bad entries costs bounded memory. The verdict stays exact: the
// counts go on.
const maxFindings = 100

func (r *Result) add(f Finding) {
	if f.Severity = r.level(f.Code, f.Severity); f.Severity == SeverityOff {
		return
	}
	if r.full() {
		r.countUnlisted(f.Code, f.Severity)
		return
	}
	if f.Severity == SeverityError {
		r.errors++
	} else {
		r.warnings++
	}
	r.findings = append(r.findings, f)
}

// addValue adds a finding that quotes a value, whose path and excerpt
// the arena holds from start on. A finding of the same rule, severity,
// message and value as an earlier one is that one again, elsewhere in the
// card (a media type repeated in every skill): it counts there, and its
// path and excerpt are dropped, so that a report lists each distinct
// fault once. Errors and Warnings still count every one.
func (r *Result) addValue(f Finding, start int) {
	if f.Severity = r.level(f.Code, f.Severity); f.Severity == SeverityOff {
		r.arena = r.arena[:start]
		return
	}
	for i := range r.findings {
		g := &r.findings[i]
		if g.folds && g.Code == f.Code && g.Severity == f.Severity && g.msg == f.msg && g.got == f.got && g.note == f.note {
			g.Count = max(g.Count, 1) + 1
			if f.Severity == SeverityError {
				r.errors++
			} else {
				r.warnings++
			}
			r.arena = r.arena[:start]
			return
		}
	}
	f.folds = true
	r.add(f)
}

// full reports whether the findings have reached the cap; reporters check
// it first, so that a finding past the cap costs no path or excerpt.
func (r *Result) full() bool { return len(r.findings) >= maxFindings }

// countUnlisted counts a finding past the cap. A card has findings of few
// rules, so a search of the counts so far is enough.
func (r *Result) countUnlisted(c Code, sev Severity) {
	if sev = r.level(c, sev); sev == SeverityOff {
		return
	}
	if sev == SeverityError {
		r.errors++
	} else {
		r.warnings++
	}
	for i := range r.unlisted {
		if u := &r.unlisted[i]; u.Code == c && u.Severity == sev {
			u.Count++
			return
		}
	}
	r.unlisted = append(r.unlisted, RuleCount{Code: c, Severity: sev, Count: 1})
}

// unembed maps the findings' offsets in the decoded content of a card
// given as a JSON string to offsets in the card: raw is the string's text
// as written, at offset base. A decoded byte maps to its own byte, or to
// the backslash of the escape it comes from; the end of the content to the
// closing quote. One pass over raw serves every finding, in the order of
// their offsets, so that a card with many findings costs no more.
func (r *Result) unembed(raw []byte, base int) {
	var order [maxFindings]uint8
	n := len(r.findings)
	for i := range n {
		// Insertion sort: findings come mostly in document order.
		j := i
		for ; j > 0 && r.findings[order[j-1]].Offset > r.findings[i].Offset; j-- {
			order[j] = order[j-1]
		}
		order[j] = uint8(i)
	}
	i, dec := 0, 0 // raw[i] decodes to the content's byte dec on
	for _, k := range order[:n] {
		f := &r.findings[k]
		for dec < f.Offset && i < len(raw) {
			if raw[i] != '\\' {
				run := bytes.IndexByte(raw[i:], '\\')
				if run < 0 {
					run = len(raw) - i
				}
				run = min(run, f.Offset-dec)
				i, dec = i+run, dec+run
				continue
			}
			width, size := 2, 1
			if raw[i+1] == 'u' {
				// The scan accepted the string: a \u escape is whole, and a
				// high surrogate has its low one.
				r, _ := tape.Hex4(raw, i+2)
				width, size = 6, utf8.RuneLen(r)
				if r >= 0xD800 && r <= 0xDBFF {
					width, size = 12, 4
				}
			}
			if dec+size > f.Offset {
				break // inside the escape's bytes
			}
			i, dec = i+width, dec+size
		}
		f.Offset = base + i
	}
}

// arenaString returns the arena bytes from start as a string without
// copying. The arena only grows during one validation, and a grown arena
// leaves the old backing array untouched, so earlier strings stay intact.
func (r *Result) arenaString(start int) string {
	b := r.arena[start:]
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
