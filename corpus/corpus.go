package corpus

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Card is one generated card and the verdict it was made to get.
type Card struct {
	// JSON is the card: one line, no trailing newline. The caller owns it.
	JSON []byte
	// Dialect is the card format the card was written in: "agentcard",
	// "agentcard-schema", "a2a/0.1", "a2a/0.2", "a2a/0.3", "a2a/1.0" or
	// "ma2d".
	Dialect string
	// Profile is the fastvalidate profile the card is meant to be judged
	// with: "agentcard", "agentcard-schema", "a2a" or "ma2d".
	Profile string
	// Defect names the defect kind applied (see DefectKinds), "" for a
	// valid card.
	Defect string
	// Rule is the rule ID the defect must trigger under Profile, and the
	// only rule with an error finding; "" for a valid card.
	Rule string
	// Variant names the unusual but valid shape of a valid card, such as
	// "embedded-string"; "" for an ordinary card or a defective one.
	Variant string
}

// Options selects what a Generator makes.
type Options struct {
	// Seed selects the corpus: the same Seed and Options give the same
	// cards, byte for byte, on every platform and Go release.
	Seed uint64
	// Dialects to draw cards from, uniformly; nil means {"agentcard"}.
	Dialects []string
	// DefectRate is the probability, 0 to 1, that a card carries a
	// defect. Dialects without defect kinds always give valid cards.
	DefectRate float64
	// Defects restricts the defect kinds used (nil: all). A dialect with
	// none of them gives only valid cards.
	Defects []string
}

// Generator makes cards. It is not safe for concurrent use; run one per
// goroutine, each with its own seed.
type Generator struct {
	rng      *rng
	rate     float64
	dialects []*dialectState
	b        builder
	out      []byte
}

// dialectState deals a dialect's defect kinds in shuffled rounds, so that
// every kind turns up once in each round of len(defects) defective cards.
type dialectState struct {
	*dialect
	defects []*defect
	order   []int
	pos     int
}

// ErrUnknown is returned by New for a dialect or defect kind it does not
// know.
var ErrUnknown = errors.New("corpus: unknown dialect or defect kind")

// New returns a Generator for the options.
func New(opts Options) (*Generator, error) {
	if opts.DefectRate < 0 || opts.DefectRate > 1 || opts.DefectRate != opts.DefectRate {
		return nil, fmt.Errorf("corpus: defect rate %v is not between 0 and 1", opts.DefectRate)
	}
	names := opts.Dialects
	if len(names) == 0 {
		names = []string{"agentcard"}
	}
	g := &Generator{
		// The stream constant only keeps this generator's sequence apart
		// from other PCG users seeded alike.
		rng:  newRNG(opts.Seed, 0x636172647363616e), // "cardscan"
		rate: opts.DefectRate,
	}
	g.b.r = g.rng
	wanted := map[string]bool{}
	for _, k := range opts.Defects {
		wanted[k] = true
	}
	found := map[string]bool{}
	for _, name := range names {
		d, ok := registry[name]
		if !ok {
			return nil, fmt.Errorf("%w: dialect %q (known: %s)", ErrUnknown, name, strings.Join(Dialects(), ", "))
		}
		s := &dialectState{dialect: d}
		for _, def := range d.defects {
			if len(wanted) == 0 || wanted[def.name] {
				s.defects = append(s.defects, def)
				found[def.name] = true
			}
		}
		s.order = make([]int, len(s.defects))
		for i := range s.order {
			s.order[i] = i
		}
		s.pos = len(s.order) // shuffle before the first deal
		g.dialects = append(g.dialects, s)
	}
	for _, k := range opts.Defects {
		if !found[k] {
			return nil, fmt.Errorf("%w: defect kind %q in dialects %s", ErrUnknown, k, strings.Join(names, ", "))
		}
	}
	return g, nil
}

// Next returns the next card.
func (g *Generator) Next() Card {
	r := g.rng
	s := g.dialects[r.intn(len(g.dialects))]
	var def *defect
	if len(s.defects) > 0 && r.chance(g.rate) {
		if s.pos == len(s.order) {
			r.shuffle(s.order)
			s.pos = 0
		}
		def = s.defects[s.order[s.pos]]
		s.pos++
	}
	b := &g.b
	b.reset()
	b.defective = def != nil
	s.build(b)
	if def != nil && def.edit != nil {
		def.edit(b)
	}
	g.out = b.write(g.out[:0], 0)
	if def != nil && def.post != nil {
		g.out = def.post(b, g.out)
	}
	if b.embed {
		g.out = embed(g.out)
	}
	c := Card{JSON: slices.Clone(g.out), Dialect: s.name, Profile: s.profile, Variant: b.variant}
	if def != nil {
		c.Defect, c.Rule, c.Variant = def.name, def.rule, ""
	}
	return c
}

// embed rewrites a card in the embedded-string form: one JSON string whose
// content is the card.
func embed(card []byte) []byte {
	inner := slices.Clone(card)
	return appendQuoted(card[:0], inner)
}

// Dialects returns the names of every dialect, sorted.
func Dialects() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// DefectKinds returns the names of a dialect's defect kinds, sorted; nil for
// an unknown dialect or one that only has valid cards. A name starts with
// the rule ID it must trigger: "capability.id/uppercase".
func DefectKinds(dialect string) []string {
	d, ok := registry[dialect]
	if !ok {
		return nil
	}
	var names []string
	for _, def := range d.defects {
		names = append(names, def.name)
	}
	return names
}

// ProfileOf returns the fastvalidate profile that judges a dialect's
// cards, "" for an unknown dialect.
func ProfileOf(dialect string) string {
	if d, ok := registry[dialect]; ok {
		return d.profile
	}
	return ""
}
