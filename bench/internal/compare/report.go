package compare

import (
	"fmt"
	"io"
	"strings"
)

// Command is how the report says it was made.
const Command = "make compare"

// WriteMarkdown renders the result: a table per corpus with the reasons
// its counts differ, the targets, then the verdict differences in detail.
func WriteMarkdown(w io.Writer, res *Result, command string) {
	fmt.Fprintf(w, "# cardscan compared\n\n")
	fmt.Fprintf(w, "Made by `%s` on %s, %s: median of %d interleaved runs (%s in all).\n\n",
		command, res.Started.Format("2006-01-02"), res.Machine, res.Runs, res.Elapsed.Round(1e9))
	fmt.Fprintf(w, "MB/s is 10^6 bytes of NDJSON per second of the tool's own loop over a file already read into\n"+
		"memory, on one core; cards/s likewise. The cardscan CLI rows are timed by the CLI itself\n"+
		"(its `--summary` seconds: reading, decompressing and judging, with its worker count). *CPU MB/s*\n"+
		"divides by the CPU time the process spent in that loop instead (all its threads; for the CLI,\n"+
		"the whole process), which other work on a busy machine does not inflate. *process* is every\n"+
		"row's whole-process wall time, start-up and file reading included. *cardscan ×* is how many\n"+
		"times faster (by wall time) the cardscan library, on one core, judges the same cards by the\n"+
		"same rules (the `agentcard-schema` profile for the JSON Schema validators, `a2a` for a2a-go,\n"+
		"the corpus's own profile for the other rows).\n\n")
	for _, n := range res.Notes {
		fmt.Fprintf(w, "- %s\n", n)
	}
	if len(res.Notes) > 0 {
		fmt.Fprintln(w)
	}
	for _, t := range res.Tables {
		writeTable(w, t)
	}
	writeTargets(w, res)
	writeDetails(w, res)
}

func writeTable(w io.Writer, t *Table) {
	c := t.Corpus
	fmt.Fprintf(w, "## %s\n\n", c.Title)
	records := 0
	for _, r := range t.Rows {
		if r.Err == nil && r.Report.Records > 0 {
			records = r.Report.Records / c.Repeat
			break
		}
	}
	fmt.Fprintf(w, "%s: %d cards, %.1f MB.\n\n", c.Note, records, float64(c.Bytes)/1e6)
	fmt.Fprintf(w, "| tool | MB/s | cards/s | cardscan × | valid | invalid | CPU MB/s | process MB/s |\n")
	fmt.Fprintf(w, "|---|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, r := range t.Rows {
		if r.Err != nil {
			fmt.Fprintf(w, "| %s | failed: %s | | | | | | |\n", r.Tool.Name, escapeCell(truncate(r.Err.Error(), 120)))
			continue
		}
		rep := r.Report
		valid, invalid := "—", "—"
		if r.Tool.Judges {
			valid, invalid = fmt.Sprint(rep.Valid/c.Repeat), fmt.Sprint(rep.Invalid/c.Repeat)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Tool.Name,
			num(float64(rep.Bytes)/1e6/r.Loop), num(float64(rep.Records)/r.Loop), ratio(t, r),
			valid, invalid, perCPU(rep.Bytes, r.CPU), num(float64(rep.Bytes)/1e6/r.Wall))
	}
	fmt.Fprintln(w)
	writeScores(w, t)
	writeWhy(w, t)
}

