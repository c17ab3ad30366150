package fastvalidate

import (
	"strconv"
	"strings"
	"testing"
)

// a2aCase is one card of a version table: the edits to the version's base
// card and the findings expected of it.
type a2aCase struct {
	name  string
	edits []string // pointer, raw value pairs for edited
	want  []hit
}

func runA2ATable(t *testing.T, profile, base string, cases []a2aCase) {
	t.Helper()
	v := newTestValidator(t, profile)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			card := base
			if len(tc.edits) > 0 {
				card = edited(t, base, tc.edits...)
			}
			r := v.Validate([]byte(card))
			checkHits(t, r, tc.want)
			if r.Profile != profile {
				t.Errorf("Profile = %q, want %q", r.Profile, profile)
			}
			if t.Failed() {
				t.Logf("card: %s", card)
			}
		})
	}
}

func e(kv ...string) []string { return kv }

func TestA2A01(t *testing.T) {
	runA2ATable(t, "a2a/0.1", a2aCard01, []a2aCase{
		{name: "base card"},
		{name: "no name", edits: e("/name", omitted), want: []hit{{"a2a.required", "/name"}}},
		{name: "no url", edits: e("/url", omitted), want: []hit{{"a2a.required", "/url"}}},
		{name: "no version", edits: e("/version", omitted), want: []hit{{"a2a.required", "/version"}}},
		{name: "no capabilities", edits: e("/capabilities", omitted), want: []hit{{"a2a.required", "/capabilities"}}},
		{name: "no skills", edits: e("/skills", omitted), want: []hit{{"a2a.required", "/skills"}}},
		{name: "description optional", edits: e("/description", omitted)},
		{name: "modes optional", edits: e("/defaultInputModes", omitted, "/defaultOutputModes", omitted)},
		{name: "null optional members allowed", edits: e("/description", "null", "/provider", "null", "/documentationUrl", "null", "/authentication", "null")},
		// 0.1 section 5.5 types these "T | null"; defaultInputModes,
		// defaultOutputModes and the capabilities (5.5.2) it types without
		// null, and its schema admits null nowhere.
		{name: "null where 0.1 types no null", edits: e("/defaultInputModes", "null", "/defaultOutputModes", "null", "/capabilities/streaming", "null", "/capabilities/pushNotifications", "null", "/capabilities/stateTransitionHistory", "null"),
			want: []hit{{"a2a.null", "/defaultInputModes"}, {"a2a.null", "/defaultOutputModes"}, {"a2a.null", "/capabilities/streaming"}, {"a2a.null", "/capabilities/pushNotifications"}, {"a2a.null", "/capabilities/stateTransitionHistory"}}},
		{name: "null skill members 0.1 allows", edits: e("/skills/0/description", "null", "/skills/0/tags", "null", "/skills/0/examples", "null", "/skills/0/inputModes", "null", "/skills/0/outputModes", "null", "/provider/url", "null")},
		{name: "null required member", edits: e("/name", "null"), want: []hit{{"field.type", "/name"}}},
		{name: "null capabilities", edits: e("/capabilities", "null", "/skills", "null"), want: []hit{{"field.type", "/capabilities"}, {"field.type", "/skills"}}},
		{name: "name not a string", edits: e("/name", "42"), want: []hit{{"field.type", "/name"}}},
		{name: "skill without id", edits: e("/skills/0/id", omitted), want: []hit{{"a2a.required", "/skills/0/id"}}},
		{name: "skill without name", edits: e("/skills/0/name", omitted), want: []hit{{"a2a.required", "/skills/0/name"}}},
		{name: "skill description and tags optional", edits: e("/skills/0/description", omitted, "/skills/0/tags", omitted)},
		{name: "skill not an object", edits: e("/skills/-", `"search"`), want: []hit{{"field.type", "/skills/1"}}},
		// 0.1 too says a skill's id is unique within the agent.
		{name: "duplicate skill id", edits: e("/skills/-", `{"id": "find", "name": "Find again"}`), want: []hit{{"a2a.skill-id-unique", "/skills/1/id"}}},
		{name: "provider without organization", edits: e("/provider/organization", omitted), want: []hit{{"a2a.required", "/provider/organization"}}},
		{name: "provider url optional", edits: e("/provider/url", omitted)},
		{name: "authentication without schemes", edits: e("/authentication/schemes", omitted), want: []hit{{"a2a.required", "/authentication/schemes"}}},
		{name: "scheme names are strings", edits: e("/authentication/schemes", `["Bearer", 1]`), want: []hit{{"field.type", "/authentication/schemes/1"}}},
		{name: "string boolean", edits: e("/capabilities/streaming", `"True"`), want: []hit{{"field.type", "/capabilities/streaming"}}},
		{name: "modes need not be media types", edits: e("/defaultInputModes", `["text", "file"]`)},
		{name: "localhost url", edits: e("/url", `"http://localhost:8080/"`), want: []hit{{"a2a.url-risk", "/url"}}},
		{name: "template url", edits: e("/url", `"{BASE_URL}/a2a"`), want: []hit{{"a2a.url", "/url"}}},
		{name: "0.2 members ignored", edits: e("/securitySchemes", `{"x": 1}`, "/iconUrl", `"nonsense"`)},
	})
}

