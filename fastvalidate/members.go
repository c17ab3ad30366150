package fastvalidate

// Member tables: what each profile declares about a card's members (their
// names, JSON types, which are required, their enumerations, lengths and
// patterns) as data, read both by the checks (the required lists, the
// enumerations and their messages) and by JSONSchema, which writes them as
// a JSON Schema for editors. The checks keep their hand-written member
// switches, which are what makes a valid card cost nothing; the tables
// state only facts the checks enforce as errors, and
// TestMemberTables_Enforced holds every constraint of every table to a
// finding of its rule, so that a schema never rejects a card the
// validator accepts.

import "strings"

// variants is a set of the variants of a profile a member fact holds in:
// one bit per A2A release (bit a2aV01 ... a2aV10) for the a2a tables;
// the other profiles have one variant, bit 1.
type variants uint8

const (
	inAll  variants = 0xFF
	in01   variants = 1 << a2aV01
	in02   variants = 1 << a2aV02
	in03   variants = 1 << a2aV03
	in10   variants = 1 << a2aV10
	in0x   variants = in01 | in02 | in03
	from02 variants = in02 | in03 | in10
	from03 variants = in03 | in10
	only1  variants = 1 << 1
)

// memberSpec declares one member of an object, or (as items or values) the
// shape of an array's elements or an object's values.
type memberSpec struct {
	name string
	// doc is the specification's own sentence about the member, word for
	// word (TestMemberTables_DocsQuoteSpecs).
	doc string
	// in is where the member is checked at all (0: everywhere); elsewhere
	// the schema does not name it.
	in variants
	// doc10 replaces doc for A2A 1.0, whose sources word it anew.
	doc10 string
	// types are the JSON types the checks accept (0: any), reported under
	// typeRule (the table's default when 0); null joins them where
	// nullable holds.
	types    schemaType
	typeRule Code
	nullable variants
	// required is where the member must be present, reported under
	// requiredRule (the table's default when 0).
	required     variants
	requiredRule Code
	// nonEmpty is where a string must have a code point or an array an
	// element, reported under nonEmptyRule (requiredRule when 0).
	nonEmpty     variants
	nonEmptyRule Code
	// enum lists the only strings allowed, reported under enumRule.
	enum     []string
	enumRule Code
	// pattern is an ECMA-262 regular expression the whole string matches,
	// with the same meaning as the check's matcher, reported under
	// patternRule.
	pattern     string
	patternRule Code
	// minLength and maxLength bound a string in code points (0: none),
	// reported under lengthRule; minItems bounds an array under its rule.
	minLength, maxLength int
	lengthRule           Code
	maxLengthRule        Code // lengthRule when 0
	minItems             int
	minItemsRule         Code
	uniqueItems          Code
	// minimum and maximum bound a number, as JSON number literals ("":
	// none), reported under rangeRule.
	minimum, maximum string
	rangeRule        Code
	maximumRule      Code // rangeRule when 0
	// format is a JSON Schema format the check asserts, under formatRule.
	format     string
	formatRule Code
	// items is an array's element; members an object's members, and
	// values its other members' shape (nil: any); closed forbids members
	// not listed, under closedRule.
	items      *memberSpec
	members    []memberSpec
	values     *memberSpec
	closed     bool
	closedRule Code
}

// cardTable is one profile's member table.
type cardTable struct {
	profile string
	// variant is the profile's bit in the members' variants.
	variant variants
	title   string
	// doc describes the card, from the profile's specification.
	doc string
	// typeRule and requiredRule report a wrong JSON type and a missing
	// member unless a member names another rule.
	typeRule, requiredRule Code
	// root is the card itself.
	root memberSpec
}

// schemaTables are the profiles JSONSchema knows, by name.
var schemaTables = map[string]*cardTable{}

func registerTable(t *cardTable) {
	if _, dup := schemaTables[t.profile]; dup {
		panic("fastvalidate: member table registered twice: " + t.profile)
	}
	schemaTables[t.profile] = t
}

// requiredIn returns the names of the required members of obj in variant
// v, in the table's order.
func requiredIn(obj *memberSpec, v variants) []string {
	var names []string
	for i := range obj.members {
		if m := &obj.members[i]; m.checkedIn(v) && m.required.has(v) {
			names = append(names, m.name)
		}
	}
	return names
}

func (s variants) has(v variants) bool { return s&v != 0 }

// checkedIn reports whether the checks look at the member in variant v.
func (m *memberSpec) checkedIn(v variants) bool { return m.in == 0 || m.in&v != 0 }

// inEnum reports whether s is one of enum.
func inEnum(s []byte, enum []string) bool {
	for _, e := range enum {
		if string(s) == e {
			return true
		}
	}
	return false
}

// enumMessage is the finding's message for a string outside enum. It is
// built at start-up, so in one allocation rather than one per value.
func enumMessage(prefix string, enum []string) string {
	return prefix + strings.Join(enum, ", ")
}
