package fastvalidate

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/cardscan/cardscan/corpus"
	"github.com/valyala/fastjson"

	"github.com/cardscan/cardscan/fastvalidate/internal/tape"
)

// benchSet is a set of cards of about one size; a benchmark cycles through
// them so that branch predictors do not learn one card by heart.
type benchSet struct {
	name  string
	cards [][]byte
}

func (s benchSet) meanSize() int64 {
	n := 0
	for _, c := range s.cards {
		n += len(c)
	}
	return int64(n / len(s.cards))
}

func benchSets() []benchSet {
	small := make([][]byte, 8)
	for i := range small {
		small[i] = []byte(card(map[string]string{
			"name":         fmt.Sprintf(`"Agent %d"`, i),
			"capabilities": fmt.Sprintf(`[{"id":"text.op_%d","description":"Summarise a document to a word limit.","tags":["text","summary"]}]`, i),
			"endpoint":     `{"protocol":"https","url":"https://agents.example.com/api","auth":{"scheme":"bearer"}}`,
		}))
	}
	return []benchSet{
		{"300B", small},
		{"1.7KB", registryCards(16)},
		{"64KB", [][]byte{largeCard(64 << 10)}},
	}
}

// registryCards returns n valid one-line cards from the corpus generator of
// the shape registry dumps hold: 3 to 8 capabilities with input schemas and
// tags, pricing and metadata.
func registryCards(n int) [][]byte {
	g, err := corpus.New(corpus.Options{Seed: 1, Dialects: []string{"agentcard"}})
	if err != nil {
		panic(err)
	}
	var cards [][]byte
	for len(cards) < n {
		c := g.Next()
		var shape struct {
			Capabilities []struct {
				Tags        []string        `json:"tags"`
				InputSchema json.RawMessage `json:"input_schema"`
			} `json:"capabilities"`
			Pricing  map[string]any `json:"pricing"`
			Metadata map[string]any `json:"metadata"`
		}
		if c.Variant != "" || json.Unmarshal(c.JSON, &shape) != nil {
			continue
		}
		schemas, tags := 0, 0
		for _, cap := range shape.Capabilities {
			if len(cap.InputSchema) > 0 {
				schemas++
			}
			tags += len(cap.Tags)
		}
		if k := len(shape.Capabilities); k >= 3 && k <= 8 && schemas > 0 && tags > 0 && shape.Pricing != nil && shape.Metadata != nil {
			cards = append(cards, c.JSON)
		}
	}
	return cards
}

// BenchmarkValidator_Validate measures the validator beside a baseline that
// does strictly less: fastjson parsing the same bytes with a reused Parser
// and checking nothing (it accepts NaN, control characters, bad UTF-8 and
// duplicate names).
// benchValid validates cards round and round with v, each to be valid.
func benchValid(b *testing.B, v *Validator, cards [][]byte, meanSize int64) {
	b.SetBytes(meanSize)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if !v.Validate(cards[i%len(cards)]).Valid() {
			b.Fatal("invalid")
		}
		i++
	}
}

func BenchmarkValidator_Validate(b *testing.B) {
	for _, set := range benchSets() {
		for _, c := range set.cards {
			if r := MustNew("agentcard").Validate(c); !r.Valid() {
				b.Fatalf("%s: bench card invalid: %v", set.name, r.Findings())
			}
		}
		b.Run(set.name+"/validate", func(b *testing.B) {
			benchValid(b, MustNew("agentcard"), set.cards, set.meanSize())
		})
		// With severity overrides set, as --rule and a policy file set
		// them: what the override table costs a valid card.
		b.Run(set.name+"/validate-overrides", func(b *testing.B) {
			v := MustNew("agentcard",
				WithSeverity(CodeVersionSemver, SeverityWarning),
				WithSeverity(CodeCapabilityDescriptionMissing, SeverityOff),
				WithSeverity(CodePricingLandauer, SeverityWarning))
			benchValid(b, v, set.cards, set.meanSize())
		})
		// With every content rule off, which skips their work: beside
		// validate, what the content rules cost a card.
		b.Run(set.name+"/validate-content-off", func(b *testing.B) {
			benchValid(b, MustNew("agentcard", contentOff()...), set.cards, set.meanSize())
		})
		// The strict pass alone, without any profile rule: what the
		// validator's floor is, beside fastjson's.
		b.Run(set.name+"/strict-scan-only", func(b *testing.B) {
			var sc tape.Scanner
			sc.MaxDepth = DefaultMaxDepth
			b.SetBytes(set.meanSize())
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if !sc.Scan(set.cards[i%len(set.cards)]) {
					b.Fatal("scan failed")
				}
				i++
			}
		})
		b.Run(set.name+"/fastjson-parse-only", func(b *testing.B) {
			var p fastjson.Parser
			b.SetBytes(set.meanSize())
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := p.ParseBytes(set.cards[i%len(set.cards)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkValidator_ValidateInvalid measures cards that fail, which must
// not cost more than valid ones.
func BenchmarkValidator_ValidateInvalid(b *testing.B) {
	cards := map[string][]byte{
		"syntax":      []byte(`{"agent_id":"01HZQK3P8EMXR9V7T5N2W4J6C0","name":NaN}`),
		"rules":       []byte(`{"agent_id":"nope","name":"","version":"1","capabilities":[{"id":"A"}],"endpoint":{"protocol":"https","url":"http://a.example"}}`),
		"duplicate":   []byte(inMeta(`{"a":1,"b":2,"a":3}`)),
		"utf8-at-end": append(sizedCard(4)[:len(sizedCard(4))-1], []byte(",\"x\":\"\xff\"}")...),
	}
	for name, c := range cards {
		b.Run(name, func(b *testing.B) {
			v := MustNew("agentcard")
			b.SetBytes(int64(len(c)))
			b.ReportAllocs()
			for b.Loop() {
				if v.Validate(c).Valid() {
					b.Fatal("valid")
				}
			}
		})
	}
}