func TestA2A02(t *testing.T) {
	runA2ATable(t, "a2a/0.2", a2aCard02, []a2aCase{
		{name: "base card"},
		{name: "no description", edits: e("/description", omitted), want: []hit{{"a2a.required", "/description"}}},
		{name: "no defaultInputModes", edits: e("/defaultInputModes", omitted), want: []hit{{"a2a.required", "/defaultInputModes"}}},
		{name: "no defaultOutputModes", edits: e("/defaultOutputModes", omitted), want: []hit{{"a2a.required", "/defaultOutputModes"}}},
		{name: "no url", edits: e("/url", omitted), want: []hit{{"a2a.required", "/url"}}},
		{name: "protocolVersion of 0.2.5", edits: e("/protocolVersion", `"0.2.5"`)},
		{name: "protocolVersion not a string", edits: e("/protocolVersion", `2`), want: []hit{{"field.type", "/protocolVersion"}}},
		{name: "null description", edits: e("/description", "null"), want: []hit{{"field.type", "/description"}}},
		{name: "null optional member", edits: e("/documentationUrl", "null"), want: []hit{{"a2a.null", "/documentationUrl"}}},
		{name: "provider without url", edits: e("/provider/url", omitted), want: []hit{{"a2a.required", "/provider/url"}}},
		{name: "skill without description", edits: e("/skills/0/description", omitted), want: []hit{{"a2a.required", "/skills/0/description"}}},
		{name: "skill without tags", edits: e("/skills/0/tags", omitted), want: []hit{{"a2a.required", "/skills/0/tags"}}},
		{name: "skill with null tags", edits: e("/skills/0/tags", "null"), want: []hit{{"field.type", "/skills/0/tags"}}},
		{name: "skill examples are strings", edits: e("/skills/0/examples", `[{"input": "x"}]`), want: []hit{{"field.type", "/skills/0/examples/0"}}},
		{name: "duplicate skill id", edits: e("/skills/1/id", `"find"`), want: []hit{{"a2a.skill-id-unique", "/skills/1/id"}}},
		{name: "skills not an array", edits: e("/skills", `{}`), want: []hit{{"field.type", "/skills"}}},
		{name: "relative icon url", edits: e("/iconUrl", `"icon.png"`), want: []hit{{"a2a.url", "/iconUrl"}}},
		{name: "provider url of any scheme", edits: e("/provider/url", `"mailto:agents@example.com"`)},
		{name: "plain http provider url", edits: e("/provider/url", `"http://example.com"`), want: []hit{{"a2a.url-risk", "/provider/url"}}},
		{name: "agent url not http", edits: e("/url", `"ftp://agent.example.com/a2a"`), want: []hit{{"a2a.url", "/url"}}},
		{name: "agent url without host", edits: e("/url", `"https:agent"`), want: []hit{{"a2a.url", "/url"}}},
		{name: "agent url with spaces", edits: e("/url", `"https://agent.example.com/my agent"`), want: []hit{{"a2a.url", "/url"}}},
		{name: "public IP", edits: e("/url", `"https://8.8.8.8/a2a"`), want: []hit{{"content.link-ip-host", "/url"}}},
		{name: "documentation IPv6", edits: e("/url", `"https://[2001:db8::1]/a2a"`), want: []hit{{"content.link-ip-host", "/url"}}},
		{name: "name ending in localhost", edits: e("/url", `"https://notlocalhost.example/a2a"`)},
		{name: "private IP", edits: e("/url", `"https://10.0.0.5/a2a"`), want: []hit{{"a2a.url-risk", "/url"}}},
		{name: "loopback IP", edits: e("/url", `"https://127.0.0.1:8443/a2a"`), want: []hit{{"a2a.url-risk", "/url"}}},
		{name: "link-local IP", edits: e("/url", `"https://169.254.10.1/"`), want: []hit{{"a2a.url-risk", "/url"}}},
		{name: "unspecified IP", edits: e("/url", `"https://0.0.0.0:9000/"`), want: []hit{{"a2a.url-risk", "/url"}}},
		{name: "IPv6 loopback", edits: e("/url", `"https://[::1]/a2a"`), want: []hit{{"a2a.url-risk", "/url"}}},
		{name: "IPv4-mapped private", edits: e("/url", `"https://[::ffff:192.168.1.1]/a2a"`), want: []hit{{"a2a.url-risk", "/url"}}},
		{name: "unique local IPv6", edits: e("/url", `"https://[fd00::1]/a2a"`), want: []hit{{"a2a.url-risk", "/url"}}},
		{name: "name under localhost", edits: e("/url", `"https://api.LOCALHOST./a2a"`), want: []hit{{"a2a.url-risk", "/url"}}},
		{name: "plain http", edits: e("/url", `"http://agent.example.com/a2a"`), want: []hit{{"a2a.url-risk", "/url"}}},
		{name: "mode not a media type", edits: e("/defaultInputModes", `["text", "text/", "image/png"]`), want: []hit{{"a2a.mime", "/defaultInputModes/0"}, {"a2a.mime", "/defaultInputModes/1"}}},
		{name: "media types with parameters and wildcards", edits: e("/defaultInputModes", `["text/plain; charset=utf-8", "*/*", "image/*", "application/vnd.geo+json"]`)},
		{name: "skill mode not a media type", edits: e("/skills/0/outputModes", `["json"]`), want: []hit{{"a2a.mime", "/skills/0/outputModes/0"}}},
		{name: "modes not an array", edits: e("/defaultInputModes", `"text/plain"`), want: []hit{{"field.type", "/defaultInputModes"}}},
		{name: "empty modes allowed", edits: e("/defaultInputModes", `[]`)},
		{name: "legacy authentication", edits: e("/authentication", `{"schemes": ["Bearer"]}`), want: []hit{{"a2a.removed", "/authentication"}}},
		{name: "scheme without type", edits: e("/securitySchemes/bearer/type", omitted), want: []hit{{"a2a.security-scheme", "/securitySchemes/bearer/type"}}},
		{name: "scheme of unknown type", edits: e("/securitySchemes/bearer/type", `"basic"`), want: []hit{{"a2a.security-scheme", "/securitySchemes/bearer/type"}}},
		{name: "scheme not an object", edits: e("/securitySchemes/bearer", `"bearer"`), want: []hit{{"field.type", "/securitySchemes/bearer"}}},
		{name: "apiKey location outside the enum", edits: e("/securitySchemes/key/in", `"body"`), want: []hit{{"a2a.security-scheme", "/securitySchemes/key/in"}}},
		{name: "apiKey without in", edits: e("/securitySchemes/key/in", omitted), want: []hit{{"a2a.security-scheme", "/securitySchemes/key/in"}}},
		{name: "apiKey without name", edits: e("/securitySchemes/key/name", omitted), want: []hit{{"a2a.security-scheme", "/securitySchemes/key/name"}}},
		{name: "http without scheme", edits: e("/securitySchemes/bearer/scheme", omitted), want: []hit{{"a2a.security-scheme", "/securitySchemes/bearer/scheme"}}},
		{name: "oauth2 without flows", edits: e("/securitySchemes/oauth/flows", omitted), want: []hit{{"a2a.security-scheme", "/securitySchemes/oauth/flows"}}},
		{name: "authorizationCode without tokenUrl", edits: e("/securitySchemes/oauth/flows/authorizationCode/tokenUrl", omitted), want: []hit{{"a2a.security-scheme", "/securitySchemes/oauth/flows/authorizationCode/tokenUrl"}}},
		{name: "authorizationCode without scopes", edits: e("/securitySchemes/oauth/flows/authorizationCode/scopes", omitted), want: []hit{{"a2a.security-scheme", "/securitySchemes/oauth/flows/authorizationCode/scopes"}}},
		{name: "scope descriptions are strings", edits: e("/securitySchemes/oauth/flows/authorizationCode/scopes/read", `true`), want: []hit{{"field.type", "/securitySchemes/oauth/flows/authorizationCode/scopes/read"}}},
		{name: "implicit without authorizationUrl", edits: e("/securitySchemes/oauth/flows/implicit/authorizationUrl", omitted), want: []hit{{"a2a.security-scheme", "/securitySchemes/oauth/flows/implicit/authorizationUrl"}}},
		{name: "password without tokenUrl", edits: e("/securitySchemes/oauth/flows/password/tokenUrl", omitted), want: []hit{{"a2a.security-scheme", "/securitySchemes/oauth/flows/password/tokenUrl"}}},
		{name: "clientCredentials token url malformed", edits: e("/securitySchemes/oauth/flows/clientCredentials/tokenUrl", `"token"`), want: []hit{{"a2a.url", "/securitySchemes/oauth/flows/clientCredentials/tokenUrl"}}},
		{name: "refresh url over plain http", edits: e("/securitySchemes/oauth/flows/authorizationCode/refreshUrl", `"http://auth.example.com/refresh"`), want: []hit{{"a2a.url-risk", "/securitySchemes/oauth/flows/authorizationCode/refreshUrl"}}},
		{name: "deviceCode is not a 0.x flow", edits: e("/securitySchemes/oauth/flows/deviceCode", `{}`)},
		// OpenAPI's names are camelCase too; a snake_case one is missed.
		{name: "snake_case flow", edits: e("/securitySchemes/oauth/flows/client_credentials", `{}`), want: []hit{{"a2a.field-name", "/securitySchemes/oauth/flows/client_credentials"}}},
		{name: "snake_case flow member", edits: e("/securitySchemes/oauth/flows/authorizationCode/tokenUrl", omitted, "/securitySchemes/oauth/flows/authorizationCode/token_url", `"https://auth.example.com/token"`),
			// One fault, one finding: the missing tokenUrl names token_url.
			want: []hit{{"a2a.security-scheme", "/securitySchemes/oauth/flows/authorizationCode/tokenUrl"}}},
		{name: "snake_case scheme member", edits: e("/securitySchemes/bearer/bearer_format", `"JWT"`), want: []hit{{"a2a.field-name", "/securitySchemes/bearer/bearer_format"}}},
		{name: "no 0.2 name to spell", edits: e("/securitySchemes/oauth/oauth2_metadata_url", `"https://auth.example.com/meta"`, "/securitySchemes/oauth/flows/device_code", `{}`, "/securitySchemes/oauth/flows/authorizationCode/pkce_required", `true`)},
		{name: "openIdConnect without url", edits: e("/securitySchemes/oidc/openIdConnectUrl", omitted), want: []hit{{"a2a.security-scheme", "/securitySchemes/oidc/openIdConnectUrl"}}},
		{name: "mutualTLS arrived in 0.3", edits: e("/securitySchemes/mtls", `{"type": "mutualTLS"}`), want: []hit{{"a2a.security-scheme", "/securitySchemes/mtls/type"}}},
		{name: "requirement names an undefined scheme", edits: e("/security/-", `{"basic": []}`), want: []hit{{"a2a.security-ref", "/security/2/basic"}}},
		{name: "requirement without any schemes", edits: e("/securitySchemes", omitted), want: []hit{{"a2a.security-ref", "/security/0/bearer"}, {"a2a.security-ref", "/security/1/oauth"}, {"a2a.security-ref", "/security/1/key"}}},
		{name: "scopes are a list", edits: e("/security/0/bearer", `"all"`), want: []hit{{"field.type", "/security/0/bearer"}}},
		{name: "security is a list", edits: e("/security", `{"bearer": []}`), want: []hit{{"field.type", "/security"}}},
		{name: "extension without uri", edits: e("/capabilities/extensions/0/uri", omitted), want: []hit{{"a2a.required", "/capabilities/extensions/0/uri"}}},
		// 0.x has no proto3 defaults: "" is a value, and no URI.
		{name: "extension with empty uri", edits: e("/capabilities/extensions/0/uri", `""`), want: []hit{{"a2a.url", "/capabilities/extensions/0/uri"}}},
		{name: "extension uri relative", edits: e("/capabilities/extensions/0/uri", `"ratings/v1"`), want: []hit{{"a2a.url", "/capabilities/extensions/0/uri"}}},
		{name: "extension required not a boolean", edits: e("/capabilities/extensions/0/required", `"no"`), want: []hit{{"field.type", "/capabilities/extensions/0/required"}}},
		{name: "extended card flag not a boolean", edits: e("/supportsAuthenticatedExtendedCard", `"true"`), want: []hit{{"field.type", "/supportsAuthenticatedExtendedCard"}}},
		{name: "transport misspelled", edits: e("/preferredTransport", `"jsonrpc"`), want: []hit{{"a2a.transport", "/preferredTransport"}}},
		{name: "interface without transport", edits: e("/additionalInterfaces/0/transport", omitted), want: []hit{{"a2a.interface", "/additionalInterfaces/0/transport"}}},
		{name: "interface without url", edits: e("/additionalInterfaces/0/url", omitted), want: []hit{{"a2a.interface", "/additionalInterfaces/0/url"}}},
		// A GRPC interface may be grpc:// (TestA2A10_InterfaceURLByBinding); a JSONRPC one not.
		{name: "interface url not http", edits: e("/additionalInterfaces/0/url", `"grpc://agent.example.com"`, "/additionalInterfaces/0/transport", `"JSONRPC"`), want: []hit{{"a2a.url", "/additionalInterfaces/0/url"}}},
		{name: "grpc interface at grpc://", edits: e("/additionalInterfaces/0/url", `"grpc://agent.example.com"`), want: []hit{{"a2a.url-risk", "/additionalInterfaces/0/url"}}},
		{name: "snake_case card member", edits: e("/default_input_modes", `["text/plain"]`), want: []hit{{"a2a.field-name", "/default_input_modes"}}},
		{name: "snake_case skill member", edits: e("/skills/0/input_modes", `["text/plain"]`), want: []hit{{"a2a.field-name", "/skills/0/input_modes"}}},
		{name: "snake_case capability", edits: e("/capabilities/push_notifications", `true`), want: []hit{{"a2a.field-name", "/capabilities/push_notifications"}}},
		{name: "snake_case of another object's member", edits: e("/input_modes", `["text/plain"]`)},
		{name: "signatures are not 0.2", edits: e("/signatures", `[{"protected": "!"}]`)},
	})
}

