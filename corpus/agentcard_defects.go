package corpus

import (
	"strconv"
	"strings"
)

// Defects of the agentcard dialect: one targeted change to a valid card
// per kind, named "<rule>/<what>", each breaking exactly one rule of the
// agentcard profile.

func init() {
	const d = "agentcard"
	registerDefects(d, jsonDefects...)
	registerDefects(d, agentcardShapeDefects...)
	registerDefects(d, agentcardFormatDefects...)
	registerDefects(d, agentcardValueDefects...)
}

// agentcardShapeDefects break the card's shape: its JSON type, a required
// member, a member's type.
var agentcardShapeDefects = []defect{
	{name: "card.type/array", rule: "card.type", post: func(b *builder, c []byte) []byte {
		return append(append([]byte{'['}, c...), ']')
	}},
	{name: "card.type/number", rule: "card.type", post: func(b *builder, c []byte) []byte {
		return append(c[:0], b.r.pickS("42", "-1.5e3", "0")...)
	}},
	{name: "card.type/embedded-array", rule: "card.type", post: func(b *builder, c []byte) []byte {
		// A string whose content is JSON, but an array, not a card.
		return appendQuoted(nil, append(append([]byte{'['}, c...), ']'))
	}},

	required("agent_id"), required("name"), required("version"),
	required("capabilities"), required("endpoint"),
	{name: "field.required/capability-id", rule: "field.required", edit: func(b *builder) {
		b.remove(b.someCapability() + "/id")
	}},
	{name: "field.required/endpoint-protocol", rule: "field.required", edit: func(b *builder) { b.remove("/endpoint/protocol") }},
	{name: "field.required/endpoint-url", rule: "field.required", edit: func(b *builder) { b.remove("/endpoint/url") }},

	setTo("field.type/name-number", "field.type", "/name", "42"),
	setTo("field.type/version-number", "field.type", "/version", "1.0"),
	{name: "field.type/capabilities-object", rule: "field.type", edit: func(b *builder) {
		caps := b.at("/capabilities")
		b.nodes[caps].kind = objectNode
		for c, i := b.nodes[caps].first, 0; c != none; c, i = b.nodes[c].next, i+1 {
			b.nodes[c].key = capKeys[i%len(capKeys)]
		}
	}},
	{name: "field.type/capability-string", rule: "field.type", edit: func(b *builder) {
		b.set(b.someCapability(), b.str(b.r.pick(capNamespaces), ".", b.r.pick(capVerbs)))
	}},
	{name: "field.type/endpoint-string", rule: "field.type", edit: func(b *builder) {
		b.set("/endpoint", b.str("https://agents.example.com/api"))
	}},
	{name: "field.type/tags-string", rule: "field.type", edit: func(b *builder) {
		b.set(b.someCapability()+"/tags", b.str("search,retrieval"))
	}},
	{name: "field.type/input-schema-string", rule: "field.type", edit: func(b *builder) {
		b.set(b.someCapability()+"/input_schema", b.str("object"))
	}},
	setTo("field.type/metadata-array", "field.type", "/metadata", `["pacr:trust_tier","basic"]`),
	setTo("field.type/pricing-string", "field.type", "/pricing", `"free"`),
	setTo("field.type/goal-subscriptions-object", "field.type", "/goal_subscriptions", `{"goal_id":"01HZQK3P8EMXR9V7T5N2W4J6C1"}`),
}

