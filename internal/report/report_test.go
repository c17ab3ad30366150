package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cardscan/cardscan/fastvalidate"
)

// judge validates card with the agentcard profile and returns the verdict
// with its findings copied, so that it outlives the validator's next call.
func judge(t testing.TB, card string) Verdict {
	t.Helper()
	v := fastvalidate.MustNew("agentcard")
	vd := FromResult("in.ndjson", 7, 3, 1234, []byte(card), v.Validate([]byte(card)))
	vd.Findings = append([]fastvalidate.Finding(nil), vd.Findings...)
	for i := range vd.Findings {
		vd.Findings[i].Path = strings.Clone(vd.Findings[i].Path)
	}
	return vd
}

const (
	validCard   = `{"agent_id":"01ARZ3NDEKTSV4RRFFQ69G5FAV","name":"n","version":"1.0.0","capabilities":[{"id":"a","description":"d"}],"endpoint":{"protocol":"https","url":"https://example.com/a"}}`
	invalidCard = `{"agent_id":"nope","name":"n","version":"1.0","capabilities":[{"id":"Bad ID"}],"endpoint":{"protocol":"http","url":"http://example.com/\u2028"}}`
	// prettyCard has findings on several lines, after non-ASCII text
	// and a tab on theirs, and one (the missing endpoint) reported at the
	// object that lacks it, before the others.
	prettyCard = "{\n  \"agent_id\": \"nope\",\n  \"name\": \"Ünïcödé\", \"version\": \"1.0\",\n\t\"capabilities\": [{\"id\": \"Bad ID\"},\n    {\"id\": \"ok\", \"description\": \"𝄞\"}, {\"id\": 7}]\n}"
)

// byPosition returns a copy of fs sorted by offset, findings at one
// offset in their order in fs: the order every format lists them in.
func byPosition(fs []fastvalidate.Finding) []fastvalidate.Finding {
	s := slices.Clone(fs)
	slices.SortStableFunc(s, func(a, b fastvalidate.Finding) int { return a.Offset - b.Offset })
	return s
}

