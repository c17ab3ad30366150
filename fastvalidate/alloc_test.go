package fastvalidate

import (
	"fmt"
	"strings"
	"testing"
)

// capabilityJSON is the i-th capability of the hand-built sizing cards: an
// id, a description, tags and an input schema of a few properties, the
// shape registry dumps are made of.
func capabilityJSON(i int) string {
	return fmt.Sprintf(`{"id":"tool.op_%d","description":"Runs operation %d over the given input and returns structured results.",`+
		`"tags":["tool","op%d","batch"],"input_schema":{"type":"object","properties":{"query":{"type":"string","maxLength":512},`+
		`"limit":{"type":"integer","minimum":1,"maximum":100,"default":10},"mode":{"type":"string","enum":["fast","exact"]}},"required":["query"]}}`, i, i, i)
}

// sizedCard returns a valid one-line card with n capabilities, pricing,
// metadata and a goal subscription.
func sizedCard(n int) []byte {
	caps := make([]string, n)
	for i := range caps {
		caps[i] = capabilityJSON(i)
	}
	return []byte(card(map[string]string{
		"capabilities":       "[" + strings.Join(caps, ",") + "]",
		"endpoint":           `{"protocol":"https","url":"https://agents.example.com/api/v2/agent","auth":{"scheme":"oauth2"}}`,
		"pricing":            `{"base_cost_joules":1.2e-3,"per_token_joules":3.5e-7}`,
		"metadata":           `{"pacr:trust_tier":"verified","framework":"langchain","created_at":"2026-01-02T03:04:05Z"}`,
		"goal_subscriptions": `[{"goal_id":"01HZQK3P8EMXR9V7T5N2W4J6C1","priority":0.25}]`,
	}))
}

// largeCard returns a valid card of at least size bytes.
func largeCard(size int) []byte {
	n := 1
	for len(sizedCard(n)) < size {
		n *= 2
	}
	lo, hi := n/2, n
	for lo < hi {
		mid := (lo + hi) / 2
		if len(sizedCard(mid)) < size {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return sizedCard(lo)
}

// testAllocs fails unless fn allocates at most limit times per run, after
// one warm-up call that lets the Validator's buffers grow.
func testAllocs(t *testing.T, name string, limit float64, fn func()) {
	t.Helper()
	fn()
	if n := testing.AllocsPerRun(100, fn); n > limit {
		t.Errorf("%s: %v allocations per run, want at most %v", name, n, limit)
	}
}

func TestValidate_ZeroAllocs(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation allocates")
	}
	medium := sizedCard(4)
	if n := len(medium); n < 1500 || n > 2000 {
		t.Fatalf("medium card is %d bytes, want about 1.7 KB", n)
	}
	valid := []struct {
		name string
		card []byte
	}{
		{"small", []byte(card(nil))},
		{"draft example", []byte(draftExample)},
		{"1.7 KB", medium},
		{"64 KB", largeCard(64 << 10)},
		{"warnings", []byte(card(map[string]string{
			"agent_id":     `"81HZQK3P8EMXR9V7T5N2W4J6C0"`,
			"capabilities": `[{"id":"a"}]`,
			"endpoint":     `{"protocol":"http","url":"http://a.example"}`,
		}))},
		{"future ULID", []byte(card(map[string]string{"agent_id": jsonString(ulidAt(testNow.AddDate(1, 0, 0)))}))},
		{"escapes everywhere", []byte(card(map[string]string{
			"name":     `"Caf\u00e9 \ud83d\ude00"`,
			"version":  `"1\u002e0.0"`,
			"metadata": `{"pacr:trust\u005ftier":"b\u0061sic","k":"\n"}`,
		}))},
		{"embedded string", []byte(jsonString(draftExample))},
		{"embedded 1.7 KB", []byte(jsonString(string(medium)))},
	}
	for i, c := range registryCards(8) {
		valid = append(valid, struct {
			name string
			card []byte
		}{fmt.Sprintf("generated %d", i), c})
	}
	for _, profile := range []string{"agentcard", "agentcard-schema"} {
		v, err := New(profile, WithClock(fixedClock))
		if err != nil {
			t.Logf("profile %s: %v", profile, err)
			continue
		}
		for _, c := range valid {
			r := v.Validate(c.card)
			if profile == "agentcard" && !r.Valid() {
				t.Fatalf("%s: card is not valid: %v", c.name, r.Findings())
			}
			testAllocs(t, profile+"/"+c.name, 0, func() { v.Validate(c.card) })
		}
	}
}

// An invalid card may cost a few allocations for a message built on the
// spot, never one per byte or per finding beyond the cap.
func TestValidate_InvalidAllocsBounded(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation allocates")
	}
	many := make([]string, 500)
	for i := range many {
		many[i] = `{"id":"BAD ` + fmt.Sprint(i) + `","input_schema":7}`
	}
	invalid := []struct {
		name string
		card string
	}{
		{"empty", ``},
		{"syntax", `{"agent_id":`},
		{"utf8", "{\"name\":\"\xff\"}"},
		{"lone surrogate", `{"name":"\ud800"}`},
		{"duplicate", `{"a":1,"a":2}`},
		{"duplicate among 17", inMeta(`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17,"a":18}`)},
		{"depth", strings.Repeat("[", 1000)},
		{"not an object", `[1,2,3]`},
		{"missing members", `{}`},
		{"every rule", `{"agent_id":"nope","name":"","version":"1","capabilities":[{"id":"A"},{"description":"d"}],
			"endpoint":{"protocol":"https","url":"http://a.example","auth":{"scheme":"x"}},
			"pricing":{"base_cost_joules":1e-25,"per_token_joules":-1},
			"metadata":{"pacr:trust_tier":"gold"},"goal_subscriptions":[{"priority":7}]}`},
		{"type mismatches", card(map[string]string{"name": `1`, "version": `[]`, "capabilities": `[{"id":1,"tags":[1,2],"input_schema":7}]`})},
		{"1000 findings", card(map[string]string{"capabilities": "[" + strings.Join(many, ",") + "]"})},
		{"embedded invalid", jsonString(`{"agent_id":"nope"}`)},
	}
	const limit = 2
	for _, profile := range []string{"agentcard", "agentcard-schema"} {
		v, err := New(profile, WithClock(fixedClock))
		if err != nil {
			continue
		}
		for _, c := range invalid {
			t.Run(profile+"/"+c.name, func(t *testing.T) {
				b := []byte(c.card)
				if v.Validate(b).Valid() {
					t.Fatal("card is valid")
				}
				testAllocs(t, c.name, limit, func() { v.Validate(b) })
			})
		}
	}
}

