package fastvalidate

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/corpus"
	"github.com/cardscan/cardscan/internal/realcards"
	"github.com/valyala/fastjson"

	"github.com/cardscan/cardscan/fastvalidate/internal/tape"
)

// generatedCards returns n valid generated cards of the dialects, the
// shapes registry dumps hold.
func generatedCards(t testing.TB, n int, dialects ...string) [][]byte {
	t.Helper()
	g, err := corpus.New(corpus.Options{Seed: 5, Dialects: dialects})
	if err != nil {
		t.Fatal(err)
	}
	cards := make([][]byte, n)
	for i := range cards {
		cards[i] = g.Next().JSON
	}
	return cards
}

func TestProfiles_ZeroAllocs(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation allocates")
	}
	hybrid := edited(t, a2aCard10, "/url", `"https://agent.example.com/a2a"`, "/security", `[]`, "/capabilities/stateTransitionHistory", `false`)
	escaped := strings.Replace(strings.Replace(a2aCard03, `"securitySchemes"`, `"security\u0053chemes"`, 1), `"bearer": []`, `"b\u0065arer": []`, 1)
	for _, tc := range []struct {
		profile, name, card string
		valid               bool
	}{
		{"a2a/0.1", "base", a2aCard01, true},
		{"a2a/0.2", "base", a2aCard02, true},
		{"a2a/0.3", "signed", a2aCard03, true},
		{"a2a/1.0", "signed", a2aCard10, true},
		{"a2a/1.0", "hybrid with warnings", hybrid, true},
		{"a2a", "0.1", a2aCard01, true},
		{"a2a", "0.2", a2aCard02, true},
		{"a2a", "0.3 with escapes", escaped, true},
		{"a2a", "1.0", a2aCard10, true},
		{"a2a", "0.2 spec sample", specSampleV02Text, true},
		{"ma2d", "spec example", ma2dCard, true},
		{"ma2d", "long non-ASCII texts", edited(t, ma2dCard, "/description", jsonString(strings.Repeat("météo — ", 40)), "/skills/0/description", jsonString(strings.Repeat("é", 60))), true},
		{"auto", "a2a 1.0", a2aCard10, true},
		{"auto", "ma2d", ma2dCard, true},
		// Invalid cards report static messages, so they cost nothing either.
		{"a2a", "overview sample", specSampleOverviewV1, false},
		{"a2a/1.0", "broken signature", edited(t, a2aCard10, "/signatures/0/protected", jsonString(jwsHeader(`{"alg":"ES256"}`))), false},
		{"auto", "unknown", `{"name":"x"}`, false},
		{"auto", "embedded 0.3", jsonString(a2aCard03), false},
	} {
		v := newTestValidator(t, tc.profile)
		card := []byte(tc.card)
		if r := v.Validate(card); r.Valid() != tc.valid {
			t.Fatalf("%s/%s: Valid() = %v: %v", tc.profile, tc.name, r.Valid(), hitsOf(r))
		}
		testAllocs(t, tc.profile+"/"+tc.name, 0, func() { v.Validate(card) })
	}
	// Generated cards of every A2A version and MA2D, one validator cycling
	// through them as a worker does.
	for _, profile := range []string{"a2a", "ma2d", "auto"} {
		dialects := []string{"a2a/0.1", "a2a/0.2", "a2a/0.3", "a2a/1.0"}
		switch profile {
		case "ma2d":
			dialects = []string{"ma2d"}
		case "auto":
			dialects = append(dialects, "ma2d", "agentcard")
		}
		cards := generatedCards(t, 200, dialects...)
		v := newTestValidator(t, profile)
		for _, c := range cards {
			if r := v.Validate(c); !r.Valid() {
				t.Fatalf("%s: generated card invalid: %v\n%s", profile, hitsOf(r), c)
			}
		}
		i := 0
		testAllocs(t, profile+"/generated", 0, func() {
			v.Validate(cards[i%len(cards)])
			i++
		})
	}
}

