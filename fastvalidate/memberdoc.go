package fastvalidate

import (
	"slices"
	"strconv"
	"strings"
)

// MemberDoc is what a profile's member table says of one member of an
// object in a card: the facts editors complete and explain members with,
// the same ones the checks enforce and JSONSchema writes.
type MemberDoc struct {
	Name string
	// Doc is the specification's own sentence about the member ("" where
	// the table quotes none).
	Doc      string
	Required bool
	// Enum lists the only strings the member may hold (nil: any).
	Enum []string
}

// MembersAt returns the members the named profile declares for the
// object at JSON Pointer ptr of a card ("" is the card itself), in the
// table's order, or nil where the profile declares no object there. An
// array index and a member the object does not name (in a map of
// values) step into the array's elements and the map's values.
func MembersAt(profile, ptr string) []MemberDoc {
	t, ok := schemaTables[profile]
	if !ok {
		return nil
	}
	m := &t.root
	if ptr != "" {
		if ptr[0] != '/' {
			return nil
		}
		for _, tok := range strings.Split(ptr[1:], "/") {
			if m = m.child(unescapePointer(tok), t.variant); m == nil {
				return nil
			}
		}
	}
	var docs []MemberDoc
	for i := range m.members {
		c := &m.members[i]
		if !c.checkedIn(t.variant) {
			continue
		}
		doc := c.doc
		if t.variant == in10 && c.doc10 != "" {
			doc = c.doc10
		}
		docs = append(docs, MemberDoc{Name: c.name, Doc: doc, Required: c.required.has(t.variant), Enum: slices.Clone(c.enum)})
	}
	return docs
}

// child is what m declares at pointer token tok in variant v: a member by
// its name, an array's element by its index, or a map's value.
func (m *memberSpec) child(tok string, v variants) *memberSpec {
	for i := range m.members {
		if c := &m.members[i]; c.name == tok && c.checkedIn(v) {
			return c
		}
	}
	if m.items != nil {
		if _, err := strconv.ParseUint(tok, 10, 0); err == nil {
			return m.items
		}
		return nil
	}
	return m.values
}

func unescapePointer(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
}
