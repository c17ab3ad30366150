package fuzz

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/fastvalidate"
)

// cardProfiles are the profiles FuzzValidate drives.
func cardProfiles(t testing.TB) []*fastvalidate.Validator {
	var vs []*fastvalidate.Validator
	for _, p := range []string{"agentcard", "agentcard-schema"} {
		if v, err := fastvalidate.New(p, fastvalidate.WithClock(fixedClock)); err == nil {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		t.Fatal("no card profile available")
	}
	return vs
}

// The reference itself must be right on the cases whose answer is known.
func TestStrictReference(t *testing.T) {
	cases := []struct {
		doc string
		ok  bool
	}{
		{`{}`, true}, {`{"a":1,"b":{"a":2}}`, true}, {`{"a":1,"a":2}`, false}, {`{"a":1,"\u0061":2}`, false},
		{`[{"a":1},{"a":1}]`, true}, {`{"a":{"a":{}},"b":[{"a":1,"b":2}]}`, true}, {`{"x":{"a":1,"a":1}}`, false},
		{`["\ud800"]`, false}, {`["\udc00"]`, false}, {`["\ud800\u0041"]`, false}, {`["\ud83d\ude00"]`, true},
		{`["\\ud800"]`, true}, {`["\\\ud800"]`, false}, {"[\"\xff\"]", false}, {"[\"\xed\xa0\x80\"]", false},
		// A top-level string whose content is no JSON and opens no object
		// is a string (card.type), strict JSON; content that opens an
		// object, or is JSON, is judged strictly.
		{`"\ud83d\ude00"`, true}, {`"{\"a\":1"`, false}, {`"[{\"a\":1,\"a\":2}]"`, false},
		{`01`, false}, {`NaN`, false}, {`[1,]`, false}, {` `, false}, {"\ufeff{}", false},
		{strings.Repeat("[", 512) + strings.Repeat("]", 512), true},
		{strings.Repeat("[", 513) + strings.Repeat("]", 513), false},
		{`"{\"a\":1,\"a\":2}"`, false}, {`"{\"a\":\"\\ud800\"}"`, false}, {`"[1,]"`, true}, {`"{}"`, true}, {`"x"`, true},
		// A number beyond float64's range, anywhere; one below it reads as 0.
		{`{"x":[1E400]}`, false}, {`[-1e309]`, false}, {`{"x":1.7976931348623157e308}`, true}, {`1e-400`, true},
		{`"{\"x\":1e400}"`, false}, {`{"x":1e00000309}`, false},
	}
	for _, c := range cases {
		if ok, why := strictReference([]byte(c.doc), fastvalidate.DefaultMaxDepth, true); ok != c.ok {
			t.Errorf("strictReference(%q) = %v (%s), want %v", c.doc, ok, why, c.ok)
		}
	}
}

// TestStrictDifferential mutates the seed cards and checks every property
// of checkResult on each mutant, for each card profile.
func TestStrictDifferential(t *testing.T) {
	n := 30000
	if testing.Short() {
		n = 3000
	}
	strictDifferential(t, seedCards(t), n)
}

// TestStrictDifferentialReal is TestStrictDifferential on mutants of the
// real cards beside the repository, where they are.
func TestStrictDifferentialReal(t *testing.T) {
	n := 10000
	if testing.Short() {
		n = 1000
	}
	strictDifferential(t, realCards(t), n)
}

// strictDifferential checks every property of checkResult on n mutants of
// seeds, for each card profile.
func strictDifferential(t *testing.T, seeds [][]byte, n int) {
	vs := cardProfiles(t)
	r := rand.New(rand.NewPCG(1, 2))
	rejected := 0
	for i := range n {
		doc := mutate(r, seeds[i%len(seeds)])
		for _, v := range vs {
			res := v.Validate(doc)
			checkResult(t, v.Profile(), doc, res)
			if ok, _ := strictVerdict(res); !ok {
				rejected++
			}
		}
	}
	// Mutants must exercise both verdicts, or the test proves little.
	if total := n * len(vs); rejected < total/10 || rejected > total*9/10 {
		t.Errorf("strict layer rejected %d of %d mutants; the mutator is off balance", rejected, total)
	}
}

// FuzzValidate: no panic; the strict layer agrees with the reference; the
// verdict agrees with the findings; every path is a pointer that resolves
// in the card; a reused Validator answers as a fresh one.
func FuzzValidate(f *testing.F) {
	for _, s := range seedCards(f) {
		f.Add(s)
	}
	vs := cardProfiles(f)
	other := []byte(handSeeds[4])
	f.Fuzz(func(t *testing.T, doc []byte) {
		if len(doc) > maxFuzzInput {
			t.Skip("input too large")
		}
		for _, v := range vs {
			res := v.Validate(doc)
			checkResult(t, v.Profile(), doc, res)
			fresh, _ := fastvalidate.New(v.Profile(), fastvalidate.WithClock(fixedClock))
			checkReuse(t, v, fresh, doc, other)
		}
	})
}