// writeScores compares the tools with the expected verdicts, naming each
// card a tool gets wrong.
func writeScores(w io.Writer, t *Table) {
	if len(t.Scores) == 0 {
		return
	}
	fmt.Fprintf(w, "Against the verdicts worked out from JSON Schema 2020-12, RFC 3986 and RFC 8259 in `%s`:\n\n", t.ExpectFile)
	for _, s := range t.Scores {
		fmt.Fprintf(w, "- %s: wrong on %d of %d", s.Name, len(s.Wrong), s.Judged)
		if len(s.Wrong) > 0 {
			var cards []string
			for _, i := range s.Wrong {
				cards = append(cards, fmt.Sprintf("#%d `%s`", i, escapeTicks(truncate(t.Expected[i].What, 60))))
			}
			fmt.Fprintf(w, " (%s)", strings.Join(cards, ", "))
		}
		fmt.Fprintf(w, "; passes %d of the %d cards that are not I-JSON.\n", s.IJSONPassed, s.IJSON)
	}
	fmt.Fprintln(w)
}

// ratio is the reference row's speed over this row's, on the same bytes.
func ratio(t *Table, r *Row) string {
	key := r.Tool.Versus
	if key == "" {
		key = Reference(t.Corpus)
	}
	ref := t.row(key)
	if ref == nil || ref.Err != nil || ref.Loop == 0 {
		return "—"
	}
	x := r.Loop / ref.Loop
	if x >= 10 {
		return fmt.Sprintf("%.0f×", x)
	}
	return fmt.Sprintf("%.2g×", x)
}

func perCPU(bytes int64, cpu float64) string {
	if cpu <= 0 {
		return "—"
	}
	return num(float64(bytes) / 1e6 / cpu)
}

func (t *Table) row(key string) *Row {
	for _, r := range t.Rows {
		if r.Tool.Key == key {
			return r
		}
	}
	return nil
}

// writeWhy explains under a table where its counts differ.
func writeWhy(w io.Writer, t *Table) {
	for _, cmp := range t.Comparisons {
		if !cmp.MustAgree && t.Expected != nil {
			continue // a corpus of edge cases says nothing about rule sets
		}
		switch {
		case cmp.Differ == 0:
			fmt.Fprintf(w, "- %s and %s agree on every card.\n", cmp.A.Name, cmp.B.Name)
		case cmp.MustAgree && cmp.StrictJSON == cmp.Differ:
			fmt.Fprintf(w, "- %s and %s differ only on %d cards that break cardscan's strict JSON rules, which it rejects by design "+
				"and a JSON Schema validator judges after its parser has read them its own way (the last duplicate member wins, "+
				"bad UTF-8 becomes U+FFFD, any depth): %s.\n",
				cmp.A.Name, cmp.B.Name, cmp.Differ, topGroups(cmp, 3))
		case cmp.MustAgree && cmp.StrictJSON > 0:
			fmt.Fprintf(w, "- **%s and %s differ on %d cards** (%d of them break cardscan's strict JSON rules, rejected by design; "+
				"the rest, under the same schema, are a bug in one of them; see the details below): %s.\n",
				cmp.A.Name, cmp.B.Name, cmp.Differ, cmp.StrictJSON, topGroups(cmp, 4))
		case cmp.MustAgree:
			fmt.Fprintf(w, "- **%s and %s differ on %d cards** (under the same schema, a bug in one of them; see the details below): %s.\n",
				cmp.A.Name, cmp.B.Name, cmp.Differ, topGroups(cmp, 4))
		default:
			fmt.Fprintf(w, "- %s and %s differ on %d cards, by design: %s.\n",
				cmp.A.Name, cmp.B.Name, cmp.Differ, topGroups(cmp, 6))
		}
	}
	fmt.Fprintln(w)
}

func topGroups(cmp *Comparison, n int) string {
	var parts []string
	for _, g := range cmp.Groups[:min(n, len(cmp.Groups))] {
		part := fmt.Sprintf("%d × `%s`", g.Count, g.Key)
		if gloss := explain(g.Key); gloss != "" {
			part += " (" + gloss + ")"
		}
		parts = append(parts, part)
	}
	if rest := len(cmp.Groups) - n; rest > 0 {
		parts = append(parts, fmt.Sprintf("%d more kinds", rest))
	}
	return strings.Join(parts, "; ")
}

