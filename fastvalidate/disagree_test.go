package fastvalidate

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// disagreementCard is a card both profiles pass; each case changes it in
// one place.
func disagreementCard(agentID, capability, endpoint, rest string) string {
	return `{"agent_id": "` + agentID + `", "name": "Summariser", "version": "1.0.0", "capabilities": [` + capability + `], "endpoint": ` + endpoint + rest + `}`
}

const (
	plainID         = "01HZQK3P8EMXR9V7T5N2W4J6C0"
	plainCapability = `{"id": "text.summarise", "description": "Summarises text."}`
	plainEndpoint   = `{"protocol": "http", "url": "https://agents.example.com/api"}`
)

func withEndpoint(endpoint string) string {
	return disagreementCard(plainID, plainCapability, endpoint, "")
}

func withCapability(capability string) string {
	return disagreementCard(plainID, capability, plainEndpoint, "")
}

func withMember(member string) string {
	return disagreementCard(plainID, plainCapability, plainEndpoint, ", "+member)
}

// TestDisagreements holds each disagreement of the draft and the schema to
// what it says: the profile on the accepting side passes the card, the
// other reports the rule the table names at the path given, and that
// finding's message ends with the note, while no other finding has one.
func TestDisagreements(t *testing.T) {
	long := func(n int) string { return strings.Repeat("a", n) }
	cases := []struct {
		name string
		card string
		d    disagreement
		rule Code
		path string
	}{
		{"protocol google_a2a", withEndpoint(`{"protocol": "google_a2a", "url": "https://agents.example.com/a2a"}`), disProtocolSchemaOnly, CodeEndpointProtocol, "/endpoint/protocol"},
		{"protocol websocket", withEndpoint(`{"protocol": "websocket", "url": "wss://stream.example.com/events"}`), disProtocolSchemaOnly, CodeEndpointProtocol, "/endpoint/protocol"},
		{"protocol sse", withEndpoint(`{"protocol": "sse", "url": "https://agents.example.com/events"}`), disProtocolSchemaOnly, CodeEndpointProtocol, "/endpoint/protocol"},
		{"protocol native", withEndpoint(`{"protocol": "native", "url": "urn:agent:local"}`), disProtocolSchemaOnly, CodeEndpointProtocol, "/endpoint/protocol"},
		{"auth null", withEndpoint(`{"protocol": "http", "url": "https://agents.example.com/api", "auth": null}`), disAuthNull, CodeFieldType, "/endpoint/auth"},
		{"pricing null", withMember(`"pricing": null`), disPricingNull, CodeFieldType, "/pricing"},
		{"base cost null", withMember(`"pricing": {"base_cost_joules": null}`), disBaseCostNull, CodeFieldType, "/pricing/base_cost_joules"},
		{"base cost below the floor", withMember(`"pricing": {"base_cost_joules": 1e-22}`), disBelowLandauer, CodePricingLandauer, "/pricing/base_cost_joules"},
		{"trust tier value", withMember(`"metadata": {"pacr:trust_tier": "gold"}`), disTrustTier, CodeMetadataTrustTier, "/metadata/pacr:trust_tier"},
		{"trust tier type", withMember(`"metadata": {"pacr:trust_tier": 3}`), disTrustTier, CodeFieldType, "/metadata/pacr:trust_tier"},
		{"url scheme under http", withEndpoint(`{"protocol": "http", "url": "wss://stream.example.com/events"}`), disURLScheme, CodeEndpointURLScheme, "/endpoint/url"},
		{"agent_id above 128 bits", disagreementCard("81HZQK3P8EMXR9V7T5N2W4J6C0", plainCapability, plainEndpoint, ""), disNotULID, CodeAgentIDNotULID, "/agent_id"},
		{"agent_id in the future", disagreementCard("7ZZZZZZZZZZZZZZZZZZZZZZZZZ", plainCapability, plainEndpoint, ""), disNotULID, CodeAgentIDNotULID, "/agent_id"},

		{"protocol https", withEndpoint(`{"protocol": "https", "url": "https://agents.example.com/api"}`), disProtocolDraftOnly, CodeSchemaEnum, "/endpoint/protocol"},
		{"protocol stdio", withEndpoint(`{"protocol": "stdio", "url": "file:///usr/local/bin/summariser"}`), disProtocolDraftOnly, CodeSchemaEnum, "/endpoint/protocol"},
		{"goal_subscriptions", withMember(`"goal_subscriptions": [{"goal_id": "01HZQK3P8EMXR9V7T5N2W4J6C1", "priority": 0.8}]`), disGoalSubscriptions, CodeSchemaAdditionalProperties, "/goal_subscriptions"},
		{"per_token_joules", withMember(`"pricing": {"base_cost_joules": 2.854e-21, "per_token_joules": 1.4e-24}`), disPerTokenJoules, CodeSchemaAdditionalProperties, "/pricing/per_token_joules"},
		{"unknown top-level member", withMember(`"homepage": "https://example.com/"`), disUnknownMember, CodeSchemaAdditionalProperties, "/homepage"},
		{"unknown endpoint member", withEndpoint(`{"protocol": "http", "url": "https://agents.example.com/api", "region": "eu"}`), disUnknownMember, CodeSchemaAdditionalProperties, "/endpoint/region"},
		{"unknown capability member", withCapability(`{"id": "text.summarise", "description": "Summarises text.", "examples": []}`), disUnknownMember, CodeSchemaAdditionalProperties, "/capabilities/0/examples"},
		{"unknown pricing member", withMember(`"pricing": {"discount": 0}`), disUnknownMember, CodeSchemaAdditionalProperties, "/pricing/discount"},
		{"description missing", withCapability(`{"id": "text.summarise"}`), disDescriptionMissing, CodeSchemaRequired, "/capabilities/0/description"},
		{"description empty", withCapability(`{"id": "text.summarise", "description": ""}`), disDescriptionLength, CodeSchemaMinLength, "/capabilities/0/description"},
		{"description of 513", withCapability(`{"id": "text.summarise", "description": "` + long(513) + `"}`), disDescriptionLength, CodeSchemaMaxLength, "/capabilities/0/description"},
		{"capability id of 129", withCapability(`{"id": "` + long(129) + `", "description": "Summarises text."}`), disCapabilityIDLength, CodeSchemaMaxLength, "/capabilities/0/id"},
		{"tag of 65", withCapability(`{"id": "text.summarise", "description": "Summarises text.", "tags": ["` + long(65) + `"]}`), disTags, CodeSchemaMaxLength, "/capabilities/0/tags/0"},
		{"tag twice", withCapability(`{"id": "text.summarise", "description": "Summarises text.", "tags": ["search", "search"]}`), disTags, CodeSchemaUniqueItems, "/capabilities/0/tags/1"},
		{"auth without scheme", withEndpoint(`{"protocol": "http", "url": "https://agents.example.com/api", "auth": {}}`), disAuthSchemeMissing, CodeSchemaRequired, "/endpoint/auth/scheme"},
		{"health_url", withEndpoint(`{"protocol": "http", "url": "https://agents.example.com/api", "health_url": "/health"}`), disSchemaOnlyMember, CodeSchemaFormat, "/endpoint/health_url"},
		{"token_url", withEndpoint(`{"protocol": "http", "url": "https://agents.example.com/api", "auth": {"scheme": "oauth2", "token_url": "token"}}`), disSchemaOnlyMember, CodeSchemaFormat, "/endpoint/auth/token_url"},
		{"header", withEndpoint(`{"protocol": "http", "url": "https://agents.example.com/api", "auth": {"scheme": "api_key", "header": 1}}`), disSchemaOnlyMember, CodeSchemaType, "/endpoint/auth/header"},
		{"estimated_latency_ms", withMember(`"pricing": {"estimated_latency_ms": -1}`), disSchemaOnlyMember, CodeSchemaMinimum, "/pricing/estimated_latency_ms"},
		{"cost_per_request", withMember(`"pricing": {"cost_per_request": "0.01"}`), disSchemaOnlyMember, CodeSchemaType, "/pricing/cost_per_request"},
		{"currency", withMember(`"pricing": {"currency": "usd"}`), disSchemaOnlyMember, CodeSchemaPattern, "/pricing/currency"},
		{"interaction count", withMember(`"metadata": {"pacr:interaction_count": 1.5}`), disPACRStatistics, CodeSchemaType, "/metadata/pacr:interaction_count"},
		{"latency below 0", withMember(`"metadata": {"pacr:avg_latency_ms": -1}`), disPACRStatistics, CodeSchemaMinimum, "/metadata/pacr:avg_latency_ms"},
		{"reputation above 1", withMember(`"metadata": {"pacr:reputation_score": 2}`), disPACRStatistics, CodeSchemaMaximum, "/metadata/pacr:reputation_score"},
		{"embedded string", strconv.Quote(withMember(`"metadata": {}`)), disEmbeddedString, CodeSchemaType, ""},
		{"input_schema null", withCapability(`{"id": "text.summarise", "description": "Summarises text.", "input_schema": null}`), disSchemaNull, CodeFieldType, "/capabilities/0/input_schema"},
		{"output_schema null", withCapability(`{"id": "text.summarise", "description": "Summarises text.", "output_schema": null}`), disSchemaNull, CodeFieldType, "/capabilities/0/output_schema"},
		{"substrate scope type", withMember(`"metadata": {"pacr:substrate_scope": 7}`), disSubstrateScope, CodeFieldType, "/metadata/pacr:substrate_scope"},
	}
	clock := WithClock(func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) })
	draft, schema := MustNew("agentcard", clock), MustNew("agentcard-schema", clock)
	covered := map[disagreement]bool{}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := disagreements[tc.d]
			covered[tc.d] = true
			accepting, rejecting := draft, schema
			if d.SchemaAllows {
				accepting, rejecting = schema, draft
			}
			if res := accepting.Validate([]byte(tc.card)); !res.Valid() {
				t.Fatalf("%s rejects the card: %v", accepting.Profile(), res.Findings())
			}
			if !containsCode(d.Draft, tc.rule) && !containsCode(d.Schema, tc.rule) {
				t.Fatalf("the table names neither side's rule %s for %q", tc.rule, d.Member)
			}
			res := rejecting.Validate([]byte(tc.card))
			found := false
			for _, f := range res.Findings() {
				got, noted := f.disputed()
				if f.Code != tc.rule || f.Path != tc.path {
					if noted {
						t.Errorf("%s at %q also says %q", f.Code, f.Path, got.note())
					}
					continue
				}
				found = true
				if !noted || got.Member != d.Member || got.Section != d.Section {
					t.Errorf("%s at %q reports disagreement %+v, want %+v", f.Code, f.Path, got, d)
				}
				if msg := f.Message(); !strings.HasSuffix(msg, "; "+d.note()) {
					t.Errorf("message %q does not end with %q", msg, d.note())
				}
			}
			if !found {
				t.Fatalf("%s reports no %s at %q: %v", rejecting.Profile(), tc.rule, tc.path, res.Findings())
			}
			// The draft's warning on a missing description notes it too.
			if tc.d == disDescriptionMissing {
				fs := draft.Validate([]byte(tc.card)).Findings()
				if len(fs) != 1 || fs[0].Code != CodeCapabilityDescriptionMissing || !strings.HasSuffix(fs[0].Message(), d.note()) {
					t.Errorf("agentcard: %v, want capability.description-missing with the note", fs)
				}
			}
		})
	}
	for i := disagreement(1); i < numDisagreements; i++ {
		if !covered[i] {
			t.Errorf("disagreement %d (%s) has no case", i, disagreements[i].Member)
		}
	}
}