func TestA2A03(t *testing.T) {
	runA2ATable(t, "a2a/0.3", a2aCard03, []a2aCase{
		{name: "base card"},
		{name: "snake_case metadata url", edits: e("/securitySchemes/oauth/oauth2_metadata_url", `"https://auth.example.com/meta"`), want: []hit{{"a2a.field-name", "/securitySchemes/oauth/oauth2_metadata_url"}}},
		{name: "no protocolVersion", edits: e("/protocolVersion", omitted), want: []hit{{"a2a.required", "/protocolVersion"}}},
		{name: "protocolVersion not a string", edits: e("/protocolVersion", `0.3`), want: []hit{{"field.type", "/protocolVersion"}}},
		// The schema makes it optional, the prose REQUIRED: a warning.
		{name: "preferredTransport missing", edits: e("/preferredTransport", omitted), want: []hit{{"a2a.preferred-transport", "/preferredTransport"}}},
		// The 0.3 schema requires a flow's scopes: null is no object, as for
		// any required member.
		{name: "null scopes", edits: e("/securitySchemes/oauth/flows/clientCredentials/scopes", `null`), want: []hit{{"field.type", "/securitySchemes/oauth/flows/clientCredentials/scopes"}}},
		// docs/design.md: a required member present only in snake_case is
		// one finding, the missing member's; 5.6.1 calls preferredTransport
		// REQUIRED.
		{name: "preferredTransport only in snake_case", edits: e("/preferredTransport", omitted, "/preferred_transport", `"JSONRPC"`), want: []hit{{"a2a.preferred-transport", "/preferredTransport"}}},
		{name: "metadata url relative", edits: e("/securitySchemes/oauth/oauth2MetadataUrl", `"/meta"`), want: []hit{{"a2a.url", "/securitySchemes/oauth/oauth2MetadataUrl"}}},
		{name: "skill requirement names an undefined scheme", edits: e("/skills/0/security/0/nope", `[]`), want: []hit{{"a2a.security-ref", "/skills/0/security/0/nope"}}},
		{name: "interface on loopback", edits: e("/additionalInterfaces/1/url", `"http://127.0.0.1:9000"`), want: []hit{{"a2a.url-risk", "/additionalInterfaces/1/url"}}},
		{name: "legacy authentication", edits: e("/authentication", `{"schemes": []}`), want: []hit{{"a2a.removed", "/authentication"}}},
		{name: "signature without protected", edits: e("/signatures/0/protected", omitted), want: []hit{{"a2a.signature-format", "/signatures/0/protected"}}},
		{name: "signature without signature", edits: e("/signatures/0/signature", omitted), want: []hit{{"a2a.signature-format", "/signatures/0/signature"}}},
		{name: "empty signature", edits: e("/signatures/0/signature", `""`), want: []hit{{"a2a.signature-format", "/signatures/0/signature"}}},
		{name: "signature in standard base64", edits: e("/signatures/0/signature", `"ab+/"`), want: []hit{{"a2a.signature-format", "/signatures/0/signature"}}},
		{name: "padded protected header", edits: e("/signatures/0/protected", jsonString(jwsHeader(`{"alg":"ES256","kid":"k1"}`)+"==")), want: []hit{{"a2a.signature-format", "/signatures/0/protected"}}},
		{name: "protected header of impossible length", edits: e("/signatures/0/protected", `"abcde"`), want: []hit{{"a2a.signature-format", "/signatures/0/protected"}}},
		{name: "protected header without kid", edits: e("/signatures/0/protected", jsonString(jwsHeader(`{"alg":"ES256"}`))), want: []hit{{"a2a.signature-format", "/signatures/0/protected"}}},
		{name: "protected header without alg", edits: e("/signatures/0/protected", jsonString(jwsHeader(`{"kid":"k1"}`))), want: []hit{{"a2a.signature-format", "/signatures/0/protected"}}},
		{name: "empty protected header", edits: e("/signatures/0/protected", jsonString(jwsHeader(`{}`))), want: []hit{{"a2a.signature-format", "/signatures/0/protected"}}},
		{name: "protected header an array", edits: e("/signatures/0/protected", jsonString(jwsHeader(`["alg","kid"]`))), want: []hit{{"a2a.signature-format", "/signatures/0/protected"}}},
		{name: "protected header truncated", edits: e("/signatures/0/protected", jsonString(jwsHeader(`{"alg":"ES256","kid":"k1"`))), want: []hit{{"a2a.signature-format", "/signatures/0/protected"}}},
		{name: "protected header kid a number", edits: e("/signatures/0/protected", jsonString(jwsHeader(`{"alg":"ES256","kid":7}`))), want: []hit{{"a2a.signature-format", "/signatures/0/protected"}}},
		{name: "protected header alg empty", edits: e("/signatures/0/protected", jsonString(jwsHeader(`{"alg":"","kid":"k1"}`))), want: []hit{{"a2a.signature-format", "/signatures/0/protected"}}},
		{name: "protected header kid empty", edits: e("/signatures/0/protected", jsonString(jwsHeader(`{"alg":"ES256","kid":""}`))), want: []hit{{"a2a.signature-format", "/signatures/0/protected"}}},
		{name: "protected header alg of one space", edits: e("/signatures/0/protected", jsonString(jwsHeader(`{"alg":" ","kid":"k"}`)))},
		{name: "protected header alg twice", edits: e("/signatures/0/protected", jsonString(jwsHeader(`{"alg":"ES256","kid":"k1","alg":"none"}`))), want: []hit{{"a2a.signature-format", "/signatures/0/protected"}}},
		{name: "protected header with trailing data", edits: e("/signatures/0/protected", jsonString(jwsHeader(`{"alg":"ES256","kid":"k1"} x`))), want: []hit{{"a2a.signature-format", "/signatures/0/protected"}}},
		{name: "protected header with bad UTF-8", edits: e("/signatures/0/protected", jsonString(jwsHeader("{\"alg\":\"ES256\",\"kid\":\"k\xff\"}"))), want: []hit{{"a2a.signature-format", "/signatures/0/protected"}}},
		{name: "protected header with nested values", edits: e("/signatures/0/protected", jsonString(jwsHeader(`{"alg":"ES256","crit":["exp"],"exp":1.5e3,"x":{"y":[true,false,null,-0]},"kid":"k\u00e9"}`)))},
		{name: "unprotected header not an object", edits: e("/signatures/0/header", `"x"`), want: []hit{{"field.type", "/signatures/0/header"}}},
		{name: "signatures not a list", edits: e("/signatures", `{}`), want: []hit{{"field.type", "/signatures"}}},
	})
}

