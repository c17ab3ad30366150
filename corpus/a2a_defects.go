package corpus

import (
	"encoding/base64"
	"strconv"
)

// Defects of the A2A dialects. Their cards are judged by the "a2a" profile,
// which detects the version from the card, so no defect here touches what
// detection reads (supportedInterfaces, protocolVersion, authentication):
// the broken card must still be judged as the version it was built as.

func init() {
	for _, d := range []string{"a2a/0.1", "a2a/0.2", "a2a/0.3", "a2a/1.0"} {
		registerDefects(d, jsonDefectsWithoutAgentID()...)
		registerDefects(d, a2aDefectsAll(d)...)
	}
	registerDefects("a2a/0.2", a2aDefectsFrom02...)
	registerDefects("a2a/0.3", a2aDefectsFrom02...)
	registerDefects("a2a/1.0", from02In10()...)
	for _, d := range []string{"a2a/0.1", "a2a/0.2", "a2a/0.3"} {
		registerDefects(d, a2aDefects0x...)
	}
	registerDefects("a2a/0.2", a2aDefects02and03...)
	registerDefects("a2a/0.3", a2aDefects02and03...)
	registerDefects("a2a/0.3", a2aDefectsSigned...)
	registerDefects("a2a/1.0", a2aDefectsSigned...)
	registerDefects("a2a/1.0", a2aDefects10...)
}

// jsonDefectsWithoutAgentID returns the shared strict-JSON defects that fit
// a dialect without an agent_id: the escaped duplicate spells "name" instead.
func jsonDefectsWithoutAgentID() []defect {
	var out []defect
	for _, d := range jsonDefects {
		if d.name != "json.duplicate-key/escaped" {
			out = append(out, d)
		}
	}
	return append(out, defect{name: "json.duplicate-key/escaped-name", rule: "json.duplicate-key", edit: func(b *builder) {
		b.put(0, `n\u0061me`, b.str("Shadow Agent"))
	}})
}

// a2aEndpoint is the path of the URL clients call in a dialect's cards.
func a2aEndpoint(dialect string) string {
	if dialect == "a2a/1.0" {
		return "/supportedInterfaces/0/url"
	}
	return "/url"
}

// someSkill returns the path of a random skill.
func (b *builder) someSkill() string {
	return "/skills/" + strconv.Itoa(b.r.intn(b.count(b.at("/skills"))))
}

// a2aDefectsAll break rules every A2A version has.
func a2aDefectsAll(dialect string) []defect {
	endpoint := a2aEndpoint(dialect)
	return []defect{
		a2aRequired("name"), a2aRequired("version"), a2aRequired("capabilities"), a2aRequired("skills"),
		{name: "a2a.required/skill-id", rule: "a2a.required", edit: func(b *builder) { b.remove(b.someSkill() + "/id") }},
		{name: "a2a.required/skill-name", rule: "a2a.required", edit: func(b *builder) { b.remove(b.someSkill() + "/name") }},
		{name: "a2a.required/provider-organization", rule: "a2a.required", edit: func(b *builder) {
			p := b.set("/provider", b.object())
			b.put(p, "url", b.url("https", false))
		}},

		setOneOf("field.type/string-boolean", "field.type", "/capabilities/streaming", `"True"`, `"false"`, `1`),
		setOneOf("field.type/name-number", "field.type", "/name", `42`, `null`, `["Agent"]`),
		setTo("field.type/capabilities-array", "field.type", "/capabilities", `["streaming"]`),
		defect{name: "field.type/skill-string", rule: "field.type", edit: func(b *builder) {
			b.set(b.someSkill(), b.str(b.r.pick(capVerbs)))
		}},
		defect{name: "field.type/skill-examples-objects", rule: "field.type", edit: func(b *builder) {
			b.set(b.someSkill()+"/examples", b.raw(`[{"input":"hello","output":"hi"}]`))
		}},

		setOneOf("a2a.url/template", "a2a.url", endpoint, `"{BASE_URL}/a2a"`, `"https://<AGENT_HOST>/a2a"`, `"REPLACE_WITH_URL"`),
		setOneOf("a2a.url/relative", "a2a.url", endpoint, `"/a2a/v1"`, `"a2a"`, `"//agent.example.com/a2a"`),
		setOneOf("a2a.url/not-http", "a2a.url", endpoint, `"ftp://agent.example.com/a2a"`, `"grpc://agent.example.com:443"`, `"mailto:agent@example.com"`),
		setOneOf("a2a.url/documentation-relative", "a2a.url", "/documentationUrl", `"docs/index.html"`, `"www.example.com/docs"`),
	}
}