// TestDisagreements_NoteOnlyWhereTheyDisagree holds the note to the values
// in dispute: where both texts reject a value, no finding says that the
// other allows it.
func TestDisagreements_NoteOnlyWhereTheyDisagree(t *testing.T) {
	cases := []struct {
		name, profile, card string
		rule                Code
	}{
		{"protocol neither knows", "agentcard", withEndpoint(`{"protocol": "HTTPS", "url": "https://agents.example.com/api"}`), CodeEndpointProtocol},
		{"negative base cost", "agentcard", withMember(`"pricing": {"base_cost_joules": -1}`), CodePricingLandauer},
		{"pricing of another type", "agentcard", withMember(`"pricing": 5`), CodeFieldType},
		{"auth of another type", "agentcard", withEndpoint(`{"protocol": "http", "url": "https://agents.example.com/api", "auth": "bearer"}`), CodeFieldType},
		{"https protocol with an http url", "agentcard", withEndpoint(`{"protocol": "https", "url": "http://agents.example.com/api"}`), CodeEndpointURLScheme},
		{"agent_id pattern", "agentcard", disagreementCard("01HZQK3P8EMXR9V7T5N2W4J6CI", plainCapability, plainEndpoint, ""), CodeAgentIDFormat},
		{"protocol neither knows, schema", "agentcard-schema", withEndpoint(`{"protocol": "HTTPS", "url": "https://agents.example.com/api"}`), CodeSchemaEnum},
		{"negative base cost, schema", "agentcard-schema", withMember(`"pricing": {"base_cost_joules": -1}`), CodeSchemaMinimum},
		{"url, schema", "agentcard-schema", withEndpoint(`{"protocol": "http", "url": "/api"}`), CodeSchemaFormat},
		{"capability id pattern, schema", "agentcard-schema", withCapability(`{"id": "Text", "description": "Summarises text."}`), CodeSchemaPattern},
		{"missing id, schema", "agentcard-schema", withCapability(`{"description": "Summarises text."}`), CodeSchemaRequired},
		{"string root, schema", "agentcard-schema", `"summariser"`, CodeSchemaType},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fs := MustNew(tc.profile).Validate([]byte(tc.card)).Findings()
			found := false
			for _, f := range fs {
				found = found || f.Code == tc.rule
				if d, noted := f.disputed(); noted {
					t.Errorf("%s at %q says %q", f.Code, f.Path, d.note())
				}
				if strings.Contains(f.Message(), "JSON Schema v1.0") {
					t.Errorf("%s at %q: %q", f.Code, f.Path, f.Message())
				}
			}
			if !found {
				t.Errorf("no %s: %v", tc.rule, fs)
			}
		})
	}
}

// A folded finding's count follows the note, as a message with no note does.
func TestDisagreements_NoteBeforeCount(t *testing.T) {
	f := Finding{Code: CodeSchemaFormat, msg: "format: not an absolute URI (RFC 3986)", got: `"x"`, Count: 2, note: disSchemaOnlyMember}
	want := `format: not an absolute URI (RFC 3986) (got "x"); draft section 5, rule 10 allows this; the AgentCard JSON Schema v1.0 does not; 2 times in the card, the first here`
	if got := f.Message(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func containsCode(codes []Code, c Code) bool {
	for _, x := range codes {
		if x == c {
			return true
		}
	}
	return false
}
