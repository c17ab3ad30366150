package fastvalidate

import (
	"encoding/json"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/fastvalidate/internal/tape"

	"github.com/cardscan/cardscan/fastvalidate/internal/decimal"
)

// A number beyond float64's range is json.number-range wherever it stands:
// in a member no rule reads, in an A2A extension's params, in arrays, at
// any depth, in every profile. One too small for a float64 reads as 0 in
// encoding/json and Python alike and passes.
func TestNumberRange_Everywhere(t *testing.T) {
	long := "1" + strings.Repeat("0", 399)
	a2aParams := strings.Replace(a2aCard02, `"params": {"scale": 5}`, `"params": {"scale": 1e400}`, 1)
	if a2aParams == a2aCard02 {
		t.Fatal("a2aCard02 no longer has the extension params this test edits")
	}
	inMA2D := "{\"x\": [[-1e309]]," + strings.TrimPrefix(ma2dCard, "{")
	cases := []struct {
		name, profile, doc string
		want               []hit
	}{
		{"unknown top-level member", "agentcard", card(map[string]string{"x": `1E400`}), errAt("json.number-range", "/x")},
		{"negative", "agentcard", card(map[string]string{"x": `-1e309`}), errAt("json.number-range", "/x")},
		{"400-digit integer part", "agentcard", card(map[string]string{"x": long}), errAt("json.number-range", "/x")},
		{"400 digits and a fraction", "agentcard", card(map[string]string{"x": "-" + long + ".5"}), errAt("json.number-range", "/x")},
		{"exponent with leading zeros", "agentcard", card(map[string]string{"x": `1e000000000000000000309`}), errAt("json.number-range", "/x")},
		{"in an array, deep", "agentcard", inMeta(`[[[{"y":[0,1,1e999]}]]]`), errAt("json.number-range", "/metadata/x/0/0/0/y/2")},
		{"in a member name's object no rule reads", "agentcard", inMeta(`{"a/b~c":2e308}`), errAt("json.number-range", "/metadata/x/a~1b~0c")},
		{"in pricing", "agentcard", card(map[string]string{"pricing": `{"base_cost_joules":1e400}`}), errAt("json.number-range", "/pricing/base_cost_joules")},
		{"in a goal's priority", "agentcard", card(map[string]string{"goal_subscriptions": `[{"goal_id":"g","priority":1e400}]`}), errAt("json.number-range", "/goal_subscriptions/0/priority")},
		{"the first of two", "agentcard", inMeta(`[1e400,-1e400]`), errAt("json.number-range", "/metadata/x/0")},
		{"schema profile", "agentcard-schema", inMeta(`1e400`), errAt("json.number-range", "/metadata/x")},
		{"embedded-string card", "agentcard", strconv.Quote(inMeta(`1e400`)), errAt("json.number-range", "/metadata/x")},
		{"string holding only a number", "agentcard", `"1e400"`, errAt("json.number-range", "")},
		{"A2A extension params", "a2a", a2aParams, errAt("json.number-range", "/capabilities/extensions/0/params/scale")},
		{"MA2D unknown member", "ma2d", inMA2D, errAt("json.number-range", "/x/0/0")},
		{"auto", "auto", a2aParams, errAt("json.number-range", "/capabilities/extensions/0/params/scale")},

		{"largest float64", "agentcard", card(map[string]string{"x": `1.7976931348623157e308`}), nil},
		{"rounds down to the largest", "agentcard", card(map[string]string{"x": `-1.7976931348623158e308`}), nil},
		{"underflow", "agentcard", card(map[string]string{"x": `1e-400`}), nil},
		{"underflow, huge exponent", "agentcard", card(map[string]string{"x": `-1e-99999999999999999999`}), nil},
		{"zero with a huge exponent", "agentcard", card(map[string]string{"x": `0e99999`}), nil},
		{"400 digits scaled down", "agentcard", card(map[string]string{"x": long + `e-300`}), nil},
		{"three-digit exponent in range", "agentcard", card(map[string]string{"x": `1e100`}), nil},
		{"A2A extension params in range", "a2a", a2aCard02, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			checkHits(t, newTestValidator(t, c.profile).Validate([]byte(c.doc)), c.want)
		})
	}
}

