package compare

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/bench/internal/driver"
	"github.com/klauspost/compress/zstd"
	"github.com/valyala/fastjson"
)

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{9, 1, 1, 1, 100}, 1},
	} {
		if got := median(tc.in); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
	in := []float64{3, 1, 2}
	median(in)
	if in[0] != 3 || in[1] != 1 {
		t.Errorf("median sorted its argument in place: %v", in)
	}
}

func TestRotateVisitsEveryOrderStart(t *testing.T) {
	rows := []string{"a", "b", "c"}
	firsts := map[string]bool{}
	for r := range 3 {
		got := rotate(rows, r)
		if len(got) != 3 {
			t.Fatalf("rotate(%d) = %v", r, got)
		}
		firsts[got[0]] = true
		if strings.Join(got, "") != strings.Join(append(rows[r:], rows[:r]...), "") {
			t.Errorf("rotate(%d) = %v", r, got)
		}
	}
	if len(firsts) != 3 {
		t.Errorf("3 rounds started with only %v", firsts)
	}
	if rows[0] != "a" {
		t.Errorf("rotate changed its argument: %v", rows)
	}
}

func TestReasonKey(t *testing.T) {
	for _, tc := range []struct {
		why  string
		want string
	}{
		{"", "valid"},
		{"/capabilities/3/id: schema.pattern: does not match (got \"X\")", "/capabilities/*/id schema.pattern"},
		{"/capabilities/12/description: required: missing property 'description'", "/capabilities/*/description required"},
		{": schema.additionalProperties: extra", "/ schema.additionalProperties"},
		{"json: invalid character 'x' looking for beginning of value at 17", "json: invalid character 'x' looking"},
		{"json: unexpected end of JSON input 42", "json: unexpected end of JSON"},
		{"/a" + strings.Repeat("/0/a", 100) + ": json.depth: too deep", "/a/*/a/*/a/*/a/*/a/*/a/*/a/*/a/*/a/*/a/*…*/a/*/a/*/a/*/a/*/a json.depth"},
	} {
		v := Verdict{OK: tc.why == "", Why: tc.why}
		if got := reasonKey(v); got != tc.want {
			t.Errorf("reasonKey(%q) = %q, want %q", tc.why, got, tc.want)
		}
	}
}

func TestCompareSidesGroupsAndCountsStrictJSON(t *testing.T) {
	ok := Verdict{OK: true}
	bad := func(why string) Verdict { return Verdict{Why: why} }
	a := []Verdict{
		ok,
		bad("/name: json.duplicate-key: duplicate member"),
		bad("/endpoint/url: schema.format: not a URI"),
		bad("/endpoint/url: schema.format: not a URI either"),
		bad("/version: schema.pattern: no"),
		ok,
	}
	b := []Verdict{
		ok,
		ok,
		ok,
		ok,
		bad("/version: pattern: no"),
		bad("/capabilities/0/id: pattern: no"),
	}
	cmp := compareSides(Side{Key: "a", Verdicts: a}, Side{Key: "b", Verdicts: b})
	if cmp.Differ != 4 {
		t.Errorf("Differ = %d, want 4", cmp.Differ)
	}
	if cmp.StrictJSON != 1 {
		t.Errorf("StrictJSON = %d, want 1", cmp.StrictJSON)
	}
	if len(cmp.Groups) != 3 {
		t.Fatalf("groups = %d, want 3: %+v", len(cmp.Groups), cmp.Groups)
	}
	top := cmp.Groups[0]
	if top.Key != "/endpoint/url schema.format | valid" || top.Count != 2 || len(top.Examples) != 2 {
		t.Errorf("largest group = %+v", top)
	}
	if top.Examples[0].Index != 2 || top.Examples[1].Index != 3 {
		t.Errorf("examples of the largest group: %+v", top.Examples)
	}
	last := cmp.Groups[2]
	if last.Key != "valid | /capabilities/*/id pattern" || last.Examples[0].Index != 5 {
		t.Errorf("last group = %+v", last)
	}
}

