package agreement

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cardscan/cardscan/cardhttp"
	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/lspserver"
	"github.com/cardscan/cardscan/internal/mcpserver"
	"github.com/cardscan/cardscan/internal/report"
)

// maxReported bounds the disagreements a test lists, so that one broken
// surface does not bury the others.
const maxReported = 40

// disagreements collects what surfaces say differently of a card from the
// library.
type disagreements struct {
	t *testing.T
	n int
}

func (d *disagreements) check(surface, name string, got, want verdict) {
	d.t.Helper()
	if sameVerdict(got, want) {
		return
	}
	d.n++
	if d.n > maxReported {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s disagrees on %s:\n  got  valid=%v profile=%q\n  want valid=%v profile=%q", surface, name, got.valid, got.profile, want.valid, want.profile)
	for _, f := range got.findings {
		if !slices.Contains(want.findings, f) {
			fmt.Fprintf(&b, "\n  got only:  %s", f)
		}
	}
	for _, f := range want.findings {
		if !slices.Contains(got.findings, f) {
			fmt.Fprintf(&b, "\n  want only: %s", f)
		}
	}
	if !slices.Equal(got.findings, want.findings) {
		// Whatever differs, numbers and order too, which the lines
		// above miss: list them all.
		fmt.Fprintf(&b, "\n  got  %v\n  want %v", got.findings, want.findings)
	}
	d.t.Error(b.String())
}

func (d *disagreements) done() {
	if d.n > maxReported {
		d.t.Errorf("%d disagreements in all, %d not listed", d.n, d.n-maxReported)
	}
}

func sameVerdict(a, b verdict) bool {
	return a.valid == b.valid && a.profile == b.profile && slices.Equal(a.findings, b.findings)
}

// withoutProfile is v as a surface that names no profile shows it.
func withoutProfile(v verdict) verdict {
	v.profile = ""
	return v
}

// findingsOnly is what a surface that lists findings alone (github,
// sarif, codequality: nothing of a card without any, no profile) shows
// of v.
func findingsOnly(v verdict) verdict {
	return verdict{findings: v.findings}
}

// columnless is v with its columns dropped, for Code Quality, which has
// lines alone.
func columnless(v verdict) verdict {
	v = findingsOnly(v)
	fs := slices.Clone(v.findings)
	for i := range fs {
		fs[i].column = 0
	}
	sortFindings(fs)
	v.findings = fs
	return v
}

// TestSurfacesAgree judges every card of fastvalidate's golden and content
// tables, the sample corpus, the real cards beside the checkout and
// hostile shapes on every surface, and holds each to the library's
// verdict, findings and places (docs/development.md, "The surfaces
// agree").
func TestSurfacesAgree(t *testing.T) {
	var cards []card
	cards = append(cards, goldenCards(t)...)
	cards = append(cards, contentCards(t)...)
	cards = append(cards, sampleCards(t, 3)...)
	cards = append(cards, realCards(t)...)
	cards = append(cards, hostileCards()...)
	t.Logf("%d cards", len(cards))
	agree(t, cards, judgement{profile: "auto"})
}

// TestSurfacesAgreeUnderOptions is TestSurfacesAgree for the golden and
// hostile cards with a profile named and under the production policy,
// which every surface but serve (which has no --policy) is told.
func TestSurfacesAgreeUnderOptions(t *testing.T) {
	cards := append(goldenCards(t), hostileCards()...)
	for _, j := range []judgement{{profile: "a2a"}, {profile: "agentcard-schema"}, {profile: "agentcard", policy: "production"}} {
		t.Run(j.profile+"/"+j.policy, func(t *testing.T) { agree(t, cards, j) })
	}
}

// TestLanguageServerEncodings holds the language server's diagnostics to
// the library's places in each position encoding a client may prefer.
func TestLanguageServerEncodings(t *testing.T) {
	cards := append(goldenCards(t), hostileCards()...)
	v, err := fastvalidate.New("auto")
	if err != nil {
		t.Fatal(err)
	}
	for _, enc := range []string{"utf-8", "utf-16", "utf-32"} {
		t.Run(enc, func(t *testing.T) {
			lsp := newLSPClientEncoding(t, lspserver.Config{MaxDocument: 16 << 20}, enc)
			d := &disagreements{t: t}
			for _, c := range cards {
				if !utf8.Valid(c.text) {
					continue
				}
				want := judge(v, c.text).expect(c.text, lspRender, func(text []byte, off int) (int, int) {
					line, char := lspPositionIn(text, off, enc)
					return line + 1, char + 1
				})
				d.check("lsp ("+enc+")", c.name, lsp.diagnose(c.name, c.text), withoutProfile(want))
			}
			d.done()
		})
	}
}

// judgement is how the surfaces are told to judge: a profile, and a
// policy ("" for the default).
type judgement struct{ profile, policy string }

func (j judgement) cliFlags() []string {
	flags := []string{"--profile", j.profile}
	if j.policy != "" {
		flags = append(flags, "--policy", j.policy)
	}
	return flags
}

func (j judgement) validatorOptions() []fastvalidate.Option {
	if j.policy == "production" {
		return []fastvalidate.Option{fastvalidate.WithPolicy(fastvalidate.PolicyProduction)}
	}
	return nil
}

// agree judges cards on every surface as j says and reports each
// disagreement with the library.
func agree(t *testing.T, cards []card, j judgement) {
	dir := t.TempDir()
	for _, c := range cards {
		if err := os.WriteFile(filepath.Join(dir, c.name), c.text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	outs := cliRun(t, dir, j.cliFlags()...)
	for format, out := range outs {
		checkNothingHidden(t, "--format "+format, string(out))
	}
	checkOrder(t, "text", outs["text"], textLine, 1)
	checkOrder(t, "github", outs["github"], githubLine, 2)
	jsonl, records, total := parseJSONL(t, outs["jsonl"])
	formats := map[string]map[string]verdict{
		"jsonl":       jsonl,
		"text":        parseText(t, outs["text"]),
		"github":      parseGitHub(t, outs["github"]),
		"sarif":       parseSARIF(t, outs["sarif"]),
		"junit":       parseJUnit(t, outs["junit"]),
		"codequality": parseCodeQuality(t, outs["codequality"]),
	}

	v, err := fastvalidate.New(j.profile, j.validatorOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	var handler http.Handler
	if j.policy == "" {
		handler = serveHandler(t, "--profile", j.profile)
	}
	mw := middleware(t, cardhttp.WithProfile(j.profile), cardhttp.WithValidatorOptions(j.validatorOptions()...))
	mcpc := mcpSession(t, mcpserver.Config{})
	lsp := newLSPClient(t, lspserver.Config{MaxDocument: 16 << 20, Profile: j.profile, PolicyName: j.policy})

	d := &disagreements{t: t}
	var framed []string
	for _, c := range cards {
		ref := judge(v, c.text)
		jsonWant := ref.expect(c.text, raw, lineColumn)
		if n := records[c.name]; n == 1 && !framedAsArray(c.text) {
			checkFormats(d, formats, c, ref)
		} else {
			// A file whose text is no one value (an array of cards, an
			// empty file, two cards) is framed by the CLI as documented
			// (docs/cli.md, "Inputs"), not judged as one card.
			framed = append(framed, fmt.Sprintf("%s (%d records)", c.name, n))
		}
		if handler != nil {
			d.check("serve", c.name, served(t, handler, c.text), jsonWant)
		}
		httpWant := jsonWant
		if ref.valid {
			httpWant = verdict{valid: true}
		}
		d.check("cardhttp", c.name, guarded(t, mw, c.text), httpWant)
		if !utf8.Valid(c.text) {
			// MCP and LSP carry text in JSON strings, which cannot hold
			// a byte that is not UTF-8.
			continue
		}
		d.check("mcp validate_card", c.name, validateCard(t, mcpc, c.text, j), jsonWant)
		lspWant := ref.expect(c.text, lspRender, func(text []byte, off int) (int, int) {
			line, char := lspPosition(text, off)
			return line + 1, char + 1
		})
		d.check("lsp", c.name, lsp.diagnose(c.name, c.text), withoutProfile(lspWant))
	}
	d.done()
	t.Logf("judged by the CLI as other than one card, held to the other surfaces alone: %s", strings.Join(framed, ", "))
	checkSummary(t, outs["summary"], total)
}

// summaryCounts are the totals --summary must report.
type summaryCounts struct {
	Records, Valid, Invalid, Errors, Warnings int
	Rules                                     map[string]int
}

// framedAsArray tells whether the CLI reads text as an array of cards.
func framedAsArray(text []byte) bool {
	c, _, _, _ := report.Start(text)
	return len(c) > 0 && c[0] == '['
}

// checkSummary holds --summary to the totals of the jsonl records of the
// same run.
func checkSummary(t *testing.T, b []byte, want summaryCounts) {
	t.Helper()
	var got summaryCounts
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("summary: %v", err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("--summary: got %+v\nwant %+v", got, want)
	}
}

// checkFormats holds the CLI's output of each format for c to the library's
// verdict ref.
func checkFormats(d *disagreements, formats map[string]map[string]verdict, c card, ref reference) {
	d.t.Helper()
	d.check("jsonl", c.name, formats["jsonl"][c.name], ref.expect(c.text, raw, lineColumn))
	textWant := ref.expect(c.text, textRender, lineColumn)
	textGot := formats["text"][c.name]
	if !ref.valid {
		// A text verdict names its profile only on an ok line.
		textGot.profile = ref.profile
	}
	d.check("text", c.name, textGot, textWant)
	d.check("junit", c.name, withoutProfile(formats["junit"][c.name]), withoutProfile(textWant))
	d.check("github", c.name, formats["github"][c.name], findingsOnly(ref.expect(c.text, githubRender, lineColumn)))
	d.check("sarif", c.name, formats["sarif"][c.name], findingsOnly(ref.expect(c.text, sarifRender, lineColumn)))
	d.check("codequality", c.name, formats["codequality"][c.name], columnless(ref.expect(c.text, shownRender, lineColumn)))
}

// checkOrder holds the finding lines of out, a format of one line per
// finding (line matches them, its submatch input the input's name, the
// two after it the line and column), to docs/cli.md's order: by
// position within each card's lines. A line that does not match (a note,
// an ok) is passed over.
func checkOrder(t *testing.T, format string, out []byte, line *regexp.Regexp, input int) {
	t.Helper()
	type place struct {
		input     string
		line, col int
	}
	var last place
	for l := range strings.Lines(string(out)) {
		m := line.FindStringSubmatch(strings.TrimSuffix(l, "\n"))
		if m == nil || strings.HasPrefix(l, "::notice") || strings.Contains(l, ": ok: ") || strings.Contains(l, ": note: ") {
			continue
		}
		p := place{input: m[input]}
		p.line, _ = strconv.Atoi(m[input+1])
		p.col, _ = strconv.Atoi(m[input+2])
		if p.input == last.input && (p.line < last.line || p.line == last.line && p.col < last.col) {
			t.Errorf("--format %s: %s:%d:%d listed after %d:%d", format, p.input, p.line, p.col, last.line, last.col)
		}
		last = p
	}
}
