package fastvalidate

import (
	"slices"
	"strings"
	"testing"
)

func TestMA2D(t *testing.T) {
	// Descriptions of exact lengths in code points, with multi-byte
	// characters so that bytes and characters differ.
	desc := func(n int) string { return jsonString(strings.Repeat("é", n)) }
	runA2ATable(t, "ma2d", ma2dCard, []a2aCase{
		{name: "spec example"},
		{name: "no name", edits: e("/name", omitted), want: []hit{{"field.required", "/name"}}},
		{name: "no version", edits: e("/version", omitted), want: []hit{{"field.required", "/version"}}},
		{name: "no description", edits: e("/description", omitted), want: []hit{{"field.required", "/description"}}},
		{name: "no skills", edits: e("/skills", omitted, "/examples", omitted), want: []hit{{"field.required", "/skills"}}},
		{name: "no invocation", edits: e("/invocation", omitted), want: []hit{{"field.required", "/invocation"}}},
		{name: "optional members", edits: e("/author", omitted, "/license", omitted, "/homepage", omitted, "/repository", omitted, "/capabilities", omitted, "/examples", omitted, "/metadata", omitted)},
		{name: "name with uppercase", edits: e("/name", `"Weather-Assistant"`), want: []hit{{"ma2d.name", "/name"}}},
		{name: "name with underscore", edits: e("/name", `"weather_assistant"`), want: []hit{{"ma2d.name", "/name"}}},
		{name: "name of 50 characters", edits: e("/name", jsonString(strings.Repeat("a", 50)))},
		{name: "name of 51 characters", edits: e("/name", jsonString(strings.Repeat("a", 51))), want: []hit{{"ma2d.name", "/name"}}},
		{name: "empty name", edits: e("/name", `""`), want: []hit{{"ma2d.name", "/name"}}},
		{name: "name not a string", edits: e("/name", `7`), want: []hit{{"field.type", "/name"}}},
		{name: "version not semver", edits: e("/version", `"1.0"`), want: []hit{{"ma2d.version", "/version"}}},
		{name: "pre-release version", edits: e("/version", `"0.1.0-beta"`)},
		{name: "description of 199", edits: e("/description", desc(199)), want: []hit{{"ma2d.description", "/description"}}},
		{name: "description of 200", edits: e("/description", desc(200))},
		{name: "description of 2000", edits: e("/description", desc(2000))},
		{name: "description of 2001", edits: e("/description", desc(2001)), want: []hit{{"ma2d.description", "/description"}}},
		{name: "no skill", edits: e("/skills", `[]`, "/examples", omitted), want: []hit{{"ma2d.skills", "/skills"}}},
		{name: "skill name camelCase", edits: e("/skills/0/name", `"getWeather"`, "/examples/0/skill", `"getWeather"`), want: []hit{{"ma2d.skill-name", "/skills/0/name"}}},
		{name: "skill without name", edits: e("/skills/1/name", omitted, "/examples", omitted), want: []hit{{"field.required", "/skills/1/name"}}},
		{name: "skill without description", edits: e("/skills/1/description", omitted), want: []hit{{"field.required", "/skills/1/description"}}},
		{name: "skill description of 49", edits: e("/skills/0/description", jsonString(strings.Repeat("x", 49))), want: []hit{{"ma2d.skill-description", "/skills/0/description"}}},
		{name: "skill description of 50", edits: e("/skills/0/description", jsonString(strings.Repeat("x", 50)))},
		{name: "skill parameters not an object", edits: e("/skills/0/parameters", `["city"]`), want: []hit{{"field.type", "/skills/0/parameters"}}},
		{name: "protocol outside the enum", edits: e("/invocation/protocol", `"http"`), want: []hit{{"ma2d.protocol", "/invocation/protocol"}}},
		{name: "every protocol", edits: e("/invocation/protocol", `"websocket"`)},
		{name: "no protocol", edits: e("/invocation/protocol", omitted), want: []hit{{"field.required", "/invocation/protocol"}}},
		{name: "no endpoint", edits: e("/invocation/endpoint", omitted), want: []hit{{"field.required", "/invocation/endpoint"}}},
		{name: "endpoint without scheme", edits: e("/invocation/endpoint", `"api.acme.com/mcp"`), want: []hit{{"ma2d.url", "/invocation/endpoint"}}},
		{name: "endpoint over websocket scheme", edits: e("/invocation/endpoint", `"wss://api.acme.com/mcp"`), want: []hit{{"ma2d.url", "/invocation/endpoint"}}},
		{name: "endpoint over plain http", edits: e("/invocation/endpoint", `"http://api.acme.com/mcp"`), want: []hit{{"ma2d.url-risk", "/invocation/endpoint"}}},
		{name: "endpoint on localhost", edits: e("/invocation/endpoint", `"https://localhost:8443/mcp"`), want: []hit{{"ma2d.url-risk", "/invocation/endpoint"}}},
		{name: "homepage not http", edits: e("/homepage", `"ftp://acme.com"`), want: []hit{{"ma2d.url", "/homepage"}}},
		{name: "repository relative", edits: e("/repository", `"acme/weather"`), want: []hit{{"ma2d.url", "/repository"}}},
		{name: "authentication type outside the enum", edits: e("/invocation/authentication/type", `"jwt"`), want: []hit{{"ma2d.auth-type", "/invocation/authentication/type"}}},
		{name: "authentication required a string", edits: e("/invocation/authentication/required", `"false"`), want: []hit{{"field.type", "/invocation/authentication/required"}}},
		{name: "format outside the enum", edits: e("/invocation/format", `"xml"`), want: []hit{{"ma2d.format", "/invocation/format"}}},
		{name: "method not a string", edits: e("/invocation/method", `1`), want: []hit{{"field.type", "/invocation/method"}}},
		{name: "input mode outside the enum", edits: e("/capabilities/input_modes", `["text", "audio"]`), want: []hit{{"ma2d.mode", "/capabilities/input_modes/1"}}},
		{name: "voice is an input mode only", edits: e("/capabilities/output_modes", `["voice"]`), want: []hit{{"ma2d.mode", "/capabilities/output_modes/0"}}},
		{name: "speech is an output mode only", edits: e("/capabilities/input_modes", `["speech"]`), want: []hit{{"ma2d.mode", "/capabilities/input_modes/0"}}},
		{name: "languages", edits: e("/capabilities/languages", `["de", "ja", "zu", "EN", "en-US", "xx", "eng"]`), want: []hit{
			{"ma2d.language", "/capabilities/languages/3"}, {"ma2d.language", "/capabilities/languages/4"},
			{"ma2d.language", "/capabilities/languages/5"}, {"ma2d.language", "/capabilities/languages/6"},
		}},
		{name: "streaming a string", edits: e("/capabilities/streaming", `"false"`), want: []hit{{"field.type", "/capabilities/streaming"}}},
		{name: "example of an undefined skill", edits: e("/examples/1/skill", `"get_tides"`), want: []hit{{"ma2d.example-skill", "/examples/1/skill"}}},
		{name: "example without skill", edits: e("/examples/0/skill", omitted), want: []hit{{"field.required", "/examples/0/skill"}}},
		{name: "example without input", edits: e("/examples/0/input", omitted), want: []hit{{"field.required", "/examples/0/input"}}},
		{name: "example output not an object", edits: e("/examples/0/output", `"65F"`), want: []hit{{"field.type", "/examples/0/output"}}},
		{name: "timestamp with a space", edits: e("/metadata/created_at", `"2026-01-01 00:00:00"`), want: []hit{{"ma2d.timestamp", "/metadata/created_at"}}},
		{name: "timestamp of a missing day", edits: e("/metadata/updated_at", `"2026-02-29T00:00:00Z"`), want: []hit{{"ma2d.timestamp", "/metadata/updated_at"}}},
		{name: "timestamps in other ISO 8601 forms", edits: e("/metadata/created_at", `"2024-02-29"`, "/metadata/updated_at", `"2026-01-28T12:00:00.123+05:30"`)},
		{name: "tags are strings", edits: e("/metadata/tags", `["weather", 1]`), want: []hit{{"field.type", "/metadata/tags/1"}}},
	})
}

