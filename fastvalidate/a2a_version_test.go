package fastvalidate

import (
	"strings"
	"testing"
)

// versionCase is a card judged under "a2a", the profile that should judge
// it, its findings, and a text each finding's message (in order) holds.
type versionCase struct {
	name, card, judged string
	want               []hit
	says               []string
}

func runVersionCases(t *testing.T, cases []versionCase) {
	t.Helper()
	v := newTestValidator(t, "a2a")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := v.Validate([]byte(tc.card))
			if r.Profile != tc.judged {
				t.Errorf("Profile = %q, want %q", r.Profile, tc.judged)
			}
			checkHits(t, r, tc.want)
			for i, text := range tc.says {
				if i < len(r.Findings()) && !strings.Contains(r.Findings()[i].Message(), text) {
					t.Errorf("finding %d: message %q does not say %q", i, r.Findings()[i].Message(), text)
				}
			}
		})
	}
}

// Only 1.0 says JSON names MUST be camelCase; before, a snake_case name is
// an extra member the schemas allow, which readers miss: a warning. A
// required member spelled only in snake_case is one fault, reported once.
func TestA2A_FieldNameByVersion(t *testing.T) {
	noInputModes := edited(t, a2aCard03, "/defaultInputModes", omitted, "/default_input_modes", `["text/plain"]`)
	runVersionCases(t, []versionCase{
		{name: "0.2 extra snake_case member", card: edited(t, a2aCard02, "/icon_url", `"https://a.example.com/i.png"`), judged: "a2a/0.2",
			want: []hit{{"a2a.field-name", "/icon_url"}}, says: []string{"camelCase: iconUrl"}},
		{name: "0.3 extra snake_case member", card: edited(t, a2aCard03, "/documentation_url", `"https://a.example.com/docs"`), judged: "a2a/0.3",
			want: []hit{{"a2a.field-name", "/documentation_url"}}},
		{name: "1.0 extra snake_case member", card: edited(t, a2aCard10, "/icon_url", `"https://a.example.com/i.png"`), judged: "a2a/1.0",
			want: []hit{{"a2a.field-name", "/icon_url"}}},
		{name: "0.3 required member only in snake_case", card: noInputModes, judged: "a2a/0.3",
			want: []hit{{"a2a.required", "/defaultInputModes"}}, says: []string{"spells it default_input_modes"}},
		{name: "1.0 interface member only in snake_case", card: edited(t, a2aCard10, "/supportedInterfaces/0/protocolBinding", omitted, "/supportedInterfaces/0/protocol_binding", `"JSONRPC"`), judged: "a2a/1.0",
			want: []hit{{"a2a.interface", "/supportedInterfaces/0/protocolBinding"}}, says: []string{"spells it protocol_binding"}},
	})
	// The severity by version, said outright.
	for _, tc := range []struct {
		card string
		sev  Severity
	}{
		{edited(t, a2aCard02, "/icon_url", `"https://a.example.com/i.png"`), SeverityWarning},
		{edited(t, a2aCard03, "/icon_url", `"https://a.example.com/i.png"`), SeverityWarning},
		{edited(t, a2aCard10, "/icon_url", `"https://a.example.com/i.png"`), SeverityError},
	} {
		r := newTestValidator(t, "a2a").Validate([]byte(tc.card))
		if fs := r.Findings(); len(fs) != 1 || fs[0].Severity != tc.sev || r.Valid() != (tc.sev == SeverityWarning) {
			t.Errorf("%s: findings %v, valid %v; want one %s", r.Profile, fs, r.Valid(), tc.sev)
		}
	}
}

