package report

import (
	"bytes"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/visible"
)

// JUnit XML, as Jenkins, GitLab and Azure Pipelines read test reports
// (checked against the Jenkins xunit plugin's junit-10.xsd): one test suite
// whose test cases are cards. A card with findings is a test case, failed
// when the card is invalid, with the text format's lines for the card as
// the failure's text (or as its system-out, for a valid card's warnings);
// with all, every valid card is a passing test case too. The suite's
// counts open the document, so a run writes the test cases through a
// JUnitWriter, which counts them, into a spool, and writes the head,
// the spool and the tail at the end.

// AppendJUnit appends v's test case, or nothing for a valid card without
// findings unless all is set.
func (e *Encoder) AppendJUnit(dst []byte, v *Verdict, all bool) []byte {
	if len(v.Findings) == 0 && v.Valid && !all {
		return dst
	}
	dst = append(dst, `<testcase name="card at `...)
	dst = AppendLocation(dst, v.start())
	dst = append(dst, `" classname="`...)
	dst = appendXML(dst, v.Input, true)
	dst = append(dst, '"')
	if len(v.Findings) == 0 && len(v.Unlisted) == 0 {
		return append(dst, "/>\n"...)
	}
	dst = append(dst, '>')
	e.text = e.AppendText(e.text[:0], v, Plain)
	if v.Valid {
		dst = append(dst, "<system-out>"...)
		dst = appendXML(dst, e.text, false)
		return append(dst, "</system-out></testcase>\n"...)
	}
	errs, warns := 0, 0
	v.CountRules(func(_ fastvalidate.Code, sev fastvalidate.Severity, n int) {
		if sev == fastvalidate.SeverityWarning {
			warns += n
		} else {
			errs += n
		}
	})
	dst = append(dst, `<failure message="`...)
	dst = appendCount(dst, errs, "error")
	if warns > 0 {
		dst = append(dst, ", "...)
		dst = appendCount(dst, warns, "warning")
	}
	dst = append(dst, `" type="`...)
	// The rule of the first error by position (of the first warning when
	// --fail-on warning failed the card on warnings alone).
	first := -1
	for _, i := range e.order {
		if first < 0 || v.Findings[i].Severity == fastvalidate.SeverityError && v.Findings[first].Severity != fastvalidate.SeverityError {
			first = int(i)
		}
	}
	if first >= 0 {
		dst = append(dst, v.Findings[first].Code.String()...)
	}
	dst = append(dst, `">`...)
	dst = appendXML(dst, e.text, false)
	return append(dst, "</failure></testcase>\n"...)
}

func appendCount(dst []byte, n int, noun string) []byte {
	dst = strconv.AppendInt(dst, int64(n), 10)
	dst = append(dst, ' ')
	dst = append(dst, noun...)
	if n != 1 {
		dst = append(dst, 's')
	}
	return dst
}

// JUnitTotals are the counts the document's head gives.
type JUnitTotals struct {
	Tests, Failures, Errors int64
}

// AppendJUnitHead appends the XML declaration and the opening of the test
// suites and the one suite, named name, with their counts.
func AppendJUnitHead(dst []byte, name string, t JUnitTotals) []byte {
	dst = append(dst, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"...)
	for _, el := range []string{"testsuites", "testsuite"} {
		dst = append(dst, '<')
		dst = append(dst, el...)
		dst = append(dst, ` name="`...)
		dst = appendXML(dst, name, true)
		dst = append(dst, `" tests="`...)
		dst = strconv.AppendInt(dst, t.Tests, 10)
		dst = append(dst, `" failures="`...)
		dst = strconv.AppendInt(dst, t.Failures, 10)
		dst = append(dst, `" errors="`...)
		dst = strconv.AppendInt(dst, t.Errors, 10)
		dst = append(dst, "\">\n"...)
	}
	return dst
}

// AppendJUnitTail appends a test case in error for each of notes (inputs
// that could not be read), and closes the suite and the document. Their
// number is JUnitTotals.Errors, and they count among its Tests.
func AppendJUnitTail(dst []byte, notes []string) []byte {
	for _, n := range notes {
		dst = append(dst, `<testcase name="input" classname="cardscan"><error message="`...)
		dst = appendXML(dst, n, true)
		dst = append(dst, "\" type=\"input\"/></testcase>\n"...)
	}
	return append(dst, "</testsuite>\n</testsuites>\n"...)
}

// JUnitWriter passes the test cases AppendJUnit rendered on to W and
// counts them and their failures. Markup cannot occur inside their text,
// whose '<' is escaped, so counting the tags counts the cases.
type JUnitWriter struct {
	W               io.Writer
	tests, failures int64
}

var (
	junitCase    = []byte("<testcase ")
	junitFailure = []byte("<failure ")
)

func (j *JUnitWriter) Write(p []byte) (int, error) {
	j.tests += int64(bytes.Count(p, junitCase))
	j.failures += int64(bytes.Count(p, junitFailure))
	return j.W.Write(p)
}

// Totals returns the test cases and failures written so far.
func (j *JUnitWriter) Totals() JUnitTotals {
	return JUnitTotals{Tests: j.tests, Failures: j.failures}
}

// appendXML escapes s as XML 1.0 character data, or as an attribute value
// with attr. Text is escaped as the text format escapes it (control
// characters and invalid UTF-8 as \xNN, hidden characters as <U+202E>),
// so that every byte reaches the document in a form XML allows and a
// reader sees every character; line ends in character data are kept.
func appendXML[T string | []byte](dst []byte, s T, attr bool) []byte {
	const hex = "0123456789abcdef"
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '&':
			dst = append(dst, "&amp;"...)
		case c == '<':
			dst = append(dst, "&lt;"...)
		case c == '>':
			dst = append(dst, "&gt;"...)
		case c == '"' && attr:
			dst = append(dst, "&quot;"...)
		case c == '\n' && !attr:
			dst = append(dst, c)
		case c < 0x20 || c == 0x7f:
			dst = append(dst, '\\', 'x', hex[c>>4], hex[c&0xf])
		case c < utf8.RuneSelf:
			dst = append(dst, c)
		default:
			r, size := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
			switch {
			case r == utf8.RuneError && size == 1:
				dst = append(dst, '\\', 'x', hex[c>>4], hex[c&0xf])
			case r == 0xFFFE || r == 0xFFFF || r >= 0x80 && r < 0xa0:
				// Not XML characters (U+FFFE, U+FFFF), or C1 controls.
				dst = append(dst, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
			case visible.Hidden(r):
				var cp [12]byte
				dst = appendXML(dst, visible.AppendCodePoint(cp[:0], r), attr)
			default:
				dst = append(dst, s[i:i+size]...)
			}
			i += size
			continue
		}
		i++
	}
	return dst
}
