package bench

import (
	"bytes"
	"os"
	"slices"
	"testing"

	"github.com/cardscan/cardscan/bench/internal/compare"
	"github.com/cardscan/cardscan/bench/internal/driver"
	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The records each validator is known to judge against JSON Schema 2020-12
// and RFC 3986, as testdata/schema-edges.expected.tsv works them out. The
// comparison in docs/performance.md cites these lists; a change in either
// validator fails this test until they, and that page, are brought up to date.
var (
	// cardscan agrees with the expected verdict on every record.
	cardscanWrong = []int{}
	// santhosh-tekuri/jsonschema v6 checks format "uri" with net/url.Parse,
	// which lets through characters RFC 3986 does not have (space,
	// non-ASCII, < > \ ^ ` { | } [ ], a second #) and rejects IPvFuture
	// literals.
	santhoshWrong = []int{1, 2, 9, 21, 22, 23, 26, 28, 29, 30, 32, 36, 43, 44}
)

func edgeCards(t *testing.T) ([][]byte, []compare.Expected) {
	t.Helper()
	data, err := os.ReadFile("testdata/schema-edges.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	var cards [][]byte
	for rest := data; len(rest) > 0; {
		var rec []byte
		rec, rest = driver.Next(rest)
		if len(rec) > 0 {
			cards = append(cards, rec)
		}
	}
	want, err := compare.ReadExpected("testdata/schema-edges.expected.tsv")
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != len(cards) {
		t.Fatalf("%d expected verdicts for %d cards", len(want), len(cards))
	}
	return cards, want
}

// wrongOn returns the records where pass disagrees with the expected
// verdict, and whether it rejected every record that is not I-JSON.
func wrongOn(cards [][]byte, want []compare.Expected, pass func([]byte) bool) (wrong []int, rejectsNonIJSON bool) {
	rejectsNonIJSON = true
	for i, card := range cards {
		ok := pass(card)
		switch want[i].Verdict {
		case "ijson":
			rejectsNonIJSON = rejectsNonIJSON && !ok
		default:
			if ok != (want[i].Verdict == "valid") {
				wrong = append(wrong, i)
			}
		}
	}
	return wrong, rejectsNonIJSON
}

func TestSchemaEdgesCardscan(t *testing.T) {
	cards, want := edgeCards(t)
	v, err := fastvalidate.New("agentcard-schema")
	if err != nil {
		t.Skip("no agentcard-schema profile:", err)
	}
	wrong, strict := wrongOn(cards, want, func(card []byte) bool { return v.Validate(card).Valid() })
	if !slices.Equal(wrong, cardscanWrong) {
		t.Errorf("cardscan agentcard-schema is wrong on %v, known: %v", wrong, cardscanWrong)
		report(t, cards, want, wrong)
	}
	if !strict {
		t.Error("cardscan passed a card that is not I-JSON")
	}
}

func TestSchemaEdgesJSONSchema(t *testing.T) {
	cards, want := edgeCards(t)
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	schema, err := c.Compile("../../shared/specs/agentcard-schema-v1.0.json")
	if err != nil {
		t.Skip("the AgentCard JSON Schema is not beside the repository:", err)
	}
	wrong, strict := wrongOn(cards, want, func(card []byte) bool {
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(card))
		return err == nil && schema.Validate(inst) == nil
	})
	if !slices.Equal(wrong, santhoshWrong) {
		t.Errorf("santhosh-tekuri/jsonschema is wrong on %v, known: %v", wrong, santhoshWrong)
		report(t, cards, want, wrong)
	}
	if strict {
		t.Error("santhosh-tekuri/jsonschema rejected every card that is not I-JSON; docs/performance.md says it reads them")
	}
}

func report(t *testing.T, cards [][]byte, want []compare.Expected, wrong []int) {
	t.Helper()
	for _, i := range wrong {
		t.Logf("#%d expected %s: %s (%s)", i, want[i].Verdict, want[i].What, want[i].Why)
	}
}