// A protocolVersion that names no release leaves the version to the
// members, with a warning: "0.2.9" on a card with 0.3 members is judged
// as 0.3, and its 0.3 members are checked.
func TestA2A_ProtocolVersionNoRelease(t *testing.T) {
	badSig := edited(t, a2aCard03, "/protocolVersion", `"0.2.9"`, "/signatures/0/protected", `"not base64url!"`)
	runVersionCases(t, []versionCase{
		{name: "0.3 card claiming 0.2.9", card: edited(t, a2aCard03, "/protocolVersion", `"0.2.9"`), judged: "a2a/0.3",
			want: []hit{{"a2a.protocol-version", "/protocolVersion"}}, says: []string{`judged as 0.3, the newest release whose members it uses (got "0.2.9")`}},
		{name: "0.2.9 with a malformed signature", card: badSig, judged: "a2a/0.3",
			want: []hit{{"a2a.protocol-version", "/protocolVersion"}, {"a2a.signature-format", "/signatures/0/protected"}}},
		{name: "0.2.9 with mutualTLS and no signatures", card: edited(t, a2aCard03, "/protocolVersion", `"0.2.9"`, "/signatures", omitted), judged: "a2a/0.3",
			want: []hit{{"a2a.protocol-version", "/protocolVersion"}}},
		{name: "0.2 card claiming 0.2.9", card: edited(t, a2aCard02, "/protocolVersion", `"0.2.9"`), judged: "a2a/0.2",
			want: []hit{{"a2a.protocol-version", "/protocolVersion"}}, says: []string{"judged as 0.2"}},
		{name: "0.3.1 on a 0.3 card", card: edited(t, a2aCard03, "/protocolVersion", `"0.3.1"`), judged: "a2a/0.3",
			want: []hit{{"a2a.protocol-version", "/protocolVersion"}}},
	})
}

// A card that claims 1.0 in the 0.3 shape is invalid as 1.0, and the
// finding says whether it passes as 0.3, so its author knows whether to
// fix the claim or the shape.
func TestA2A_Claims10With03Shape(t *testing.T) {
	claims10 := edited(t, a2aCard03, "/protocolVersion", `"1.0"`)
	// Beside the missing interfaces, 1.0 finds what it finds in any 0.3
	// card: 0.x security schemes and a removed capability.
	hybrid := []hit{{"a2a.required", "/supportedInterfaces"}, {"a2a.hybrid", ""}, {"a2a.removed", "/capabilities/stateTransitionHistory"},
		{"a2a.security-scheme", "/securitySchemes/bearer"}, {"a2a.security-scheme", "/securitySchemes/mtls"}, {"a2a.security-scheme", "/securitySchemes/oauth"}}
	runVersionCases(t, []versionCase{
		{name: "passes as 0.3", card: claims10, judged: "a2a/1.0", want: hybrid,
			says: []string{"has the 0.3 shape (url, no supportedInterfaces) and passes as 0.3; fix the claim"}},
		{name: "fails as 0.3 too", card: edited(t, claims10, "/defaultOutputModes", omitted), judged: "a2a/1.0",
			want: append([]hit{{"a2a.required", "/defaultOutputModes"}}, hybrid...), says: []string{"as 0.3 it has errors too"}},
	})
	// The trial as 0.3 leaves nothing behind, and costs no allocation.
	v := newTestValidator(t, "a2a")
	card := []byte(claims10)
	testAllocs(t, "claims 1.0", 0, func() { v.Validate(card) })
}

// 0.3 section 5.6.4, "Interface completeness": if additionalInterfaces is
// provided, it SHOULD include an entry corresponding to the main url and
// preferredTransport (JSONRPC when absent, the schema's default).
func TestA2A_InterfaceCompleteness03(t *testing.T) {
	other := `[{"url": "https://agent.example.com/grpc", "transport": "GRPC"}]`
	runVersionCases(t, []versionCase{
		{name: "main interface listed", card: a2aCard03, judged: "a2a/0.3"},
		{name: "main interface missing", card: edited(t, a2aCard03, "/additionalInterfaces", other), judged: "a2a/0.3",
			want: []hit{{"a2a.interface-completeness", "/additionalInterfaces"}}, says: []string{"5.6.4"}},
		{name: "empty list", card: edited(t, a2aCard03, "/additionalInterfaces", `[]`), judged: "a2a/0.3",
			want: []hit{{"a2a.interface-completeness", "/additionalInterfaces"}}},
		{name: "main url under another transport", card: edited(t, a2aCard03, "/additionalInterfaces", `[{"url": "https://agent.example.com/a2a", "transport": "HTTP+JSON"}]`), judged: "a2a/0.3",
			want: []hit{{"a2a.interface-completeness", "/additionalInterfaces"}}},
		// RFC 3986 section 6.2.2.1 and 6.2.3: scheme and host have no case,
		// and an empty path is "/" in http(s).
		{name: "main url in another case", card: edited(t, a2aCard03, "/additionalInterfaces", `[{"url": "HTTPS://Agent.Example.com/a2a", "transport": "JSONRPC"}]`), judged: "a2a/0.3"},
		{name: "empty path and slash", card: edited(t, a2aCard03, "/url", `"https://agent.example.com"`, "/additionalInterfaces", `[{"url": "https://agent.example.com/", "transport": "JSONRPC"}]`), judged: "a2a/0.3"},
		{name: "path in another case", card: edited(t, a2aCard03, "/additionalInterfaces", `[{"url": "https://agent.example.com/A2A", "transport": "JSONRPC"}]`), judged: "a2a/0.3",
			want: []hit{{"a2a.interface-completeness", "/additionalInterfaces"}}},
		{name: "escaped url in another case", card: edited(t, a2aCard03, "/additionalInterfaces", `[{"url": "HTTPS:\/\/agent.example.com\/a2a", "transport": "JSONRPC"}]`), judged: "a2a/0.3"},
		{name: "escaped url still the main one", card: edited(t, a2aCard03, "/additionalInterfaces", `[{"url": "https:\/\/agent.example.com\/a2a", "transport": "JSONRPC"}]`), judged: "a2a/0.3"},
		{name: "default transport JSONRPC", card: edited(t, a2aCard03, "/preferredTransport", omitted, "/additionalInterfaces", `[{"url": "https://agent.example.com/a2a", "transport": "JSONRPC"}]`), judged: "a2a/0.3",
			want: []hit{{"a2a.preferred-transport", "/preferredTransport"}}},
		{name: "no list, no rule", card: edited(t, a2aCard03, "/additionalInterfaces", omitted), judged: "a2a/0.3"},
		// Only the 0.3 text says it.
		{name: "0.2 has no such rule", card: edited(t, a2aCard02, "/additionalInterfaces", other), judged: "a2a/0.2"},
	})
}