func a2aRequired(member string) defect {
	return defect{name: "a2a.required/" + member, rule: "a2a.required", edit: func(b *builder) { b.remove("/" + member) }}
}

// a2aDefectsFrom02 break rules 0.2 added, kept in 1.0.
var a2aDefectsFrom02 = []defect{
	a2aRequired("description"), a2aRequired("defaultInputModes"), a2aRequired("defaultOutputModes"),
	{name: "a2a.required/skill-description", rule: "a2a.required", edit: func(b *builder) { b.remove(b.someSkill() + "/description") }},
	{name: "a2a.required/skill-tags", rule: "a2a.required", edit: func(b *builder) { b.remove(b.someSkill() + "/tags") }},
	{name: "a2a.required/provider-url", rule: "a2a.required", edit: func(b *builder) {
		p := b.set("/provider", b.object())
		b.put(p, "organization", b.str(b.r.pick(providerOrgs)))
	}},
	{name: "a2a.required/extension-uri", rule: "a2a.required", edit: func(b *builder) {
		exts := b.set("/capabilities/extensions", b.array())
		e := b.push(exts, b.object())
		b.put(e, "description", b.str("Adds ", b.r.pick(tagWords), " metadata"))
	}},
	setOneOf("field.type/modes-string", "field.type", "/defaultInputModes", `"text/plain"`, `{"text/plain":true}`),
	setOneOf("field.type/skill-tags-string", "field.type", "/skills/0/tags", `"search,retrieval"`, `null`),
}

// from02In10 is a2aDefectsFrom02 for 1.0, whose proto marks no
// AgentExtension field REQUIRED, so that a missing uri is no defect there:
// an empty version, a required string 1.0 holds non-empty, takes its
// place. The list is sorted by name, and the name sorts where the one it
// replaces did, so that no other card of the corpus changes.
func from02In10() []defect {
	out := append([]defect(nil), a2aDefectsFrom02...)
	for i := range out {
		if out[i].name == "a2a.required/extension-uri" {
			out[i] = defect{name: "a2a.required/empty-version", rule: "a2a.required", edit: func(b *builder) {
				b.r.pick(tagWords) // the draw the replaced defect made, keeping the stream in step
				b.set("/version", b.str(""))
			}}
		}
	}
	return out
}

// a2aDefects0x break the rules of the 0.x top-level url.
var a2aDefects0x = []defect{
	a2aRequired("url"),
	setOneOf("a2a.url/no-host", "a2a.url", "/url", `"https:agent.example.com"`, `"http:/a2a"`),
	setOneOf("a2a.url/malformed", "a2a.url", "/url", `"https://agent.example.com/a b"`, `"https://ex%zzample.com"`, `"https://agent.example.com:80a/"`),
}

// a2aSchemes0x makes sure a 0.x card has securitySchemes and returns it.
func (b *builder) a2aSchemes0x() int32 {
	if s := b.at("/securitySchemes"); s != none {
		return s
	}
	return b.set("/securitySchemes", b.object())
}

