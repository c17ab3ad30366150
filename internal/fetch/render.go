package fetch

import (
	"strconv"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/report"
)

// record is everything said about one fetched card.
type record struct {
	requested string         // the URL as listed
	vd        report.Verdict // the profile's verdict; borrows a validator's Result
	extra     []extraFinding // the serving rules' findings
	card      []byte         // the card as served; nil when too large
}

func (r *record) valid() bool {
	if !r.vd.Valid {
		return false
	}
	for _, f := range r.extra {
		if f.severity == fastvalidate.SeverityError {
			return false
		}
	}
	return true
}

func (r *record) counts() (errs, warns int) {
	r.vd.CountRules(func(_ fastvalidate.Code, sev fastvalidate.Severity, n int) {
		if sev == fastvalidate.SeverityError {
			errs += n
		} else {
			warns += n
		}
	})
	for _, f := range r.extra {
		if f.severity == fastvalidate.SeverityError {
			errs++
		} else {
			warns++
		}
	}
	return errs, warns
}

// renderer writes records in one of the output formats. Not safe for
// concurrent use: one per goroutine.
type renderer struct {
	format string
	all    bool
	style  report.Style
	enc    report.Encoder
	msg    []byte
}

func (rd *renderer) append(dst []byte, r *record) []byte {
	valid := r.valid()
	switch rd.format {
	case "cards":
		return rd.appendJSON(dst, r, true)
	case "jsonl":
		if valid && !rd.all {
			return dst
		}
		if len(r.extra) == 0 {
			return rd.enc.AppendJSONL(dst, &r.vd)
		}
		return rd.appendJSON(dst, r, false)
	case "github":
		dst = rd.enc.AppendGitHub(dst, &r.vd)
		for i := range r.extra {
			dst = appendGitHubExtra(dst, r.vd.Input, r.vd.Line, &r.extra[i])
		}
		return dst
	}
	if valid && rd.all {
		dst = rd.enc.AppendTextOK(dst, &r.vd, rd.style)
	}
	dst = rd.enc.AppendText(dst, &r.vd, rd.style)
	for i := range r.extra {
		dst = rd.appendTextExtra(dst, r, &r.extra[i])
	}
	return dst
}

// appendJSON writes the JSONL record of the CLI with the serving rules'
// findings among the profile's; with withCard (the crawl format) it also
// names the URL as listed and carries the card.
func (rd *renderer) appendJSON(dst []byte, r *record, withCard bool) []byte {
	vd := &r.vd
	dst = append(dst, '{')
	if withCard {
		dst = append(dst, `"url":`...)
		dst = report.AppendJSONString(dst, r.requested)
		dst = append(dst, ',')
	}
	dst = append(dst, `"input":`...)
	dst = report.AppendJSONString(dst, vd.Input)
	dst = append(dst, `,"line":`...)
	dst = strconv.AppendInt(dst, int64(vd.Line), 10)
	dst = append(dst, `,"offset":`...)
	dst = strconv.AppendInt(dst, vd.Offset, 10)
	dst = append(dst, `,"valid":`...)
	dst = strconv.AppendBool(dst, r.valid())
	dst = append(dst, `,"profile":`...)
	dst = report.AppendJSONString(dst, vd.Profile)
	dst = append(dst, `,"errors":[`...)
	dst = rd.appendJSONFindings(dst, r, fastvalidate.SeverityError)
	dst = append(dst, `],"warnings":[`...)
	dst = rd.appendJSONFindings(dst, r, fastvalidate.SeverityWarning)
	dst = append(dst, ']')
	if withCard {
		dst = append(dst, `,"card":`...)
		dst = appendCard(dst, r.card)
	}
	return append(dst, "}\n"...)
}