// 0.3's preferredTransport: REQUIRED in the text, optional in the schema.
func TestA2A_PreferredTransport03(t *testing.T) {
	runVersionCases(t, []versionCase{
		{name: "missing", card: edited(t, a2aCard03, "/preferredTransport", omitted), judged: "a2a/0.3",
			want: []hit{{"a2a.preferred-transport", "/preferredTransport"}}, says: []string{"text (5.6.1) calls it REQUIRED and MUST, the 0.3 JSON Schema optional with default JSONRPC"}},
		{name: "0.2 has no such rule", card: edited(t, a2aCard02, "/preferredTransport", omitted), judged: "a2a/0.2"},
	})
}

// Without protocolVersion or supportedInterfaces, the release is the
// newest whose members the card uses, nested ones too: 1.0's
// capabilities.extendedAgentCard (appendix A.2.2 moved
// supportsAuthenticatedExtendedCard there), its security scheme wrappers,
// a skill's securityRequirements, an interface's protocolBinding. 0.x's
// type-discriminated schemes keep a card at 0.2.
func TestA2A_ReleaseByNestedMembers(t *testing.T) {
	base := `{"name": "x", "description": "d", "version": "1.0.0", "capabilities": {}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"], "skills": [{"id": "s", "name": "S", "description": "d", "tags": ["t"]}]}`
	missing := []hit{{"a2a.required", "/supportedInterfaces"}}
	runVersionCases(t, []versionCase{
		{name: "capabilities.extendedAgentCard", card: edited(t, base, "/capabilities/extendedAgentCard", "true"), judged: "a2a/1.0", want: missing},
		{name: "a 1.0 scheme wrapper", card: edited(t, base, "/securitySchemes", `{"b": {"httpAuthSecurityScheme": {"scheme": "Bearer"}}}`), judged: "a2a/1.0", want: missing},
		{name: "a skill's securityRequirements", card: edited(t, base, "/securitySchemes", `{"b": {"httpAuthSecurityScheme": {"scheme": "Bearer"}}}`, "/skills/0/securityRequirements", `[{"schemes": {"b": {"list": []}}}]`), judged: "a2a/1.0", want: missing},
		{name: "an interface's protocolBinding", card: edited(t, base, "/additionalInterfaces", `[{"url": "https://a.example.com/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]`), judged: "a2a/1.0",
			want: []hit{{"a2a.required", "/supportedInterfaces"}, {"a2a.hybrid", ""}, {"a2a.interface", "/additionalInterfaces/0/transport"}}},
		{name: "0.2.9 with extendedAgentCard", card: edited(t, base, "/capabilities/extendedAgentCard", "true", "/protocolVersion", `"0.2.9"`), judged: "a2a/1.0",
			want: []hit{{"a2a.protocol-version", "/protocolVersion"}, {"a2a.required", "/supportedInterfaces"}, {"a2a.hybrid", ""}}},
		// A card that claims no 1.x is not told it does.
		{name: "url and a 1.0 scheme wrapper", card: edited(t, base, "/url", `"https://a.example.com/a2a"`, "/securitySchemes", `{"b": {"httpAuthSecurityScheme": {"scheme": "Bearer"}}}`), judged: "a2a/1.0",
			want: []hit{{"a2a.required", "/supportedInterfaces"}, {"a2a.hybrid", ""}}, says: []string{`missing required member "supportedInterfaces"`}},
		// Members 0.3 brought make a 0.3 card, and 0.3 requires
		// protocolVersion (0.3 section 5.5): judged as 0.2.0-0.2.4, which
		// know no signatures, its signatures went unchecked.
		{name: "signatures without protocolVersion", card: edited(t, a2aCard03, "/protocolVersion", omitted), judged: "a2a/0.3",
			want: []hit{{"a2a.required", "/protocolVersion"}}},
		{name: "malformed signature without protocolVersion", card: edited(t, a2aCard03, "/protocolVersion", omitted, "/signatures/0/protected", `"not base64url!"`), judged: "a2a/0.3",
			want: []hit{{"a2a.required", "/protocolVersion"}, {"a2a.signature-format", "/signatures/0/protected"}}},
		{name: "a skill's security without protocolVersion", card: edited(t, base, "/url", `"https://a.example.com/a2a"`, "/securitySchemes", `{"b": {"type": "http", "scheme": "bearer"}}`, "/skills/0/security", `[{"b": []}]`), judged: "a2a/0.3",
			want: []hit{{"a2a.required", "/protocolVersion"}, {"a2a.preferred-transport", "/preferredTransport"}}},
		{name: "0.x schemes stay 0.2", card: edited(t, base, "/url", `"https://a.example.com/a2a"`, "/securitySchemes", `{"b": {"type": "http", "scheme": "bearer"}}`), judged: "a2a/0.2"},
		{name: "a named release wins", card: edited(t, base, "/url", `"https://a.example.com/a2a"`, "/protocolVersion", `"0.2.5"`, "/capabilities/extendedAgentCard", "true"), judged: "a2a/0.2"},
	})
}