// a2aDefects02and03 break the 0.x security shapes and interfaces.
var a2aDefects02and03 = []defect{
	{name: "a2a.security-scheme/missing-type", rule: "a2a.security-scheme", edit: func(b *builder) {
		s := b.put(b.a2aSchemes0x(), "basicAuth", b.object())
		b.put(s, "scheme", b.str("basic"))
	}},
	{name: "a2a.security-scheme/unknown-type", rule: "a2a.security-scheme", edit: func(b *builder) {
		s := b.put(b.a2aSchemes0x(), "basicAuth", b.object())
		b.put(s, "type", b.str(b.r.pickS("basic", "bearer", "OAuth2", "jwt")))
	}},
	{name: "a2a.security-scheme/apikey-location", rule: "a2a.security-scheme", edit: func(b *builder) {
		s := b.put(b.a2aSchemes0x(), "headerKey", b.object())
		b.put(s, "type", b.str("apiKey"))
		b.put(s, "in", b.str(b.r.pickS("body", "Header", "path")))
		b.put(s, "name", b.str(b.r.pick(headerNames)))
	}},
	{name: "a2a.security-scheme/oauth2-without-flows", rule: "a2a.security-scheme", edit: func(b *builder) {
		s := b.put(b.a2aSchemes0x(), "login", b.object())
		b.put(s, "type", b.str("oauth2"))
	}},
	{name: "a2a.security-scheme/flow-without-token-url", rule: "a2a.security-scheme", edit: func(b *builder) {
		s := b.put(b.a2aSchemes0x(), "login", b.object())
		b.put(s, "type", b.str("oauth2"))
		f := b.put(b.put(s, "flows", b.object()), "clientCredentials", b.object())
		b.put(f, "scopes", b.object())
	}},
	{name: "a2a.security-scheme/1.0-wrapper", rule: "a2a.security-scheme", edit: func(b *builder) {
		// A card that names no release and holds a 1.0 wrapper is read as
		// 1.0 (the newest release whose members it uses), where the
		// wrapper is right and url is the fault; the defect is a 0.x
		// card's, so the card names its release.
		if b.at("/protocolVersion") == none {
			b.set("/protocolVersion", b.str("0.2.5"))
		}
		s := b.put(b.a2aSchemes0x(), "bearerAuth", b.object())
		h := b.put(s, "httpAuthSecurityScheme", b.object())
		b.put(h, "scheme", b.str("Bearer"))
	}},
	{name: "a2a.security-ref/undefined", rule: "a2a.security-ref", edit: func(b *builder) {
		sec := b.at("/security")
		if sec == none {
			sec = b.set("/security", b.array())
		}
		req := b.push(sec, b.object())
		b.put(req, b.r.pickS("google", "undefinedScheme", "Bearer"), b.array())
	}},
	{name: "a2a.interface/missing-transport", rule: "a2a.interface", edit: func(b *builder) {
		ifaces := b.set("/additionalInterfaces", b.array())
		i := b.push(ifaces, b.object())
		b.put(i, "url", b.url("https", false))
	}},
	setOneOf("a2a.url/interface-template", "a2a.url", "/additionalInterfaces", `[{"url":"{BASE_URL}/grpc","transport":"GRPC"}]`, `[{"url":"{HOST}:50051","transport":"GRPC"}]`),
}

