package corpus

import (
	"slices"
	"strings"
)

// dialect is one card format: how to build a valid card, and the ways to
// break one.
type dialect struct {
	name    string
	profile string
	// build writes a valid card into the builder's tree, rooted at node 0.
	// When b.defective is set it must keep to the plain shape (no
	// variant), so that every defect edits a card it knows.
	build   func(b *builder)
	defects []*defect // sorted by name
}

// defect is one kind of targeted damage to a valid card. edit changes the
// tree before it is written; post changes the written bytes, for damage no
// JSON tree can hold (a trailing comma, a cut-off card). Either may be nil.
type defect struct {
	name string // "<rule>/<what>"
	rule string
	edit func(b *builder)
	post func(b *builder, card []byte) []byte
}

// builder is what dialect builders and defects work with: the tree of the
// card being made, the random source, and what the card is to be.
type builder struct {
	tree
	r         *rng
	defective bool   // a defect will be applied: build the plain shape
	variant   string // set by a builder that chose a valid variant
	embed     bool   // write the card in embedded-string form
	scratch   []string
}

func (b *builder) reset() {
	b.tree.reset()
	b.variant = ""
	b.embed = false
}

var registry = map[string]*dialect{}

// registerDialect adds a dialect; each dialect file calls it from init.
func registerDialect(name, profile string, build func(b *builder)) {
	d := entry(name)
	if d.build != nil {
		panic("corpus: dialect registered twice: " + name)
	}
	d.profile, d.build = profile, build
}

// entry returns the registry entry of a dialect, creating it, so that the
// files registering a dialect and its defects may run their init in any
// order. An entry without a builder is a bug, caught by the tests.
func entry(name string) *dialect {
	d, ok := registry[name]
	if !ok {
		d = &dialect{name: name}
		registry[name] = d
	}
	return d
}

// registerDefects adds defect kinds to a registered dialect. Kinds are kept
// sorted by name, so the cards a seed gives depend only on which kinds
// exist, not on the order files register them.
func registerDefects(dialectName string, defects ...defect) {
	d := entry(dialectName)
	for i := range defects {
		def := defects[i]
		if !strings.HasPrefix(def.name, def.rule+"/") {
			panic("corpus: defect name must start with its rule ID: " + def.name)
		}
		if def.edit == nil && def.post == nil {
			panic("corpus: defect does nothing: " + def.name)
		}
		for _, old := range d.defects {
			if old.name == def.name {
				panic("corpus: defect registered twice: " + def.name)
			}
		}
		d.defects = append(d.defects, &def)
	}
	slices.SortFunc(d.defects, func(x, y *defect) int { return strings.Compare(x.name, y.name) })
}