func (rd *renderer) appendJSONFindings(dst []byte, r *record, sev fastvalidate.Severity) []byte {
	first := true
	sep := func() {
		if !first {
			dst = append(dst, ',')
		}
		first = false
	}
	for i := range r.vd.Findings {
		f := &r.vd.Findings[i]
		if f.Severity != sev {
			continue
		}
		sep()
		rd.msg = f.AppendMessage(rd.msg[:0])
		dst = appendJSONFinding(dst, f.Code.String(), f.Path, string(rd.msg))
	}
	for _, f := range r.extra {
		if f.severity != sev {
			continue
		}
		sep()
		dst = appendJSONFinding(dst, f.rule, f.path, f.message)
	}
	return dst
}

func appendJSONFinding(dst []byte, rule, path, message string) []byte {
	dst = append(dst, `{"rule":`...)
	dst = report.AppendJSONString(dst, rule)
	dst = append(dst, `,"path":`...)
	dst = report.AppendJSONString(dst, path)
	dst = append(dst, `,"message":`...)
	dst = report.AppendJSONString(dst, message)
	return append(dst, '}')
}

// appendCard embeds the card: as JSON when it is valid JSON in valid
// UTF-8 (compacted to one line, which changes whitespace only), else as a
// string holding its text, and null when it was too large to keep.
func appendCard(dst []byte, card []byte) []byte {
	if card == nil {
		return append(dst, "null"...)
	}
	if compact, ok := compactJSON(card); ok {
		return append(dst, compact...)
	}
	return report.AppendJSONString(dst, string(card))
}

const (
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[1;31m"
	ansiYellow = "\x1b[1;33m"
	ansiCyan   = "\x1b[36m"
	ansiReset  = "\x1b[0m"
)

// appendTextExtra writes a serving rule's finding as report.AppendText
// writes a profile's: INPUT:LINE: SEVERITY: RULE: POINTER: MESSAGE. Input
// names are URLs as net/url prints them, and messages are ASCII, so
// nothing needs escaping.
func (rd *renderer) appendTextExtra(dst []byte, r *record, f *extraFinding) []byte {
	sev, colour := "error", ansiRed
	if f.severity == fastvalidate.SeverityWarning {
		sev, colour = "warning", ansiYellow
	}
	if rd.style == report.Color {
		dst = append(dst, ansiBold...)
	}
	dst = append(dst, r.vd.Input...)
	dst = append(dst, ':')
	dst = strconv.AppendInt(dst, int64(r.vd.Line), 10)
	dst = append(dst, ':')
	if rd.style == report.Color {
		dst = append(dst, ansiReset+" "+colour+sev+ansiReset+": "+ansiCyan+f.rule+ansiReset...)
	} else {
		dst = append(dst, " "+sev+": "+f.rule...)
	}
	dst = append(dst, ": "+f.path+": "+f.message+"\n"...)
	return dst
}

// appendGitHubExtra writes a serving rule's finding as a workflow command,
// as report.AppendGitHub does a profile's.
func appendGitHubExtra(dst []byte, input string, line int, f *extraFinding) []byte {
	if f.severity == fastvalidate.SeverityWarning {
		dst = append(dst, "::warning file="...)
	} else {
		dst = append(dst, "::error file="...)
	}
	dst = appendGitHubEscaped(dst, input, true)
	dst = append(dst, ",line="...)
	dst = strconv.AppendInt(dst, int64(line), 10)
	dst = append(dst, ",title="...)
	dst = appendGitHubEscaped(dst, f.rule, true)
	dst = append(dst, "::"...)
	dst = appendGitHubEscaped(dst, f.path+": "+f.message, false)
	return append(dst, '\n')
}

// appendGitHubEscaped escapes as the Actions runner unescapes: data
// escapes %, CR and LF; a property also ':' and ','.
func appendGitHubEscaped(dst []byte, s string, property bool) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '%':
			dst = append(dst, "%25"...)
		case c == '\r':
			dst = append(dst, "%0D"...)
		case c == '\n':
			dst = append(dst, "%0A"...)
		case property && c == ':':
			dst = append(dst, "%3A"...)
		case property && c == ',':
			dst = append(dst, "%2C"...)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}
