package htmlreport

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/internal/summary"
)

var update = flag.Bool("update", false, "rewrite testdata/report.html")

func fixture(t testing.TB) (*summary.Summary, *Diff) {
	t.Helper()
	b, err := os.ReadFile("testdata/summary.json")
	if err != nil {
		t.Fatal(err)
	}
	s, err := summary.Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("testdata/diff.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := ReadDiff(f)
	if err != nil {
		t.Fatal(err)
	}
	return s, d
}

func render(t testing.TB, s *summary.Summary, d *Diff) string {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, s, d); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestGolden(t *testing.T) {
	s, d := fixture(t)
	got := render(t, s, d)
	golden := filepath.Join("testdata", "report.html")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("the report differs from %s (go test -run TestGolden -update rewrites it)", golden)
	}
}

// Names a summary or diff carries come from dumps and crawls: they are
// shown as text, never taken for markup.
func TestEscapesWhatInputsName(t *testing.T) {
	s, d := fixture(t)
	page := render(t, s, d)
	for _, bad := range []string{`<script`, `<img`, `<b>bold`, `"quoted" key`, `onerror=alert(1)>`} {
		if strings.Contains(strings.ToLower(page), strings.ToLower(bad)) {
			t.Errorf("the page holds %q unescaped", bad)
		}
	}
	for _, shown := range []string{
		`&lt;script&gt;alert(&#34;input&#34;)&lt;/script&gt;.json`,
		`https://agents.example.com/&#34;quoted&#34; key`,
		`&lt;b&gt;bold&lt;/b&gt;`,
		`x&#34;&gt;&lt;img src=x onerror=alert(1)&gt;`,
	} {
		if !strings.Contains(page, shown) {
			t.Errorf("the page does not show %q as text", shown)
		}
	}
}

// The page fetches nothing and runs nothing.
func TestSelfContained(t *testing.T) {
	s, d := fixture(t)
	page := render(t, s, d)
	for _, re := range []string{`(?i)<script`, `(?i)<link`, `(?i)<[a-z]+[^>]*\ssrc=`, `(?i)@import`, `(?i)url\(`, `(?i)@font-face`} {
		if m := regexp.MustCompile(re).FindString(page); m != "" {
			t.Errorf("the page holds %q", m)
		}
	}
	if !strings.Contains(page, "@page { size: A4;") || !strings.Contains(page, "@media print") {
		t.Error("the page has no A4 print rules")
	}
}

