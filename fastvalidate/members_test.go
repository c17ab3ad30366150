package fastvalidate

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// tableBases are valid cards of each table's profile, rich enough that
// every object a table describes is there to be changed.
var tableBases = map[string]string{
	"a2a/0.1":          a2aCard01,
	"a2a/0.2":          a2aCard02,
	"a2a/0.3":          a2aCard03,
	"a2a/1.0":          a2aCard10,
	"agentcard":        draftExample,
	"agentcard-schema": schemaBase,
	"ma2d":             ma2dCard,
}

// schemaBase is a card the agentcard-schema profile accepts with every
// object of the schema present.
const schemaBase = `{
  "agent_id": "01HZX3M4N5P6Q7R8S9T0V1W2X3",
  "name": "Summariser",
  "version": "1.0.0",
  "capabilities": [{"id": "text.summarise", "description": "Summarises text.", "tags": ["nlp"], "input_schema": null}],
  "endpoint": {"protocol": "http", "url": "https://agent.example.com/", "auth": {"scheme": "bearer", "token_url": "https://auth.example.com/token"}},
  "pricing": {"base_cost_joules": 1, "currency": "USD"},
  "metadata": {"pacr:interaction_count": 3, "pacr:reputation_score": 0.5}
}`

// A mutation is one constraint of a table broken: the card with the
// change must get an error of rule at path.
type mutation struct {
	what, path string
	rule       Code
	apply      func(card map[string]any)
}

// TestMemberTables_Enforced breaks each constraint of each member table,
// one at a time, in a valid card, and requires the validator to report
// an error of the constraint's rule where the constraint stands: the
// schema JSONSchema writes from the tables then rejects nothing the
// validator accepts, and a table that says more than the checks do
// fails here.
func TestMemberTables_Enforced(t *testing.T) {
	total := 0
	for profile, base := range tableBases {
		tab := schemaTables[profile]
		v := MustNew(profile, WithClock(fixedClock))
		if r := v.Validate([]byte(base)); !r.Valid() {
			t.Fatalf("%s: base card is not valid: %v", profile, r.Findings())
		}
		var decoded map[string]any
		if err := json.Unmarshal([]byte(base), &decoded); err != nil {
			t.Fatal(err)
		}
		var muts []mutation
		collectMutations(tab, &tab.root, decoded, nil, &muts)
		for _, m := range muts {
			card := cloneJSON(decoded).(map[string]any)
			m.apply(card)
			b, err := json.Marshal(card)
			if err != nil {
				t.Fatal(err)
			}
			r := v.Validate(b)
			if !slices.ContainsFunc(r.Findings(), func(f Finding) bool {
				return f.Code == m.rule && f.Severity == SeverityError && f.Path == m.path
			}) {
				t.Errorf("%s: %s at %s: no error of %s there; findings: %v\ncard: %s", profile, m.what, m.path, m.rule, r.Findings(), b)
			}
		}
		total += len(muts)
	}
	t.Logf("%d constraints broken, each reported", total)
	if total < 200 {
		t.Errorf("only %d constraints exercised; the tables state more", total)
	}
}

type step = any // a member name or an array index

