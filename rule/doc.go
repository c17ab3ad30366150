package rule

// Doc is a rule's documentation beyond its one-line description: what it
// rests on, an example of each outcome and how to fix a finding. The rule
// reference (docs/rules.md), `cardscan explain`, the help of SARIF output
// and --list-rules are all generated from All() and these, so they cannot
// say different things.
type Doc struct {
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

var docs = map[Code]Doc{}

// RegisterDocs adds the documentation of registered rules; like Register
// it is meant for init functions and panics on a code documented twice.
func RegisterDocs(d map[Code]Doc) {
	for c, doc := range d {
		if _, dup := docs[c]; dup {
			panic("rule: documented twice: " + c.String())
		}
		docs[c] = doc
	}
}

// Doc returns the rule's documentation; ok is false for a rule that has
// none, which the rule reference's tests do not allow.
func (c Code) Doc() (d Doc, ok bool) {
	d, ok = docs[c]
	return d, ok
}
