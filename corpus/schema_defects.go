package corpus

import "strings"

// Defects of the agentcard-schema dialect, named after the JSON Schema
// keyword that fails. None sits below a oneOf (pricing, endpoint.auth,
// input_schema, output_schema) other than the oneOf kinds themselves: there
// a validator may name the oneOf or the keyword inside it, and the verdict
// each kind promises must not depend on that choice.

func init() {
	const d = "agentcard-schema"
	const (
		required   = "schema.required"
		additional = "schema.additionalProperties"
		pattern    = "schema.pattern"
		minLength  = "schema.minLength"
		maxLength  = "schema.maxLength"
		format     = "schema.format"
		typ        = "schema.type"
		oneOf      = "schema.oneOf"
	)
	remove := func(name, path string) defect {
		return defect{name: required + "/" + name, rule: required, edit: func(b *builder) { b.remove(path) }}
	}
	onCapability := func(name, rule, member string, value func(b *builder) int32) defect {
		return defect{name: name, rule: rule, edit: func(b *builder) {
			b.set(b.someCapability()+"/"+member, value(b))
		}}
	}
	registerDefects(d,
		remove("agent_id", "/agent_id"), remove("name", "/name"), remove("version", "/version"),
		remove("capabilities", "/capabilities"), remove("endpoint", "/endpoint"),
		remove("endpoint-protocol", "/endpoint/protocol"), remove("endpoint-url", "/endpoint/url"),
		defect{name: required + "/capability-id", rule: required, edit: func(b *builder) { b.remove(b.someCapability() + "/id") }},
		defect{name: required + "/capability-description", rule: required, edit: func(b *builder) {
			b.remove(b.someCapability() + "/description")
		}},

		// The draft's own members are unknown to the schema.
		setTo(additional+"/goal-subscriptions", additional, "/goal_subscriptions", `[{"goal_id":"01HZQK3P8EMXR9V7T5N2W4J6C1","priority":0.8}]`),
		setTo(additional+"/top-level", additional, "/homepage", `"https://agents.example.com"`),
		onCapability(additional+"/capability", additional, "examples", func(b *builder) int32 { return b.strings("Summarise this page.") }),
		setTo(additional+"/endpoint", additional, "/endpoint/timeout_ms", "3000"),

		defect{name: pattern + "/agent-id", rule: pattern, edit: func(b *builder) {
			b.editAgentID(func(id string) string {
				switch b.r.intn(3) {
				case 0:
					return strings.ToLower(id[:25]) + "z"
				case 1:
					return id[:25]
				}
				return id[:13] + "U" + id[14:]
			})
		}},
		setOneOf(pattern+"/version", pattern, "/version", `"1.0"`, `"v1.2.0"`, `"01.2.3"`, `"1.0.0-alpha..1"`, `"1.0.0-01"`),
		onCapability(pattern+"/capability-id", pattern, "id", func(b *builder) int32 {
			return b.str(b.r.pickS("Text.Generate", ".text.generate", "text generate", "_probe"))
		}),

		setTo(minLength+"/name", minLength, "/name", `""`),
		onCapability(minLength+"/capability-description", minLength, "description", func(b *builder) int32 { return b.str("") }),

		defect{name: maxLength + "/name", rule: maxLength, edit: func(b *builder) { b.set("/name", b.longName(129)) }},
		onCapability(maxLength+"/capability-description", maxLength, "description", func(b *builder) int32 { return b.longText(513) }),
		onCapability(maxLength+"/capability-id", maxLength, "id", func(b *builder) int32 {
			return b.str("text.", strings.Repeat("x", 124))
		}),
		onCapability(maxLength+"/tag", maxLength, "tags", func(b *builder) int32 {
			return b.strings("search", strings.Repeat("é", 65))
		}),

		setTo("schema.minItems/capabilities", "schema.minItems", "/capabilities", "[]"),

		onCapability("schema.uniqueItems/tags", "schema.uniqueItems", "tags", func(b *builder) int32 {
			return b.strings("search", "retrieval", "search")
		}),
		onCapability("schema.uniqueItems/tags-escaped", "schema.uniqueItems", "tags", func(b *builder) int32 {
			// Equal once decoded, though spelled differently.
			return b.raw(`["search","se\u0061rch"]`)
		}),

		// https and stdio are the draft's protocols, not the schema's.
		setOneOf("schema.enum/protocol", "schema.enum", "/endpoint/protocol", `"https"`, `"stdio"`, `"HTTP"`, `"a2a"`, `""`),

		setOneOf(format+"/url-no-scheme", format, "/endpoint/url", `"agents.example.com/api/v1"`, `"//agents.example.com/api"`),
		setOneOf(format+"/url-relative", format, "/endpoint/url", `"/api/v1"`, `"api/v1"`, `""`),
		setTo(format+"/url-empty-scheme", format, "/endpoint/url", `"://agents.example.com/api"`),
		setTo(format+"/url-bad-escape", format, "/endpoint/url", `"https://ex%zzample.com/api"`),
		setOneOf(format+"/health-url", format, "/endpoint/health_url", `"/health"`, `"health.example.com/ping"`),

		setOneOf("schema.minimum/interaction-count", "schema.minimum", "/metadata/pacr:interaction_count", "-1", "-100"),
		setOneOf("schema.minimum/avg-latency", "schema.minimum", "/metadata/pacr:avg_latency_ms", "-0.5", "-1e-9"),
		setOneOf("schema.maximum/reputation-score", "schema.maximum", "/metadata/pacr:reputation_score", "1.5", "2", "100"),

		setTo(typ+"/name", typ, "/name", "42"),
		setTo(typ+"/version", typ, "/version", "1"),
		setTo(typ+"/capabilities", typ, "/capabilities", `{"text.generate":{"description":"Generate text."}}`),
		setTo(typ+"/endpoint", typ, "/endpoint", `"https://agents.example.com/api"`),
		setTo(typ+"/metadata", typ, "/metadata", `["pacr:trust_tier","basic"]`),
		setOneOf(typ+"/interaction-count", typ, "/metadata/pacr:interaction_count", "3.5", `"12"`, "true"),
		onCapability(typ+"/tags", typ, "tags", func(b *builder) int32 { return b.str("search,retrieval") }),

		onCapability(oneOf+"/input-schema", oneOf, "input_schema", func(b *builder) int32 {
			return b.raw(b.r.pickS(`"object"`, "[]", "true", "0"))
		}),
		setOneOf(oneOf+"/pricing", oneOf, "/pricing", `"free"`, "0", "[]"),
		setOneOf(oneOf+"/auth", oneOf, "/endpoint/auth", `"bearer"`, "false", `["bearer"]`),
	)
}