func TestSections(t *testing.T) {
	s, d := fixture(t)
	cases := []struct {
		name    string
		s       *summary.Summary
		d       *Diff
		want    []string
		notWant []string
	}{
		{"with a diff", s, d,
			[]string{`id="dialects"`, `id="verdicts"`, `id="rules"`, `id="inputs"`, `id="diff"`,
				`<td><bdi>0.2</bdi> (1,200), <bdi>0.3</bdi> (2,810), <bdi>1.0</bdi> (4,022)</td>`,
				`<a href="https://github.com/cardscan/cardscan/blob/main/docs/rules.md#a2arequired"><code><bdi>a2a.required</bdi></code></a><br><code class="explain">cardscan explain <bdi>a2a.required</bdi></code>`,
				`<code><bdi>x&#34;&gt;&lt;img src=x onerror=alert(1)&gt;</bdi></code><br><span class="muted">not a rule of this cardscan</span>`,
				`and 2 more rules with fewer findings.`, `Broke: valid before, invalid now (1)`,
				`<h3>Signer changed: other keys sign the card (1)</h3>`,
				`<code><bdi>/signatures</bdi></code> <bdi>signer</bdi>: <code><bdi>[&#34;NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs&#34;]</bdi></code> → <code><bdi>[&#34;9ZhHn5lW0GkE2t2ipf9QhSVYUtT1VJf5kM3xjCmvO4A&#34;]</bdi></code>`,
				`<code><bdi>/skills/2</bdi></code> <bdi>skill-added</bdi>: <code><bdi>null</bdi></code> → <code><bdi>&#34;search&#34;</bdi></code>`,
				`<p id="schema-would-pass">214 of the invalid AgentCards pass the AgentCard JSON Schema v1.0`,
				`<a href="https://github.com/cardscan/cardscan/blob/main/docs/rules.md#where-the-draft-and-its-schema-disagree">disagree</a>`},
			nil},
		{"without a diff", s, nil, []string{`id="rules"`}, []string{`id="diff"`}},
		{"an old summary", &summary.Summary{Counts: summary.Counts{Records: 3, Valid: 1, Invalid: 2, Profiles: map[string]int64{"agentcard": 3}}}, nil,
			[]string{"written by an older cardscan", "does not name its inputs"}, []string{"<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"Valid", "schema-would-pass"}},
		{"one input", &summary.Summary{Counts: summary.Counts{Records: 1, Valid: 1, Profiles: map[string]int64{"agentcard": 1}}, Inputs: 1}, nil,
			[]string{`<p class="muted">1 input; `}, []string{"1 inputs"}},
		{"probes", &summary.Summary{Counts: summary.Counts{Records: 4, Valid: 4, Profiles: map[string]int64{"a2a/1.0": 4}},
			Probes: &summary.Probes{Interfaces: 8, Answering: 5, AuthRequired: 1, WrongBinding: 1, Unreachable: 1, CardsSkipped: 2}}, nil,
			[]string{`<section id="probes">`, `of 8 interfaces asked`, `the interfaces of 2 invalid cards were not asked`,
				`<tr><td>answering as the card declares</td><td class="n">5</td><td class="n">62.5%</td></tr>`,
				`<tr><td>unreachable</td><td class="n">1</td><td class="n">12.5%</td></tr>`}, nil},
		{"no probes", s, nil, nil, []string{`id="probes"`}},
		{"no records", &summary.Summary{}, nil, []string{"No cards were judged.", "No findings.", "No input holds an invalid record."}, []string{"<svg"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			page := render(t, tc.s, tc.d)
			for _, w := range tc.want {
				if !strings.Contains(page, w) {
					t.Errorf("the page lacks %q", w)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(page, w) {
					t.Errorf("the page holds %q", w)
				}
			}
		})
	}
}

func TestChartGeometry(t *testing.T) {
	c := &chart{Title: "t"}
	c.bar("big", []segment{{N: 1000}}, 1000, "1,000")
	c.bar("tiny", []segment{{N: 1}}, 1000, "1")
	c.bar("split", []segment{{N: 3}, {N: 1}}, 4, "75.0%")
	c.bar("none", []segment{{N: 0}}, 1000, "0")
	c.done()
	for _, tc := range []struct {
		row, seg, x, w int
	}{
		{0, 0, labelWidth, barWidth},
		{1, 0, labelWidth, 1}, // too small to draw to scale, but there
		{2, 0, labelWidth, barWidth * 3 / 4},
		{2, 1, labelWidth + barWidth*3/4, barWidth / 4},
		{3, 0, labelWidth, 0},
	} {
		if s := c.Rows[tc.row].Segments[tc.seg]; s.X != tc.x || s.W != tc.w {
			t.Errorf("row %d segment %d at %d wide %d, want %d and %d", tc.row, tc.seg, s.X, s.W, tc.x, tc.w)
		}
	}
	if c.Width != chartWidth || c.Height != 2*chartPad+3*rowHeight+barHeight {
		t.Errorf("chart %dx%d", c.Width, c.Height)
	}
	if (&chart{}).done() != nil {
		t.Error("a chart without rows is drawn")
	}
}

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{count(0), "0"}, {count(999), "999"}, {count(1000), "1,000"}, {count(1234567), "1,234,567"}, {count(-1234), "-1,234"},
		{pct(1, 3), "33.3%"}, {pct(0, 0), "-"}, {pct(5, 5), "100.0%"},
		{string(value(nil)), "<bdi>null</bdi>"}, {string(value([]byte(` "a" `))), `<bdi>&#34;a&#34;</bdi>`},
		{string(value([]byte(`"` + strings.Repeat("é", 100) + `"`))), `<bdi>&#34;` + strings.Repeat("é", valueLength-1) + "… (202 B, cut)</bdi>"},
		{cut("abc", 3), "abc"}, {cut("abcd", 3), "abc… (4 B, cut)"}, {cut(strings.Repeat("x", 8_400_000), 1), "x… (8.4 MB, cut)"},
		{shorten("abc", 3), "abc"}, {shorten("abcd", 3), "ab…"},
		{size(999), "999 B"}, {size(4100), "4.1 kB"}, {size(2_500_000_000), "2.5 GB"},
		{plain("a\u202eb"), "a<U+202E>b"}, {string(svgText("a\u200bb")), `a<tspan class="hidden-char">&lt;U+200B&gt;</tspan>b`},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// The signatures section shows every outcome of SignatureOutcomes with
// its count and share of the signatures checked, in that order, and says
// so when a summary counts signed cards but not outcomes.
func TestSignatureOutcomes(t *testing.T) {
	s, _ := fixture(t)
	page := render(t, s, nil)
	at := strings.Index(page, `<section id="signatures">`)
	if at < 0 {
		t.Fatal("the page has no signatures section")
	}
	section := page[at:]
	section = section[:strings.Index(section, "</section>")]
	rows := []string{
		`<tr><td><code><bdi>verified</bdi></code></td><td class="n">530</td><td class="n">75.6%</td></tr>`,
		`<tr><td><code><bdi>untrusted-origin</bdi></code></td><td class="n">41</td><td class="n">5.8%</td></tr>`,
		`<tr><td><code><bdi>expired</bdi></code></td><td class="n">17</td><td class="n">2.4%</td></tr>`,
		`<tr><td><code><bdi>revoked</bdi></code></td><td class="n">3</td><td class="n">0.4%</td></tr>`,
		`<tr><td><code><bdi>key-unknown</bdi></code></td><td class="n">88</td><td class="n">12.6%</td></tr>`,
		`<tr><td><code><bdi>invalid</bdi></code></td><td class="n">21</td><td class="n">3.0%</td></tr>`,
		`<tr><td><code><bdi>alg</bdi></code></td><td class="n">1</td><td class="n">0.1%</td></tr>`,
	}
	last := -1
	for _, r := range rows {
		i := strings.Index(section, r)
		if i < 0 {
			t.Errorf("the signatures section lacks %q", r)
			continue
		}
		if i < last {
			t.Errorf("%q is out of order", r)
		}
		last = i
	}
	for _, w := range []string{`512 of 640 signed cards verified`, `701 signatures checked`, `171 findings`, `aria-label="Signatures by outcome"`} {
		if !strings.Contains(section, w) {
			t.Errorf("the signatures section lacks %q", w)
		}
	}

	// An outcome that never occurred is listed with 0: that nothing was
	// revoked is worth reading too.
	s.Signatures.Outcomes = map[string]int64{"verified": 2}
	if page := render(t, s, nil); !strings.Contains(page, `<tr><td><code><bdi>revoked</bdi></code></td><td class="n">0</td><td class="n">0.0%</td></tr>`) {
		t.Error("an outcome with no signature is not listed with 0")
	}
	s.Signatures.Outcomes = nil
	if page := render(t, s, nil); !strings.Contains(page, "does not count signatures by outcome") {
		t.Error("a summary without outcomes is not said to lack them")
	}
	s.Signatures = nil
	if page := render(t, s, nil); strings.Contains(page, `id="signatures"`) {
		t.Error("a run that verified nothing has a signatures section")
	}
}
