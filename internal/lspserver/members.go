package lspserver

import "github.com/cardscan/cardscan/fastvalidate"

// membersAt returns the members of the object at pointer ptr in a card
// judged by profile, from the member tables the checks and `cardscan
// schema` read, so that what an editor completes and explains is what the
// validator holds the card to.
func membersAt(profile, ptr string) []fastvalidate.MemberDoc {
	return fastvalidate.MembersAt(profile, ptr)
}

// lookupMember returns the member name of the object at ptr.
func lookupMember(profile, ptr, name string) (fastvalidate.MemberDoc, bool) {
	for _, m := range membersAt(profile, ptr) {
		if m.Name == name {
			return m, true
		}
	}
	return fastvalidate.MemberDoc{}, false
}