func TestMatchers_ZeroAllocs(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation allocates")
	}
	id := []byte("01HZQK3P8EMXR9V7T5N2W4J6C0")
	ver := []byte("1.0.0-alpha.1+build.5")
	capID := []byte("com.example.custom_capability")
	uris := [][]byte{
		[]byte("https://user@agents.example.com:8443/api/v1?q=1#top"),
		[]byte("https://[2001:db8::1]:8443/"),
		[]byte("urn:uuid:6e8bc430-9c3a-11d9-9669-0800200c9a66"),
		[]byte("https://a.example/%zz"),
	}
	var sink bool
	testAllocs(t, "IsAgentID", 0, func() { sink = IsAgentID(id) })
	testAllocs(t, "ULIDTime", 0, func() { _, sink = ULIDTime(id) })
	testAllocs(t, "IsSemVer", 0, func() { sink = IsSemVer(ver) })
	testAllocs(t, "IsCapabilityID", 0, func() { sink = IsCapabilityID(capID) })
	for _, u := range uris {
		testAllocs(t, "ParseURI "+string(u), 0, func() { _, sink = ParseURI(u) })
	}
	_ = sink
}

func TestPool_ZeroAllocs(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation allocates")
	}
	if raceEnabled {
		t.Skip("under the race detector sync.Pool drops items on purpose")
	}
	p, err := NewPool("agentcard", WithClock(fixedClock))
	if err != nil {
		t.Fatal(err)
	}
	c := []byte(draftExample)
	testAllocs(t, "Pool.Valid", 0, func() {
		if !p.Valid(c) {
			t.Fatal("draft example invalid")
		}
	})
}

// The duplicate searches that sort, those of objects of more than sixteen
// members and of long tag lists, allocate nothing once warm.
func TestSortKeyRefs_ZeroAllocs(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation allocates")
	}
	var members, tags []string
	for i := range 40 {
		members = append(members, fmt.Sprintf(`"m%d":%d`, (i*7)%40, i))
		tags = append(tags, fmt.Sprintf(`"t%d"`, (i*11)%39))
	}
	object := []byte(inMeta("{" + strings.Join(members, ",") + `,"m3":0}`))
	tagList := []byte(card(map[string]string{"capabilities": `[{"id":"a","description":"d","tags":[` + strings.Join(tags, ",") + `]}]`}))
	for _, c := range []struct {
		profile, rule string
		card          []byte
	}{
		{"agentcard", "json.duplicate-key", object},
		{"agentcard-schema", "schema.uniqueItems", tagList},
	} {
		v := newTestValidator(t, c.profile)
		r := v.Validate(c.card)
		if r.Valid() || r.Findings()[0].Rule() != c.rule {
			t.Fatalf("%s: findings %v, want %s first", c.profile, r.Findings(), c.rule)
		}
		testAllocs(t, c.profile+" "+c.rule, 0, func() { v.Validate(c.card) })
	}
}