// A card that states its release only as protocol_version, the proto's
// field name, is judged under that release, and the spelling is reported
// as for any snake_case member: under 0.3, which requires the member, as
// the missing protocolVersion the card spells protocol_version.
func TestA2A_ProtocolVersionSnakeCase(t *testing.T) {
	snake03 := edited(t, a2aCard03, "/protocolVersion", omitted, "/protocol_version", `"0.3.0"`)
	runVersionCases(t, []versionCase{
		{name: "0.3 by protocol_version", card: snake03, judged: "a2a/0.3",
			want: []hit{{"a2a.required", "/protocolVersion"}}, says: []string{"spells it protocol_version"}},
		{name: "0.2.5 by protocol_version", card: edited(t, a2aCard02, "/protocol_version", `"0.2.5"`), judged: "a2a/0.2",
			want: []hit{{"a2a.field-name", "/protocol_version"}}},
		{name: "protocol_version naming no release", card: edited(t, a2aCard02, "/protocol_version", `"9.9"`), judged: "a2a/0.2",
			want: []hit{{"a2a.field-name", "/protocol_version"}}},
	})
}

// A card judged as 1.0 by its members, not by a 1.x protocolVersion, is
// not told that it claims one.
func TestA2A_MissingInterfacesWithoutClaim(t *testing.T) {
	card := `{"name": "x", "description": "d", "url": "https://a.example.com/a2a", "version": "1.0.0", "capabilities": {"extendedAgentCard": true}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"], "skills": [{"id": "s", "name": "S", "description": "d", "tags": ["t"]}]}`
	r := newTestValidator(t, "a2a").Validate([]byte(card))
	for _, f := range r.Findings() {
		if f.Code == CodeA2ARequired && strings.Contains(f.Message(), "claims protocolVersion") {
			t.Errorf("%s: %s", f.Path, f.Message())
		}
	}
	if r.Profile != "a2a/1.0" || r.Valid() {
		t.Errorf("Profile %s, valid %v; want an invalid a2a/1.0", r.Profile, r.Valid())
	}
}
