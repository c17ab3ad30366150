package report

import (
	"encoding/hex"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cardscan/cardscan/fastvalidate"
)

// GitLab Code Quality, the subset of the Code Climate issue format that
// GitLab's merge request widget reads (docs.gitlab.com/ci/testing/code_quality):
// a JSON array with an object per finding. It streams as SARIF does: "["
// before the first card, AppendCodeQuality per verdict, each issue preceded
// by a comma that a ListWriter drops before the first, and "]" after the
// last.

// CodeQualityHead and CodeQualityTail open and close the array.
const (
	CodeQualityHead = "["
	CodeQualityTail = "\n]\n"
)

// AppendCodeQuality appends one issue per finding of v, each on a line of
// its own and preceded by a comma:
//
//	{"description":"/pointer: message","check_name":RULE,"fingerprint":HEX,
//	 "severity":"major","location":{"path":PATH,"lines":{"begin":LINE}}}
//
// Errors are major and warnings minor. The path is the input's, relative
// to the working directory when it lies below it. The fingerprint, which
// GitLab matches issues across pipelines by, hashes the rule, the path,
// where the card starts, the pointer and the message, and how many of the
// card's findings before this one share all of them: stable from run to
// run, and one per finding.
func (e *Encoder) AppendCodeQuality(dst []byte, v *Verdict) []byte {
	if len(v.Findings) == 0 {
		return dst
	}
	path := e.codeQualityPath(v.Input)
	locs := e.locate(v)
	for k, i := range e.order {
		f := &v.Findings[i]
		e.msg = appendDescription(e.msg[:0], f)
		dst = append(dst, ",\n{\"description\":"...)
		dst = e.appendJSONShown(dst, e.msg)
		dst = append(dst, `,"check_name":`...)
		dst = AppendJSONString(dst, f.Code.String())
		dst = append(dst, `,"fingerprint":"`...)
		dst = e.appendCodeQualityFingerprint(dst, v, path, f, e.repeats(v, k))
		if f.Severity == fastvalidate.SeverityWarning {
			dst = append(dst, `","severity":"minor"`...)
		} else {
			dst = append(dst, `","severity":"major"`...)
		}
		dst = append(dst, `,"location":{"path":`...)
		dst = AppendJSONString(dst, path)
		dst = append(dst, `,"lines":{"begin":`...)
		dst = strconv.AppendInt(dst, int64(locs[i].Line), 10)
		dst = append(dst, "}}}"...)
	}
	return dst
}

// repeats counts the findings before the k'th (in e.order) with the same
// rule, pointer and message: e.msg holds the k'th's message.
func (e *Encoder) repeats(v *Verdict, k int) int {
	n := 0
	f := &v.Findings[e.order[k]]
	for _, j := range e.order[:k] {
		g := &v.Findings[j]
		if g.Code == f.Code && g.Path == f.Path && e.sameMessage(g) {
			n++
		}
	}
	return n
}

func (e *Encoder) appendCodeQualityFingerprint(dst []byte, v *Verdict, path string, f *fastvalidate.Finding, repeat int) []byte {
	if e.cqHash == nil {
		e.cqHash = fnv.New128a()
	}
	e.cqHash.Reset()
	b := e.fpBuf[:0]
	b = append(append(b, f.Code.String()...), 0)
	b = append(append(b, path...), 0)
	b = AppendLocation(b, v.start())
	b = append(append(b, 0), f.Path...)
	b = append(append(b, 0), e.msg...)
	b = strconv.AppendInt(append(b, 0), int64(repeat), 10)
	e.fpBuf = b
	e.cqHash.Write(b)
	e.cqDigest = e.cqHash.Sum(e.cqDigest[:0])
	return hex.AppendEncode(dst, e.cqDigest)
}

// codeQualityPath returns input's path as the report names it: relative
// to the working directory, with forward slashes, when it lies below it.
// The last input's is kept, since a chunk's verdicts share theirs.
func (e *Encoder) codeQualityPath(input string) string {
	if e.cqSet && e.cqOf == input {
		return e.cqPath
	}
	e.cqOf, e.cqSet = input, true
	p := filepath.Clean(input)
	if filepath.IsAbs(p) {
		if wd, err := os.Getwd(); err == nil {
			if rel, err := filepath.Rel(wd, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				p = rel
			}
		}
	}
	e.cqPath = filepath.ToSlash(p)
	return e.cqPath
}

// ListWriter passes on to W the items of a JSON array that a renderer
// wrote each preceded by a comma, dropping the comma before the first.
type ListWriter struct {
	W       io.Writer
	started bool
}

func (l *ListWriter) Write(p []byte) (int, error) {
	n := len(p)
	if n == 0 {
		return 0, nil
	}
	if !l.started {
		l.started = true
		if p[0] == ',' {
			p = p[1:]
		}
	}
	if _, err := l.W.Write(p); err != nil {
		return 0, err
	}
	return n, nil
}

// sameMessage reports whether g's description is e.msg.
func (e *Encoder) sameMessage(g *fastvalidate.Finding) bool {
	e.text = appendDescription(e.text[:0], g)
	return string(e.text) == string(e.msg)
}

// appendDescription appends "/pointer: message", or the message alone for
// the card itself.
func appendDescription(dst []byte, f *fastvalidate.Finding) []byte {
	if f.Path != "" {
		dst = append(append(dst, f.Path...), ": "...)
	}
	return f.AppendMessage(dst)
}