func TestReadVerdicts(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "v")
	os.WriteFile(path, []byte("0\t1\n1\t0\t/x: rule: why\n2\t1\n3\t1\n"), 0o644)
	vs, err := readVerdicts(path, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 3 || !vs[0].OK || vs[1].OK || vs[1].Why != "/x: rule: why" || !vs[2].OK {
		t.Errorf("readVerdicts = %+v", vs)
	}
	if _, err := readVerdicts(path, 5); err == nil {
		t.Error("a listing with 4 verdicts was accepted for 5 cards")
	}
	os.WriteFile(path, []byte("0\t1\n2\t1\n"), 0o644)
	if _, err := readVerdicts(path, 2); err == nil {
		t.Error("a listing that skips a record was accepted")
	}
}

func TestTruncateLinesCutsAtLineEnd(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	lines := "aaaa\nbbbb\ncccc\ndddd\n"
	os.WriteFile(src, []byte(lines), 0o644)
	for _, tc := range []struct {
		limit int64
		want  string
	}{
		{1, "aaaa\n"},
		{5, "aaaa\n"},
		{6, "aaaa\nbbbb\n"},
		{100, lines},
	} {
		n, err := truncateLines(src, dst, tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(dst)
		if string(got) != tc.want || n != int64(len(tc.want)) {
			t.Errorf("limit %d: got %q (%d bytes), want %q", tc.limit, got, n, tc.want)
		}
	}
}

func TestCompactLineKeepsEveryValueByte(t *testing.T) {
	// Duplicate members and invalid UTF-8 are what the strict profiles
	// reject: compaction must hand them to every tool unchanged.
	pretty := []byte("{\n  \"name\": \"a\\u00e9 \xff\",\n  \"name\": \"b\",\r\n  \"list\": [ 1, 2 ]\n}\n")
	got := compactLine(pretty)
	want := []byte("{\"name\":\"a\\u00e9 \xff\",\"name\":\"b\",\"list\":[1,2]}")
	if !bytes.Equal(got, want) {
		t.Errorf("compactLine = %q, want %q", got, want)
	}
	notJSON := []byte("{\n  // a comment\n  \"a\": 1\n}\n")
	got = compactLine(notJSON)
	if bytes.ContainsAny(got, "\r\n") || json.Valid(got) {
		t.Errorf("non-JSON file became %q: it must stay one invalid line", got)
	}
}

func TestRealCardsOneLineEach(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "b.json"), []byte("{\n \"x\": 1\n}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "a.json"), []byte("[\n 1,\n 2\n]"), 0o644)
	os.WriteFile(filepath.Join(dir, "c.json"), []byte("{\n \"x\": \n"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("ignored"), 0o644)
	lines, uncompacted, err := realCards(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 3 || string(lines[0]) != "[1,2]" || string(lines[1]) != `{"x":1}` || string(lines[2]) != `{  "x":` {
		t.Errorf("lines = %q", lines)
	}
	if len(uncompacted) != 1 || uncompacted[0] != "c.json" {
		t.Errorf("uncompacted = %v", uncompacted)
	}
}

func TestPrepareDumpCompressesAndTruncates(t *testing.T) {
	dir := t.TempDir()
	dump := filepath.Join(dir, "d.ndjson")
	var content []byte
	for range 1000 {
		content = append(content, `{"a":"0123456789"}`+"\n"...)
	}
	os.WriteFile(dump, content, 0o644)
	tmp := t.TempDir()

	c, err := prepareDump(Corpus{Name: "d"}, dump, 0, tmp)
	if err != nil {
		t.Fatal(err)
	}
	if c.Path != dump || c.Bytes != int64(len(content)) || c.Repeat != 1 {
		t.Errorf("whole dump: %+v", c)
	}
	if got := unzstd(t, c.Zst); !bytes.Equal(got, content) {
		t.Errorf("the .zst copy decompresses to %d bytes, want %d", len(got), len(content))
	}

	c, err = prepareDump(Corpus{Name: "d"}, dump, 100, tmp)
	if err != nil {
		t.Fatal(err)
	}
	if c.Path == dump || c.Bytes != 6*19 {
		t.Errorf("truncated dump: %+v", c)
	}
	if got := unzstd(t, c.Zst); !bytes.Equal(got, content[:6*19]) {
		t.Errorf("the truncated .zst copy holds %q", got)
	}

	// A .zst beside the dump is used only when it matches it.
	stale := dump + ".zst"
	os.WriteFile(stale, zstdBytes(t, content[:19]), 0o644)
	if c, _ = prepareDump(Corpus{Name: "d"}, dump, 0, tmp); c.Zst == stale {
		t.Error("a stale .zst beside the dump was used")
	}
	os.WriteFile(stale, zstdBytes(t, content), 0o644)
	if c, _ = prepareDump(Corpus{Name: "d"}, dump, 0, tmp); c.Zst != stale {
		t.Errorf("the matching .zst beside the dump was not used: %s", c.Zst)
	}
}

func reportOf(valid, invalid int, bytes int64) driver.Report {
	return driver.Report{Records: valid + invalid, Valid: valid, Invalid: invalid, Bytes: bytes}
}

func unzstd(t *testing.T, path string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec, _ := zstd.NewReader(nil)
	defer dec.Close()
	out, err := dec.DecodeAll(raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func zstdBytes(t *testing.T, b []byte) []byte {
	t.Helper()
	enc, _ := zstd.NewWriter(nil)
	defer enc.Close()
	return enc.EncodeAll(b, nil)
}

func TestExcerptFindsThePath(t *testing.T) {
	card := []byte(`{"endpoint":{"protocol":"https","url":"a b"},"capabilities":[{"id":"x"},{"id":"Bad"}]}`)
	for _, tc := range []struct {
		whys []string
		want string
	}{
		{[]string{"/endpoint/url: schema.format: no"}, `/endpoint/url = "a b"`},
		{[]string{"", "/capabilities/1/id: pattern: no"}, `/capabilities/1/id = "Bad"`},
		{[]string{"/missing: required: no"}, string(card)},
	} {
		var p fastjson.Parser
		if got := excerpt(&p, card, tc.whys...); got != tc.want {
			t.Errorf("excerpt(%q) = %q, want %q", tc.whys, got, tc.want)
		}
	}
}

func TestTruncateKeepsUTF8(t *testing.T) {
	s := strings.Repeat("é", 100) // 200 bytes
	got := truncate(s, 7)
	if got != "ééé…" {
		t.Errorf("truncate = %q", got)
	}
	if got := truncate("short", 7); got != "short" {
		t.Errorf("truncate(short) = %q", got)
	}
}

func TestExplainNamesTheDeliberateDifferences(t *testing.T) {
	for _, tc := range []struct{ key, want string }{
		{"valid | /endpoint/protocol schema.enum", "protocol values"},
		{"valid | /pricing/per_token_joules schema.additionalProperties", "pricing fields"},
		{"valid | /capabilities/*/description schema.required", "capability description"},
		{"valid | /goal_subscriptions schema.additionalProperties", "closed objects"},
		{"/name json.duplicate-key | valid", "strict scanner"},
		{"/metadata/lineage/*/a/*/a json.depth | valid", "strict scanner"},
		{"valid | / type", "embedded-string form"},
		{"valid | unknown security scheme type", "A2A 1.0 security schemes"},
		{"/url a2a.required | valid", "a2a-go only decodes"},
		{"/endpoint/auth field.type | valid", "auth: null"},
	} {
		if got := explain(tc.key); !strings.Contains(got, tc.want) {
			t.Errorf("explain(%q) = %q, want it to mention %q", tc.key, got, tc.want)
		}
	}
	if got := explain("/x/y some.new-rule | valid"); got != "" {
		t.Errorf("an unknown difference was explained away: %q", got)
	}
}

func TestWriteMarkdownRatiosAndTargets(t *testing.T) {
	row := func(key string, kind Kind, versus string, loop float64, valid, invalid int) *Row {
		return &Row{
			Tool:   Tool{Key: key, Name: "tool " + key, Kind: kind, Judges: true, Versus: versus},
			Loop:   loop,
			CPU:    loop * 1.25,
			Wall:   loop * 2,
			Report: reportOf(valid, invalid, 100e6),
		}
	}
	draft := &Table{
		Corpus: Corpus{Name: "draft", Title: "Draft dump", Dialect: DialectDraft, Bytes: 100e6, Repeat: 1, Targets: true},
		Rows: []*Row{
			row("jsonschema", KindPeer, "fastvalidate-agentcard-schema", 6, 90, 10),
			row("ajv", KindPeer, "fastvalidate-agentcard-schema", 1, 90, 10),
			row("fastvalidate-agentcard", KindLibrary, "", 0.2, 95, 5),
			row("fastvalidate-agentcard-schema", KindLibrary, "", 0.25, 89, 11),
		},
	}
	draft.Comparisons = []*Comparison{
		{A: Side{Key: "fastvalidate-agentcard-schema", Name: "cs"}, B: Side{Key: "jsonschema", Name: "js"}, MustAgree: true, Differ: 1, StrictJSON: 1,
			Groups: []*Group{{Key: "/name json.duplicate-key | valid", Count: 1}}},
		{A: Side{Key: "fastvalidate-agentcard-schema", Name: "cs"}, B: Side{Key: "ajv", Name: "ajv"}, MustAgree: true, Differ: 2, StrictJSON: 1,
			Groups: []*Group{{Key: "/name json.duplicate-key | valid", Count: 1}, {Key: "/endpoint/url schema.format | valid", Count: 1}}},
	}
	var b bytes.Buffer
	WriteMarkdown(&b, &Result{Tables: []*Table{draft}, Runs: 5}, "make compare")
	md := b.String()
	for _, want := range []string{
		"| tool jsonschema | 16.7 | 16.7 | 24× | 90 | 10 | 13.3 | 8.33 |",
		"| tool ajv | 100 | 100 | 4× | 90 | 10 | 80.0 | 50.0 |",
		"| tool fastvalidate-agentcard | 500 | 500 | 1× | 95 | 5 | 400 |",
		"| draft: `agentcard-schema` ≥ 10× tool jsonschema, identical verdicts | 24.0× (24.0× by CPU time), identical verdicts but for 1 cards that break the strict JSON rules | yes |",
		"| draft: `agentcard-schema` ≥ 5× tool ajv, identical verdicts | 4.0× (4.0× by CPU time), verdicts differ on 2 cards (1 of them by the strict JSON rules) | **no** |",
		"| draft: `agentcard` ≥ 420 MB/s (3× the Rust reference's 139 MB/s) | 500 MB/s (400 by CPU time) | yes |",
		"**cs and ajv differ on 2 cards**",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}

func TestScoreAgainstExpected(t *testing.T) {
	path := filepath.Join(t.TempDir(), "e.tsv")
	os.WriteFile(path, []byte("# comment\n0\tvalid\tbase\n1\tinvalid\tbad url\tRFC 3986\n2\tijson\tdup\n3\tvalid\tedge\n"), 0o644)
	want, err := ReadExpected(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 4 || want[1].Why != "RFC 3986" || want[2].Verdict != "ijson" {
		t.Fatalf("ReadExpected = %+v", want)
	}
	got := []Verdict{{OK: true}, {OK: true}, {OK: true}, {OK: false}}
	s := score("k", "n", got, want)
	if s.Judged != 3 || !slices.Equal(s.Wrong, []int{1, 3}) || s.IJSON != 1 || s.IJSONPassed != 1 {
		t.Errorf("score = %+v", s)
	}
	for _, bad := range []string{"0\tmaybe\tx\n", "1\tvalid\tx\n", "0\tvalid\n"} {
		os.WriteFile(path, []byte(bad), 0o644)
		if _, err := ReadExpected(path); err == nil {
			t.Errorf("ReadExpected accepted %q", bad)
		}
	}
}
