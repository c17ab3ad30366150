// Package corpus generates agent cards, valid and deliberately broken, for
// tests, fuzz seeds, benchmarks and the sample corpus.
//
// A Generator is deterministic: the same Options give the same cards, byte
// for byte, on every platform and Go release (every choice comes from the
// raw output of a seeded math/rand/v2 PCG, and nothing reads the clock).
// Each Card says which dialect it is written in, which fastvalidate profile
// should judge it, and, for a defective card, the defect kind applied and
// the one rule it must break:
//
//	g, err := corpus.New(corpus.Options{Seed: 1, Dialects: []string{"agentcard"}, DefectRate: 0.05})
//	...
//	c := g.Next() // c.JSON, c.Dialect, c.Profile, c.Defect, c.Rule
//
// # Dialects
//
// "agentcard" follows draft-aevum-agentcard-00; "agentcard-schema" the
// AgentCard JSON Schema v1.0, which differs from the draft; "a2a/0.1",
// "a2a/0.2", "a2a/0.3" and "a2a/1.0" the A2A Agent Card releases; "ma2d"
// the MA2D Agent Card specification. Valid cards are realistic: an
// agentcard card averages about 1.7 KB. A few valid cards take unusual but
// legal shapes (Card.Variant): the embedded-string form, backslash escapes,
// member names spelled with escapes, values on the very limits.
//
// # Defects
//
// A defect kind is one targeted change to a valid card, named after the
// rule it must trigger: "capability.id/uppercase" must give an error of
// rule capability.id and of no other rule (warnings aside). Within a
// dialect, kinds are dealt in shuffled rounds, so a run with n defective
// cards of a dialect holds every kind once n reaches the number of kinds.
// A dialect without defect kinds gives valid cards only.
//
// # Adding a dialect or a defect kind
//
// A dialect is one file whose init calls registerDialect with the
// dialect's name, the profile that judges it, and a builder: a function
// that writes a valid card into the builder's tree (b.object, b.put,
// b.str, ...). A builder must give the plain shape, no Variant, when
// b.defective is set, so that defects edit a card they know.
//
// Defect kinds are registered with registerDefects(dialect, ...), from any
// file, in any order. A defect edits the tree before it is written
// (b.set("/endpoint/url", b.raw(`"no-scheme"`)), b.remove(path)), or
// rewrites the written bytes for damage no tree can hold (post). The
// helpers setTo, setOneOf and required make most kinds one line. The
// strict-JSON kinds every profile shares are in jsonDefects, ready to
// register for any dialect. TestVerdicts then checks every new kind against
// its profile, and the sample corpus must be regenerated (make sample).
package corpus