func pointer(steps []step) string {
	var b strings.Builder
	for _, s := range steps {
		b.WriteByte('/')
		switch s := s.(type) {
		case string:
			b.WriteString(strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1"))
		case int:
			b.WriteString(strconv.Itoa(s))
		}
	}
	return b.String()
}

func at(doc any, steps []step) any {
	for _, s := range steps {
		switch s := s.(type) {
		case string:
			doc = doc.(map[string]any)[s]
		case int:
			doc = doc.([]any)[s]
		}
	}
	return doc
}

func cloneJSON(v any) any {
	switch v := v.(type) {
	case map[string]any:
		c := make(map[string]any, len(v))
		for k, e := range v {
			c[k] = cloneJSON(e)
		}
		return c
	case []any:
		c := make([]any, len(v))
		for i, e := range v {
			c[i] = cloneJSON(e)
		}
		return c
	}
	return v
}

// badValues holds a value of each JSON type, by type bit.
var badValues = []struct {
	bit schemaType
	val any
}{{tObject, map[string]any{}}, {tArray, []any{}}, {tString, "x"}, {tNumber, 1.5}, {tBoolean, true}, {tNull, nil}}

// collectMutations appends the mutations breaking the constraints of the
// members of object spec obj, which stands at steps in decoded.
func collectMutations(tab *cardTable, obj *memberSpec, decoded any, steps []step, muts *[]mutation) {
	v := tab.variant
	for i := range obj.members {
		m := &obj.members[i]
		if !m.checkedIn(v) {
			continue
		}
		parent := slices.Clone(steps)
		here := append(slices.Clone(steps), m.name)
		set := func(val any) func(map[string]any) {
			return func(card map[string]any) { at(card, parent).(map[string]any)[m.name] = val }
		}
		if m.required.has(v) {
			*muts = append(*muts, mutation{"member removed", pointer(here), orCode(m.requiredRule, tab.requiredRule),
				func(card map[string]any) { delete(at(card, parent).(map[string]any), m.name) }})
		}
		valueMutations(tab, m, m.required.has(v), pointer(here), set, muts)
		if m.items != nil {
			item := m.items
			valueMutations(tab, item, true, pointer(here)+"/0", func(val any) func(map[string]any) { return set([]any{val}) }, muts)
		}
		cur, ok := at(decoded, parent).(map[string]any)[m.name]
		if !ok {
			continue
		}
		if len(m.members) > 0 || m.closed {
			if _, isObj := cur.(map[string]any); isObj {
				collectMutations(tab, m, decoded, here, muts)
			}
		}
		if m.items != nil && (len(m.items.members) > 0 || m.items.closed) {
			if arr, isArr := cur.([]any); isArr && len(arr) > 0 {
				collectMutations(tab, m.items, decoded, append(here, 0), muts)
			}
		}
	}
	if obj.closed {
		*muts = append(*muts, mutation{"unknown member added", pointer(append(slices.Clone(steps), "zz_unknown")), orCode(obj.closedRule, CodeSchemaAdditionalProperties),
			func(card map[string]any) { at(card, steps).(map[string]any)["zz_unknown"] = 1 }})
	}
}

func orCode(c, def Code) Code {
	if c != 0 {
		return c
	}
	return def
}

// valueMutations appends the mutations giving member m, at path, a value
// its table forbids, through set.
func valueMutations(tab *cardTable, m *memberSpec, required bool, path string, set func(any) func(map[string]any), muts *[]mutation) {
	v := tab.variant
	add := func(what string, rule Code, val any) {
		*muts = append(*muts, mutation{what, path, rule, set(val)})
	}
	if m.types != 0 {
		types := m.types
		if m.nullable.has(v) && !required {
			types |= tNull
		}
		for _, bad := range badValues {
			if types&bad.bit == 0 {
				add("type "+typeNameOf(bad.bit), orCode(m.typeRule, tab.typeRule), bad.val)
			}
		}
	}
	if len(m.enum) > 0 {
		add("value outside the enumeration", m.enumRule, "zz-not-listed")
	}
	if m.pattern != "" {
		add("value not matching the pattern", m.patternRule, "!")
	}
	if m.format == "uri" {
		add("value not a URI", m.formatRule, "not a uri")
	}
	minLength, lengthRule := m.minLength, m.lengthRule
	if m.nonEmpty.has(v) && minLength == 0 {
		minLength, lengthRule = 1, orCode(m.nonEmptyRule, orCode(m.requiredRule, tab.requiredRule))
	}
	if m.types&tString != 0 && minLength > 0 {
		add("string too short", lengthRule, strings.Repeat("a", minLength-1))
	}
	if m.maxLength > 0 {
		add("string too long", orCode(m.maxLengthRule, m.lengthRule), strings.Repeat("a", m.maxLength+1))
	}
	if m.types&tArray != 0 && (m.minItems > 0 || m.nonEmpty.has(v)) {
		add("array empty", orCode(m.minItemsRule, orCode(m.nonEmptyRule, orCode(m.requiredRule, tab.requiredRule))), []any{})
	}
	if m.uniqueItems != 0 {
		// The finding names the second of the two.
		*muts = append(*muts, mutation{"array with a repeated item", path + "/1", m.uniqueItems, set([]any{"a", "a"})})
	}
	if m.minimum != "" {
		add("number below the minimum", m.rangeRule, json.Number("-1"))
	}
	if m.maximum != "" {
		add("number above the maximum", orCode(m.maximumRule, m.rangeRule), json.Number(m.maximum+"1"))
	}
}

func typeNameOf(bit schemaType) string { return typeNames(bit).(string) }
