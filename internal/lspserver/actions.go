package lspserver

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/cardscan/cardscan/fastvalidate"
)

// byteEdit replaces text[start:end] with repl.
type byteEdit struct {
	start, end int
	repl       string
}

func (e byteEdit) apply(text []byte) []byte {
	out := make([]byte, 0, len(text)+len(e.repl))
	out = append(out, text[:e.start]...)
	out = append(out, e.repl...)
	return append(out, text[e.end:]...)
}

// placeholders are the values tried for a missing member, in order: the
// first that makes the finding go away with the fewest findings in its
// place is offered.
var placeholders = []string{
	`"TODO"`, `"https://example.com/"`, `"1.0.0"`, `"01ARZ3NDEKTSV4RRFFQ69G5FAV"`,
	`["text/plain"]`, `{}`, `[]`, `0`, `false`,
}

// codeActions offers, for each finding in the requested range, the
// mechanical fix, if it has one, and then the card's migrations to other
// A2A releases. A fix is offered only when applying it and judging the
// card again shows the finding gone.
func (s *Server) codeActions(p codeActionParams) any {
	actions := []CodeAction{}
	d := s.docs[p.TextDocument.URI]
	if d == nil || d.text == nil || d.v == nil {
		return actions
	}
	li := newLineIndex(d.text, d.enc)
	from, to := li.offset(p.Range.Start), li.offset(p.Range.End)
	findings := append([]finding(nil), d.findings...)
	for _, f := range findings {
		if end := max(tokenEnd(d.text, f.offset), f.offset+1); end < from || f.offset > to {
			continue
		}
		if !kindWanted("quickfix", p.Context.Only) {
			break
		}
		title, edit, ok := s.fix(d, f)
		if !ok {
			continue
		}
		diag := f.diagnostic(li, d.text)
		actions = append(actions, CodeAction{
			Title: title, Kind: "quickfix", Diagnostics: []Diagnostic{diag}, IsPreferred: true,
			Edit: WorkspaceEdit{Changes: map[string][]TextEdit{d.uri: {{
				Range:   Range{Start: li.position(edit.start), End: li.position(edit.end)},
				NewText: edit.repl,
			}}}},
		})
	}
	return append(actions, s.migrateActions(d, p.Context.Only)...)
}

// fix returns the mechanical fix of a finding, checked to remove it.
func (s *Server) fix(d *document, f finding) (string, byteEdit, bool) {
	var candidates []byteEdit
	var title string
	switch {
	case f.code == fastvalidate.CodeA2AFieldName:
		key, ok := keyBefore(d.text, f.offset)
		if !ok {
			return "", byteEdit{}, false
		}
		camel := camelCase(unquote(d.text[key.start:key.end]))
		title = "Rename to " + camel
		candidates = []byteEdit{{key.start, key.end, strconv.Quote(camel)}}
	case strings.HasPrefix(f.message, "missing required member") && !strings.Contains(f.message, "the card spells it"):
		name := lastSegment(f.path)
		if f.offset >= len(d.text) || d.text[f.offset] != '{' {
			return "", byteEdit{}, false
		}
		title = "Add the required member " + name
		for _, v := range placeholders {
			candidates = append(candidates, insertMember(d.text, f.offset, name, v))
		}
	case strings.Contains(f.message, "expected number") && f.offset < len(d.text) && d.text[f.offset] == '"':
		end := tokenEnd(d.text, f.offset)
		// The string must hold a JSON number and nothing else: "1.0" does,
		// " 1", "NaN" and "0x10" do not.
		var str string
		if json.Unmarshal(d.text[f.offset:end], &str) != nil || str == "" ||
			!(str[0] == '-' || str[0] >= '0' && str[0] <= '9') || !json.Valid([]byte(str)) || strings.TrimSpace(str) != str {
			return "", byteEdit{}, false
		}
		title = "Write " + str + " as a number"
		candidates = []byteEdit{{f.offset, end, str}}
	default:
		return "", byteEdit{}, false
	}
	best, bestCount := -1, 0
	for i, e := range candidates {
		after, _ := validate(d.v, e.apply(d.text), nil)
		if hasFinding(after, f.code, f.path) {
			continue
		}
		if best < 0 || len(after) < bestCount {
			best, bestCount = i, len(after)
		}
	}
	if best < 0 {
		return "", byteEdit{}, false
	}
	return title, candidates[best], true
}

func hasFinding(fs []finding, code fastvalidate.Code, path string) bool {
	for _, f := range fs {
		if f.code == code && f.path == path {
			return true
		}
	}
	return false
}

// keyBefore finds the member name whose value starts at off.
func keyBefore(text []byte, off int) (span struct{ start, end int }, ok bool) {
	i := off - 1
	for i >= 0 && isSpace(text[i]) {
		i--
	}
	if i < 0 || text[i] != ':' {
		return span, false
	}
	i--
	for i >= 0 && isSpace(text[i]) {
		i--
	}
	if i < 0 || text[i] != '"' {
		return span, false
	}
	span.end = i + 1
	for i--; i >= 0; i-- {
		if text[i] == '"' && (i == 0 || text[i-1] != '\\') {
			span.start = i
			return span, true
		}
	}
	return span, false
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// camelCase spells a snake_case name as A2A's JSON does:
// supported_interfaces becomes supportedInterfaces.
func camelCase(snake string) string {
	parts := strings.Split(snake, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

func lastSegment(ptr string) string {
	seg := ptr[strings.LastIndexByte(ptr, '/')+1:]
	return strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
}

// insertMember adds "name": value as the first member of the object at
// open, on a line of its own indented like the object's next line when
// the object spans lines, ended as that line's predecessor is ("\n",
// "\r\n" or "\r").
func insertMember(text []byte, open int, name, value string) byteEdit {
	member := strconv.Quote(name) + ": " + value
	i := open + 1
	for i < len(text) && isSpace(text[i]) {
		i++
	}
	if i < len(text) && text[i] == '}' {
		return byteEdit{open + 1, i, member}
	}
	gap := text[open+1 : i]
	if nl := bytes.IndexAny(gap, "\r\n"); nl >= 0 {
		end := gap[nl : nl+1]
		if bytes.HasPrefix(gap[nl:], []byte("\r\n")) {
			end = gap[nl : nl+2]
		}
		indent := gap[nl+len(end):]
		if j := bytes.LastIndexAny(indent, "\r\n"); j >= 0 {
			indent = indent[j+1:] // blank lines between: the last line's
		}
		return byteEdit{open + 1, open + 1, string(end) + string(indent) + member + ","}
	}
	return byteEdit{open + 1, open + 1, member + ", "}
}
