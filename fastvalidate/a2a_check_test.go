package fastvalidate

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// The a2a and ma2d walks decide the common cases inline and leave the rest
// to the general checks. These tests hold each shortcut to the check it
// stands for: where the shortcut says "nothing to report", the general
// check must report nothing either.

// memberValues are values of every kind a member may hold.
var memberValues = []string{
	`null`, `true`, `false`, `0`, `""`, `"x"`, `"\u0078"`, `[]`, `[""]`, `["a","b"]`, `["a",1]`, `[null]`,
	`[["a"]]`, `[{}]`, `["a",["b"]]`, `{}`, `{"a":"b"}`,
}

// memberCheck scans {"m": value} for a check of the given version and
// returns the check, set up on that document, with the value's node.
func memberCheck(t *testing.T, v *Validator, ver a2aVersion, value string) (*a2aCheck, uint32) {
	t.Helper()
	w := &v.w
	w.b = []byte(`{"m":` + value + `}`)
	if !w.scan(w.b) {
		t.Fatalf("%s does not scan", w.b)
	}
	w.res.reset()
	return &a2aCheck{walker: w, ver: ver, m: &topMembers{}}, 2
}

func findingsText(r *Result) string {
	var s []string
	for _, f := range r.Findings() {
		s = append(s, fmt.Sprintf("%s %s %q %d %s", f.Code, f.Severity, f.Path, f.Offset, f.Message()))
	}
	return strings.Join(s, "; ")
}

// TestTextShortcuts holds goodString to checkRequiredString and
// checkOptionalString to checkString(n, false), for every kind of value in
// every version.
func TestTextShortcuts(t *testing.T) {
	v := MustNew("a2a")
	for _, ver := range []a2aVersion{a2aV01, a2aV02, a2aV03, a2aV10} {
		for _, value := range memberValues {
			c, n := memberCheck(t, v, ver, value)
			if c.goodString(n) {
				if !c.checkRequiredString(0, n, CodeA2ARequired, "m") || len(c.res.Findings()) > 0 {
					t.Errorf("%s %s: goodString passes what checkRequiredString reports: %s", a2aProfileName[ver], value, findingsText(&c.res))
				}
			}
			c, n = memberCheck(t, v, ver, value)
			fast := c.checkOptionalString(n)
			fastFindings := findingsText(&c.res)
			c, n = memberCheck(t, v, ver, value)
			if slow := c.checkStringAs(n, false, CodeA2ARequired); fast != slow || fastFindings != findingsText(&c.res) {
				t.Errorf("%s %s: checkOptionalString = %v (%s), checkString = %v (%s)", a2aProfileName[ver], value, fast, fastFindings, slow, findingsText(&c.res))
			}
		}
		// An absent member: no node.
		c, _ := memberCheck(t, v, ver, `0`)
		if c.goodString(0) || c.checkOptionalString(0) {
			t.Errorf("%s: an absent member passes", a2aProfileName[ver])
		}
	}
}

// TestStringsOnly holds stringsOnly to checkStringArray: an array it
// passes is one checkStringArray finds nothing wrong with, and it passes
// the arrays of strings.
func TestStringsOnly(t *testing.T) {
	v := MustNew("a2a")
	for _, value := range memberValues {
		c, n := memberCheck(t, v, a2aV03, value)
		fast := c.stringsOnly(n)
		if !c.checkStringArray(n, false) || len(c.res.Findings()) > 0 {
			if fast {
				t.Errorf("%s: stringsOnly passes what checkStringArray reports: %s", value, findingsText(&c.res))
			}
			continue
		}
		if !fast {
			t.Errorf("%s: stringsOnly misses an array of strings", value)
		}
	}
}

// skillsCard returns an A2A 1.0 card whose skills have the ids given.
func skillsCard(ids []string) []byte {
	var skills []string
	for _, id := range ids {
		skills = append(skills, `{"id":"`+id+`","name":"n","description":"d","tags":["t"]}`)
	}
	return []byte(`{"name":"a","description":"d","version":"1","supportedInterfaces":[{"url":"https://a.example/","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],` +
		`"capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[` + strings.Join(skills, ",") + `]}`)
}

