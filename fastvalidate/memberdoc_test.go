package fastvalidate

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestMembersAt_AgreesWithJSONSchema walks each profile's schema, as
// `cardscan schema` writes it, and asks MembersAt for every object the
// schema describes: the same members, required and
// enumerated alike, and a description that starts with the member's doc.
// Editors then complete and explain exactly what the schema and the
// checks hold.
func TestMembersAt_AgreesWithJSONSchema(t *testing.T) {
	for profile := range schemaTables {
		raw, err := JSONSchema(profile)
		if err != nil {
			t.Fatal(err)
		}
		var root map[string]any
		if err := json.Unmarshal(raw, &root); err != nil {
			t.Fatal(err)
		}
		objects := 0
		var walk func(ptr string, s map[string]any)
		walk = func(ptr string, s map[string]any) {
			if props, ok := s["properties"].(map[string]any); ok {
				objects++
				checkMembersAt(t, profile, ptr, props, s["required"])
				for name, p := range props {
					walk(ptr+"/"+strings.ReplaceAll(strings.ReplaceAll(name, "~", "~0"), "/", "~1"), p.(map[string]any))
				}
			}
			if items, ok := s["items"].(map[string]any); ok {
				walk(ptr+"/0", items)
			}
			if values, ok := s["additionalProperties"].(map[string]any); ok {
				walk(ptr+"/any-key", values)
			}
		}
		walk("", root)
		if objects == 0 {
			t.Errorf("%s: the schema describes no object", profile)
		}
	}
}

func checkMembersAt(t *testing.T, profile, ptr string, props map[string]any, required any) {
	t.Helper()
	got := MembersAt(profile, ptr)
	var order []string
	for _, m := range got {
		order = append(order, m.Name)
	}
	want := make([]string, 0, len(props))
	for name := range props {
		want = append(want, name)
	}
	if !sameSet(order, want) {
		t.Errorf("%s %q: MembersAt names %v, the schema %v", profile, ptr, order, want)
		return
	}
	var req []string
	if r, ok := required.([]any); ok {
		for _, n := range r {
			req = append(req, n.(string))
		}
	}
	for _, m := range got {
		p := props[m.Name].(map[string]any)
		if m.Required != slices.Contains(req, m.Name) {
			t.Errorf("%s %q %s: Required %v, the schema's required %v", profile, ptr, m.Name, m.Required, req)
		}
		var enum []string
		if e, ok := p["enum"].([]any); ok {
			for _, v := range e {
				if s, ok := v.(string); ok {
					enum = append(enum, s)
				}
			}
		}
		if !slices.Equal(m.Enum, enum) {
			t.Errorf("%s %q %s: Enum %v, the schema's %v", profile, ptr, m.Name, m.Enum, enum)
		}
		desc, _ := p["description"].(string)
		if !strings.HasPrefix(desc, m.Doc) {
			t.Errorf("%s %q %s: Doc %q is not the schema's description %q", profile, ptr, m.Name, m.Doc, desc)
		}
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func TestMembersAt_Paths(t *testing.T) {
	for _, tc := range []struct {
		profile, ptr string
		want         string // a member expected there, "" for none
	}{
		{"ma2d", "", "name"},
		{"a2a/1.0", "/supportedInterfaces/3", "protocolBinding"},
		{"a2a/0.3", "/skills/0", "id"},
		{"a2a/0.3", "/skills/x", ""},
		{"a2a/0.3", "/nope", ""},
		{"a2a/0.3", "skills", ""},
		{"auto", "", ""},
	} {
		got := MembersAt(tc.profile, tc.ptr)
		found := slices.ContainsFunc(got, func(m MemberDoc) bool { return m.Name == tc.want })
		if tc.want == "" && got != nil || tc.want != "" && !found {
			t.Errorf("MembersAt(%q, %q) = %v, want %q among them", tc.profile, tc.ptr, got, tc.want)
		}
	}
}