func TestA2A10(t *testing.T) {
	runA2ATable(t, "a2a/1.0", a2aCard10, []a2aCase{
		{name: "base card"},
		{name: "no name", edits: e("/name", omitted), want: []hit{{"a2a.required", "/name"}}},
		{name: "no description", edits: e("/description", omitted), want: []hit{{"a2a.required", "/description"}}},
		{name: "no supportedInterfaces", edits: e("/supportedInterfaces", omitted), want: []hit{{"a2a.required", "/supportedInterfaces"}}},
		{name: "no version", edits: e("/version", omitted), want: []hit{{"a2a.required", "/version"}}},
		{name: "no capabilities", edits: e("/capabilities", omitted), want: []hit{{"a2a.required", "/capabilities"}}},
		{name: "no defaultInputModes", edits: e("/defaultInputModes", omitted), want: []hit{{"a2a.required", "/defaultInputModes"}}},
		{name: "no defaultOutputModes", edits: e("/defaultOutputModes", omitted), want: []hit{{"a2a.required", "/defaultOutputModes"}}},
		{name: "no skills", edits: e("/skills", omitted), want: []hit{{"a2a.required", "/skills"}}},
		{name: "empty name", edits: e("/name", `""`), want: []hit{{"a2a.required", "/name"}}},
		{name: "no supported interface", edits: e("/supportedInterfaces", `[]`), want: []hit{{"a2a.required", "/supportedInterfaces"}}},
		{name: "null supportedInterfaces", edits: e("/supportedInterfaces", `null`), want: []hit{{"field.type", "/supportedInterfaces"}}},
		{name: "no skill", edits: e("/skills", `[]`), want: []hit{{"a2a.required", "/skills"}}},
		{name: "no input mode", edits: e("/defaultInputModes", `[]`), want: []hit{{"a2a.required", "/defaultInputModes"}}},
		{name: "skill without tags", edits: e("/skills/0/tags", `[]`), want: []hit{{"a2a.required", "/skills/0/tags"}}},
		{name: "skill without description", edits: e("/skills/0/description", omitted), want: []hit{{"a2a.required", "/skills/0/description"}}},
		{name: "provider without url", edits: e("/provider/url", omitted), want: []hit{{"a2a.required", "/provider/url"}}},
		{name: "null optional member", edits: e("/iconUrl", `null`), want: []hit{{"a2a.null", "/iconUrl"}}},
		{name: "interface without url", edits: e("/supportedInterfaces/0/url", omitted), want: []hit{{"a2a.interface", "/supportedInterfaces/0/url"}}},
		{name: "interface without protocolBinding", edits: e("/supportedInterfaces/0/protocolBinding", omitted), want: []hit{{"a2a.interface", "/supportedInterfaces/0/protocolBinding"}}},
		{name: "interface without protocolVersion", edits: e("/supportedInterfaces/1/protocolVersion", omitted), want: []hit{{"a2a.interface", "/supportedInterfaces/1/protocolVersion"}}},
		{name: "interface with empty protocolVersion", edits: e("/supportedInterfaces/1/protocolVersion", `""`), want: []hit{{"a2a.interface", "/supportedInterfaces/1/protocolVersion"}}},
		{name: "interface with 0.x transport", edits: e("/supportedInterfaces/0/protocolBinding", omitted, "/supportedInterfaces/0/transport", `"JSONRPC"`), want: []hit{{"a2a.interface", "/supportedInterfaces/0/protocolBinding"}}},
		{name: "binding misspelled", edits: e("/supportedInterfaces/0/protocolBinding", `"jsonrpc"`), want: []hit{{"a2a.transport", "/supportedInterfaces/0/protocolBinding"}}},
		{name: "interface url a template", edits: e("/supportedInterfaces/0/url", `"{BASE_URL}/a2a"`), want: []hit{{"a2a.url", "/supportedInterfaces/0/url"}}},
		{name: "snake_case interface member", edits: e("/supportedInterfaces/0/protocol_binding", `"JSONRPC"`), want: []hit{{"a2a.field-name", "/supportedInterfaces/0/protocol_binding"}}},
		{name: "snake_case card member", edits: e("/supported_interfaces", `[]`), want: []hit{{"a2a.field-name", "/supported_interfaces"}}},
		{name: "removed stateTransitionHistory", edits: e("/capabilities/stateTransitionHistory", `false`), want: []hit{{"a2a.removed", "/capabilities/stateTransitionHistory"}}},
		{name: "extendedAgentCard a string", edits: e("/capabilities/extendedAgentCard", `"True"`), want: []hit{{"field.type", "/capabilities/extendedAgentCard"}}},
		// The 1.0 proto marks no AgentExtension field REQUIRED (section 4.4.4
		// is its table); the 0.x schemas require uri.
		{name: "extension without uri", edits: e("/capabilities/extensions/0/uri", omitted)},
		{name: "extension with empty uri", edits: e("/capabilities/extensions/0/uri", `""`)},
		{name: "extension uri not a URI", edits: e("/capabilities/extensions/0/uri", `"ratings"`), want: []hit{{"a2a.url", "/capabilities/extensions/0/uri"}}},
		// A proto3 string without the optional keyword holds "" by default,
		// which section 5.7 does not tell from absent: the MUST of "in the
		// form of a URL" binds a URL that is set. documentationUrl and
		// iconUrl are declared optional, so "" is a value set, and checked.
		{name: "empty refreshUrl is unset", edits: e("/securitySchemes/oauth/oauth2SecurityScheme/flows/authorizationCode/refreshUrl", `""`)},
		{name: "empty oauth2MetadataUrl is unset", edits: e("/securitySchemes/oauth/oauth2SecurityScheme/oauth2MetadataUrl", `""`)},
		{name: "empty deprecated flow URLs are unset", edits: e("/securitySchemes/device/oauth2SecurityScheme/flows", `{"implicit": {"authorizationUrl": "", "refreshUrl": "", "scopes": {}}}`),
			want: []hit{{"a2a.deprecated", "/securitySchemes/device/oauth2SecurityScheme/flows/implicit"}}},
		{name: "refreshUrl not a URL", edits: e("/securitySchemes/oauth/oauth2SecurityScheme/flows/authorizationCode/refreshUrl", `"refresh"`), want: []hit{{"a2a.url", "/securitySchemes/oauth/oauth2SecurityScheme/flows/authorizationCode/refreshUrl"}}},
		{name: "empty documentationUrl is set", edits: e("/documentationUrl", `""`), want: []hit{{"a2a.url", "/documentationUrl"}}},
		{name: "empty iconUrl is set", edits: e("/iconUrl", `""`), want: []hit{{"a2a.url", "/iconUrl"}}},
		{name: "hybrid card", edits: e("/url", `"https://agent.example.com/a2a"`, "/preferredTransport", `"JSONRPC"`, "/protocolVersion", `"0.3.0"`), want: []hit{{"a2a.hybrid", ""}}},
		{name: "hybrid with legacy security", edits: e("/security", `[{"oidc": ["openid"]}]`), want: []hit{{"a2a.hybrid", ""}}},
		// The 0.x members of a hybrid card are there for 0.x clients, and
		// judged as a 0.3 card's.
		{name: "hybrid legacy security naming no scheme", edits: e("/security", `[{"google": ["openid"]}]`), want: []hit{{"a2a.hybrid", ""}, {"a2a.security-ref", "/security/0/google"}}},
		{name: "hybrid legacy members checked", edits: e("/url", "5", "/supportsAuthenticatedExtendedCard", `"True"`, "/preferredTransport", `"jsonrpc"`,
			"/protocolVersion", `"garbage"`, "/additionalInterfaces", `[{"url": "/x"}]`, "/skills/0/security", `[{"nope": []}]`),
			want: []hit{{"a2a.security-ref", "/skills/0/security/0/nope"}, {"a2a.hybrid", ""}, {"field.type", "/url"}, {"a2a.protocol-version", "/protocolVersion"},
				{"field.type", "/supportsAuthenticatedExtendedCard"}, {"a2a.transport", "/preferredTransport"},
				{"a2a.url", "/additionalInterfaces/0/url"}, {"a2a.interface", "/additionalInterfaces/0/transport"}}},
		{name: "interface of no release", edits: e("/supportedInterfaces/0/protocolVersion", `"9.9"`), want: []hit{{"a2a.protocol-version", "/supportedInterfaces/0/protocolVersion"}}},
		{name: "interface of release 0.3", edits: e("/supportedInterfaces/1/protocolVersion", `"0.3"`)},
		// 1.0 section 3.6: a version is Major.Minor, and patch numbers
		// SHOULD NOT be used in Agent Cards.
		{name: "interface version with a patch", edits: e("/supportedInterfaces/0/protocolVersion", `"1.0.0"`), want: []hit{{"a2a.protocol-version", "/supportedInterfaces/0/protocolVersion"}}},
		{name: "interface version 0.3.0", edits: e("/supportedInterfaces/1/protocolVersion", `"0.3.0"`), want: []hit{{"a2a.protocol-version", "/supportedInterfaces/1/protocolVersion"}}},
		{name: "interface version major only", edits: e("/supportedInterfaces/0/protocolVersion", `"1"`), want: []hit{{"a2a.protocol-version", "/supportedInterfaces/0/protocolVersion"}}},
		{name: "interface version 1.1", edits: e("/supportedInterfaces/0/protocolVersion", `"1.1"`)},
		{name: "hybrid legacy url at risk", edits: e("/url", `"http://10.0.0.1/a2a"`), want: []hit{{"a2a.hybrid", ""}, {"a2a.url-risk", "/url"}}},
		{name: "0.x scheme shape", edits: e("/securitySchemes/bearer", `{"type": "http", "scheme": "bearer"}`), want: []hit{{"a2a.security-scheme", "/securitySchemes/bearer"}}},
		{name: "wrapper holding two schemes", edits: e("/securitySchemes/mtls/httpAuthSecurityScheme", `{"scheme": "Basic"}`), want: []hit{{"a2a.security-scheme", "/securitySchemes/mtls"}}},
		{name: "empty wrapper", edits: e("/securitySchemes/mtls", `{}`), want: []hit{{"a2a.security-scheme", "/securitySchemes/mtls"}}},
		// The proto's own field names, which proto3 JSON parsers take too;
		// the spec says JSON names are camelCase. A wrapper holding its
		// scheme only so spelled is one finding, the missing member's.
		{name: "snake_case wrapper member", edits: e("/securitySchemes/key", `{"api_key_security_scheme": {"location": "header", "name": "X-API-Key"}}`),
			want: []hit{{"a2a.security-scheme", "/securitySchemes/key/apiKeySecurityScheme"}}},
		{name: "snake_case scheme members", edits: e("/securitySchemes/bearer/httpAuthSecurityScheme/bearer_format", `"JWT"`, "/securitySchemes/oidc/openIdConnectSecurityScheme/open_id_connect_url", `"https://auth.example.com/oidc"`),
			want: []hit{{"a2a.field-name", "/securitySchemes/bearer/httpAuthSecurityScheme/bearer_format"}, {"a2a.field-name", "/securitySchemes/oidc/openIdConnectSecurityScheme/open_id_connect_url"}}},
		{name: "snake_case flow", edits: e("/securitySchemes/device/oauth2SecurityScheme/flows", `{"device_code": {}}`),
			want: []hit{{"a2a.security-scheme", "/securitySchemes/device/oauth2SecurityScheme/flows/deviceCode"}}},
		{name: "snake_case flow members", edits: e("/securitySchemes/oauth/oauth2SecurityScheme/flows/authorizationCode/pkce_required", `true`, "/securitySchemes/device/oauth2SecurityScheme/flows/deviceCode/device_authorization_url", `"https://auth.example.com/device"`),
			want: []hit{{"a2a.field-name", "/securitySchemes/oauth/oauth2SecurityScheme/flows/authorizationCode/pkce_required"}, {"a2a.field-name", "/securitySchemes/device/oauth2SecurityScheme/flows/deviceCode/device_authorization_url"}}},
		{name: "apiKey location outside the enum", edits: e("/securitySchemes/key/apiKeySecurityScheme/location", `"body"`), want: []hit{{"a2a.security-scheme", "/securitySchemes/key/apiKeySecurityScheme/location"}}},
		{name: "apiKey with the 0.x in", edits: e("/securitySchemes/key/apiKeySecurityScheme/location", omitted, "/securitySchemes/key/apiKeySecurityScheme/in", `"header"`), want: []hit{{"a2a.security-scheme", "/securitySchemes/key/apiKeySecurityScheme/location"}}},
		{name: "http scheme empty", edits: e("/securitySchemes/bearer/httpAuthSecurityScheme/scheme", `""`), want: []hit{{"a2a.security-scheme", "/securitySchemes/bearer/httpAuthSecurityScheme/scheme"}}},
		{name: "openIdConnect without url", edits: e("/securitySchemes/oidc/openIdConnectSecurityScheme/openIdConnectUrl", omitted), want: []hit{{"a2a.security-scheme", "/securitySchemes/oidc/openIdConnectSecurityScheme/openIdConnectUrl"}}},
		{name: "oauth2 without flows", edits: e("/securitySchemes/oauth/oauth2SecurityScheme/flows", omitted), want: []hit{{"a2a.security-scheme", "/securitySchemes/oauth/oauth2SecurityScheme/flows"}}},
		{name: "flows holding two flows", edits: e("/securitySchemes/oauth/oauth2SecurityScheme/flows/clientCredentials", `{"tokenUrl": "https://auth.example.com/token", "scopes": {}}`), want: []hit{{"a2a.security-scheme", "/securitySchemes/oauth/oauth2SecurityScheme/flows"}}},
		{name: "flows holding none", edits: e("/securitySchemes/device/oauth2SecurityScheme/flows", `{}`), want: []hit{{"a2a.security-scheme", "/securitySchemes/device/oauth2SecurityScheme/flows"}}},
		{name: "deprecated implicit flow", edits: e("/securitySchemes/device/oauth2SecurityScheme/flows", `{"implicit": {}}`), want: []hit{{"a2a.deprecated", "/securitySchemes/device/oauth2SecurityScheme/flows/implicit"}}},
		{name: "deprecated password flow", edits: e("/securitySchemes/device/oauth2SecurityScheme/flows", `{"password": {"tokenUrl": "https://auth.example.com/token"}}`), want: []hit{{"a2a.deprecated", "/securitySchemes/device/oauth2SecurityScheme/flows/password"}}},
		{name: "deviceCode without device url", edits: e("/securitySchemes/device/oauth2SecurityScheme/flows/deviceCode/deviceAuthorizationUrl", omitted), want: []hit{{"a2a.security-scheme", "/securitySchemes/device/oauth2SecurityScheme/flows/deviceCode/deviceAuthorizationUrl"}}},
		{name: "pkceRequired a string", edits: e("/securitySchemes/oauth/oauth2SecurityScheme/flows/authorizationCode/pkceRequired", `"yes"`), want: []hit{{"field.type", "/securitySchemes/oauth/oauth2SecurityScheme/flows/authorizationCode/pkceRequired"}}},
		// A null member of a oneof sets none of it, as proto3 JSON reads
		// null: the wrapper or flows holds what its other members hold.
		{name: "scheme wrapper holding only null", edits: e("/securitySchemes/key", `{"apiKeySecurityScheme": null}`),
			want: []hit{{"a2a.null", "/securitySchemes/key/apiKeySecurityScheme"}, {"a2a.security-scheme", "/securitySchemes/key"}}},
		{name: "scheme wrapper with a null beside its scheme", edits: e("/securitySchemes/key", `{"apiKeySecurityScheme": null, "httpAuthSecurityScheme": {"scheme": "Basic"}}`),
			want: []hit{{"a2a.null", "/securitySchemes/key/apiKeySecurityScheme"}}},
		{name: "null scopes of a flow that requires them", edits: e("/securitySchemes/device/oauth2SecurityScheme/flows/deviceCode/scopes", `null`),
			want: []hit{{"field.type", "/securitySchemes/device/oauth2SecurityScheme/flows/deviceCode/scopes"}}},
		{name: "flows holding only null", edits: e("/securitySchemes/oauth/oauth2SecurityScheme/flows", `{"authorizationCode": null}`),
			want: []hit{{"a2a.null", "/securitySchemes/oauth/oauth2SecurityScheme/flows/authorizationCode"}, {"a2a.security-scheme", "/securitySchemes/oauth/oauth2SecurityScheme/flows"}}},
		{name: "flows with a null beside its flow", edits: e("/securitySchemes/device/oauth2SecurityScheme/flows/implicit", `null`),
			want: []hit{{"a2a.null", "/securitySchemes/device/oauth2SecurityScheme/flows/implicit"}}},
		// docs/design.md: a member present only in snake_case is one
		// finding, the missing member's; so is a one-of's only member.
		{name: "flow only in snake_case", edits: e("/securitySchemes/oauth/oauth2SecurityScheme/flows", `{"authorization_code": {"authorizationUrl": "https://auth.example.com/authorize", "tokenUrl": "https://auth.example.com/token", "scopes": {}}}`),
			want: []hit{{"a2a.security-scheme", "/securitySchemes/oauth/oauth2SecurityScheme/flows/authorizationCode"}}},
		{name: "snake_case scheme beside a camelCase one", edits: e("/securitySchemes/key/http_auth_security_scheme", `{"scheme": "Basic"}`),
			want: []hit{{"a2a.field-name", "/securitySchemes/key/http_auth_security_scheme"}}},
		{name: "requirement in the 0.x shape", edits: e("/securityRequirements", `[{"bearer": []}]`), want: []hit{{"a2a.security-requirement", "/securityRequirements/0/bearer"}}},
		{name: "requirement scopes a bare list", edits: e("/securityRequirements/0/schemes/bearer", `[]`), want: []hit{{"a2a.security-requirement", "/securityRequirements/0/schemes/bearer"}}},
		// Any other JSON type is a type error, as 0.x's scopes of the wrong
		// type are ("scopes are a list" of TestA2A02).
		{name: "requirement scopes a string", edits: e("/securityRequirements/0/schemes/bearer", `"read"`), want: []hit{{"field.type", "/securityRequirements/0/schemes/bearer"}}},
		{name: "requirement scopes null", edits: e("/securityRequirements/0/schemes/bearer", `null`), want: []hit{{"field.type", "/securityRequirements/0/schemes/bearer"}}},
		{name: "requirement scopes misnamed", edits: e("/securityRequirements/0/schemes/bearer", `{"scopes": []}`), want: []hit{{"a2a.security-requirement", "/securityRequirements/0/schemes/bearer/scopes"}}},
		// 1.0 section 5.7: unrecognized fields SHOULD be ignored. A member
		// beside schemes or list changes nothing a reader takes; one in
		// their place leaves the requirement empty, which reads as no
		// authentication, so it stays an error.
		{name: "requirement with an extra member", edits: e("/securityRequirements/0/note", `"read-only"`)},
		{name: "scope list with an extra member", edits: e("/securityRequirements/0/schemes/bearer/note", `1`)},
		// StringList.list is a repeated field the proto does not mark
		// REQUIRED: null is an optional member left unset, as elsewhere.
		{name: "null scope list", edits: e("/securityRequirements/0/schemes/bearer/list", `null`), want: []hit{{"a2a.null", "/securityRequirements/0/schemes/bearer/list"}}},
		{name: "null skill scope list", edits: e("/skills/0/securityRequirements/0/schemes/oidc/list", `null`), want: []hit{{"a2a.null", "/skills/0/securityRequirements/0/schemes/oidc/list"}}},
		{name: "requirement names an undefined scheme", edits: e("/securityRequirements/0/schemes/basic", `{"list": []}`), want: []hit{{"a2a.security-ref", "/securityRequirements/0/schemes/basic"}}},
		{name: "skill requirement names an undefined scheme", edits: e("/skills/0/securityRequirements/0/schemes/basic", `{}`), want: []hit{{"a2a.security-ref", "/skills/0/securityRequirements/0/schemes/basic"}}},
		{name: "signature header without kid", edits: e("/signatures/0/protected", jsonString(jwsHeader(`{"alg":"RS256"}`))), want: []hit{{"a2a.signature-format", "/signatures/0/protected"}}},
		{name: "empty protected", edits: e("/signatures/0/protected", `""`), want: []hit{{"a2a.signature-format", "/signatures/0/protected"}}},
		{name: "plain http interface", edits: e("/supportedInterfaces/1/url", `"http://agent.example.com/grpc"`), want: []hit{{"a2a.url-risk", "/supportedInterfaces/1/url"}}},
	})
}

