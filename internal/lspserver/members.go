package lspserver

import "strings"

//go:generate go run gen_members.go ../../../shared/specs

// memberDoc is one member an object of a card may hold, as the profile's
// published JSON Schema describes it.
type memberDoc struct {
	Name, Doc string
	Required  bool
	Enum      []string
}

// objectDoc is the members of the objects at At: a JSON Pointer in which
// "*" stands for any array index or map key.
type objectDoc struct {
	At      string
	Members []memberDoc
}

// membersAt returns the members of the object at pointer ptr in a card
// judged by profile, or nil when the schema describes none there.
func membersAt(profile, ptr string) []memberDoc {
	for _, o := range memberTables[profile] {
		if pointerMatches(o.At, ptr) {
			return o.Members
		}
	}
	return nil
}

// lookupMember returns the member name of the object at ptr.
func lookupMember(profile, ptr, name string) (memberDoc, bool) {
	for _, m := range membersAt(profile, ptr) {
		if m.Name == name {
			return m, true
		}
	}
	return memberDoc{}, false
}

func pointerMatches(pattern, ptr string) bool {
	if pattern == "" || ptr == "" {
		return pattern == ptr
	}
	ps, qs := strings.Split(pattern[1:], "/"), strings.Split(ptr[1:], "/")
	if len(ps) != len(qs) {
		return false
	}
	for i := range ps {
		if ps[i] != "*" && ps[i] != qs[i] {
			return false
		}
	}
	return true
}
