// Package htmlreport renders a validation summary, and optionally the
// changes cardscan diff found between two dumps, as one HTML page that
// needs nothing else: no script, no font or style sheet to fetch, charts
// drawn as inline SVG. It reads well at 1280 pixels and prints on A4.
package htmlreport

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"github.com/cardscan/cardscan/rule"
	"html/template"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/cardscan/cardscan/internal/ruledoc"
	"github.com/cardscan/cardscan/internal/summary"
)

//go:embed report.html.tmpl report.css
var files embed.FS

// page is parsed on first use rather than at init: every cardscan run
// links this package, and few of them write a report.
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report.html.tmpl").Funcs(template.FuncMap{
		"count": count,
		"pct":   pct,
		"value": value,
		"text":  text,
		"add":   func(a, b int64) int64 { return a + b },
	}).ParseFS(files, "report.html.tmpl"))
})

// style is the page's style sheet, and policy its Content-Security-Policy:
// nothing may load or run but that one style sheet, named by its hash.
var style = sync.OnceValues(func() (template.CSS, string) {
	css, err := files.ReadFile("report.css")
	if err != nil {
		panic(err) // embedded: cannot fail
	}
	sum := sha256.Sum256(css)
	return template.CSS(css), "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'; base-uri 'none'; form-action 'none'"
})

// knownRules are the rule IDs this cardscan has, each with its section in
// docs/rules.md and `cardscan explain`. A summary may name others (one
// written by another version, or edited): those are shown without either.
var knownRules = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, r := range rule.All() {
		m[r.ID] = true
	}
	return m
})

// Listing bounds. A summary may name any number of profiles (one edited,
// or merged from many versions): tables and charts list the ones with
// the most cards and count the rest.
const (
	maxRows     = 100 // profiles, and dialects, listed in a table
	maxBars     = 30  // profiles charted
	maxVersions = 12  // versions listed per dialect
	maxRules    = 15  // rules charted and listed
	maxChanges  = 6   // member changes or errors shown per diff record
	valueLength = 60  // characters of a changed value shown
	labelLength = 26  // characters of a chart label; the full one is its tooltip
)