// The spec's sample card of a2a-agent-card-v0.2.md, section 5.6, as printed.
// Despite the file's name it has the 0.1 shape: authentication, not
// securitySchemes.
const specSampleV02Text = `{
  "name": "GeoSpatial Route Planner Agent",
  "description": "Provides advanced route planning, traffic analysis, and custom map generation services. This agent can calculate optimal routes, estimate travel times considering real-time traffic, and create personalized maps with points of interest.",
  "url": "https://georoute-agent.example.com/a2a/v1",
  "provider": {
    "organization": "Example Geo Services Inc.",
    "url": "https://www.examplegeoservices.com"
  },
  "version": "1.2.0",
  "documentationUrl": "https://docs.examplegeoservices.com/georoute-agent/api",
  "capabilities": {
    "streaming": true,
    "pushNotifications": true,
    "stateTransitionHistory": false
  },
  "authentication": {
    "schemes": ["OAuth2"],
    "credentials": "{\"authorizationUrl\": \"https://auth.examplegeoservices.com/authorize\", \"tokenUrl\": \"https://auth.examplegeoservices.com/token\", \"scopes\": {\"route:plan\": \"Allows planning new routes.\", \"map:custom\": \"Allows creating and managing custom maps.\"}}"
  },
  "defaultInputModes": ["application/json", "text/plain"],
  "defaultOutputModes": ["application/json", "image/png"],
  "skills": [
    {
      "id": "route-optimizer-traffic",
      "name": "Traffic-Aware Route Optimizer",
      "description": "Calculates the optimal driving route between two or more locations, taking into account real-time traffic conditions, road closures, and user preferences (e.g., avoid tolls, prefer highways).",
      "tags": ["maps", "routing", "navigation", "directions", "traffic"],
      "examples": [
        "Plan a route from '1600 Amphitheatre Parkway, Mountain View, CA' to 'San Francisco International Airport' avoiding tolls.",
        "{\"origin\": {\"lat\": 37.422, \"lng\": -122.084}, \"destination\": {\"lat\": 37.7749, \"lng\": -122.4194}, \"preferences\": [\"avoid_ferries\"]}"
      ],
      "inputModes": ["application/json", "text/plain"],
      "outputModes": [
        "application/json",
        "application/vnd.geo+json",
        "text/html"
      ]
    },
    {
      "id": "custom-map-generator",
      "name": "Personalized Map Generator",
      "description": "Creates custom map images or interactive map views based on user-defined points of interest, routes, and style preferences. Can overlay data layers.",
      "tags": ["maps", "customization", "visualization", "cartography"],
      "examples": [
        "Generate a map of my upcoming road trip with all planned stops highlighted.",
        "Show me a map visualizing all coffee shops within a 1-mile radius of my current location."
      ],
      "inputModes": ["application/json"],
      "outputModes": [
        "image/png",
        "image/jpeg",
        "application/json",
        "text/html"
      ]
    }
  ]
}`