// agentcardFormatDefects break the format of a string member: the agent
// ID, name, version, capability IDs and the endpoint.
var agentcardFormatDefects = []defect{
	{name: "agent_id.format/short", rule: "agent_id.format", edit: func(b *builder) {
		b.editAgentID(func(id string) string { return id[:25] })
	}},
	{name: "agent_id.format/long", rule: "agent_id.format", edit: func(b *builder) {
		b.editAgentID(func(id string) string { return id + "0" })
	}},
	{name: "agent_id.format/lowercase", rule: "agent_id.format", edit: func(b *builder) {
		// The last character is made a letter so that the ID cannot
		// stay unchanged by being all digits.
		b.editAgentID(func(id string) string { return strings.ToLower(id[:25]) + "z" })
	}},
	{name: "agent_id.format/excluded-letter", rule: "agent_id.format", edit: func(b *builder) {
		b.editAgentID(func(id string) string {
			i := b.r.between(1, 25)
			return id[:i] + b.r.pickS("I", "L", "O", "U") + id[i+1:]
		})
	}},

	setTo("name.length/empty", "name.length", "/name", `""`),
	{name: "name.length/129-code-points", rule: "name.length", edit: func(b *builder) {
		b.set("/name", b.longName(129))
	}},

	setOneOf("version.semver/leading-zero", "version.semver", "/version", `"01.2.3"`, `"1.02.3"`, `"1.2.03"`, `"1.0.0-alpha.01"`),
	setOneOf("version.semver/empty-prerelease", "version.semver", "/version", `"1.0.0-"`, `"1.0.0-alpha..1"`, `"1.0.0-rc."`),
	setOneOf("version.semver/two-parts", "version.semver", "/version", `"1.0"`, `"2"`),
	setOneOf("version.semver/prefixed", "version.semver", "/version", `"v1.2.0"`, `" 1.2.0"`),

	setTo("capabilities.empty/empty-array", "capabilities.empty", "/capabilities", "[]"),

	{name: "capability.id/uppercase", rule: "capability.id", edit: func(b *builder) {
		b.set(b.someCapability()+"/id", b.str(b.r.pickS("Text.Summarise", "tool.WebSearch", "DATA.QUERY")))
	}},
	{name: "capability.id/leading-dot", rule: "capability.id", edit: func(b *builder) {
		b.set(b.someCapability()+"/id", b.str(".", b.r.pick(capNamespaces), ".", b.r.pick(capVerbs)))
	}},
	{name: "capability.id/forbidden-character", rule: "capability.id", edit: func(b *builder) {
		b.set(b.someCapability()+"/id", b.str(b.r.pickS("text summarise", "tool/web_search", "_internal.probe", "fn:get_weather", "")))
	}},

	setOneOf("endpoint.protocol/unknown", "endpoint.protocol", "/endpoint/protocol", `"websocket"`, `"ftp"`, `"HTTPS"`, `"google_a2a"`, `""`),

	setOneOf("endpoint.url/no-scheme", "endpoint.url", "/endpoint/url", `"agents.example.com/api/v1"`, `"//agents.example.com/api"`),
	setOneOf("endpoint.url/relative", "endpoint.url", "/endpoint/url", `"/api/v1"`, `"api/v1"`, `""`),
	setOneOf("endpoint.url/malformed", "endpoint.url", "/endpoint/url", `"://agents.example.com"`, `"https://ex%zzample.com/api"`, `"https://agents.example.com/a b"`, `"https://agents.example.com:80a/"`),

	{name: "endpoint.url-scheme/https-with-http", rule: "endpoint.url-scheme", edit: func(b *builder) {
		b.set("/endpoint/protocol", b.str("https"))
		b.set("/endpoint/url", b.url("http", false))
	}},
	{name: "endpoint.url-scheme/http-with-other", rule: "endpoint.url-scheme", edit: func(b *builder) {
		b.set("/endpoint/protocol", b.str(b.r.pickS("http", "https")))
		b.set("/endpoint/url", b.url(b.r.pickS("ws", "wss", "grpc", "ftp"), false))
	}},

	setOneOf("endpoint.auth.scheme/unknown", "endpoint.auth.scheme", "/endpoint/auth/scheme", `"basic"`, `"Bearer"`, `"oauth"`, `"jwt"`, `""`),
}