// jwsPart encodes a JWS part as base64url without padding.
func jwsPart(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

// a2aDefectsSigned break the JWS form of signatures[] (0.3 and 1.0).
var a2aDefectsSigned = []defect{
	{name: "a2a.signature-format/header-without-kid", rule: "a2a.signature-format", edit: func(b *builder) {
		b.a2aSignature(jwsPart(b.r.pickS(`{"alg":"ES256"}`, `{"alg":"RS256","typ":"JOSE"}`, `{"alg":"EdDSA","jku":"https://example.com/jwks.json"}`)), jwsPart("sig"))
	}},
	{name: "a2a.signature-format/header-without-alg", rule: "a2a.signature-format", edit: func(b *builder) {
		b.a2aSignature(jwsPart(`{"kid":"key-1"}`), jwsPart("sig"))
	}},
	{name: "a2a.signature-format/header-not-json", rule: "a2a.signature-format", edit: func(b *builder) {
		b.a2aSignature(jwsPart(b.r.pickS(`alg=ES256;kid=1`, `{"alg":"ES256","kid":"k1",}`, `["ES256","k1"]`)), jwsPart("sig"))
	}},
	{name: "a2a.signature-format/padded", rule: "a2a.signature-format", edit: func(b *builder) {
		b.a2aSignature(base64.URLEncoding.EncodeToString([]byte(`{"alg":"ES256","kid":"k"}`)), jwsPart("sig"))
	}},
	{name: "a2a.signature-format/standard-base64", rule: "a2a.signature-format", edit: func(b *builder) {
		b.a2aSignature(jwsPart(`{"alg":"ES256","kid":"key-1"}`), "ab+/cd==")
	}},
	{name: "a2a.signature-format/missing-signature", rule: "a2a.signature-format", edit: func(b *builder) {
		sigs := b.set("/signatures", b.array())
		s := b.push(sigs, b.object())
		b.put(s, "protected", b.str(jwsPart(`{"alg":"ES256","kid":"key-1"}`)))
	}},
}

func (b *builder) a2aSignature(protected, signature string) {
	sigs := b.set("/signatures", b.array())
	s := b.push(sigs, b.object())
	b.put(s, "protected", b.str(protected))
	b.put(s, "signature", b.str(signature))
}

// a2aDefects10 break the rules of the 1.0 shapes.
var a2aDefects10 = []defect{
	// Only 1.0 says JSON names MUST be camelCase; before, a snake_case
	// name is a warning, and a protocolVersion naming no release too, so
	// neither is a defect of a 0.x card.
	{name: "a2a.field-name/snake-case", rule: "a2a.field-name", edit: func(b *builder) {
		b.set("/"+b.r.pickS("documentation_url", "icon_url"), b.url("https", false))
	}},
	setTo("a2a.required/empty-supported-interfaces", "a2a.required", "/supportedInterfaces", `[]`),
	setTo("a2a.required/empty-skills", "a2a.required", "/skills", `[]`),
	setTo("a2a.required/empty-input-modes", "a2a.required", "/defaultInputModes", `[]`),
	setTo("a2a.required/empty-name", "a2a.required", "/name", `""`),
	setTo("a2a.required/empty-skill-tags", "a2a.required", "/skills/0/tags", `[]`),
	{name: "a2a.interface/missing-protocol-version", rule: "a2a.interface", edit: func(b *builder) {
		b.remove("/supportedInterfaces/0/protocolVersion")
	}},
	{name: "a2a.interface/transport-not-binding", rule: "a2a.interface", edit: func(b *builder) {
		b.rename("/supportedInterfaces/0/protocolBinding", "transport")
	}},
	{name: "a2a.security-scheme/0x-shape", rule: "a2a.security-scheme", edit: func(b *builder) {
		s := b.set("/securitySchemes/bearerAuth", b.object())
		b.put(s, "type", b.str("http"))
		b.put(s, "scheme", b.str("bearer"))
	}},
	{name: "a2a.security-scheme/two-schemes", rule: "a2a.security-scheme", edit: func(b *builder) {
		s := b.set("/securitySchemes/either", b.object())
		b.put(b.put(s, "httpAuthSecurityScheme", b.object()), "scheme", b.str("Bearer"))
		b.put(s, "mtlsSecurityScheme", b.object())
	}},
	{name: "a2a.security-scheme/two-flows", rule: "a2a.security-scheme", edit: func(b *builder) {
		flows := b.set("/securitySchemes/login/oauth2SecurityScheme/flows", b.object())
		for _, name := range []string{"clientCredentials", "authorizationCode"} {
			f := b.put(flows, name, b.object())
			if name == "authorizationCode" {
				b.put(f, "authorizationUrl", b.url("https", false))
			}
			b.put(f, "tokenUrl", b.url("https", false))
			b.put(f, "scopes", b.object())
		}
	}},
	{name: "a2a.security-scheme/apikey-in", rule: "a2a.security-scheme", edit: func(b *builder) {
		s := b.set("/securitySchemes/headerKey/apiKeySecurityScheme", b.object())
		b.put(s, "in", b.str("header"))
		b.put(s, "name", b.str(b.r.pick(headerNames)))
	}},
	{name: "a2a.security-requirement/0x-shape", rule: "a2a.security-requirement", edit: func(b *builder) {
		reqs := b.set("/securityRequirements", b.array())
		b.put(b.push(reqs, b.object()), "bearer", b.array())
	}},
	{name: "a2a.security-ref/undefined", rule: "a2a.security-ref", edit: func(b *builder) {
		reqs := b.at("/securityRequirements")
		if reqs == none {
			reqs = b.set("/securityRequirements", b.array())
		}
		byName := b.put(b.push(reqs, b.object()), "schemes", b.object())
		b.put(byName, b.r.pickS("google", "undefinedScheme"), b.object())
	}},
}