// BenchmarkProfile measures each profile on generated cards of its dialect,
// and on the cards of shared/corpus/real it finds valid, beside fastjson
// parsing the same bytes with a reused Parser and checking nothing: the
// floor any validator that reads the whole card stands on.
func BenchmarkProfile(b *testing.B) {
	for _, bc := range []struct {
		name, profile string
		dialects      []string
	}{
		{"a2a_0.1", "a2a", []string{"a2a/0.1"}},
		{"a2a_0.2", "a2a", []string{"a2a/0.2"}},
		{"a2a_0.3", "a2a", []string{"a2a/0.3"}},
		{"a2a_1.0", "a2a", []string{"a2a/1.0"}},
		{"ma2d", "ma2d", []string{"ma2d"}},
		{"auto_mixed", "auto", []string{"a2a/0.1", "a2a/0.2", "a2a/0.3", "a2a/1.0", "ma2d", "agentcard"}},
	} {
		benchCards(b, bc.name, bc.profile, generatedCards(b, 256, bc.dialects...))
	}
	// Real cards are mostly pretty-printed, which the generated ones are
	// not. A family with only a few valid cards gets no row: predictors
	// would learn them by heart.
	real := realValidCards(b)
	for _, family := range []string{"a2a", "ma2d", "agentcard"} {
		if len(real[family]) < 8 {
			continue
		}
		benchCards(b, "real_"+family, family, real[family])
	}
	// The spec samples, as one more shape: larger skills, longer prose.
	for _, bc := range []struct{ name, profile, card string }{
		{"spec_0.2", "a2a", specSampleV02Text},
		{"spec_1.0_signed", "a2a", a2aCard10},
		{"spec_ma2d", "ma2d", ma2dCard},
	} {
		card := []byte(bc.card)
		b.Run(bc.name+"/cardscan", func(b *testing.B) {
			v := MustNew(bc.profile)
			b.SetBytes(int64(len(card)))
			b.ReportAllocs()
			for b.Loop() {
				v.Validate(card)
			}
		})
		b.Run(bc.name+"/fastjson", func(b *testing.B) {
			var p fastjson.Parser
			b.SetBytes(int64(len(card)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.ParseBytes(card); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchCards runs the cards through the profile, the strict pass alone and
// fastjson, cycling through them so that branch predictors cannot learn one
// card by heart; bytes per op are the cards' mean size.
func benchCards(b *testing.B, name, profile string, cards [][]byte) {
	total := 0
	for _, c := range cards {
		total += len(c)
	}
	mean := int64(total / len(cards))
	b.Run(name+"/cardscan", func(b *testing.B) {
		v := MustNew(profile)
		b.SetBytes(mean)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if !v.Validate(cards[i%len(cards)]).Valid() {
				b.Fatal("bench card invalid")
			}
			i++
		}
	})
	strictScan := func(row string, portable bool) {
		b.Run(name+"/"+row, func(b *testing.B) {
			var sc tape.Scanner
			sc.MaxDepth, sc.Portable = DefaultMaxDepth, portable
			b.SetBytes(mean)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if !sc.Scan(cards[i%len(cards)]) {
					b.Fatal("scan failed")
				}
				i++
			}
		})
	}
	// The strict pass alone: what is left of the gap to fastjson is the
	// profile's rules.
	strictScan("strict-scan-only", false)
	// What the amd64 vector pass over the bytes costs, and the same strict
	// pass with the bits computed a word at a time, as other machines do.
	if tape.HaveClassify {
		b.Run(name+"/classify-only", func(b *testing.B) {
			var sc tape.Scanner
			b.SetBytes(mean)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				sc.Classify(cards[i%len(cards)])
				i++
			}
		})
		strictScan("strict-scan-portable", true)
	}
	b.Run(name+"/fastjson", func(b *testing.B) {
		var p fastjson.Parser
		b.SetBytes(mean)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if _, err := p.ParseBytes(cards[i%len(cards)]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

// realValidCards returns the cards of shared/corpus/real that the profile
// of their family (a2a, ma2d, agentcard), as auto detects it, finds
// valid; nil where the corpus is absent.
func realValidCards(b *testing.B) map[string][][]byte {
	dir, err := realcards.Dir()
	if err != nil {
		return nil
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		b.Fatal(err)
	}
	sort.Strings(files)
	detect := MustNew("auto")
	byFamily := map[string][][]byte{}
	for _, f := range files {
		card, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		family, _, _ := strings.Cut(detect.Validate(card).Profile, "/")
		if family == "" || !MustNew(family).Validate(card).Valid() {
			continue
		}
		byFamily[family] = append(byFamily[family], card)
	}
	return byFamily
}