// Write renders the report of s, and of d when not nil, to w.
func Write(w io.Writer, s *summary.Summary, d *Diff) error {
	var b bytes.Buffer
	if err := page().Execute(&b, build(s, d)); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

type view struct {
	S            *summary.Summary
	CSS          template.CSS
	CSP          string
	Profiles     []profileRow
	Dialects     []dialectRow
	ProfilesMore int64 // profiles not listed
	DialectsMore int64 // dialects not listed
	MixChart     *chart
	VerdictChart *chart
	// Judged counts the cards profile_verdicts covers: fewer than
	// Records when merged summaries include ones written before it.
	Judged, Unsplit int64
	Rules           []ruleRow
	RulesMore       int
	RulesChart      *chart
	Worst           []summary.InputCount
	MaxWorst        int
	Diff            *diffView
	Signatures      *signaturesView
	// DisagreementsDoc is the table of where the draft and its schema
	// disagree, for the cards that pass the schema alone.
	DisagreementsDoc string
}

type profileRow struct {
	Name, Dialect, Version string
	Class                  string // the dialect's colour
	Cards                  int64
	Verdicts               *summary.Verdicts
}

type dialectRow struct {
	Name         string
	Class        string // the colour of its bars: one of six, by the dialect's place among those of the run
	Cards        int64
	Versions     []versionCount // the first maxVersions, in name order
	MoreVersions int64
}

type versionCount struct {
	Name  string
	Cards int64
}

type ruleRow struct {
	Name  string
	Count int64
	Doc   string // the rule's section of docs/rules.md; "" for a rule this cardscan lacks
}

// signaturesView is what signature verification saw: every outcome of
// summary.SignatureOutcomes with its count, nil when the run verified
// nothing. Outcomes is false for a summary written before outcomes were
// counted.
type signaturesView struct {
	S        *summary.Signatures
	Outcomes bool
	Checked  int64 // signatures, over all outcomes
	Rows     []outcomeRow
	Chart    *chart
}

type outcomeRow struct {
	Name  string
	Count int64
}

type diffView struct {
	D     *Diff
	Kinds []kindView
	Chart *chart
}

type kindView struct {
	Name    string
	Count   int64
	Listed  []Listed
	More    int64
	Heading string
}

// build works out what the template shows, in time linear in the
// profiles (with a sort): a summary may name tens of thousands.
func build(s *summary.Summary, d *Diff) *view {
	v := &view{S: s, Worst: s.WorstInputs, MaxWorst: summary.MaxWorstInputs, DisagreementsDoc: ruledoc.DocURL + "#where-the-draft-and-its-schema-disagree"}
	v.CSS, v.CSP = style()

	names := make([]string, 0, len(s.Profiles))
	for name := range s.Profiles {
		names = append(names, name)
	}
	sort.Strings(names)
	dialects := map[string]*dialectRow{}
	var order []*dialectRow
	profiles := make([]profileRow, 0, len(names))
	for _, name := range names {
		dialect, version, _ := strings.Cut(name, "/")
		dr := dialects[dialect]
		if dr == nil {
			dr = &dialectRow{Name: dialect, Class: "d" + strconv.Itoa(len(order)%6)}
			dialects[dialect] = dr
			order = append(order, dr)
		}
		row := profileRow{Name: name, Dialect: dialect, Version: version, Class: dr.Class, Cards: s.Profiles[name]}
		if pv, ok := s.ProfileVerdicts[name]; ok {
			row.Verdicts = &pv
			v.Judged += pv.Valid + pv.Invalid
		}
		profiles = append(profiles, row)
		dr.Cards += row.Cards
		if version != "" {
			if len(dr.Versions) < maxVersions {
				dr.Versions = append(dr.Versions, versionCount{version, row.Cards})
			} else {
				dr.MoreVersions++
			}
		}
	}
	v.Profiles = largest(profiles, maxRows, func(p profileRow) int64 { return p.Cards })
	v.ProfilesMore = int64(len(profiles) - len(v.Profiles))
	for _, dr := range largest(order, maxRows, func(d *dialectRow) int64 { return d.Cards }) {
		v.Dialects = append(v.Dialects, *dr)
	}
	v.DialectsMore = int64(len(order) - len(v.Dialects))
	v.Unsplit = s.Records - v.Judged

	charted := largest(v.Profiles, maxBars, func(p profileRow) int64 { return p.Cards })
	mix := &chart{Title: "Cards per profile"}
	verdicts := &chart{Title: "Valid and invalid share per profile"}
	if len(charted) < len(profiles) {
		mix.Title += " (the " + strconv.Itoa(len(charted)) + " with the most cards)"
		verdicts.Title += " (of the " + strconv.Itoa(len(charted)) + " with the most cards)"
	}
	var most int64
	for _, p := range charted {
		most = max(most, p.Cards)
	}
	for _, p := range charted {
		mix.bar(p.Name, []segment{{N: p.Cards, Class: p.Class}}, most, count(p.Cards))
		if pv := p.Verdicts; pv != nil && pv.Valid+pv.Invalid > 0 {
			all := pv.Valid + pv.Invalid
			verdicts.bar(p.Name, []segment{
				{N: pv.Valid, Class: "valid", Title: count(pv.Valid) + " valid"},
				{N: pv.Invalid, Class: "invalid", Title: count(pv.Invalid) + " invalid"},
			}, all, pct(pv.Valid, all)+" valid")
		}
	}
	v.MixChart, v.VerdictChart = mix.done(), verdicts.done()

	for name, n := range s.Rules {
		row := ruleRow{Name: name, Count: n}
		if knownRules()[name] {
			row.Doc = ruledoc.HelpURI(name)
		}
		v.Rules = append(v.Rules, row)
	}
	sort.Slice(v.Rules, func(i, j int) bool {
		if v.Rules[i].Count != v.Rules[j].Count {
			return v.Rules[i].Count > v.Rules[j].Count
		}
		return v.Rules[i].Name < v.Rules[j].Name
	})
	if len(v.Rules) > maxRules {
		v.RulesMore = len(v.Rules) - maxRules
		v.Rules = v.Rules[:maxRules]
	}
	rules := &chart{Title: "Findings per rule"}
	for _, r := range v.Rules {
		rules.bar(r.Name, []segment{{N: r.Count, Class: "rule"}}, v.Rules[0].Count, count(r.Count))
	}
	v.RulesChart = rules.done()

	v.Signatures = buildSignatures(s.Signatures)

	if d != nil {
		dv := &diffView{D: d}
		c := &chart{Title: "Changed keys by kind"}
		var most int64
		for _, k := range changeKinds {
			most = max(most, d.Counts[k])
		}
		for _, k := range changeKinds {
			n := d.Counts[k]
			listed := d.Listed[k]
			dv.Kinds = append(dv.Kinds, kindView{Name: k, Count: n, Listed: listed, More: n - int64(len(listed)), Heading: headings[k]})
			c.bar(k, []segment{{N: n, Class: "change-" + k}}, most, count(n))
		}
		dv.Chart = c.done()
		v.Diff = dv
	}
	return v
}

// buildSignatures lists every outcome, those that did not occur with 0:
// that no signature was revoked is worth reading too. The names are
// summary.SignatureOutcomes' (summary.Unmarshal refuses others).
func buildSignatures(g *summary.Signatures) *signaturesView {
	if g == nil {
		return nil
	}
	sv := &signaturesView{S: g, Outcomes: len(g.Outcomes) > 0}
	if !sv.Outcomes {
		return sv
	}
	var most int64
	for _, name := range summary.SignatureOutcomes {
		n := g.Outcomes[name]
		sv.Rows = append(sv.Rows, outcomeRow{Name: name, Count: n})
		sv.Checked += n
		most = max(most, n)
	}
	c := &chart{Title: "Signatures by outcome"}
	for _, r := range sv.Rows {
		class := "sig-failed"
		if r.Name == "verified" {
			class = "sig-verified"
		}
		c.bar(r.Name, []segment{{N: r.Count, Class: class}}, most, count(r.Count))
	}
	sv.Chart = c.done()
	return sv
}

var headings = map[string]string{
	"added":   "Appeared",
	"broke":   "Broke: valid before, invalid now",
	"fixed":   "Fixed: invalid before, valid now",
	"changed": "Changed",
	// A diff that verified signatures: the keys that verify the card
	// (by RFC 7638 thumbprint) are not those that did.
	"signer-changed": "Signer changed: other keys sign the card",
	"removed":        "Gone",
}

// largest returns the n rows of most cards, in their order in rows; all
// of rows when there are no more.
func largest[T any](rows []T, n int, cards func(T) int64) []T {
	if len(rows) <= n {
		return rows
	}
	idx := make([]int, len(rows))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return cards(rows[idx[a]]) > cards(rows[idx[b]]) })
	idx = idx[:n]
	sort.Ints(idx)
	kept := make([]T, n)
	for i, j := range idx {
		kept[i] = rows[j]
	}
	return kept
}