// The sample card of agent-cards-overview-a2a-v1.md, as printed: 1.0
// interfaces, but a 0.x security scheme and no interface protocolVersion.
const specSampleOverviewV1 = `{
"name": "CodeReviewAgent",
"description": "Automated code review for pull requests — checks style, bugs, and security vulnerabilities",
"version": "1.2.0",
"provider": {
"organization": "Acme Engineering",
"url": "https://acme.example.com"
},
"supportedInterfaces": [
{
"url": "https://review.example.com",
"protocolBinding": "HTTP+JSON"
}
],
"capabilities": {
"streaming": true,
"pushNotifications": false,
"extendedAgentCard": true
},
"securitySchemes": {
"bearerAuth": {
"type": "http",
"scheme": "bearer"
}
},
"security": [{"bearerAuth": []}],
"defaultInputModes": ["text/plain", "application/json"],
"defaultOutputModes": ["text/markdown"],
"skills": [
{
"id": "security-review",
"name": "Security Review",
"description": "Scans diffs for injection vulnerabilities, hardcoded secrets, and insecure dependencies",
"tags": ["security", "vulnerabilities", "secrets"],
"examples": ["Review PR #42 for security issues"],
"inputModes": ["application/json"],
"outputModes": ["text/markdown"]
},
{
"id": "style-review",
"name": "Style Review",
"description": "Checks code against team style guide and suggests formatting fixes",
"tags": ["style", "linting", "formatting"],
"examples": ["Check this diff against our style guide"],
"inputModes": ["text/plain"],
"outputModes": ["text/plain"]
}
]
}`

// The A2A v1.0.0 specification's first example card, with the trailing
// comma after its interface's protocolVersion removed so that it is JSON.
const specSampleV10Corrected = `{
  "name": "Research Assistant Agent",
  "description": "AI agent for academic research and fact-checking",
  "supportedInterfaces": [
    {
      "url": "https://research-agent.example.com/a2a/v1",
      "protocolBinding": "HTTP+JSON",
      "protocolVersion": "0.3"
    }
  ],
  "capabilities": {
    "streaming": false,
    "pushNotifications": false,
    "extensions": [
      {
        "uri": "https://standards.org/extensions/citations/v1",
        "description": "Provides citation formatting and source verification",
        "required": false
      },
      {
        "uri": "https://example.com/extensions/geolocation/v1",
        "description": "Location-based search capabilities",
        "required": false
      }
    ]
  },
  "defaultInputModes": ["text/plain"],
  "defaultOutputModes": ["text/plain"],
  "skills": [
    {
      "id": "academic-research",
      "name": "Academic Research Assistant",
      "description": "Provides research assistance with citations and source verification",
      "tags": ["research", "citations", "academic"],
      "examples": ["Find peer-reviewed articles on climate change"],
      "inputModes": ["text/plain"],
      "outputModes": ["text/plain"]
    }
  ]
}`

func TestA2A_SpecSamples(t *testing.T) {
	// The v0.2.0 specification's sample has a trailing comma after
	// openIdConnectUrl; this is the 0.2 spec sample of section 5.6 with the
	// security scheme that release introduced, corrected.
	specSampleV020Corrected := edited(t, specSampleV02Text, "/authentication", omitted,
		"/securitySchemes", `{"google": {"type": "openIdConnect", "openIdConnectUrl": "https://accounts.google.com/.well-known/openid-configuration"}}`,
		"/security", `[{"google": ["openid", "profile", "email"]}]`)
	for _, tc := range []struct {
		name, profile, card, judged string
		want                        []hit
	}{
		{"v0.2 text sample", "a2a", specSampleV02Text, "a2a/0.1", nil},
		{"v0.2 text sample as 0.2", "a2a/0.2", specSampleV02Text, "a2a/0.2", []hit{{"a2a.removed", "/authentication"}}},
		{"v0.2.0 sample corrected", "a2a", specSampleV020Corrected, "a2a/0.2", nil},
		{"v1.0.0 sample corrected", "a2a", specSampleV10Corrected, "a2a/1.0", []hit{{"a2a.required", "/version"}}},
		{"overview v1 sample", "a2a", specSampleOverviewV1, "a2a/1.0", []hit{
			{"a2a.interface", "/supportedInterfaces/0/protocolVersion"},
			{"a2a.security-scheme", "/securitySchemes/bearerAuth"},
			{"a2a.hybrid", ""},
		}},
		{"overview v1 sample auto", "auto", specSampleOverviewV1, "a2a/1.0", []hit{
			{"a2a.interface", "/supportedInterfaces/0/protocolVersion"},
			{"a2a.security-scheme", "/securitySchemes/bearerAuth"},
			{"a2a.hybrid", ""},
		}},
		{"ma2d example", "ma2d", ma2dCard, "ma2d", nil},
		{"ma2d example auto", "auto", ma2dCard, "ma2d", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newTestValidator(t, tc.profile).Validate([]byte(tc.card))
			checkHits(t, r, tc.want)
			if r.Profile != tc.judged {
				t.Errorf("Profile = %q, want %q", r.Profile, tc.judged)
			}
		})
	}
}

func TestA2A_Detection(t *testing.T) {
	for _, tc := range []struct {
		name   string
		card   string
		judged string
		rules  []string // rule IDs that must be among the findings
	}{
		{"0.1 by authentication", a2aCard01, "a2a/0.1", nil},
		{"0.2 by securitySchemes", a2aCard02, "a2a/0.2", nil},
		{"0.3 by protocolVersion", a2aCard03, "a2a/0.3", nil},
		{"1.0 by supportedInterfaces", a2aCard10, "a2a/1.0", nil},
		{"0.2 by security alone", edited(t, a2aCard02, "/securitySchemes", omitted), "a2a/0.2", []string{"a2a.security-ref"}},
		{"no telltale: 0.2.0-0.2.4", edited(t, a2aCard02, "/securitySchemes", omitted, "/security", omitted), "a2a/0.2", nil},
		{"0.2.6", edited(t, a2aCard02, "/protocolVersion", `"0.2.6"`), "a2a/0.2", nil},
		{"0.3 without patch", edited(t, a2aCard03, "/protocolVersion", `"0.3"`), "a2a/0.3", nil},
		{"1.0 claimed without interfaces", edited(t, a2aCard03, "/protocolVersion", `"1.0"`), "a2a/1.0", []string{"a2a.required", "a2a.hybrid"}},
		{"1.x minor", edited(t, a2aCard10, "/protocolVersion", `"1.2"`), "a2a/1.0", []string{"a2a.hybrid"}},
		{"interfaces beat protocolVersion", edited(t, a2aCard03, "/supportedInterfaces", `[{"url": "https://a.example.com", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]`), "a2a/1.0", []string{"a2a.hybrid"}},
		{"protocolVersion beats authentication", edited(t, a2aCard03, "/authentication", `{"schemes": []}`), "a2a/0.3", []string{"a2a.removed"}},
		{"securitySchemes beat authentication", edited(t, a2aCard02, "/authentication", `{"schemes": []}`), "a2a/0.2", []string{"a2a.removed"}},
		{"unknown release falls back", edited(t, a2aCard02, "/protocolVersion", `"2.0"`), "a2a/0.2", []string{"a2a.protocol-version"}},
		{"release spelled with a v", edited(t, a2aCard01, "/protocolVersion", `"v0.3"`), "a2a/0.1", []string{"a2a.protocol-version"}},
		{"protocolVersion not a string", edited(t, a2aCard01, "/protocolVersion", `0.3`), "a2a/0.1", nil},
		// 0.1 had no protocolVersion: naming it is an error, and the other
		// members decide (so the 0.2 checks still run here).
		{"0.1 named by protocolVersion", edited(t, a2aCard02, "/protocolVersion", `"0.1.0"`, "/securitySchemes/x", `{"type": "bogus"}`), "a2a/0.2", []string{"a2a.protocol-version", "a2a.security-scheme"}},
		{"0.1 card naming 0.1", edited(t, a2aCard01, "/protocolVersion", `"0.1"`), "a2a/0.1", []string{"a2a.protocol-version"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newTestValidator(t, "a2a").Validate([]byte(tc.card))
			if r.Profile != tc.judged {
				t.Errorf("Profile = %q, want %q", r.Profile, tc.judged)
			}
			have := map[string]bool{}
			for _, f := range r.Findings() {
				have[f.Code.String()] = true
			}
			for _, rule := range tc.rules {
				if !have[rule] {
					t.Errorf("no %s finding among %v", rule, hitsOf(r))
				}
			}
			if tc.rules == nil && len(r.Findings()) != 0 {
				t.Errorf("findings %v, want none", hitsOf(r))
			}
		})
	}
}

