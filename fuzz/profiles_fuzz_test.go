package fuzz

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/corpus"
	"github.com/cardscan/cardscan/fastvalidate"
)

// The a2a, ma2d and auto profiles under the properties every profile has
// (checkResult, checkReuse), plus their own: auto judges a card exactly as
// the profile it names would; "a2a" judges exactly as the version it
// detects, forced, would (apart from the a2a.protocol-version finding that
// only detection makes); and validating a card twice allocates nothing.

func init() {
	// These rules name a missing member in one place and an existing
	// value (an empty string, a bad shape) in another.
	for _, rule := range []string{"a2a.required", "a2a.interface", "a2a.security-scheme", "a2a.signature-format"} {
		pathRules[rule] = pathEither
	}
	// A 0.3 card without preferredTransport is told where the member
	// belongs.
	pathRules["a2a.preferred-transport"] = pathMissing
}

var dialectProfiles = []string{"a2a", "a2a/0.1", "a2a/0.2", "a2a/0.3", "a2a/1.0", "ma2d", "auto"}

func newProfileValidators(t testing.TB) map[string]*fastvalidate.Validator {
	vs := map[string]*fastvalidate.Validator{}
	for _, p := range append(slices.Clone(dialectProfiles), "agentcard") {
		v, err := fastvalidate.New(p, fastvalidate.WithClock(fixedClock))
		if err != nil {
			t.Fatal(err)
		}
		vs[p] = v
	}
	return vs
}

// dialectSeeds are generated cards of every A2A version and MA2D, a third
// with a defect, beside the hand seeds.
func dialectSeeds(t testing.TB) [][]byte {
	seeds := generate(t, corpus.Options{Seed: 23, Dialects: []string{"a2a/0.1", "a2a/0.2", "a2a/0.3", "a2a/1.0", "ma2d"}, DefectRate: 0.35}, 300)
	for _, s := range handSeeds {
		seeds = append(seeds, []byte(s))
	}
	return seeds
}

// findingsOf renders findings, without those whose message holds drop
// (unless drop is empty).
func findingsOf(r *fastvalidate.Result, drop string) string {
	var b strings.Builder
	for _, f := range r.Findings() {
		if msg := f.Message(); drop == "" || !strings.Contains(msg, drop) {
			fmt.Fprintf(&b, "|%s %s %q %s", f.Code, f.Severity, f.Path, msg)
		}
	}
	return b.String()
}

func checkProfiles(t *testing.T, vs map[string]*fastvalidate.Validator, fresh map[string]*fastvalidate.Validator, doc []byte) {
	t.Helper()
	other := []byte(handSeeds[4])
	for _, p := range dialectProfiles {
		v := vs[p]
		r := v.Validate(doc)
		checkResult(t, p, doc, r)
		judged := r.Profile
		strictOK, _ := strictVerdict(r)
		// A profile judges objects: strict JSON of another type stops at
		// card.type, as any document that is no strict JSON stops earlier.
		isCard := strictOK && !(len(r.Findings()) == 1 && r.Findings()[0].Code == fastvalidate.CodeCardType)
		switch {
		case !isCard && p != "auto" && judged != p:
			t.Fatalf("%s: a document that is no card was judged as %q", p, judged)
		case !isCard && p == "auto" && strictOK && judged != "":
			// Only a document that fails strict JSON part way may still
			// name a dialect by the members read before the failure.
			t.Fatalf("auto: strict JSON that is no card was judged as %q\ninput: %q", judged, doc)
		case isCard && p == "a2a" && !strings.HasPrefix(judged, "a2a/"):
			t.Fatalf("a2a: judged as %q\ninput: %q", judged, doc)
		case isCard && strings.HasPrefix(p, "a2a/") && judged != p:
			t.Fatalf("%s: judged as %q\ninput: %q", p, judged, doc)
		}
		got := render(r)
		// Detection and dispatch add nothing of their own.
		switch {
		case p == "auto" && judged != "":
			want := judged
			if strings.HasPrefix(want, "a2a/") {
				want = "a2a"
			}
			if other := render(vs[want].Validate(doc)); other != got {
				t.Fatalf("auto judged as %s differs from %s:\n auto: %s\n %s: %s\ninput: %q", judged, want, got, want, other, doc)
			}
		case p == "a2a" && isCard:
			// Detection alone reports a protocolVersion that names no
			// release when it falls back on the other members.
			detected := findingsOf(vs["a2a"].Validate(doc), "the newest release whose members it uses")
			forced := findingsOf(vs[judged].Validate(doc), "")
			if detected != forced {
				t.Fatalf("a2a detecting %s differs from %s forced:\n detected: %s\n forced:   %s\ninput: %q", judged, judged, detected, forced, doc)
			}
		}
		checkReuse(t, v, fresh[p], doc, other)
		if testing.CoverMode() == "" {
			v.Validate(doc)
			if n := testing.AllocsPerRun(3, func() { v.Validate(doc) }); n != 0 {
				t.Fatalf("%s: %v allocations validating a card a second time\ninput: %q", p, n, doc)
			}
		}
	}
}

// TestProfilesDifferential mutates the dialect seeds and checks every
// property on each mutant.
func TestProfilesDifferential(t *testing.T) {
	n := 6000
	if testing.Short() {
		n = 600
	}
	judged := profilesDifferential(t, dialectSeeds(t), n)
	// The inputs must reach every dialect, or the test proves little.
	for _, p := range []string{"a2a/0.1", "a2a/0.2", "a2a/0.3", "a2a/1.0", "ma2d", "agentcard", ""} {
		if judged[p] == 0 {
			t.Errorf("no input judged as %q: %v", p, judged)
		}
	}
}

// TestProfilesDifferentialReal is TestProfilesDifferential on the real
// cards beside the repository and their mutants, where they are.
func TestProfilesDifferentialReal(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	profilesDifferential(t, realCards(t), n)
}

// profilesDifferential checks every property on the seeds, then on
// mutants of them, n documents in all, and counts the profiles auto
// judged them as.
func profilesDifferential(t *testing.T, seeds [][]byte, n int) map[string]int {
	vs, fresh := newProfileValidators(t), newProfileValidators(t)
	r := rand.New(rand.NewPCG(3, 4))
	judged := map[string]int{}
	for i := range n {
		doc := seeds[i%len(seeds)]
		if i >= len(seeds) {
			doc = mutate(r, doc)
		}
		checkProfiles(t, vs, fresh, doc)
		judged[vs["auto"].Validate(doc).Profile]++
	}
	return judged
}

// FuzzProfiles: no panic, the shared properties, dispatch and detection
// faithful to the profiles they pick, no allocation on a second look.
func FuzzProfiles(f *testing.F) {
	for _, s := range dialectSeeds(f) {
		f.Add(s)
	}
	vs, fresh := newProfileValidators(f), newProfileValidators(f)
	f.Fuzz(func(t *testing.T, doc []byte) {
		if len(doc) > maxFuzzInput {
			t.Skip("input too large")
		}
		checkProfiles(t, vs, fresh, doc)
	})
}