// agentcardValueDefects put a number or enumerated value out of its
// range: pricing, trust tier, goals and numbers no float64 holds.
var agentcardValueDefects = []defect{
	setOneOf("pricing.landauer/below-floor", "pricing.landauer", "/pricing/base_cost_joules", "1e-21", "2.8e-21", "5e-324", "2.8539999999999999999999e-21"),
	setOneOf("pricing.landauer/negative", "pricing.landauer", "/pricing/base_cost_joules", "-1e-18", "-0.5", "-2.854e-21"),

	setOneOf("pricing.per-token/negative", "pricing.per-token", "/pricing/per_token_joules", "-1.4e-24", "-1", "-1e-320"),

	setOneOf("metadata.trust-tier/unknown", "metadata.trust-tier", "/metadata/pacr:trust_tier", `"trusted"`, `"Verified"`, `"gold"`, `""`),

	{name: "goal.goal-id/missing", rule: "goal.goal-id", edit: func(b *builder) {
		b.remove(b.someGoal() + "/goal_id")
	}},
	{name: "goal.goal-id/number", rule: "goal.goal-id", edit: func(b *builder) {
		b.set(b.someGoal()+"/goal_id", b.raw("42"))
	}},

	{name: "goal.priority/above-one", rule: "goal.priority", edit: func(b *builder) {
		b.set(b.someGoal()+"/priority", b.raw(b.r.pickS("1.5", "2", "1.0000000000000000000001", "1e1")))
	}},
	{name: "goal.priority/negative", rule: "goal.priority", edit: func(b *builder) {
		b.set(b.someGoal()+"/priority", b.raw(b.r.pickS("-0.1", "-1", "-1e-400")))
	}},

	setOneOf("json.number-range/base-cost", "json.number-range", "/pricing/base_cost_joules", "1e400", "-1e400", "2e308"),
	setOneOf("json.number-range/per-token", "json.number-range", "/pricing/per_token_joules", "1e400", "1.8e308"),
	{name: "json.number-range/priority", rule: "json.number-range", edit: func(b *builder) {
		b.set(b.someGoal()+"/priority", b.raw("1e400"))
	}},
}

// capKeys name the members of capabilities turned into an object.
var capKeys = []string{"summarise", "search", "fetch", "rank", "plan", "review", "sign", "notify"}

// jsonDefects break the strict-JSON rules every profile shares. They add
// fresh top-level members or rewrite the written bytes, so any dialect may
// register them, save json.duplicate-key/escaped, which repeats agent_id
// and so needs a card that has one.
var jsonDefects = []defect{
	{name: "json.syntax/trailing-comma", rule: "json.syntax", post: func(b *builder, c []byte) []byte {
		return append(c[:len(c)-1], ',', '}')
	}},
	{name: "json.syntax/nan", rule: "json.syntax", edit: func(b *builder) {
		b.set("/x_score", b.raw(b.r.pickS("NaN", "Infinity", "-Infinity")))
	}},
	{name: "json.syntax/leading-zero", rule: "json.syntax", edit: func(b *builder) {
		b.set("/x_replicas", b.raw(b.r.pickS("01", "-007", "00.5")))
	}},
	{name: "json.syntax/comment", rule: "json.syntax", post: func(b *builder, c []byte) []byte {
		return append([]byte("{/* generated */"), c[1:]...)
	}},
	{name: "json.syntax/trailing-garbage", rule: "json.syntax", post: func(b *builder, c []byte) []byte {
		return append(c, b.r.pickS("}", " x", ",", " {}", "\x00")...)
	}},
	{name: "json.syntax/control-character", rule: "json.syntax", edit: func(b *builder) {
		b.set("/x_note", b.raw("\"line one", b.r.pickS("\t", "\x01", "\x1f", "\x7f\x00"), "line two\""))
	}},
	{name: "json.syntax/truncated", rule: "json.syntax", post: func(b *builder, c []byte) []byte {
		return c[:b.r.pickCut(c)]
	}},
	{name: "json.syntax/single-quotes", rule: "json.syntax", edit: func(b *builder) {
		b.set("/x_note", b.raw("'single quoted'"))
	}},
	{name: "json.utf8/invalid-byte", rule: "json.utf8", edit: func(b *builder) {
		b.set("/x_note", b.raw("\"caf", b.r.pickS("\xff", "\xfe", "\x80", "\xe9"), " menu\""))
	}},
	{name: "json.utf8/overlong", rule: "json.utf8", edit: func(b *builder) {
		b.set("/x_note", b.raw("\"path ", b.r.pickS("\xc0\xaf", "\xe0\x80\xaf", "\xc1\xbf"), "\""))
	}},
	{name: "json.utf8/raw-surrogate", rule: "json.utf8", edit: func(b *builder) {
		b.set("/x_note", b.raw("\"half \xed\xa0\x80 pair\""))
	}},
	{name: "json.utf8/escaped-lone-surrogate", rule: "json.utf8", edit: func(b *builder) {
		b.set("/x_note", b.raw(b.r.pickS(`"\ud800"`, `"tail \udfff"`, `"\ud83d\u0041"`, `"\ude80\ud83d"`)))
	}},
	{name: "json.duplicate-key/plain", rule: "json.duplicate-key", edit: func(b *builder) {
		b.put(0, "name", b.str("Shadow Agent"))
	}},
	{name: "json.duplicate-key/escaped", rule: "json.duplicate-key", edit: func(b *builder) {
		// The same name once decoded: a parser keeping the last one reads
		// a different card from one keeping the first.
		b.put(0, `agent\u005fid`, b.ulid())
	}},
	{name: "json.duplicate-key/nested", rule: "json.duplicate-key", edit: func(b *builder) {
		o := b.set("/x_extra", b.object())
		b.put(o, "mode", b.str("a"))
		b.put(o, "mode", b.str("b"))
	}},
	{name: "json.depth/600-deep", rule: "json.depth", edit: func(b *builder) {
		start := b.mark()
		b.text = appendNested(b.text, 600)
		b.set("/metadata/lineage", b.rawFrom(start))
	}},
}

