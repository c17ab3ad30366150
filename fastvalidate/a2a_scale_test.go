package fastvalidate

import (
	"fmt"
	"strings"
	"testing"
)

// a2aWideCard returns an A2A card of release ver ("0.3" or "1.0") with
// skills skills, whose ids come from id, and schemes security schemes,
// each named by a requirement of its own: the lists a hostile card makes
// long.
func a2aWideCard(ver string, skills, schemes int, id func(i int) string) []byte {
	var b strings.Builder
	b.WriteString(`{"name":"Wide","description":"A card with long lists.","version":"1.0.0",`)
	b.WriteString(`"capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],`)
	if ver == "1.0" {
		b.WriteString(`"supportedInterfaces":[{"url":"https://a.example.com/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],`)
	} else {
		b.WriteString(`"protocolVersion":"0.3.0","url":"https://a.example.com/rpc","preferredTransport":"JSONRPC",`)
	}
	b.WriteString(`"securitySchemes":{`)
	for i := range schemes {
		if i > 0 {
			b.WriteByte(',')
		}
		if ver == "1.0" {
			fmt.Fprintf(&b, `"key%d":{"apiKeySecurityScheme":{"location":"header","name":"X-Key"}}`, i)
		} else {
			fmt.Fprintf(&b, `"key%d":{"type":"apiKey","in":"header","name":"X-Key"}`, i)
		}
	}
	b.WriteString(`},`)
	if ver == "1.0" {
		b.WriteString(`"securityRequirements":[`)
	} else {
		b.WriteString(`"security":[`)
	}
	for i := range schemes {
		if i > 0 {
			b.WriteByte(',')
		}
		if ver == "1.0" {
			fmt.Fprintf(&b, `{"schemes":{"key%d":{"list":[]}}}`, i)
		} else {
			fmt.Fprintf(&b, `{"key%d":[]}`, i)
		}
	}
	b.WriteString(`],"skills":[`)
	for i := range skills {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%q,"name":"Skill","description":"Does a thing.","tags":["t"]}`, id(i))
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// compares validates card and returns how many string comparisons and
// hashes the checks made.
func compares(t *testing.T, v *Validator, card []byte) uint64 {
	t.Helper()
	v.Validate(card)
	return v.w.vw.Compares()
}

// TestA2AListsLinear holds the work of the A2A checks that compare
// strings across a list (skill ids unique, security requirements naming
// defined schemes) to the length of the list: eight times the skills or
// schemes may cost at most sixteen times the comparisons. Comparing each
// with every earlier one cost 64 times, and a card of 40,000 skills took
// seconds.
func TestA2AListsLinear(t *testing.T) {
	distinct := func(i int) string { return fmt.Sprintf("skill-%d", i) }
	same := func(int) string { return "skill" }
	escaped := func(i int) string { return fmt.Sprintf(`sk\u00e9ll-%d`, i) }
	for _, ver := range []string{"0.3", "1.0"} {
		for _, tc := range []struct {
			name            string
			skills, schemes int
			id              func(int) string
		}{
			{"distinct skill ids", 200, 1, distinct},
			{"one skill id", 200, 1, same},
			{"skill ids with escapes", 200, 1, escaped},
			{"schemes", 1, 200, distinct},
		} {
			t.Run(ver+"/"+tc.name, func(t *testing.T) {
				v := MustNew("a2a")
				small := compares(t, v, a2aWideCard(ver, tc.skills, tc.schemes, tc.id))
				large := compares(t, v, a2aWideCard(ver, 8*tc.skills, 8*tc.schemes, tc.id))
				if large > 16*max(small, 1) {
					t.Errorf("%d string comparisons and hashes for 8 times the list, %d for the list: more than linear", large, small)
				}
			})
		}
	}
}

// TestA2ALongListsFindings pins what the checks of long lists report: each
// skill whose id an earlier skill has, however far back and however
// escaped, and each requirement naming no scheme.
func TestA2ALongListsFindings(t *testing.T) {
	for _, ver := range []string{"0.3", "1.0"} {
		t.Run(ver, func(t *testing.T) {
			// Skill i has id "s<i%50>", written with an escape when i is
			// odd: skills 50 on repeat an earlier id.
			card := a2aWideCard(ver, 120, 60, func(i int) string {
				if i%2 == 1 {
					return fmt.Sprintf(`\u0073%d`, i%50)
				}
				return fmt.Sprintf("s%d", i%50)
			})
			// Requirements naming key60 and key61 name no scheme.
			card = []byte(strings.Replace(string(card), `"key59":[]}`, `"key59":[]},{"key60":[]},{"key61":[]}`, 1))
			card = []byte(strings.Replace(string(card), `{"key59":{"list":[]}}}`, `{"key59":{"list":[]}}},{"schemes":{"key60":{"list":[]}}},{"schemes":{"key61":{"list":[]}}}`, 1))
			res := MustNew("a2a").Validate(card)
			var got []string
			for _, f := range res.Findings() {
				got = append(got, fmt.Sprintf("%s %s %d", f.Code, f.Path, f.Count))
			}
			var want []string
			ref := "/security/"
			if ver == "1.0" {
				ref = "/securityRequirements/"
			}
			if ver == "1.0" {
				ref += "%d/schemes/"
			} else {
				ref += "%d/"
			}
			for i := 60; i < 62; i++ {
				want = append(want, fmt.Sprintf("a2a.security-ref "+ref+"key%d 0", i, i))
			}
			// Skills 100 on repeat the ids, and so the findings, of 50 to
			// 69: each of those counts twice (Count 0 is once).
			for i := 50; i < 100; i++ {
				want = append(want, fmt.Sprintf("a2a.skill-id-unique /skills/%d/id %d", i, 2*b2i(i < 70)))
			}
			if res.Errors()+res.Warnings() != 72 {
				t.Errorf("%d findings counted, want 72", res.Errors()+res.Warnings())
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestA2ALongListsNoAllocs holds the indexes of long lists to the rule
// that a valid card costs no allocation once the buffers have grown.
func TestA2ALongListsNoAllocs(t *testing.T) {
	for _, ver := range []string{"0.3", "1.0"} {
		card := a2aWideCard(ver, 200, 200, func(i int) string { return fmt.Sprintf(`sk\u00e9ll-%d`, i) })
		v := MustNew("a2a")
		if res := v.Validate(card); !res.Valid() {
			t.Fatalf("%s: card not valid: %v", ver, res.Findings())
		}
		if n := testing.AllocsPerRun(10, func() { v.Validate(card) }); n != 0 {
			t.Errorf("%s: %v allocations per valid card with long lists, want 0", ver, n)
		}
	}
}

// TestFindingPathsLinear holds the JSON Pointers of the findings of a long
// array to its length: a fault repeated in every element (one value, so
// each finding folds into the first and the findings never reach their
// cap) found each element's position by counting the elements before it,
// n² for the card. Eight times the elements may cost at most sixteen times
// the work.
func TestFindingPathsLinear(t *testing.T) {
	for _, tc := range []struct {
		profile string
		card    func(n int) []byte
	}{
		{"a2a", func(n int) []byte {
			return a2aWideCard("1.0", n, 1, func(int) string { return "same" })
		}},
		{"agentcard", func(n int) []byte {
			var b strings.Builder
			b.WriteString(`{"agent_id":"01JR5NZQNDZY361THDPD0SCTCZ","name":"Wide","version":"1.0.0","capabilities":[`)
			for i := range n {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(`{"id":"Bad Id","description":"Does a thing."}`)
			}
			b.WriteString(`],"endpoint":{"protocol":"https","url":"https://a.example.com/run","auth":{"scheme":"none"}}}`)
			return []byte(b.String())
		}},
	} {
		t.Run(tc.profile, func(t *testing.T) {
			v := MustNew(tc.profile)
			if res := v.Validate(tc.card(200)); res.Errors()+res.Warnings() < 199 {
				t.Fatalf("the card has fewer than a finding per element: %v", res.Findings())
			}
			small := compares(t, v, tc.card(200))
			large := compares(t, v, tc.card(1600))
			if large > 16*max(small, 1) {
				t.Errorf("%d string comparisons and steps for 1,600 elements, %d for 200: more than linear", large, small)
			}
		})
	}
}