func TestProtocolRelease(t *testing.T) {
	for in, want := range map[string]a2aVersion{
		"0.1": 0, "0.1.0": 0, "0.2": a2aV02, "0.2.0": a2aV02, "0.2.5": a2aV02, "0.2.6": a2aV02,
		"0.3": a2aV03, "0.3.0": a2aV03, "1": a2aV10, "1.0": a2aV10,
		// No release: the sample value of the 0.2.5 to 0.3.0 texts, and
		// patches that were never published.
		"0.2.9": 0, "0.2.7": 0, "0.2.10": 0, "0.3.1": 0, "0.3.12": 0,
		"1.0.1": a2aV10, "1.3": a2aV10,
		"": 0, "0": 0, "0.4": 0, "0.": 0, "0.3.": 0, "0.3.x": 0, "v0.3": 0, "2.0": 0, "1.0-rc1": 0, "0.3.0 ": 0, "10.0": 0, ".3": 0,
	} {
		if got := protocolRelease([]byte(in)); got != want {
			t.Errorf("protocolRelease(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestA2A_ProductionPolicy(t *testing.T) {
	// Loopback in the short form browsers read (127.1), and the shared
	// address space, count as the usual forms do.
	card := edited(t, a2aCard10, "/supportedInterfaces/0/url", `"http://localhost:8080/a2a"`, "/provider/url", `"http://example.com"`,
		"/documentationUrl", `"https://127.1/docs"`, "/iconUrl", `"https://100.64.0.9/i.png"`)
	for _, tc := range []struct {
		policy Policy
		sev    Severity
	}{{PolicyDefault, SeverityWarning}, {PolicyProduction, SeverityError}} {
		v, err := New("a2a/1.0", WithPolicy(tc.policy))
		if err != nil {
			t.Fatal(err)
		}
		r := v.Validate([]byte(card))
		if len(r.Findings()) != 4 {
			t.Fatalf("policy %d: findings %v, want four a2a.url-risk", tc.policy, hitsOf(r))
		}
		for _, f := range r.Findings() {
			if f.Code != CodeA2AURLRisk || f.Severity != tc.sev {
				t.Errorf("policy %d: %s, want a2a.url-risk with severity %s", tc.policy, f, tc.sev)
			}
		}
		if r.Valid() != (tc.sev == SeverityWarning) {
			t.Errorf("policy %d: Valid() = %v", tc.policy, r.Valid())
		}
	}
}

func TestA2A_Messages(t *testing.T) {
	// The hybrid warning names the legacy members it found; a snake_case
	// finding names the camelCase member meant.
	card := edited(t, a2aCard10, "/url", `"https://a.example.com"`, "/security", `[]`, "/icon_url", `"https://a.example.com/i.png"`)
	r := newTestValidator(t, "a2a").Validate([]byte(card))
	var msgs []string
	for _, f := range r.Findings() {
		msgs = append(msgs, f.Message())
	}
	joined := strings.Join(msgs, "\n")
	for _, want := range []string{"0.x members url, security", "camelCase: iconUrl"} {
		if !strings.Contains(joined, want) {
			t.Errorf("messages %q lack %q", msgs, want)
		}
	}
}

func TestIsMediaType(t *testing.T) {
	for in, want := range map[string]bool{
		"text/plain": true, "application/vnd.geo+json": true, "text/plain; charset=utf-8": true, "text/plain;q=1": true,
		"*/*": true, "image/*": true, "application/x-ndjson": true,
		"": false, "text": false, "text/": false, "/plain": false, "text/plain/x": false, "text plain": false,
		"-text/plain": false, "text/pl ain": false, "текст/plain": false, "text/plain,": false,
		"a/" + strings.Repeat("b", 127): true, "a/" + strings.Repeat("b", 128): false,
	} {
		if got := isMediaType([]byte(in)); got != want {
			t.Errorf("isMediaType(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestURLRiskHosts(t *testing.T) {
	for in, want := range map[string]bool{
		"localhost": true, "LocalHost": true, "a.localhost": true, "localhost.": true, "x.y.localhost.": true,
		"mylocalhost": false, "localhost.example": false, "127.0.0.1": true, "127.1.2.3": true, "10.1.2.3": true,
		"172.16.0.1": true, "172.32.0.1": false, "192.168.0.1": true, "169.254.0.1": true, "0.0.0.0": true,
		"8.8.8.8": false, "::1": true, "fe80::1": true, "fc00::1": true, "2001:db8::1": false, "::": true,
		"::ffff:10.0.0.1": true, "010.0.0.1": false, "1.2.3": false, "256.1.1.1": false, "example.com": false,
		// IPv4 as browsers and getaddrinfo read it: fewer parts, octal, hex.
		"127.1": true, "0x7f000001": true, "0X7F.1": true, "0177.0.0.1": true, "2130706433": true,
		"127.0.0.1.": true, "10.0x1.0.1": true, "0x": true, "0": true, "012.1": true,
		"0xdeadbeef": false, "08.0.0.1": false, "1.2.3.4.5": false, "deadbeef": false, "4294967296": false,
		"127.256": true, "127.16777216": false, "1.0x": false, "a.127.0.0.1": false, "127.0.0.1..": false,
		// Shared address space (RFC 6598).
		"100.64.0.1": true, "100.127.255.255": true, "100.128.0.1": false, "100.63.255.255": false,
	} {
		h := []byte(in)
		if got := isLocalhost(h) || isInternalIP(h); got != want {
			t.Errorf("risky host %q = %v, want %v", in, got, want)
		}
	}
}

// An interface's URL is judged by its binding: JSONRPC and HTTP+JSON are
// HTTP, so an absolute http(s) URL (plain http the insecure-transport
// warning); GRPC's target may be host:port, grpc:// (no TLS: the
// warning), grpcs:// or https; a custom binding's any absolute URI, as
// the 1.0.1 text's own wss:// example (sections 5.8 and 12.7). A custom
// protocolBinding SHOULD be a URI (section 5.8): a warning when it is
// neither a core name nor an absolute URI.
func TestA2A10_InterfaceURLByBinding(t *testing.T) {
	iface := func(url, binding string) []string {
		return e("/supportedInterfaces/-", `{"url": "`+url+`", "protocolBinding": "`+binding+`", "protocolVersion": "1.0"}`)
	}
	const custom = "https://example.com/bindings/websocket/v1"
	const at = "/supportedInterfaces/2/url"
	runA2ATable(t, "a2a/1.0", a2aCard10, []a2aCase{
		{name: "wss custom binding (5.8, 12.7)", edits: iface("wss://agent.example.com/a2a/websocket", custom)},
		{name: "custom binding urn", edits: iface("urn:example:agent", custom)},
		{name: "custom binding relative url", edits: iface("/a2a/websocket", custom), want: []hit{{"a2a.url", at}}},
		{name: "custom binding on localhost", edits: iface("ws://localhost:8080/a2a", custom), want: []hit{{"a2a.url-risk", at}}},
		{name: "grpc host:port", edits: iface("grpc.agent.example.com:443", "GRPC")},
		{name: "grpc IPv6 host:port", edits: iface("[2001:db8::1]:443", "GRPC")},
		{name: "grpc grpcs://", edits: iface("grpcs://grpc.agent.example.com:443", "GRPC")},
		{name: "grpc https", edits: iface("https://grpc.agent.example.com/a2a", "GRPC")},
		{name: "grpc grpc:// has no TLS", edits: iface("grpc://grpc.agent.example.com:50051", "GRPC"), want: []hit{{"a2a.url-risk", at}}},
		{name: "grpc plain http", edits: iface("http://grpc.agent.example.com/a2a", "GRPC"), want: []hit{{"a2a.url-risk", at}}},
		{name: "grpc host:port on loopback", edits: iface("127.0.0.1:50051", "GRPC"), want: []hit{{"a2a.url-risk", at}}},
		{name: "grpc wss", edits: iface("wss://grpc.agent.example.com/a2a", "GRPC"), want: []hit{{"a2a.url", at}}},
		{name: "grpc host without port", edits: iface("grpc.agent.example.com", "GRPC"), want: []hit{{"a2a.url", at}}},
		{name: "grpc port out of range", edits: iface("grpc.agent.example.com:70000", "GRPC"), want: []hit{{"a2a.url", at}}},
		{name: "jsonrpc wss", edits: iface("wss://agent.example.com/a2a", "JSONRPC"), want: []hit{{"a2a.url", at}}},
		{name: "http+json host:port", edits: iface("agent.example.com:443", "HTTP+JSON"), want: []hit{{"a2a.url", at}}},
		{name: "jsonrpc plain http", edits: iface("http://agent.example.com/a2a", "JSONRPC"), want: []hit{{"a2a.url-risk", at}}},
		{name: "misspelled core name judged as it", edits: iface("grpc.agent.example.com:443", "grpc"), want: []hit{{"a2a.transport", "/supportedInterfaces/2/protocolBinding"}}},
		{name: "custom binding not a URI", edits: iface("wss://agent.example.com/a2a", "websocket"), want: []hit{{"a2a.transport", "/supportedInterfaces/2/protocolBinding"}}},
		// 1.0 extensions: uri an absolute URI, required a boolean.
		{name: "extension uri relative", edits: e("/capabilities/extensions/0/uri", `"ratings/v1"`), want: []hit{{"a2a.url", "/capabilities/extensions/0/uri"}}},
		{name: "extension required a string", edits: e("/capabilities/extensions/0/required", `"true"`), want: []hit{{"field.type", "/capabilities/extensions/0/required"}}},
	})
}

// The 0.x interfaces and the card's own url follow their transport too.
func TestA2A03_InterfaceURLByTransport(t *testing.T) {
	runA2ATable(t, "a2a/0.3", a2aCard03, []a2aCase{
		{name: "grpc host:port", edits: e("/additionalInterfaces/-", `{"url": "grpc.agent.example.com:443", "transport": "GRPC"}`)},
		{name: "jsonrpc host:port", edits: e("/additionalInterfaces/-", `{"url": "agent.example.com:443", "transport": "JSONRPC"}`), want: []hit{{"a2a.url", "/additionalInterfaces/2/url"}}},
		{name: "preferred grpc at host:port", edits: e("/preferredTransport", `"GRPC"`, "/url", `"grpc.agent.example.com:443"`, "/additionalInterfaces/-", `{"url": "grpc.agent.example.com:443", "transport": "GRPC"}`)},
		{name: "custom transport by URI", edits: e("/additionalInterfaces/-", `{"url": "wss://agent.example.com/ws", "transport": "https://example.com/bindings/websocket/v1"}`)},
	})
}

// snakeAliasOf rules names out by the lengths of its scope's aliases:
// every alias must fit that table and be found in each of its scopes, in
// their union and in no other, and a name of another length must not.
func TestSnakeAliasOf_Lengths(t *testing.T) {
	for i := range snakeAliases {
		a := &snakeAliases[i]
		if len(a.snake) >= 64 {
			t.Fatalf("alias %s is %d bytes long; the length table holds 63 at most", a.snake, len(a.snake))
		}
		for b := range 16 {
			scope := aliasScope(1) << b
			got := snakeAliasOf([]byte(a.snake), scope)
			if want := a.scope&scope != 0; (got == a) != want {
				t.Errorf("snakeAliasOf(%s, 1<<%d) = %v; want it found: %v", a.snake, b, got, want)
			}
		}
		if snakeAliasOf([]byte(a.snake), ^aliasScope(0)) != a {
			t.Errorf("snakeAliasOf(%s, every scope) did not find it", a.snake)
		}
		if got := snakeAliasOf([]byte(a.snake+"_"), a.scope); got != nil {
			t.Errorf("snakeAliasOf(%s_) = %s; want nil", a.snake, got.snake)
		}
	}
	for _, name := range []string{"goal_subscriptions", "agent_id", "pricing", "", "_", strings.Repeat("a_", 40)} {
		if got := snakeAliasOf([]byte(name), ^aliasScope(0)); got != nil {
			t.Errorf("snakeAliasOf(%q) = %s; want nil", name, got.snake)
		}
	}
}

// The scheme cards of the differential test hold the security schemes and
// OAuth flows the version tables' cards do not; each passes as written,
// and each scheme type fails on its own required member.
func TestA2A_SchemeCards(t *testing.T) {
	runA2ATable(t, "a2a/0.3", a2aCard03Schemes, []a2aCase{
		{name: "base card"},
		{name: "apiKey in a body", edits: e("/securitySchemes/key/in", `"body"`), want: []hit{{"a2a.security-scheme", "/securitySchemes/key/in"}}},
		{name: "apiKey without name", edits: e("/securitySchemes/cookie/name", omitted), want: []hit{{"a2a.security-scheme", "/securitySchemes/cookie/name"}}},
		{name: "openIdConnect without url", edits: e("/securitySchemes/oidc/openIdConnectUrl", omitted), want: []hit{{"a2a.security-scheme", "/securitySchemes/oidc/openIdConnectUrl"}}},
		{name: "implicit without authorizationUrl", edits: e("/securitySchemes/oauth/flows/implicit/authorizationUrl", omitted), want: []hit{{"a2a.security-scheme", "/securitySchemes/oauth/flows/implicit/authorizationUrl"}}},
		{name: "password without scopes", edits: e("/securitySchemes/oauth/flows/password/scopes", omitted), want: []hit{{"a2a.security-scheme", "/securitySchemes/oauth/flows/password/scopes"}}},
	})
	runA2ATable(t, "a2a/0.2", edited(t, a2aCard03Schemes, "/protocolVersion", `"0.2.6"`, "/signatures", omitted), []a2aCase{
		{name: "base card"},
	})
	// 1.0.1 proto: implicit and password are deprecated, and their members
	// carry no REQUIRED marker.
	deprecated := []hit{{"a2a.deprecated", "/securitySchemes/implicit/oauth2SecurityScheme/flows/implicit"}, {"a2a.deprecated", "/securitySchemes/password/oauth2SecurityScheme/flows/password"}}
	runA2ATable(t, "a2a/1.0", a2aCard10Flows, []a2aCase{
		{name: "base card", want: deprecated},
		{name: "clientCredentials without tokenUrl", edits: e("/securitySchemes/cc/oauth2SecurityScheme/flows/clientCredentials/tokenUrl", omitted),
			want: append([]hit{{"a2a.security-scheme", "/securitySchemes/cc/oauth2SecurityScheme/flows/clientCredentials/tokenUrl"}}, deprecated...)},
		{name: "implicit without its members", edits: e("/securitySchemes/implicit/oauth2SecurityScheme/flows/implicit", `{}`), want: deprecated},
		{name: "implicit with null scopes", edits: e("/securitySchemes/implicit/oauth2SecurityScheme/flows/implicit/scopes", `null`),
			want: append([]hit{{"a2a.null", "/securitySchemes/implicit/oauth2SecurityScheme/flows/implicit/scopes"}}, deprecated...)},
		{name: "apiKey location in a body", edits: e("/securitySchemes/query/apiKeySecurityScheme/location", `"body"`),
			want: append([]hit{{"a2a.security-scheme", "/securitySchemes/query/apiKeySecurityScheme/location"}}, deprecated...)},
	})
}

// TestA2A10_NullMembers removes each member of the 1.0 test cards, and
// sets it to null, in turn. One the 1.0.1 proto marks REQUIRED is then an
// error there; any other is an optional member left unset, as section 5.7
// reads presence: no error there, and when null the a2a.null warning. Map
// values (a scheme, a scope, a requirement's scope list), array elements
// and one-of members are no such members.
func TestA2A10_NullMembers(t *testing.T) {
	v := newTestValidator(t, "a2a/1.0")
	for _, base := range []string{a2aCard10, a2aCard10Flows} {
		for _, m := range mutants(t, base) {
			kind := memberKind10(m.ptr)
			if kind == notMember {
				continue
			}
			if strings.HasPrefix(m.edit, "del ") {
				r := v.Validate(m.card)
				if errorThere := hasError(r, m.ptr); errorThere != (kind == requiredMember) {
					t.Errorf("%s: %v, want an error at it %v", m.edit, r.Findings(), kind == requiredMember)
				}
				continue
			}
			if !m.null {
				continue
			}
			r := v.Validate(m.card)
			errorThere := false
			for _, f := range r.Findings() {
				// A requirement naming a scheme of a securitySchemes that
				// is null names one the card does not define: that error
				// is elsewhere.
				errorThere = errorThere || f.Severity == SeverityError && (f.Path == m.ptr || strings.HasPrefix(f.Path, m.ptr+"/"))
			}
			switch {
			case kind == optionalMember && (errorThere || !hasFinding(r, "a2a.null", m.ptr)):
				t.Errorf("%s: %v, want a2a.null at it and no error there", m.edit, r.Findings())
			case kind == requiredMember && !errorThere:
				t.Errorf("%s: %v, want an error at it", m.edit, r.Findings())
			}
		}
	}
}

const (
	notMember = iota
	optionalMember
	requiredMember
)

// hasError reports whether r has an error at ptr.
func hasError(r *Result, ptr string) bool {
	for _, f := range r.Findings() {
		if f.Severity == SeverityError && f.Path == ptr {
			return true
		}
	}
	return false
}

// memberKind10 says whether ptr names a member of a 1.0 message, and
// whether the proto marks it REQUIRED.
func memberKind10(ptr string) int {
	if ptr == "" {
		return notMember // the card itself
	}
	parts := strings.Split(ptr, "/")[1:]
	last := parts[len(parts)-1]
	if _, err := strconv.Atoi(last); err == nil {
		return notMember // an array element
	}
	if len(parts) >= 2 {
		switch parent := parts[len(parts)-2]; {
		case parent == "securitySchemes" || parent == "scopes" || parent == "schemes" || parent == "params" || parent == "header":
			return notMember // a map's value
		case parent == "flows" || strings.HasSuffix(parent, "SecurityScheme") && len(parts) == 3:
			return notMember // a one-of's member
		}
	}
	required := false
	switch {
	case len(parts) == 1 || len(parts) == 2 && parts[0] == "provider" || len(parts) == 3 && parts[0] == "skills":
		required = required10(ptr)
	case len(parts) == 3 && parts[0] == "supportedInterfaces":
		required = last != "tenant"
	case len(parts) == 3 && parts[0] == "signatures":
		required = last != "header"
	case len(parts) == 4 && parts[0] == "securitySchemes":
		required = last == "location" || last == "name" || last == "scheme" || last == "flows" || last == "openIdConnectUrl"
	case len(parts) == 6 && parts[3] == "flows":
		// The deprecated flows mark nothing REQUIRED.
		required = parts[4] != "implicit" && parts[4] != "password" && last != "refreshUrl" && last != "pkceRequired"
	}
	if required {
		return requiredMember
	}
	return optionalMember
}
