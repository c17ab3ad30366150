package corpus

import "strings"

// Defects of the ma2d dialect, one per rule of ma2d-agent-card-spec.md.
// A defect that renames or removes skills also drops the examples, which
// would otherwise name a skill that is gone.

func init() {
	const d = "ma2d"
	registerDefects(d, jsonDefectsWithoutAgentID()...)
	registerDefects(d,
		required("name"), required("version"), required("description"), required("invocation"),
		defect{name: "field.required/skills", rule: "field.required", edit: func(b *builder) {
			b.remove("/skills")
			b.remove("/examples")
		}},
		defect{name: "field.required/skill-description", rule: "field.required", edit: func(b *builder) {
			b.remove(b.someSkill() + "/description")
		}},
		defect{name: "field.required/invocation-protocol", rule: "field.required", edit: func(b *builder) { b.remove("/invocation/protocol") }},
		defect{name: "field.required/invocation-endpoint", rule: "field.required", edit: func(b *builder) { b.remove("/invocation/endpoint") }},
		defect{name: "field.required/example-output", rule: "field.required", edit: func(b *builder) {
			b.ma2dExample()
			b.remove("/examples/0/output")
		}},

		setOneOf("field.type/version-number", "field.type", "/version", `1`, `1.5`),
		setTo("field.type/invocation-string", "field.type", "/invocation", `"mcp https://api.example.com/mcp"`),
		setOneOf("field.type/streaming-string", "field.type", "/capabilities/streaming", `"true"`, `"False"`, `0`),
		defect{name: "field.type/example-input-string", rule: "field.type", edit: func(b *builder) {
			b.ma2dExample()
			b.set("/examples/0/input", b.str("city=San Francisco"))
		}},

		setOneOf("ma2d.name/uppercase", "ma2d.name", "/name", `"Weather-Assistant"`, `"DataAnalyzer"`),
		setOneOf("ma2d.name/forbidden-character", "ma2d.name", "/name", `"weather_assistant"`, `"weather assistant"`, `"weather.assistant"`, `""`),
		defect{name: "ma2d.name/too-long", rule: "ma2d.name", edit: func(b *builder) {
			b.set("/name", b.str(strings.Repeat("agent-", 8), "xyz")) // 51 characters
		}},

		setOneOf("ma2d.version/not-semver", "ma2d.version", "/version", `"1.0"`, `"v1.0.0"`, `"1.0.0.0"`, `"latest"`),

		defect{name: "ma2d.description/short", rule: "ma2d.description", edit: func(b *builder) {
			b.set("/description", b.str(strings.Repeat("x", b.r.between(1, 199))))
		}},
		defect{name: "ma2d.description/long", rule: "ma2d.description", edit: func(b *builder) {
			b.set("/description", b.str(strings.Repeat("weather ", 250), "x")) // 2001 characters
		}},

		defect{name: "ma2d.skills/empty", rule: "ma2d.skills", edit: func(b *builder) {
			b.set("/skills", b.array())
			b.remove("/examples")
		}},
		defect{name: "ma2d.skill-name/not-snake-case", rule: "ma2d.skill-name", edit: func(b *builder) {
			b.set(b.someSkill()+"/name", b.str(b.r.pickS("getWeather", "get-weather", "Get_Weather", "get weather")))
			b.remove("/examples")
		}},
		defect{name: "ma2d.skill-description/short", rule: "ma2d.skill-description", edit: func(b *builder) {
			b.set(b.someSkill()+"/description", b.str(b.r.pickS("Gets the weather.", "", strings.Repeat("y", 49))))
		}},

		setOneOf("ma2d.protocol/unknown", "ma2d.protocol", "/invocation/protocol", `"http"`, `"MCP"`, `"a2a"`, `"json-rpc"`),

		setOneOf("ma2d.url/endpoint-no-scheme", "ma2d.url", "/invocation/endpoint", `"api.example.com/agents/weather"`, `"/agents/weather"`),
		setOneOf("ma2d.url/endpoint-other-scheme", "ma2d.url", "/invocation/endpoint", `"wss://api.example.com/agents"`, `"grpc://api.example.com:443"`),
		setOneOf("ma2d.url/homepage", "ma2d.url", "/homepage", `"ftp://weather.example.com"`, `"weather.example.com"`),
		setOneOf("ma2d.url/repository", "ma2d.url", "/repository", `"git@github.com:example/weather.git"`, `"github.com/example/weather"`),

		setOneOf("ma2d.auth-type/unknown", "ma2d.auth-type", "/invocation/authentication/type", `"jwt"`, `"Bearer"`, `"apikey"`, `""`),
		setOneOf("ma2d.format/unknown", "ma2d.format", "/invocation/format", `"json"`, `"xml"`, `"JSON-RPC"`),
		setOneOf("ma2d.mode/input", "ma2d.mode", "/capabilities/input_modes", `["text","audio"]`, `["speech"]`, `["json"]`),
		setOneOf("ma2d.mode/output", "ma2d.mode", "/capabilities/output_modes", `["voice"]`, `["text","markdown"]`),
		setOneOf("ma2d.language/not-iso-639-1", "ma2d.language", "/capabilities/languages", `["en-US"]`, `["eng"]`, `["EN"]`, `["english"]`, `["jp"]`),
		setOneOf("ma2d.timestamp/not-iso-8601", "ma2d.timestamp", "/metadata/created_at", `"2026-01-01 00:00:00"`, `"01/28/2026"`, `"2026-02-30T00:00:00Z"`, `"1769558400"`),

		defect{name: "ma2d.example-skill/undefined", rule: "ma2d.example-skill", edit: func(b *builder) {
			b.ma2dExample()
			b.set("/examples/0/skill", b.str(b.r.pickS("get_tides", "GetWeather", "")))
		}},
	)
}

// ma2dExample makes sure the card has an example, for defects that break one.
func (b *builder) ma2dExample() {
	if b.at("/examples") != none {
		return
	}
	ex := b.set("/examples", b.array())
	e := b.push(ex, b.object())
	b.put(e, "skill", b.str(b.textOf(b.at("/skills/0/name"))))
	b.put(e, "input", b.object())
	b.put(e, "output", b.object())
}