// The finding points at the number and quotes it, as the pricing rules'
// did before the scanner took the check over.
func TestNumberRange_Finding(t *testing.T) {
	doc := inMeta(`[1, 1e400]`)
	r := newTestValidator(t, "agentcard").Validate([]byte(doc))
	fs := r.Findings()
	if len(fs) != 1 {
		t.Fatalf("findings = %v, want one", fs)
	}
	f := fs[0]
	if want := strings.Index(doc, "1e400"); f.Offset != want {
		t.Errorf("Offset = %d, want %d", f.Offset, want)
	}
	if got, want := f.Message(), "number does not fit a float64 (got 1e400)"; got != want {
		t.Errorf("Message() = %q, want %q", got, want)
	}
	// A number of thousands of digits is quoted in part.
	r = newTestValidator(t, "agentcard").Validate([]byte(inMeta("9" + strings.Repeat("9", 5000))))
	if fs := r.Findings(); len(fs) != 1 || len(fs[0].Message()) > 200 {
		t.Errorf("findings = %v, want one with a short message", fs)
	}
}

// The scanner rejects a number exactly when encoding/json's Unmarshal into
// any fails on it, on numbers generated around the boundary (the largest
// float64 is 1.7976931348623157e308; halfway to the next power of two,
// 2^1024 - 2^970, rounds to infinity), written every way JSON allows:
// many digits, leading zeros in the exponent, fractions, signs.
func TestNumberRange_AgreesWithEncodingJSON(t *testing.T) {
	half := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 1024), new(big.Int).Lsh(big.NewInt(1), 970)).String()
	below := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 1024), new(big.Int).Lsh(big.NewInt(1), 970))
	below.Sub(below, big.NewInt(1))
	cases := []string{
		"1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308",
		"1.79769313486231580793728971405301e308", "1.797693134862315807937289714053034150799e308",
		"1.7976931348623157e+308", "17976931348623157e292", "0.17976931348623157e309", "0.17976931348623159e309",
		half, below.String(), half + ".0", below.String() + ".99999999999999999999", "-" + half,
		half[:1] + "." + half[1:] + "e308", half[:1] + "." + half[1:] + "e0308",
		"1e308", "1e309", "1e0308", "1e0309", "1e+0000000000000000000000000000308", "1E+0000000000000000000000000000309",
		"0e400", "-0.0e999999999999", "1e-400", "-1e-400", "4.9e-324", "2e-324", "1e-99999999999999999999",
		"1" + strings.Repeat("0", 308), "1" + strings.Repeat("0", 309), "0." + strings.Repeat("0", 400) + "1e710",
		"0." + strings.Repeat("0", 400) + "1e711", strings.Repeat("9", 250) + "e58", strings.Repeat("9", 250) + "e59",
	}
	r := rand.New(rand.NewPCG(19, 10))
	digits := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('0' + r.IntN(10))
		}
		return string(b)
	}
	for range 3000 {
		sign := []string{"", "-"}[r.IntN(2)]
		var mant string
		switch r.IntN(4) {
		case 0: // the largest float64's digits, cut or carried on
			mant = "1.7976931348623157"[:3+r.IntN(16)] + digits(r.IntN(30))
		case 1:
			mant = "1.79769313486231580793728971405303"[:15+r.IntN(19)] + digits(r.IntN(5))
		case 2: // an integer part of up to 400 digits
			mant = string(rune('1'+r.IntN(9))) + digits(r.IntN(400))
		default: // leading zeros in the fraction
			mant = "0." + strings.Repeat("0", r.IntN(50)) + string(rune('1'+r.IntN(9))) + digits(r.IntN(20))
		}
		exp := ""
		if r.IntN(5) > 0 {
			exp = []string{"e", "E", "e+", "E+", "e-"}[r.IntN(5)] + strings.Repeat("0", r.IntN(3)*r.IntN(4)) + strconv.Itoa(280+r.IntN(80))
		}
		cases = append(cases, sign+mant+exp)
	}
	v := newTestValidator(t, "agentcard")
	over := 0
	sc := tape.Scanner{MaxDepth: 1}
	for _, n := range cases {
		doc := inMeta(n)
		var x any
		refErr := json.Unmarshal([]byte(doc), &x)
		r := v.Validate([]byte(doc))
		rejected := len(r.Findings()) > 0 && r.Findings()[0].Code == CodeJSONNumberRange
		if rejected != (refErr != nil) || !rejected && !r.Valid() {
			t.Errorf("%s: findings %v; encoding/json: %v", n, hitsOf(r), refErr)
		}
		if rejected {
			over++
		}
		// The prefilter lets no overflowing number through unread.
		sc.Scan([]byte(n))
		if flags := sc.View().Flags(0); !decimal.FitsFloat64([]byte(n)) && flags&tape.FlagLong == 0 {
			t.Errorf("%s overflows but scanNumber did not mark it long", n)
		}
	}
	// Both sides of the boundary must be well represented.
	if over < len(cases)/5 || over > len(cases)*4/5 {
		t.Errorf("%d of %d numbers overflow: the generator misses the boundary", over, len(cases))
	}
	t.Logf("%d of %d numbers overflow", over, len(cases))
}
