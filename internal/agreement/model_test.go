package agreement

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/report"
	"github.com/cardscan/cardscan/internal/visible"
)

// finding is one finding as a surface shows it: shown is its pointer and
// message as that surface writes them (see the render functions), line
// and column where it places it, counted as the CLI counts them.
type finding struct {
	rule, severity, shown string
	line, column          int
}

func (f finding) String() string {
	return fmt.Sprintf("%d:%d %s %s %q", f.line, f.column, f.severity, f.rule, f.shown)
}

// verdict is what a surface says of one card.
type verdict struct {
	valid    bool
	profile  string
	findings []finding
}

// sortFindings orders findings by place, then by everything else, so that
// two surfaces' lists compare as multisets (the jsonl record splits
// errors from warnings).
func sortFindings(fs []finding) {
	slices.SortFunc(fs, func(a, b finding) int {
		if a.line != b.line {
			return a.line - b.line
		}
		if a.column != b.column {
			return a.column - b.column
		}
		return strings.Compare(a.String(), b.String())
	})
}

// refFinding is a finding as the library gives it: its message's bytes as
// they are, placed by byte offset in the card's file.
type refFinding struct {
	rule, severity, path, message string
	offset                        int
}

// reference is what fastvalidate says of a card: the verdict the others
// are held to.
type reference struct {
	valid    bool
	profile  string
	findings []refFinding
}

// judge is the library surface: the card judged as a file holding one
// card is judged (from its first byte that is not white space), each
// finding placed at its offset in the file.
func judge(v *fastvalidate.Validator, text []byte) reference {
	c, _, _, start := report.Start(text)
	res := v.Validate(c)
	ref := reference{valid: res.Valid(), profile: res.Profile}
	for _, f := range res.Findings() {
		ref.findings = append(ref.findings, refFinding{rule: f.Rule(), severity: f.Severity.String(),
			path: strings.Clone(f.Path), message: f.Message(), offset: int(start) + f.Offset})
	}
	return ref
}

// render is how a surface writes a finding's pointer and message.
type render func(path, message string) string

// raw is the JSON surfaces' rendering: the pointer and message as they
// are, less what no JSON string can hold (a byte that is not UTF-8 is
// U+FFFD).
func raw(path, message string) string {
	return jsonText(path) + "\x00" + jsonText(message)
}

func jsonText(s string) string {
	b, _ := json.Marshal(s)
	var out string
	_ = json.Unmarshal(b, &out)
	return out
}

// joined is "/pointer: message", or the message alone for the card
// itself, as github, sarif, codequality and the language server write it.
func joined(path, message string) string {
	if path == "" {
		return message
	}
	return path + ": " + message
}

// textRender is the text format's: the card itself's pointer is "", and
// controls, invalid UTF-8 and hidden characters are escaped.
func textRender(path, message string) string {
	if path == "" {
		path = `""`
	}
	return report.TextSafe(path + ": " + message)
}

// lspRender is the language server's diagnostic message.
func lspRender(path, message string) string { return report.TextSafe(joined(path, message)) }

// githubRender is a workflow command's message, as the runner reads it.
func githubRender(path, message string) string {
	return string(report.AppendGitHubData(nil, joined(path, message)))
}

// shownRender is Code Quality's description: hidden characters as
// <U+XXXX>, decoded from its JSON string.
func shownRender(path, message string) string {
	return jsonText(string(visible.Append(nil, joined(path, message))))
}

// sarifRender is SARIF's message.text: shown, with square brackets (and a
// backslash before one or before a backslash) escaped by a backslash, as
// SARIF 2.1.0 section 3.11.6 asks.
func sarifRender(path, message string) string {
	s := string(visible.Append(nil, joined(path, message)))
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '[' || c == ']' || c == '\\' && i+1 < len(s) && strings.ContainsRune(`[]\`, rune(s[i+1])) {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return jsonText(b.String())
}

// expect is the verdict a surface that renders with r must give, from the
// library's.
func (ref reference) expect(text []byte, r render, place func(text []byte, offset int) (int, int)) verdict {
	want := verdict{valid: ref.valid, profile: ref.profile}
	for _, f := range ref.findings {
		line, col := place(text, f.offset)
		want.findings = append(want.findings, finding{f.rule, f.severity, r(f.path, f.message), line, col})
	}
	sortFindings(want.findings)
	return want
}

// lineColumn is where docs/cli.md ("Locations") says offset is: lines
// counted by \n from 1, columns in characters from 1, a byte that is not
// UTF-8 counting as one unless it is a continuation byte, which counts as
// none. It is written from the docs, not taken from the code under test.
func lineColumn(text []byte, offset int) (line, column int) {
	line, column = 1, 1
	for i := 0; i < offset && i < len(text); i++ {
		switch c := text[i]; {
		case c == '\n':
			line, column = line+1, 1
		case c&0xC0 == 0x80:
		default:
			column++
		}
	}
	return line, column
}

// lspPosition is where the language server must place offset: lines ended
// by \n, \r\n or a lone \r, characters counted in UTF-16 code units, as
// LSP 3.17 says for the default position encoding.
func lspPosition(text []byte, offset int) (line, character int) {
	return lspPositionIn(text, offset, "utf-16")
}

// lspPositionIn is lspPosition in the position encoding enc: characters
// counted in UTF-8 bytes, UTF-16 code units or code points (utf-32).
func lspPositionIn(text []byte, offset int, enc string) (line, character int) {
	for i := 0; i < offset && i < len(text); {
		switch c := text[i]; {
		case c == '\n':
			line, character = line+1, 0
			i++
		case c == '\r':
			line, character = line+1, 0
			i++
			if i < len(text) && text[i] == '\n' && i < offset {
				i++
			}
		default:
			r, n := utf8.DecodeRune(text[i:])
			switch enc {
			case "utf-8":
				character += n
			case "utf-32":
				character++
			default:
				character += len(utf16.Encode([]rune{r}))
			}
			i += n
		}
	}
	return line, character
}