// appendNested appends n levels of alternating arrays and objects around 0.
func appendNested(dst []byte, n int) []byte {
	for i := 0; i < n; i++ {
		if i%2 == 0 {
			dst = append(dst, '[')
		} else {
			dst = append(dst, `{"a":`...)
		}
	}
	dst = append(dst, '0')
	for i := n - 1; i >= 0; i-- {
		if i%2 == 0 {
			dst = append(dst, ']')
		} else {
			dst = append(dst, '}')
		}
	}
	return dst
}

// pickCut returns a length at which to cut a card: just after a comma,
// colon or opening bracket outside any string, so that what is left is a
// clean prefix whose only fault is that it ends too soon.
func (r *rng) pickCut(c []byte) int {
	var cuts []int
	inString := false
	for i := 0; i < len(c); i++ {
		switch ch := c[i]; {
		case inString && ch == '\\':
			i++
		case ch == '"':
			inString = !inString
		case !inString && strings.IndexByte(",:[{", ch) >= 0:
			cuts = append(cuts, i+1)
		}
	}
	return cuts[r.intn(len(cuts))]
}

func required(field string) defect {
	return defect{name: "field.required/" + field, rule: "field.required", edit: func(b *builder) { b.remove("/" + field) }}
}

// setTo replaces the value at path with raw JSON text.
func setTo(name, rule, path, raw string) defect {
	return defect{name: name, rule: rule, edit: func(b *builder) { b.set(path, b.raw(raw)) }}
}

// setOneOf replaces the value at path with one of the raw JSON texts.
func setOneOf(name, rule, path string, raws ...string) defect {
	return defect{name: name, rule: rule, edit: func(b *builder) { b.set(path, b.raw(b.r.pickS(raws...))) }}
}

// someCapability returns the path of a random capability.
func (b *builder) someCapability() string {
	return "/capabilities/" + strconv.Itoa(b.r.intn(b.count(b.at("/capabilities"))))
}

// someGoal returns the path of a random goal subscription, creating one
// when the card has none.
func (b *builder) someGoal() string {
	goals := b.at("/goal_subscriptions")
	if goals == none || b.count(goals) == 0 {
		goals = b.set("/goal_subscriptions", b.array())
		g := b.push(goals, b.object())
		b.put(g, "goal_id", b.ulid())
		b.put(g, "priority", b.fraction())
	}
	return "/goal_subscriptions/" + strconv.Itoa(b.r.intn(b.count(goals)))
}

func (b *builder) editAgentID(f func(id string) string) {
	b.set("/agent_id", b.str(f(b.textOf(b.at("/agent_id")))))
}
