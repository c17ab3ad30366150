package rule

import "sync"

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

// docSources are the registered functions that build the documentation,
// called on the first Doc: some hundred documents of strings cost every
// start a fraction of a millisecond, and only explain, --list-rules, SARIF
// help and the rule reference read them.
var (
	docSources []func() map[Code]Doc
	docsOnce   sync.Once
	docs       map[Code]Doc
)

// RegisterDocs adds a function returning the documentation of registered
// rules. Like Register it is meant for init functions; the first Doc
// calls every such function and panics on a code documented twice.
func RegisterDocs(build func() map[Code]Doc) {
	docSources = append(docSources, build)
}

func buildDocs() {
	docs = map[Code]Doc{}
	for _, build := range docSources {
		for c, doc := range build() {
			if _, dup := docs[c]; dup {
				panic("rule: documented twice: " + c.String())
			}
			docs[c] = doc
		}
	}
}

// Doc returns the rule's documentation; ok is false for a rule that has
// none, which the rule reference's tests do not allow.
func (c Code) Doc() (d Doc, ok bool) {
	docsOnce.Do(buildDocs)
	d, ok = docs[c]
	return d, ok
}