// TestSkillIDsBeyondSeen checks the skill id uniqueness on both sides of
// the ids the walk keeps (maxSeenSkills), against a plain count.
func TestSkillIDsBeyondSeen(t *testing.T) {
	v := newTestValidator(t, "a2a/1.0")
	const m = maxSeenSkills
	// Pairs of skills with the same id, the later one possibly spelled
	// with an escape, about the last skill whose id the walk keeps.
	pairs := []struct {
		earlier, later int
		escaped        bool
	}{
		{0, 1, false}, {0, 1, true}, {1, m - 1, false}, {m - 2, m - 1, true}, {m - 1, m, false}, {0, m, true},
		{m - 1, m + 1, false}, {m, m + 1, false}, {m + 1, m + 4, true}, {3, m + 8, false},
	}
	for _, n := range []int{2, m - 1, m, m + 1, m + 2, m + 9} {
		for _, p := range pairs {
			if p.later >= n {
				continue
			}
			ids := make([]string, n)
			for i := range ids {
				ids[i] = fmt.Sprintf("skill-%d", i)
			}
			ids[p.later] = ids[p.earlier]
			if p.escaped {
				ids[p.later] = `\u0073` + ids[p.earlier][1:]
			}
			want := []string{fmt.Sprintf("/skills/%d/id", p.later)}
			var got []string
			for _, f := range v.Validate(skillsCard(ids)).Findings() {
				if f.Code != CodeA2ASkillIDUnique {
					t.Fatalf("%d skills: unexpected %s at %s", n, f.Code, f.Path)
				}
				got = append(got, f.Path)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%d skills, skill %d repeating skill %d (escaped %v): duplicates reported at %q, want %q", n, p.later, p.earlier, p.escaped, got, want)
			}
		}
	}
}

// TestMA2DExampleSkillsBeyondSeen checks the examples' skill references on
// both sides of the skill names the walk keeps.
func TestMA2DExampleSkillsBeyondSeen(t *testing.T) {
	v := newTestValidator(t, "ma2d")
	desc := strings.Repeat("d", 60)
	for _, n := range []int{1, maxSeenSkills, maxSeenSkills + 1, maxSeenSkills + 5} {
		var skills []string
		for i := range n {
			skills = append(skills, fmt.Sprintf(`{"name":"skill_%d","description":%q}`, i, desc))
		}
		refs := []string{"skill_0", fmt.Sprintf("skill_%d", n-1), "skill_\\u0030", "nope", fmt.Sprintf("skill_%d", n)}
		var examples []string
		for _, r := range refs {
			examples = append(examples, fmt.Sprintf(`{"skill":"%s","input":{},"output":{}}`, r))
		}
		card := `{"name":"x","version":"1.0.0","description":"` + strings.Repeat("x", 200) + `","skills":[` + strings.Join(skills, ",") +
			`],"invocation":{"protocol":"rest","endpoint":"https://a.example/"},"examples":[` + strings.Join(examples, ",") + `]}`
		var got []string
		for _, f := range v.Validate([]byte(card)).Findings() {
			got = append(got, f.Code.String()+" "+f.Path)
		}
		want := []string{"ma2d.example-skill /examples/3/skill", "ma2d.example-skill /examples/4/skill"}
		if !slices.Equal(got, want) {
			t.Errorf("%d skills: %q, want %q", n, got, want)
		}
	}
}

// TestMA2DListsOfAnyKind feeds the ma2d lists whose strings are read
// inline values of every kind.
func TestMA2DListsOfAnyKind(t *testing.T) {
	v := newTestValidator(t, "ma2d")
	for _, list := range []string{"languages", "input_modes", "output_modes", "domains"} {
		card := edited(t, ma2dCard, "/capabilities/"+list, `["en", 1, ["x"], {"a": "b"}, null, "\u0074ext", true]`)
		var got []string
		for _, f := range v.Validate([]byte(card)).Findings() {
			got = append(got, f.Code.String()+" "+f.Path)
		}
		want := []string{"field.type /capabilities/" + list + "/1", "field.type /capabilities/" + list + "/2",
			"field.type /capabilities/" + list + "/3", "field.type /capabilities/" + list + "/4", "field.type /capabilities/" + list + "/6"}
		switch list {
		case "languages":
			want = slices.Insert(want, 4, "ma2d.language /capabilities/languages/5")
		case "input_modes", "output_modes":
			want = slices.Insert(want, 0, "ma2d.mode /capabilities/"+list+"/0")
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: %q, want %q", list, got, want)
		}
	}
}