func TestISO8601(t *testing.T) {
	for in, want := range map[string]bool{
		"2026-01-01": true, "2026-01-01T00:00:00Z": true, "2026-01-01T00:00Z": true, "2026-01-01T00:00": true,
		"2026-01-01T23:59:60Z": true, "2026-01-01T24:00:00Z": true, "2026-01-01T12:00:00.5Z": true,
		"2026-01-01T12:00:00,5Z": true, "2026-01-01T12:00:00+01": true, "2026-01-01T12:00:00-0130": true,
		"2026-01-01T12:00:00+01:30": true, "2000-02-29": true, "1900-02-29": false, "2026-02-29": false,
		"2026-13-01": false, "2026-00-10": false, "2026-04-31": false, "2026-01-01T24:00:01Z": false,
		"2026-01-01T12:60Z": false, "2026-01-01t12:00:00z": false, "20260101T000000Z": false, "2026-1-01": false,
		"2026-01-01T12": false, "2026-01-01T12:00:00.Z": false, "2026-01-01T12:00:00+1": false, "2026-01-01T12:00:00+01:3": false,
		"2026-01-01T12:00:00+24:00": false, "2026-01-01 12:00:00": false, "": false, "2026-01-01T12:00:00ZZ": false,
	} {
		if got := isISO8601([]byte(in)); got != want {
			t.Errorf("isISO8601(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestISO639_1(t *testing.T) {
	// The full list has 184 codes; count them from the table, and check
	// neighbours of real codes are refused.
	n := 0
	for a := byte('a'); a <= 'z'; a++ {
		for b := byte('a'); b <= 'z'; b++ {
			if isISO639_1([]byte{a, b}) {
				n++
			}
		}
	}
	if n != 184 {
		t.Errorf("%d ISO 639-1 codes accepted, want 184", n)
	}
	// The member table's enumeration (docs, JSON Schema export) is the
	// codes the table accepts, in order.
	var accepted []string
	for a := byte('a'); a <= 'z'; a++ {
		for b := byte('a'); b <= 'z'; b++ {
			if isISO639_1([]byte{a, b}) {
				accepted = append(accepted, string([]byte{a, b}))
			}
		}
	}
	if got := iso639Codes(); !slices.Equal(got, accepted) {
		t.Errorf("iso639Codes() = %q, want the %d codes isISO639_1 accepts, in order: %q", got, len(accepted), accepted)
	}
	for in, want := range map[string]bool{"en": true, "zh": true, "aa": true, "zu": true, "iw": false, "in": false, "jp": false, "En": false, "e": false, "eng": false} {
		if got := isISO639_1([]byte(in)); got != want {
			t.Errorf("isISO639_1(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestAuto(t *testing.T) {
	agentcard := `{"agent_id":"01HZQK3P8EMXR9V7T5N2W4J6C0","name":"A","version":"1.0.0","capabilities":[{"id":"a","description":"d"}],"endpoint":{"protocol":"https","url":"https://a.example.com"}}`
	for _, tc := range []struct {
		name, card, judged string
		want               []hit
	}{
		{"agent_id means agentcard", agentcard, "agentcard", nil},
		{"agent_id wins over skills", edited(t, agentcard, "/skills", `[]`, "/invocation", `{}`), "agentcard", nil},
		{"invocation means ma2d", ma2dCard, "ma2d", nil},
		{"invocation wins over url", edited(t, ma2dCard, "/url", `"https://a.example.com"`), "ma2d", nil},
		{"supportedInterfaces means a2a", a2aCard10, "a2a/1.0", nil},
		{"url and capabilities mean a2a", `{"url": "https://a.example.com", "capabilities": {}}`, "a2a/0.2", []hit{
			{"a2a.required", "/name"}, {"a2a.required", "/description"}, {"a2a.required", "/version"},
			{"a2a.required", "/defaultInputModes"}, {"a2a.required", "/defaultOutputModes"}, {"a2a.required", "/skills"},
		}},
		{"url alone is too little", `{"url": "https://a.example.com"}`, "", []hit{{"profile.unknown", ""}}},
		{"skills mean a2a", a2aCard01, "a2a/0.1", nil},
		{"nothing telltale", `{"name": "x", "description": "y", "endpoints": []}`, "", []hit{{"profile.unknown", ""}}},
		{"empty card", `{}`, "", []hit{{"profile.unknown", ""}}},
		{"not an object", `[]`, "", []hit{{"card.type", ""}}},
		// Only the AgentCard draft has the embedded-string form.
		{"embedded agentcard", jsonString(agentcard), "agentcard", nil},
		{"embedded ma2d", jsonString(ma2dCard), "ma2d", []hit{{"card.type", ""}}},
		{"embedded a2a", jsonString(a2aCard03), "a2a", []hit{{"card.type", ""}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newTestValidator(t, "auto").Validate([]byte(tc.card))
			checkHits(t, r, tc.want)
			if r.Profile != tc.judged {
				t.Errorf("Profile = %q, want %q", r.Profile, tc.judged)
			}
		})
	}
	// What auto says of a card is what the profile it names says.
	for _, tc := range []struct{ profile, card string }{
		{"agentcard", jsonString(agentcard)},
		{"ma2d", jsonString(ma2dCard)},
		{"a2a", jsonString(a2aCard03)},
		{"a2a", jsonString(a2aCard10)},
	} {
		auto := verdictOf(newTestValidator(t, "auto").Validate([]byte(tc.card)))
		own := verdictOf(newTestValidator(t, tc.profile).Validate([]byte(tc.card)))
		if auto[1] != own[1] || !slices.Equal(auto[2:], own[2:]) {
			t.Errorf("%s card as a string: auto says %v, %s says %v", tc.profile, auto, tc.profile, own)
		}
	}
	r := newTestValidator(t, "auto").Validate([]byte(`{"x": 1}`))
	if msg := r.Findings()[0].Message(); !strings.Contains(msg, "agent_id") || !strings.Contains(msg, "invocation") || !strings.Contains(msg, "supportedInterfaces") {
		t.Errorf("profile.unknown message %q does not name the members looked for", msg)
	}
}

// TestUTCSeconds checks the fixed-position path for timestamps against the
// general one, with every byte value at every position of a few stamps.
func TestUTCSeconds(t *testing.T) {
	fast := 0
	for _, base := range []string{"2026-01-28T12:00:00Z", "2000-02-29T23:59:60Z", "1900-02-28T00:00:00Z", "2026-12-31T24:00:00Z", "2026-04-30T09:05:07Z"} {
		for i := range len(base) {
			for c := 0; c < 256; c++ {
				b := []byte(base)
				b[i] = byte(c)
				if utcSeconds(b) {
					fast++
					if !anyISO8601(b) {
						t.Fatalf("utcSeconds passes %q, the general path does not", b)
					}
				}
				if isISO8601(b) != anyISO8601(b) {
					t.Fatalf("isISO8601(%q) = %v, the general path says %v", b, isISO8601(b), anyISO8601(b))
				}
			}
		}
	}
	if fast < 100 {
		t.Fatalf("only %d stamps took the fixed-position path", fast)
	}
}