// glosses name, for the reasons the rule sets give, the place where the
// draft and the JSON Schema disagree on purpose. The first whose every
// fragment occurs in a group's key explains it.
var glosses = []struct {
	fragments []string
	text      string
}{
	// JSON-level reasons first: a path alone says nothing about them.
	{[]string{"json: "}, "the JSON parsers themselves disagree"},
	{[]string{"json."}, "JSON the strict scanner rejects (duplicate members, invalid UTF-8, lone surrogates, depth) and encoding/json or JSON.parse reads"},
	{[]string{"valid | / type"}, "the draft's embedded-string form, a JSON string holding the card: cardscan unwraps it in every profile, a JSON Schema validator sees a string"},
	{[]string{"unknown security scheme type"}, "A2A 1.0 security schemes (one member per kind, e.g. openIdConnectSecurityScheme), which a2a-go v0.3 cannot decode"},
	{[]string{"a2a."}, "a2a-go only decodes: it checks no required member, URL or version rule"},
	{[]string{"/endpoint/auth", "field.type"}, "auth: null, which the schema allows and the draft does not"},
	{[]string{"uniqueItems"}, "the schema wants unique tags; the draft does not"},
	{[]string{"/pricing/currency"}, "the schema's currency pattern; the draft has no currency"},
	{[]string{"/endpoint/protocol"}, "protocol values: the draft allows http, https, grpc, stdio, mcp; the schema http, websocket, sse, grpc, mcp, google_a2a, native"},
	{[]string{"/pricing", "additionalProperties"}, "pricing fields: the schema's PricingModel is closed and has no per_token_joules"},
	{[]string{"/pricing", "pricing."}, "pricing bounds: the draft's Landauer floor and per-token rule, which the schema does not have"},
	{[]string{"/pricing", "field.type"}, "pricing types: the schema allows null and other members the draft types differently"},
	{[]string{"description", "required"}, "the schema requires a capability description, the draft only recommends one"},
	{[]string{"additionalProperties"}, "closed objects: the schema rejects members it does not define"},
	{[]string{"endpoint.url-scheme"}, "the draft ties the URL's scheme to the protocol; the schema does not"},
	{[]string{"metadata.trust-tier"}, "the draft's pacr:trust_tier values; the schema leaves metadata open"},
	{[]string{"/metadata"}, "the schema types the pacr: metrics; the draft leaves metadata open"},
	{[]string{"goal."}, "the draft's goal_subscriptions rules"},
}

func explain(key string) string {
next:
	for _, g := range glosses {
		for _, f := range g.fragments {
			if !strings.Contains(key, f) {
				continue next
			}
		}
		return g.text
	}
	return ""
}

