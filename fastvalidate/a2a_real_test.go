package fastvalidate

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/internal/realcards"
)

// realGolden holds the verdicts; -update (golden_test.go) rewrites its
// findings and keeps the hand-written justifications.
const realGolden = "testdata/real/verdicts.txt"

// realCorpusDir finds shared/corpus/real beside the checkout, skipping the
// test, saying so, where it is absent: a clone with nothing beside it
// passes the same with or without CI set.
func realCorpusDir(t testing.TB) string {
	t.Helper()
	real, err := realcards.Dir()
	if err != nil {
		t.Skip(err)
	}
	return real
}

// realVerdict is one card's entry in the golden file.
type realVerdict struct {
	file    string
	why     string   // hand-written: why an invalid card is invalid
	notes   []string // hand-written: why a finding is what it is, valid cards too
	verdict []string // profile line, valid/invalid line, finding lines
}

func (v *realVerdict) render(b *bytes.Buffer) {
	fmt.Fprintf(b, "== %s\n", v.file)
	fmt.Fprintf(b, "%s\n%s\n", v.verdict[0], v.verdict[1])
	if v.why != "" {
		fmt.Fprintf(b, "why: %s\n", v.why)
	}
	for _, n := range v.notes {
		fmt.Fprintf(b, "note: %s\n", n)
	}
	for _, l := range v.verdict[2:] {
		fmt.Fprintf(b, "%s\n", l)
	}
	b.WriteByte('\n')
}

func parseRealGolden(t *testing.T, data []byte) (header string, entries map[string]*realVerdict) {
	t.Helper()
	entries = map[string]*realVerdict{}
	var cur *realVerdict
	var head strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "== "):
			cur = &realVerdict{file: strings.TrimPrefix(line, "== ")}
			if entries[cur.file] != nil {
				t.Fatalf("%s: %s listed twice", realGolden, cur.file)
			}
			entries[cur.file] = cur
		case cur == nil:
			head.WriteString(line + "\n")
		case strings.HasPrefix(line, "why: "):
			cur.why = strings.TrimPrefix(line, "why: ")
		case strings.HasPrefix(line, "note: "):
			cur.notes = append(cur.notes, strings.TrimPrefix(line, "note: "))
		case line != "":
			cur.verdict = append(cur.verdict, line)
		}
	}
	return head.String(), entries
}

// verdictOf renders what the auto profile finds in a card.
func verdictOf(r *Result) []string {
	profile := r.Profile
	if profile == "" {
		profile = "(none)"
	}
	out := []string{"profile " + profile, "invalid"}
	if r.Valid() {
		out[1] = "valid"
	}
	for _, f := range r.Findings() {
		line := fmt.Sprintf("%-7s %s %s", f.Severity, f.Code, quotePath(f.Path))
		if f.Count > 1 {
			line += fmt.Sprintf(" (%d times)", f.Count)
		}
		out = append(out, line)
	}
	return out
}

// TestRealCorpus judges every card of shared/corpus/real with the auto
// profile and compares the detected profile and the exact findings with
// testdata/real/verdicts.txt, where each invalid card carries a one-line
// justification checked against the spec by hand. -update rewrites the
// findings and keeps the justifications; it cannot write one, so a card
// that turns invalid fails until someone explains it.
func TestRealCorpus(t *testing.T) {
	dir := realCorpusDir(t)
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no cards in %s: %v", dir, err)
	}
	sort.Strings(files)
	golden, err := os.ReadFile(realGolden)
	if err != nil && !*update {
		t.Fatal(err)
	}
	header, want := parseRealGolden(t, golden)
	v := newTestValidator(t, "auto")
	var out bytes.Buffer
	if header == "" {
		header = "# Verdicts of the auto profile on every card of shared/corpus/real/: the profile\n" +
			"# that judged it, valid or invalid, and each finding (severity, rule, JSON Pointer).\n" +
			"# `why:` lines are written by hand after reading the spec; -update keeps them.\n" +
			"# `note:` lines, also by hand and kept, say why a finding is what it is.\n\n"
	}
	out.WriteString(header)
	seen := map[string]bool{}
	for _, path := range files {
		name := filepath.Base(path)
		seen[name] = true
		card, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got := &realVerdict{file: name, verdict: verdictOf(v.Validate(card))}
		w := want[name]
		if w != nil {
			got.why, got.notes = w.why, w.notes
		}
		got.render(&out)
		switch {
		case w == nil:
			t.Errorf("%s: no verdict in %s; got:\n%s", name, realGolden, strings.Join(got.verdict, "\n"))
		case strings.Join(w.verdict, "\n") != strings.Join(got.verdict, "\n"):
			t.Errorf("%s: verdict changed\n got:\n  %s\nwant:\n  %s", name, strings.Join(got.verdict, "\n  "), strings.Join(w.verdict, "\n  "))
		}
		invalid := got.verdict[1] == "invalid"
		if invalid && strings.TrimSpace(got.why) == "" {
			t.Errorf("%s: invalid card without a hand-written justification (why:)", name)
		}
		if !invalid && got.why != "" {
			t.Errorf("%s: valid card still carries a justification; review it", name)
		}
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("%s lists %s, which is not in %s", realGolden, name, dir)
		}
	}
	if *update {
		if err := os.MkdirAll(filepath.Dir(realGolden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(realGolden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