type jsonFinding struct {
	Rule    string `json:"rule"`
	Path    string `json:"path"`
	Message string `json:"message"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
}

// wantLocation is where a finding at offset off of card is, card starting
// at line and column, counted with the strings package.
func wantLocation(card string, line, column, off int) Location {
	before := card[:off]
	if nl := strings.LastIndexByte(before, '\n'); nl >= 0 {
		return Location{line + strings.Count(before, "\n"), 1 + utf8.RuneCountInString(before[nl+1:])}
	}
	return Location{line, column + utf8.RuneCountInString(before)}
}

func TestAppendJSONLMatchesFindings(t *testing.T) {
	for _, card := range []string{validCard, invalidCard, prettyCard, `[1]`, `{"a":`, "\"{\\\"x\\\":1}\"", "\"\\u00e9\\n{\\\"x\\\":1}\""} {
		vd := judge(t, card)
		var e Encoder
		line := e.AppendJSONL(nil, &vd)
		if !bytes.HasSuffix(line, []byte("}\n")) || bytes.Count(line, []byte("\n")) != 1 {
			t.Fatalf("%s: not one line: %q", card, line)
		}
		var keys map[string]json.RawMessage
		if err := json.Unmarshal(line, &keys); err != nil {
			t.Fatalf("%s: %v: %s", card, err, line)
		}
		var got []string
		for k := range keys {
			got = append(got, k)
		}
		want := []string{"errors", "input", "line", "offset", "profile", "valid", "warnings"}
		if !sameSet(got, want) {
			t.Errorf("keys %v, want %v", got, want)
		}
		var rec struct {
			Input    string        `json:"input"`
			Line     int           `json:"line"`
			Offset   int64         `json:"offset"`
			Valid    bool          `json:"valid"`
			Profile  string        `json:"profile"`
			Errors   []jsonFinding `json:"errors"`
			Warnings []jsonFinding `json:"warnings"`
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Errors == nil || rec.Warnings == nil {
			t.Errorf("%s: errors and warnings must be arrays, never null: %s", card, line)
		}
		var wantErr, wantWarn []jsonFinding
		for _, f := range byPosition(vd.Findings) {
			loc := wantLocation(card, vd.Line, vd.Column, f.Offset)
			jf := jsonFinding{f.Code.String(), f.Path, f.Message(), loc.Line, loc.Column}
			if !utf8.ValidString(jf.Message) {
				jf.Message = strings.ToValidUTF8(jf.Message, "\uFFFD")
			}
			if f.Severity == fastvalidate.SeverityWarning {
				wantWarn = append(wantWarn, jf)
			} else {
				wantErr = append(wantErr, jf)
			}
		}
		if rec.Input != vd.Input || rec.Line != vd.Line || rec.Offset != vd.Offset || rec.Valid != vd.Valid || rec.Profile != vd.Profile {
			t.Errorf("%s: header %+v, want %+v", card, rec, vd)
		}
		if len(rec.Errors)+len(wantErr) > 0 && !reflect.DeepEqual(rec.Errors, wantErr) {
			t.Errorf("%s: errors %+v, want %+v", card, rec.Errors, wantErr)
		}
		if len(rec.Warnings)+len(wantWarn) > 0 && !reflect.DeepEqual(rec.Warnings, wantWarn) {
			t.Errorf("%s: warnings %+v, want %+v", card, rec.Warnings, wantWarn)
		}
	}
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]int{}
	for _, s := range a {
		seen[s]++
	}
	for _, s := range b {
		seen[s]--
	}
	for _, n := range seen {
		if n != 0 {
			return false
		}
	}
	return true
}

func TestAppendJSONStringRoundTrips(t *testing.T) {
	cases := []string{"", "plain", `"quoted" \ back`, "\x00\x01\x1f\x7f", "tab\tnl\ncr\r", "é ☃ 𝄞", "\u2028\u2029", "<&>"}
	for _, s := range cases {
		enc := AppendJSONString(nil, s)
		var got string
		if err := json.Unmarshal(enc, &got); err != nil {
			t.Fatalf("%q -> %s: %v", s, enc, err)
		}
		if got != s {
			t.Errorf("%q -> %s -> %q", s, enc, got)
		}
		if bytes.ContainsAny(enc, "\u2028\u2029\x7f") {
			t.Errorf("%q -> %q: line separators and DEL must be escaped", s, enc)
		}
	}
	// Invalid UTF-8 cannot round-trip; it must still give valid JSON.
	enc := AppendJSONString(nil, "a\xffb\xc3")
	if !json.Valid(enc) || !utf8.Valid(enc) {
		t.Errorf("invalid UTF-8 gave %q", enc)
	}
	var got string
	_ = json.Unmarshal(enc, &got)
	if got != "a\uFFFDb\uFFFD" {
		t.Errorf("invalid UTF-8 decoded to %q", got)
	}
}

// FuzzAppendJSONString requires the output to be valid JSON that decodes
// to what encoding/json makes of the same string (each invalid byte
// U+FFFD), and to hold no raw DEL or line separator.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"a\"b\\c\x00\u2028\xff", "\x00\x01\x1f\x7f", "bad \xff\xfe utf8 \xe2\x82", "é ü 日本 🙂"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		enc := AppendJSONString(nil, s)
		var got string
		if err := json.Unmarshal(enc, &got); err != nil {
			t.Fatalf("%q -> %q: %v", s, enc, err)
		}
		ref, _ := json.Marshal(s)
		var want string
		if err := json.Unmarshal(ref, &want); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("%q -> %q decodes to %q, want %q", s, enc, got, want)
		}
		if bytes.ContainsAny(enc, "\x7f\u2028\u2029") || !utf8.Valid(enc) {
			t.Fatalf("%q -> %q: raw DEL, line separator or invalid UTF-8", s, enc)
		}
	})
}

func TestTooLarge(t *testing.T) {
	vd := TooLarge("big.ndjson", 3, 5, 99, 16<<20)
	var e Encoder
	got := string(e.AppendJSONL(nil, &vd))
	want := `{"input":"big.ndjson","line":3,"offset":99,"valid":false,"profile":"","errors":[{"rule":"input.too-large","path":"","message":"record longer than the 16MiB limit (--max-record)","line":3,"column":5}],"warnings":[]}` + "\n"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	errs := 0
	vd.CountRules(func(code fastvalidate.Code, sev fastvalidate.Severity, n int) {
		if code == fastvalidate.CodeInputTooLarge && sev == fastvalidate.SeverityError {
			errs += n
		}
	})
	if errs != 1 {
		t.Errorf("counted %d input.too-large errors, want 1", errs)
	}
}

func TestAppendText(t *testing.T) {
	vd := judge(t, prettyCard)
	var e Encoder
	out := string(e.AppendText(nil, &vd, Plain))
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(vd.Findings) {
		t.Fatalf("%d lines for %d findings:\n%s", len(lines), len(vd.Findings), out)
	}
	for i, f := range byPosition(vd.Findings) {
		parts := strings.SplitN(lines[i], ": ", 5)
		if len(parts) != 5 {
			t.Fatalf("line %q does not split into 5 fields", lines[i])
		}
		loc := wantLocation(prettyCard, 7, 3, f.Offset)
		if want := fmt.Sprintf("in.ndjson:%d:%d", loc.Line, loc.Column); parts[0] != want {
			t.Errorf("location %q, want %q", parts[0], want)
		}
		path := f.Path
		if path == "" {
			path = `""`
		}
		if parts[1] != f.Severity.String() || parts[2] != f.Code.String() || parts[3] != path {
			t.Errorf("line %q for finding %v", lines[i], f)
		}
	}
	col := string(e.AppendText(nil, &vd, Color))
	if !strings.Contains(col, "\x1b[") || stripANSI(col) != out {
		t.Errorf("coloured text differs from plain beyond escapes:\n%q\n%q", col, out)
	}
}

func stripANSI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b {
			for i < len(s) && s[i] != 'm' {
				i++
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func TestAppendTextEscapesControls(t *testing.T) {
	got := string(appendTextSafe(nil, "a\nb\x1b[31m\xff\u0085é"))
	want := `a\x0ab\x1b[31m\xff\u0085é`
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestAppendGitHub(t *testing.T) {
	vd := judge(t, prettyCard)
	vd.Input = "dir,with:odd%name\n"
	var e Encoder
	out := string(e.AppendGitHub(nil, &vd))
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(vd.Findings) {
		t.Fatalf("%d lines for %d findings:\n%s", len(lines), len(vd.Findings), out)
	}
	for i, f := range byPosition(vd.Findings) {
		loc := wantLocation(prettyCard, 7, 3, f.Offset)
		want := fmt.Sprintf("::%s file=dir%%2Cwith%%3Aodd%%25name%%0A,line=%d,col=%d,title=%s::%s: ", f.Severity, loc.Line, loc.Column, f.Code, f.Path)
		if f.Path == "" {
			want = strings.TrimSuffix(want, ": ")
		}
		if !strings.HasPrefix(lines[i], want) {
			t.Errorf("line %q, want prefix %q", lines[i], want)
		}
	}
}

func TestRenderersDoNotAllocate(t *testing.T) {
	v := fastvalidate.MustNew("agentcard")
	var e Encoder
	buf := make([]byte, 0, 1<<16)
	for _, card := range [][]byte{[]byte(validCard), []byte(invalidCard), []byte(prettyCard)} {
		render := func() {
			vd := FromResult("x.ndjson", 1, 1, 0, card, v.Validate(card))
			buf = e.AppendJSONL(buf[:0], &vd)
			buf = e.AppendText(buf, &vd, Color)
			buf = e.AppendGitHub(buf, &vd)
			buf = e.AppendTextOK(buf, &vd, Plain)
			buf = e.AppendSARIF(buf, &vd)
			buf = e.AppendJUnit(buf, &vd, true)
			buf = e.AppendCodeQuality(buf, &vd)
		}
		render()
		if n := testing.AllocsPerRun(100, render); n != 0 {
			t.Errorf("rendering allocates %v times per card", n)
		}
	}
}

func BenchmarkEncoder_AppendJSONL(b *testing.B) {
	v := fastvalidate.MustNew("agentcard")
	card := []byte(invalidCard)
	var e Encoder
	var buf []byte
	b.ReportAllocs()
	b.SetBytes(int64(len(card)))
	for b.Loop() {
		vd := FromResult("x.ndjson", 1, 1, 0, card, v.Validate(card))
		buf = e.AppendJSONL(buf[:0], &vd)
	}
}

// A finding the card repeats with the same value is listed once, says how
// often in every format, and counts as often as it occurs.
func TestRepeatedFindingCountsEveryOccurrence(t *testing.T) {
	caps := strings.TrimSuffix(strings.Repeat(`{"id":"Bad ID","description":"d"},`, 5), ",")
	vd := judge(t, `{"agent_id":"01ARZ3NDEKTSV4RRFFQ69G5FAV","name":"n","version":"1.0.0","capabilities":[`+caps+`],"endpoint":{"protocol":"https","url":"https://example.com/a"}}`)
	if len(vd.Findings) != 1 || vd.Findings[0].Count != 5 {
		t.Fatalf("findings %v, want one with Count 5", vd.Findings)
	}
	n := 0
	vd.CountRules(func(_ fastvalidate.Code, _ fastvalidate.Severity, k int) { n += k })
	if n != 5 {
		t.Errorf("CountRules counts %d, want 5", n)
	}
	var e Encoder
	for name, out := range map[string][]byte{
		"jsonl":  e.AppendJSONL(nil, &vd),
		"text":   e.AppendText(nil, &vd, Plain),
		"github": e.AppendGitHub(nil, &vd),
	} {
		if !bytes.Contains(out, []byte("5 times in the card, the first here")) {
			t.Errorf("%s: %s does not say how often", name, out)
		}
	}
}

// The findings of a verdict without the card's text are placed where the
// card starts.
func TestLocateWithoutCard(t *testing.T) {
	vd := judge(t, prettyCard)
	vd.Card = nil
	var e Encoder
	for _, loc := range e.locate(&vd) {
		if loc != (Location{7, 3}) {
			t.Errorf("location %v, want the card's start 7:3", loc)
		}
	}
}

// Text output says which A2A version judged an invalid card whose version
// its members chose, and when that version was assumed.
func TestAppendTextNamesTheVersion(t *testing.T) {
	const noMarker = `{"name":"n","description":"d","url":"https://a.example","version":"1","capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`
	withVersion := strings.Replace(noMarker, `"version"`, `"protocolVersion":"0.3.0","preferredTransport":"JSONRPC","version"`, 1)
	invalid := func(card string) string { return strings.Replace(card, `"https://a.example"`, `"a.example"`, 1) }
	for _, tc := range []struct {
		profile, card, want string
	}{
		{"auto", invalid(noMarker), "in.ndjson:7:1: note: judged as a2a/0.2 (assumed: no version marker)\n"},
		{"a2a", invalid(noMarker), "in.ndjson:7:1: note: judged as a2a/0.2 (assumed: no version marker)\n"},
		{"auto", invalid(withVersion), "in.ndjson:7:1: note: judged as a2a/0.3\n"},
		// A profile that names the version says nothing more.
		{"a2a/0.2", invalid(noMarker), ""},
		// Nor does a valid card's warning: its ok line (--all) names it.
		{"auto", strings.Replace(noMarker, `"text/plain"]`, `"text"]`, 1), ""},
	} {
		vd := FromResult("in.ndjson", 7, 1, 0, []byte(tc.card), fastvalidate.MustNew(tc.profile).Validate([]byte(tc.card)))
		var e Encoder
		out := string(e.AppendText(nil, &vd, Plain))
		note := ""
		if first, _, _ := strings.Cut(out, "\n"); strings.Contains(first, ": note: ") {
			note = first + "\n"
		}
		if note != tc.want {
			t.Errorf("%s: note %q, want %q; output:\n%s", tc.profile, note, tc.want, out)
		}
	}
	vd := FromResult("in.ndjson", 7, 1, 0, []byte(noMarker), fastvalidate.MustNew("auto").Validate([]byte(noMarker)))
	var e Encoder
	if got, want := string(e.AppendTextOK(nil, &vd, Plain)), "in.ndjson:7:1: ok: a2a/0.2 (assumed: no version marker)\n"; got != want {
		t.Errorf("ok line %q, want %q", got, want)
	}
}

func TestCodePoints(t *testing.T) {
	text := strings.Repeat("ascii only, then Ünïcödé 𝄞 and \xff\xfe bytes that are not UTF-8; ", 5)
	for i := 0; i <= len(text); i++ {
		for _, s := range []string{text[:i], text[i:]} {
			want := 0
			for _, c := range []byte(s) {
				if c&0xC0 != 0x80 {
					want++
				}
			}
			if got := CodePoints([]byte(s)); got != want {
				t.Fatalf("CodePoints(%q) = %d, want %d", s, got, want)
			}
			if utf8.ValidString(s) && want != utf8.RuneCountInString(s) {
				t.Fatalf("%q: %d, utf8 counts %d", s, want, utf8.RuneCountInString(s))
			}
		}
	}
}

func TestStart(t *testing.T) {
	for _, tc := range []struct {
		text, card   string
		line, column int
	}{
		{`{"a":1}`, `{"a":1}`, 1, 1},
		{"\n\n  \t{}", "{}", 3, 4},
		{"\r\n {}\n", "{}\n", 2, 2},
		{"  ", "", 1, 3},
	} {
		card, line, column, offset := Start([]byte(tc.text))
		if string(card) != tc.card || line != tc.line || column != tc.column || offset != int64(len(tc.text)-len(tc.card)) {
			t.Errorf("Start(%q) = %q, %d, %d, %d", tc.text, card, line, column, offset)
		}
	}
}

// positions returns the LINE:COLUMN of each finding line of out, in
// order, for the line-per-finding formats.
func positions(t *testing.T, format string, out []byte) []Location {
	t.Helper()
	var locs []Location
	for _, line := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		var loc Location
		switch format {
		case "text":
			if strings.Contains(line, ": note: ") {
				continue
			}
			parts := strings.SplitN(line, ":", 4)
			fmt.Sscanf(parts[1]+" "+parts[2], "%d %d", &loc.Line, &loc.Column)
		case "github":
			if strings.HasPrefix(line, "::notice") {
				continue
			}
			_, rest, _ := strings.Cut(line, ",line=")
			fmt.Sscanf(strings.Replace(rest, ",col=", " ", 1), "%d %d", &loc.Line, &loc.Column)
		case "sarif":
			if !strings.Contains(line, `"ruleId"`) {
				continue
			}
			_, rest, _ := strings.Cut(line, `"startLine":`)
			fmt.Sscanf(strings.Replace(rest, `,"startColumn":`, " ", 1), "%d %d", &loc.Line, &loc.Column)
		}
		locs = append(locs, loc)
	}
	return locs
}

func sorted(locs []Location) bool {
	for i := 1; i < len(locs); i++ {
		if a, b := locs[i-1], locs[i]; a.Line > b.Line || a.Line == b.Line && a.Column > b.Column {
			return false
		}
	}
	return true
}

// Every format lists a card's findings by position, as compilers and
// linters do, not in the order of the rules that found them.
func TestFindingsInPositionOrder(t *testing.T) {
	vd := judge(t, prettyCard)
	var e Encoder
	inRuleOrder := make([]Location, len(vd.Findings))
	for i, f := range vd.Findings {
		inRuleOrder[i] = wantLocation(prettyCard, 7, 3, f.Offset)
	}
	if sorted(inRuleOrder) {
		t.Fatalf("the card's findings are already in position order: %v", inRuleOrder)
	}
	for format, out := range map[string][]byte{
		"text":   e.AppendText(nil, &vd, Plain),
		"github": e.AppendGitHub(nil, &vd),
		"sarif":  e.AppendSARIF(nil, &vd),
	} {
		got := positions(t, format, out)
		if len(got) != len(vd.Findings) || !sorted(got) {
			t.Errorf("%s: positions %v, want the %d findings by position:\n%s", format, got, len(vd.Findings), out)
		}
	}
	var rec struct{ Errors, Warnings []jsonFinding }
	if err := json.Unmarshal(e.AppendJSONL(nil, &vd), &rec); err != nil {
		t.Fatal(err)
	}
	for _, list := range [][]jsonFinding{rec.Errors, rec.Warnings} {
		var got []Location
		for _, f := range list {
			got = append(got, Location{f.Line, f.Column})
		}
		if !sorted(got) {
			t.Errorf("jsonl: positions %v, want them in order", got)
		}
	}
}

// Findings at one position keep the order of their rules.
func TestFindingsAtOnePositionKeepRuleOrder(t *testing.T) {
	card := []byte(`{"a":1}`)
	vd := Verdict{Input: "in", Line: 1, Column: 1, Card: card, Findings: []fastvalidate.Finding{
		fastvalidate.NewFinding(fastvalidate.CodeJSONSyntax, fastvalidate.SeverityError, "/a", "second"),
		fastvalidate.NewFinding(fastvalidate.CodeJSONSyntax, fastvalidate.SeverityError, "", "first"),
		fastvalidate.NewFinding(fastvalidate.CodeJSONSyntax, fastvalidate.SeverityError, "", "also first"),
	}}
	vd.Findings[0].Offset = 5
	var e Encoder
	got := string(e.AppendText(nil, &vd, Plain))
	want := "in:1:1: error: json.syntax: \"\": first\nin:1:1: error: json.syntax: \"\": also first\nin:1:6: error: json.syntax: /a: second\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// GitHub annotations say, as text does, which A2A release the errors of
// a card whose members chose it assume: a notice at the card's start,
// before its findings.
func TestAppendGitHubNamesTheVersion(t *testing.T) {
	const card = `{"name":"n","description":"d","url":"a.example","version":"1","capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`
	for _, tc := range []struct{ profile, want string }{
		{"auto", "::notice file=in.ndjson,line=7,col=1::judged as a2a/0.2 (assumed: no version marker)\n"},
		{"a2a/0.2", ""},
	} {
		vd := FromResult("in.ndjson", 7, 1, 0, []byte(card), fastvalidate.MustNew(tc.profile).Validate([]byte(card)))
		var e Encoder
		out := string(e.AppendGitHub(nil, &vd))
		first, _, _ := strings.Cut(out, "\n")
		note := ""
		if strings.HasPrefix(first, "::notice") {
			note = first + "\n"
		}
		if note != tc.want || !strings.Contains(out, "::error ") {
			t.Errorf("%s: note %q, want %q; output:\n%s", tc.profile, note, tc.want, out)
		}
	}
}

// TestEmptyPointer: a finding on the card itself (pointer "") shows its
// pointer as "" in text, so the line keeps its five fields and reads as
// docs/cli.md says, not "RULE: : message"; github and SARIF messages,
// which are prose, leave the empty pointer out.
func TestEmptyPointer(t *testing.T) {
	vd := TooLarge("in.ndjson", 3, 1, 0, 1<<10)
	var e Encoder
	text := string(e.AppendText(nil, &vd, Plain))
	if want := "in.ndjson:3:1: error: input.too-large: \"\": record longer than the 1KiB limit (--max-record)\n"; text != want {
		t.Errorf("text %q, want %q", text, want)
	}
	if parts := strings.SplitN(strings.TrimSuffix(text, "\n"), ": ", 5); len(parts) != 5 || parts[3] != `""` {
		t.Errorf("text %q does not split into five fields with the pointer \"\"", text)
	}
	gh := string(e.AppendGitHub(nil, &vd))
	if want := "::error file=in.ndjson,line=3,col=1,title=input.too-large::record longer than the 1KiB limit (--max-record)\n"; gh != want {
		t.Errorf("github %q, want %q", gh, want)
	}
}

// TestAppendTextNoWorkflowCommand: a text line starts with the input's
// name, and a GitHub Actions runner obeys any line of a step's output
// that starts with "::" as a workflow command: a card file named
// "::warning::x/agent.json" forged an annotation when a workflow chose
// the text format. Such a name is written "./::warning::x/agent.json",
// the same file.
func TestAppendTextNoWorkflowCommand(t *testing.T) {
	for _, name := range []string{"::warning::x/agent.json", " ::error title=t::forged.json"} {
		vd := judge(t, prettyCard)
		vd.Input = name
		var e Encoder
		for _, style := range []Style{Plain, Color} {
			out := string(e.AppendText(nil, &vd, style))
			out += string(e.AppendTextOK(nil, &vd, style))
			for _, line := range strings.Split(strings.TrimSuffix(stripANSI(out), "\n"), "\n") {
				if strings.HasPrefix(strings.TrimLeft(line, " \t"), "::") {
					t.Errorf("%q, style %v: line %q starts a workflow command", name, style, line)
				}
				if !strings.HasPrefix(line, "./") {
					t.Errorf("%q, style %v: line %q does not name the file as ./NAME", name, style, line)
				}
			}
		}
	}
	vd := judge(t, prettyCard)
	var e Encoder
	if out := string(e.AppendText(nil, &vd, Plain)); !strings.HasPrefix(out, "in.ndjson:") {
		t.Errorf("an ordinary name changed: %q", out)
	}
}