func writeTargets(w io.Writer, res *Result) {
	fmt.Fprintf(w, "## Targets (one core, same cards)\n\n")
	fmt.Fprintf(w, "| target | measured | met |\n|---|---|---|\n")
	for _, t := range res.Tables {
		if !t.Corpus.Targets || t.Corpus.Dialect != DialectDraft && t.Corpus.Dialect != DialectSchema {
			continue
		}
		for _, peer := range []struct {
			key  string
			want float64
		}{{"jsonschema", 10}, {"ajv", 5}} {
			p, ref := t.row(peer.key), t.row("fastvalidate-agentcard-schema")
			if !ok(p) || !ok(ref) {
				continue
			}
			x, xCPU := p.Loop/ref.Loop, cpuRatio(p, ref)
			agree, same := "verdicts not compared", false
			for _, cmp := range t.Comparisons {
				if cmp.A.Key != ref.Tool.Key || cmp.B.Key != peer.key {
					continue
				}
				switch {
				case cmp.Differ == 0:
					agree, same = "identical verdicts", true
				case cmp.Differ == cmp.StrictJSON:
					agree, same = fmt.Sprintf("identical verdicts but for %d cards that break the strict JSON rules", cmp.Differ), true
				default:
					agree = fmt.Sprintf("verdicts differ on %d cards (%d of them by the strict JSON rules)", cmp.Differ, cmp.StrictJSON)
				}
			}
			fmt.Fprintf(w, "| %s: `agentcard-schema` ≥ %.0f× %s, identical verdicts | %.1f× (%.1f× by CPU time), %s | %s |\n",
				t.Corpus.Name, peer.want, p.Tool.Name, x, xCPU, agree, yes(x >= peer.want && same))
		}
		if t.Corpus.Dialect == DialectDraft {
			if r := t.row("fastvalidate-agentcard"); ok(r) {
				mbs := float64(r.Report.Bytes) / 1e6 / r.Loop
				fmt.Fprintf(w, "| %s: `agentcard` ≥ 420 MB/s (3× the Rust reference's 139 MB/s) | %.0f MB/s (%s by CPU time) | %s |\n",
					t.Corpus.Name, mbs, perCPU(r.Report.Bytes, r.CPU), yes(mbs >= 420))
			}
		}
	}
	for _, t := range res.Tables {
		if !t.Corpus.Targets || t.Corpus.Dialect != DialectA2A {
			continue
		}
		p, ref := t.row("a2ago"), t.row("fastvalidate-a2a")
		if ok(p) && ok(ref) {
			x := p.Loop / ref.Loop
			fmt.Fprintf(w, "| %s: `a2a` ≥ 5× a2a-go decoding | %.1f× (%.1f× by CPU time) | %s |\n", t.Corpus.Name, x, cpuRatio(p, ref), yes(x >= 5))
		}
	}
	fmt.Fprintln(w)
}

func cpuRatio(p, ref *Row) float64 {
	if ref.CPU <= 0 {
		return 0
	}
	return p.CPU / ref.CPU
}

func ok(r *Row) bool { return r != nil && r.Err == nil && r.Loop > 0 }

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "**no**"
}

func writeDetails(w io.Writer, res *Result) {
	fmt.Fprintf(w, "## Verdict differences in detail\n\n")
	fmt.Fprintf(w, "Cards two tools judge differently, grouped by the first reason each gives (record numbers count from 0).\n\n")
	any := false
	for _, t := range res.Tables {
		for _, cmp := range t.Comparisons {
			if cmp.Differ == 0 || !cmp.MustAgree && !(t.Corpus.Targets && cmp.A.Key == "fastvalidate-agentcard") {
				continue
			}
			any = true
			fmt.Fprintf(w, "### %s: %s vs %s (%d cards)\n\n", t.Corpus.Name, cmp.A.Name, cmp.B.Name, cmp.Differ)
			for _, g := range cmp.Groups[:min(8, len(cmp.Groups))] {
				fmt.Fprintf(w, "- %d × `%s`\n", g.Count, g.Key)
				for _, ex := range g.Examples {
					fmt.Fprintf(w, "  - #%d `%s`: %s: %s; %s: %s\n", ex.Index, escapeTicks(ex.Excerpt),
						cmp.A.Key, orValid(ex.WhyA), cmp.B.Key, orValid(ex.WhyB))
				}
			}
			if n := len(cmp.Groups) - 8; n > 0 {
				fmt.Fprintf(w, "- and %d more kinds\n", n)
			}
			fmt.Fprintln(w)
		}
	}
	if !any {
		fmt.Fprintf(w, "None.\n\n")
	}
}

func orValid(why string) string {
	if why == "" {
		return "valid"
	}
	return truncate(why, 200)
}

func num(x float64) string {
	switch {
	case x >= 1e6:
		return fmt.Sprintf("%.2fM", x/1e6)
	case x >= 100:
		return fmt.Sprintf("%.0f", x)
	case x >= 10:
		return fmt.Sprintf("%.1f", x)
	}
	return fmt.Sprintf("%.2f", x)
}

func escapeCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func escapeTicks(s string) string { return strings.ReplaceAll(s, "`", "'") }
