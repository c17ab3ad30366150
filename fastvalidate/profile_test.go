package fastvalidate

import (
	"strings"
	"testing"
)

// rejectedCards are cards that no profile's checks see: the strict scan
// rejects them, or they are no object.
var rejectedCards = []struct{ name, card, rule string }{
	{"syntax", `{"name":`, "json.syntax"},
	{"duplicate member", `{"a":1,"a":2}`, "json.duplicate-key"},
	{"not an object", `[1,2]`, "card.type"},
	{"bad UTF-8", "{\"a\":\"\xff\"}", "json.utf8"},
	{"empty", ``, "json.syntax"},
}

// A Validator for a fixed profile names that profile in every Result, the
// cards its checks never see included.
func TestResult_ProfileOfRejectedCard(t *testing.T) {
	for _, profile := range Profiles() {
		if profile == "auto" {
			continue
		}
		v := newTestValidator(t, profile)
		for _, tc := range rejectedCards {
			r := v.Validate([]byte(tc.card))
			if r.Valid() || len(r.Findings()) == 0 {
				t.Fatalf("%s: %s: card passes", profile, tc.name)
			}
			// agentcard-schema reports a non-object root as schema.type.
			if rule := r.Findings()[0].Rule(); rule != tc.rule && !(profile == "agentcard-schema" && rule == "schema.type") {
				t.Errorf("%s: %s: rule %s, want %s", profile, tc.name, rule, tc.rule)
			}
			if r.Profile != profile {
				t.Errorf("%s: %s: Profile = %q, want %q", profile, tc.name, r.Profile, profile)
			}
		}
	}
}

// Under auto, a card the scan rejects still names the dialect its
// top-level members were read as, where the scan read them whole.
func TestResult_ProfileOfRejectedCardUnderAuto(t *testing.T) {
	dupName := func(card string) string { return strings.Replace(card, "{", `{"name": "again",`, 1) }
	agentcard := card(nil)
	hybridCut := strings.Replace(a2aCard10, `"name"`, `"url": "https://a.example", "preferredTransport": "JSONRPC", "name"`, 1)
	hybridCut = hybridCut[:strings.Index(hybridCut, `"supportedInterfaces"`)]
	pvLast := strings.Replace(a2aCard03, `"protocolVersion": "0.3.0",`, "", 1)
	pvLast = pvLast[:strings.LastIndex(pvLast, "}")]
	for _, tc := range []struct{ name, card, want string }{
		{"1.0 card with name twice", dupName(a2aCard10), "a2a/1.0"},
		{"0.3 card with name twice", dupName(a2aCard03), "a2a/0.3"},
		{"0.2 card with name twice", dupName(a2aCard02), "a2a/0.2"},
		{"ma2d card with name twice", dupName(ma2dCard), "ma2d"},
		{"agentcard with name twice", strings.Replace(agentcard, "{", `{"name":"x",`, 1), "agentcard"},
		{"agentcard with trailing data", agentcard + "x", "agentcard"},
		{"agentcard cut short", agentcard[:len(agentcard)-2], "agentcard"},
		{"agentcard with a duplicate inside", strings.Replace(agentcard, `"id":`, `"id":"a","id":`, 1), "agentcard"},
		// Members after the point where the scan stopped are unknown.
		{"1.0 card cut before its telltales", a2aCard10[:strings.Index(a2aCard10, `"supportedInterfaces"`)], ""},
		{"hybrid 1.0 card cut before supportedInterfaces", hybridCut, "a2a/0.2"},
		// A value the scan did not finish is not read: which release a
		// broken or repeated protocolVersion names is unknown.
		{"0.3 card with a broken protocolVersion", pvLast + ",\"protocolVersion\": \"0.3.0\x01\"}", "a2a"},
		{"0.3 card with protocolVersion last", pvLast + `,"protocolVersion": "0.3.0"` + "}x", "a2a/0.3"},
		{"0.3 card with protocolVersion twice", strings.Replace(a2aCard03, "{", `{"protocolVersion": "0.2.5",`, 1), "a2a"},
		// A member name the scan did not finish names nothing.
		{"telltale name broken", "{\"agent_id\x01\":\"x\"}", ""},
		{"telltale name cut short", `{"agent_id`, ""},
		{"no telltale", `{"a":1,"a":2}`, ""},
		// Only the AgentCard draft lets a card come as a string holding it.
		{"agentcard in a string, name twice", jsonString(strings.Replace(agentcard, "{", `{"name":"x",`, 1)), "agentcard"},
		{"ma2d card in a string, name twice", jsonString(dupName(ma2dCard)), ""},
		{"not an object", `[{"agent_id":"x"}]`, ""},
		{"syntax error at the start", `x{"agent_id":"x"}`, ""},
		{"empty", ``, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newTestValidator(t, "auto").Validate([]byte(tc.card))
			if r.Valid() {
				t.Fatalf("card passes: %s", tc.card)
			}
			if r.Profile != tc.want {
				t.Errorf("Profile = %q, want %q; findings %v", r.Profile, tc.want, r.Findings())
			}
		})
	}
}

// Naming the profile of a rejected card allocates nothing.
func TestResult_ProfileOfRejectedCardAllocs(t *testing.T) {
	card := []byte(strings.Replace(a2aCard10, "{", `{"name": "again",`, 1))
	for _, profile := range []string{"auto", "a2a/1.0"} {
		v := newTestValidator(t, profile)
		testAllocs(t, profile, 0, func() { v.Validate(card) })
	}
}