// count writes n with thousands separators: 1,234,567.
func count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// pct is part's share of whole, to one decimal: "12.5%".
func pct(part, whole int64) string {
	if whole <= 0 {
		return "-"
	}
	return strconv.FormatFloat(100*float64(part)/float64(whole), 'f', 1, 64) + "%"
}

// value shows a changed member's JSON value as text, cut short.
func value(raw []byte) template.HTML {
	s := string(bytes.TrimSpace(raw))
	if s == "" {
		return text("null")
	}
	return text(cut(s, valueLength))
}

// A chart is a horizontal bar chart: one row per label, each bar one or
// more segments. Its geometry is worked out here, so the template only
// places what it is given.
type chart struct {
	Title         string
	Width, Height int
	LabelX, BarH  int
	Rows          []row
}

type row struct {
	Label     template.HTML
	FullLabel string
	Y, TextY  int
	Segments  []segment
	Value     string
	ValueX    int
}

type segment struct {
	N     int64
	Class string
	Title string
	X, W  int
}

// Chart geometry, in pixels.
const (
	chartWidth = 560
	labelWidth = 190
	barWidth   = 280
	rowHeight  = 24
	barHeight  = 16
	chartPad   = 6
)

// bar adds a row whose segments are scaled so that scale fills the bar.
func (c *chart) bar(label string, segs []segment, scale int64, valueText string) {
	y := chartPad + len(c.Rows)*rowHeight
	x := labelWidth
	for i := range segs {
		w := 0
		if scale > 0 {
			w = int(float64(segs[i].N) / float64(scale) * barWidth)
		}
		if segs[i].N > 0 && w < 1 {
			w = 1 // a count that is there shows, however small
		}
		segs[i].X, segs[i].W = x, w
		if segs[i].Title == "" {
			segs[i].Title = plain(label) + ": " + valueText
		}
		x += w
	}
	c.Rows = append(c.Rows, row{
		Label: svgText(shorten(label, labelLength)), FullLabel: plain(label),
		Y: y, TextY: y + barHeight - 4,
		Segments: segs, Value: valueText, ValueX: labelWidth + barWidth + 8,
	})
}

// done sets the chart's size, or returns nil for a chart with no row.
func (c *chart) done() *chart {
	if len(c.Rows) == 0 {
		return nil
	}
	c.Width, c.Height = chartWidth, 2*chartPad+len(c.Rows)*rowHeight-(rowHeight-barHeight)
	c.LabelX, c.BarH = labelWidth-8, barHeight
	return c
}
