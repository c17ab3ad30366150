package fastvalidate

import "strings"

// RuleDoc is a rule's documentation beyond its one-line description: what
// it rests on, an example of each outcome and how to fix a finding. The
// rule reference (docs/rules.md), `cardscan explain`, the help of SARIF
// output and --list-rules are all generated from Rules() and these, so
// they cannot say different things.
type RuleDoc struct {
	// Spec quotes the specification sentence the rule enforces, word for
	// word, and Source names the document and its section.
	Spec, Source string
	// Basis says what a rule rests on when no specification sentence
	// states it: RFC 8259 and RFC 7493 for the strict JSON layer, a
	// section of docs/design.md for cardscan's own risk rules.
	Basis string
	// Fail is a short card that raises the rule and nothing else, Pass
	// one that does not raise it; Profile judges both ("" for the first
	// of the rule's profiles). Rules that judge HTTP responses or
	// signatures against keys have none: Example says how to see them.
	Fail, Pass, Profile string
	Example             string
	// Fix says how to make the finding go away.
	Fix string
}

// Doc returns the rule's documentation; ok is false for a rule that has
// none, which the package's tests do not allow.
func (c Code) Doc() (d RuleDoc, ok bool) {
	d, ok = ruleDocs[c]
	return d, ok
}

// InProfile reports whether profile p applies the rule, so that
// `--list-rules --profile P` lists what a run with --profile P can report.
// The rules of the strict JSON layer apply everywhere, auto may apply any
// profile's, a2a any A2A release's, and signature verification's apply to
// A2A cards; the fetch rules belong to no profile.
func (r Rule) InProfile(p string) bool {
	for q := range strings.SplitSeq(r.Profiles, ",") {
		switch {
		case q == "fetch":
		case q == allProfiles, q == p, p == "auto":
			return true
		case q == "signatures":
			if p == "a2a" || strings.HasPrefix(p, "a2a/") {
				return true
			}
		case q == "a2a" && strings.HasPrefix(p, "a2a/"), p == "a2a" && strings.HasPrefix(q, "a2a/"):
			return true
		}
	}
	return false
}

// ruleDocs documents each rule of the table, keyed by its code.
var ruleDocs = map[Code]RuleDoc{}
