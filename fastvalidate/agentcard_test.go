package fastvalidate

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

// draftExample is the complete example of draft-aevum-agentcard-00,
// section 7, as printed there (page break removed).
const draftExample = `{
  "agent_id": "01HZQK3P8EMXR9V7T5N2W4J6C0",
  "name": "ResearchAnalyst",
  "version": "1.2.0",
  "capabilities": [
    {
      "id": "text.summarise",
      "description": "Summarise a document to a given word limit.",
      "input_schema": {
        "type": "object",
        "properties": {
          "text":      { "type": "string" },
          "max_words": { "type": "integer", "default": 200 }
        },
        "required": ["text"]
      }
    },
    {
      "id": "tool.web_search",
      "description": "Search the public web and return top-k results.",
      "tags": ["search", "retrieval"]
    },
    {
      "id": "data.fetch_csv",
      "description": "Fetch a CSV file from a URL and return parsed rows."
    }
  ],
  "endpoint": {
    "protocol": "https",
    "url": "https://agents.example.com/api/research-analyst",
    "auth": { "scheme": "bearer" }
  },
  "pricing": {
    "base_cost_joules": 2.854e-21,
    "per_token_joules": 1.4e-24
  },
  "metadata": {
    "pacr:trust_tier": "established",
    "pacr:substrate_scope": "AWS_Graviton_c7g",
    "framework": "crewai",
    "created_at": "2026-04-23T00:00:00Z"
  },
  "goal_subscriptions": [
    {
      "goal_id": "01HZQK3P8EMXR9V7T5N2W4J6C1",
      "description": "Competitive analysis for Q3 2026",
      "priority": 0.8
    }
  ]
}`

func TestAgentCard_DraftExample(t *testing.T) {
	v := newTestValidator(t, "agentcard")
	r := v.Validate([]byte(draftExample))
	checkHits(t, r, nil)
	if r.Profile != "agentcard" {
		t.Errorf("Profile = %q, want agentcard", r.Profile)
	}
}

// crockfordDigits is the ULID alphabet, written out independently of the
// package's table.
const crockfordDigits = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// ulidAt returns an agent_id whose ULID timestamp is t, with a fixed random
// part.
func ulidAt(t time.Time) string {
	ms := uint64(t.UnixMilli())
	var b [10]byte
	for i := 9; i >= 0; i-- {
		b[i] = crockfordDigits[ms&31]
		ms >>= 5
	}
	return string(b[:]) + "8EMXR9V7T5N2W4J6"
}

type cardCase struct {
	name string
	card string
	want []hit
}

func runCardCases(t *testing.T, cases []cardCase) {
	t.Helper()
	v := newTestValidator(t, "agentcard")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			checkHits(t, v.Validate([]byte(c.card)), c.want)
		})
	}
}

func errAt(rule, path string) []hit { return []hit{{rule, path}} }

// Section 2: the five REQUIRED members, and the type of every member.
func TestAgentCard_Required(t *testing.T) {
	cases := []cardCase{
		{"all present", card(nil), nil},
		{"no agent_id", card(map[string]string{"agent_id": omit}), errAt("field.required", "/agent_id")},
		{"no name", card(map[string]string{"name": omit}), errAt("field.required", "/name")},
		{"no version", card(map[string]string{"version": omit}), errAt("field.required", "/version")},
		{"no capabilities", card(map[string]string{"capabilities": omit}), errAt("field.required", "/capabilities")},
		{"no endpoint", card(map[string]string{"endpoint": omit}), errAt("field.required", "/endpoint")},
		{"empty object", `{}`, []hit{
			{"field.required", "/agent_id"}, {"field.required", "/name"}, {"field.required", "/version"},
			{"field.required", "/capabilities"}, {"field.required", "/endpoint"},
		}},
		{"agent_id null", card(map[string]string{"agent_id": `null`}), errAt("field.type", "/agent_id")},
		{"agent_id number", card(map[string]string{"agent_id": `1`}), errAt("field.type", "/agent_id")},
		{"name array", card(map[string]string{"name": `["a"]`}), errAt("field.type", "/name")},
		{"version number", card(map[string]string{"version": `1.0`}), errAt("field.type", "/version")},
		{"capabilities object", card(map[string]string{"capabilities": `{"id":"a"}`}), errAt("field.type", "/capabilities")},
		{"endpoint string", card(map[string]string{"endpoint": `"https://a.example"`}), errAt("field.type", "/endpoint")},
		{"pricing array", card(map[string]string{"pricing": `[]`}), errAt("field.type", "/pricing")},
		{"metadata string", card(map[string]string{"metadata": `"x"`}), errAt("field.type", "/metadata")},
		{"goal_subscriptions object", card(map[string]string{"goal_subscriptions": `{}`}), errAt("field.type", "/goal_subscriptions")},
		// Section 3: a card is a JSON object.
		{"array card", `[]`, errAt("card.type", "")},
		{"number card", `42`, errAt("card.type", "")},
		{"null card", `null`, errAt("card.type", "")},
		{"true card", `true`, errAt("card.type", "")},
		{"string holding a number", `"42"`, errAt("card.type", "")},
		{"string holding a string holding a card", jsonString(jsonString(card(nil))), errAt("card.type", "")},
		{"optional members null", card(map[string]string{"pricing": `null`}), errAt("field.type", "/pricing")},
	}
	runCardCases(t, cases)
}

// Section 2.1 and rule 5.1: 26 characters of [0-9A-HJKMNP-TV-Z].
func TestAgentCard_AgentID(t *testing.T) {
	id := func(s string) string { return card(map[string]string{"agent_id": s}) }
	bad := func(s string) cardCase { return cardCase{s, id(s), errAt("agent_id.format", "/agent_id")} }
	notULID := errAt("agent_id.not-ulid", "/agent_id")
	cases := []cardCase{
		{"draft example", id(`"01HZQK3P8EMXR9V7T5N2W4J6C0"`), nil},
		{"all zeros", id(`"00000000000000000000000000"`), nil},
		{"max ULID", id(`"7ZZZZZZZZZZZZZZZZZZZZZZZZZ"`), notULID}, // year 10889: in the future
		bad(`"01HZQK3P8EMXR9V7T5N2W4J6CI"`),
		bad(`"01HZQK3P8EMXR9V7T5N2W4J6CL"`),
		bad(`"01HZQK3P8EMXR9V7T5N2W4J6CO"`),
		bad(`"01HZQK3P8EMXR9V7T5N2W4J6CU"`),
		bad(`"01hzqk3p8emxr9v7t5n2w4j6c0"`),
		bad(`"01HZQK3P8EMXR9V7T5N2W4J6c0"`),
		bad(`"01HZQK3P8EMXR9V7T5N2W4J6C"`),
		bad(`"01HZQK3P8EMXR9V7T5N2W4J6C00"`),
		bad(`""`),
		bad(`" 01HZQK3P8EMXR9V7T5N2W4J6C"`),
		bad(`"01HZQK3P8EMXR9V7T5N2W4J6C "`),
		bad(`"01HZQK3P8EMXR9V7T5N2W4J6C-"`),
		bad(`"01HZQK3P8EMXR9V7T5N2W4J6C\u0000"`),
		bad(`"01HZQK3P8EMXR9V7T5N2W4J6CÉ"`), // 26 code points, 27 bytes
		// Escapes are decoded before the check: \u0030 is '0'.
		{"escaped digits", id(`"\u0030\u0031HZQK3P8EMXR9V7T5N2W4J6C0"`), nil},
		{"escaped solidus", id(`"01HZQK3P8EMXR9V7T5N2W4J6C\/"`), errAt("agent_id.format", "/agent_id")},
		{"all escaped", id(`"` + strings.Repeat(`\u0030`, 26) + `"`), nil},
		// First character above '7': 26 valid characters, but more than 128
		// bits, so no ULID: a warning, the card stays valid.
		{"first char 8", id(`"81HZQK3P8EMXR9V7T5N2W4J6C0"`), notULID},
		{"first char Z", id(`"Z1HZQK3P8EMXR9V7T5N2W4J6C0"`), notULID},
		{"first char 7", id(`"71HZQK3P8EMXR9V7T5N2W4J6C0"`), notULID}, // decodes, year 8000-something
		{"timestamp now", id(jsonString(ulidAt(testNow))), nil},
		{"timestamp 1ms ahead", id(jsonString(ulidAt(testNow.Add(time.Millisecond)))), notULID},
		{"timestamp a year ago", id(jsonString(ulidAt(testNow.AddDate(-1, 0, 0)))), nil},
		{"timestamp a year ahead", id(jsonString(ulidAt(testNow.AddDate(1, 0, 0)))), notULID},
	}
	runCardCases(t, cases)
}

// The future check follows the clock it is given.
func TestAgentCard_AgentIDClock(t *testing.T) {
	c := []byte(card(map[string]string{"agent_id": jsonString(ulidAt(testNow.Add(time.Hour)))}))
	before := MustNew("agentcard", WithClock(func() time.Time { return testNow }))
	after := MustNew("agentcard", WithClock(func() time.Time { return testNow.Add(2 * time.Hour) }))
	checkHits(t, before.Validate(c), errAt("agent_id.not-ulid", "/agent_id"))
	checkHits(t, after.Validate(c), nil)
}

// Section 2.2: 1 to 128 Unicode code points.
func TestAgentCard_Name(t *testing.T) {
	name := func(s string) string { return card(map[string]string{"name": s}) }
	long := errAt("name.length", "/name")
	q := func(s string) string { return `"` + s + `"` }
	cases := []cardCase{
		{"empty", name(`""`), long},
		{"one char", name(`"a"`), nil},
		{"one 4-byte char", name(`"😀"`), nil},
		{"128 ascii", name(q(strings.Repeat("a", 128))), nil},
		{"129 ascii", name(q(strings.Repeat("a", 129))), long},
		{"128 two-byte", name(q(strings.Repeat("é", 128))), nil},
		{"129 two-byte", name(q(strings.Repeat("é", 129))), long},
		{"128 three-byte", name(q(strings.Repeat("名", 128))), nil},
		{"129 three-byte", name(q(strings.Repeat("名", 129))), long},
		{"128 four-byte", name(q(strings.Repeat("😀", 128))), nil},
		{"129 four-byte", name(q(strings.Repeat("😀", 129))), long},
		{"127 ascii + 1 four-byte", name(q(strings.Repeat("a", 127) + "😀")), nil},
		{"128 ascii + 1 two-byte", name(q(strings.Repeat("a", 128) + "é")), long},
		// Escapes count as the code points they decode to.
		{"128 escaped", name(q(strings.Repeat(`\u00e9`, 128))), nil},
		{"129 escaped", name(q(strings.Repeat(`\u00e9`, 129))), long},
		{"128 surrogate pairs", name(q(strings.Repeat(`\ud83d\ude00`, 128))), nil},
		{"129 surrogate pairs", name(q(strings.Repeat(`\ud83d\ude00`, 129))), long},
		{"128 escaped newlines", name(q(strings.Repeat(`\n`, 128))), nil},
		// Code points, not grapheme clusters: e + combining acute is two.
		{"64 combining pairs", name(q(strings.Repeat("e\u0301", 64))), nil},
		{"65 combining pairs", name(q(strings.Repeat("e\u0301", 64) + "e")), long},
		{"escaped NUL is one code point", name(`"\u0000"`), nil},
	}
	runCardCases(t, cases)
}

// Section 2.3 and rule 5.2; the matcher has its own table in match_test.go.
func TestAgentCard_Version(t *testing.T) {
	ver := func(s string) string { return card(map[string]string{"version": jsonString(s)}) }
	bad := errAt("version.semver", "/version")
	cases := []cardCase{
		{"1.0.0", ver("1.0.0"), nil},
		{"0.3.2-beta.1", ver("0.3.2-beta.1"), nil},
		{"1.0.0+build.1", ver("1.0.0+build.1"), nil},
		{"1.0", ver("1.0"), bad},
		{"v1.0.0", ver("v1.0.0"), bad},
		{"01.0.0", ver("01.0.0"), bad},
		{"1.0.0-01", ver("1.0.0-01"), bad},
		{"empty", ver(""), bad},
		{"escaped", card(map[string]string{"version": `"1\u002e0\u002E0"`}), nil},
	}
	runCardCases(t, cases)
}

// Section 2.4 and rules 5.3, 5.4: at least one capability, each an object
// with an id matching ^[a-z0-9][a-z0-9._-]*$; a description is RECOMMENDED.
func TestAgentCard_Capabilities(t *testing.T) {
	caps := func(s string) string { return card(map[string]string{"capabilities": s}) }
	withID := func(id string) string {
		return caps(`[{"id":` + jsonString(id) + `,"description":"d"}]`)
	}
	badID := errAt("capability.id", "/capabilities/0/id")
	cases := []cardCase{
		{"empty array", caps(`[]`), errAt("capabilities.empty", "/capabilities")},
		{"draft 2.4.5 example", caps(`[
			{"id":"text.summarise","description":"Summarise a document to a target length.",
			 "input_schema":{"type":"object","properties":{"text":{"type":"string"},"max_words":{"type":"integer","default":200}},"required":["text"]}},
			{"id":"tool.web_search","description":"Search the public web and return top results.","tags":["search","retrieval"]}]`), nil},
		{"entry not an object", caps(`["text.summarise"]`), errAt("field.type", "/capabilities/0")},
		{"second entry null", caps(`[{"id":"a","description":"d"},null]`), errAt("field.type", "/capabilities/1")},
		{"no id", caps(`[{"description":"d"}]`), errAt("field.required", "/capabilities/0/id")},
		{"id number", caps(`[{"id":7,"description":"d"}]`), errAt("field.type", "/capabilities/0/id")},
		{"no description", caps(`[{"id":"a"}]`), []hit{{"capability.description-missing", "/capabilities/0"}}},
		{"no id nor description", caps(`[{}]`), []hit{{"field.required", "/capabilities/0/id"}, {"capability.description-missing", "/capabilities/0"}}},
		{"description number", caps(`[{"id":"a","description":1}]`), errAt("field.type", "/capabilities/0/description")},
		{"tags not array", caps(`[{"id":"a","description":"d","tags":"x"}]`), errAt("field.type", "/capabilities/0/tags")},
		{"tag not string", caps(`[{"id":"a","description":"d","tags":["x",2]}]`), errAt("field.type", "/capabilities/0/tags/1")},
		{"tags empty", caps(`[{"id":"a","description":"d","tags":[]}]`), nil},
		// Section 2.4.3 types both "object (JSON Schema)"; only the schema
		// adds null.
		{"input_schema null", caps(`[{"id":"a","description":"d","input_schema":null}]`), errAt("field.type", "/capabilities/0/input_schema")},
		{"output_schema null", caps(`[{"id":"a","description":"d","output_schema":null}]`), errAt("field.type", "/capabilities/0/output_schema")},
		{"input_schema object", caps(`[{"id":"a","description":"d","input_schema":{}}]`), nil},
		{"input_schema array", caps(`[{"id":"a","description":"d","input_schema":[]}]`), errAt("field.type", "/capabilities/0/input_schema")},
		{"output_schema string", caps(`[{"id":"a","description":"d","output_schema":"x"}]`), errAt("field.type", "/capabilities/0/output_schema")},
		{"third id bad", caps(`[{"id":"a","description":"d"},{"id":"b","description":"d"},{"id":"C","description":"d"}]`), errAt("capability.id", "/capabilities/2/id")},
		{"id a", withID("a"), nil},
		{"id 0", withID("0"), nil},
		{"id 9lives", withID("9lives"), nil},
		{"id a-b_c.d", withID("a-b_c.d"), nil},
		{"id a..b", withID("a..b"), nil},
		{"id trailing dot", withID("a."), nil},
		{"id reverse domain", withID("com.example.custom_capability"), nil},
		{"id fn.get_weather", withID("fn.get_weather"), nil},
		{"id empty", withID(""), badID},
		{"id uppercase first", withID("Text.summarise"), badID},
		{"id uppercase later", withID("tool.Web_search"), badID},
		{"id leading dot", withID(".a"), badID},
		{"id leading underscore", withID("_a"), badID},
		{"id leading hyphen", withID("-a"), badID},
		{"id space", withID("a b"), badID},
		{"id slash", withID("a/b"), badID},
		{"id colon", withID("mcp:tool"), badID},
		{"id non-ASCII", withID("café"), badID},
		{"id trailing newline", withID("a\n"), badID},
		{"id escaped letters", caps(`[{"id":"\u0074ext","description":"d"}]`), nil},
	}
	runCardCases(t, cases)
}

// Section 2.5 and rules 5.5, 5.6: protocol, URL and their consistency, auth.
func TestAgentCard_Endpoint(t *testing.T) {
	ep := func(s string) string { return card(map[string]string{"endpoint": s}) }
	pu := func(protocol, url string) string { return ep(endpoint(protocol, url)) }
	badProto := errAt("endpoint.protocol", "/endpoint/protocol")
	badURL := errAt("endpoint.url", "/endpoint/url")
	badScheme := errAt("endpoint.url-scheme", "/endpoint/url")
	insecure := errAt("endpoint.insecure", "/endpoint/url")
	cases := []cardCase{
		{"draft 2.5.4 example", ep(`{"protocol":"https","url":"https://agents.example.com/api/summariser","auth":{"scheme":"bearer"}}`), nil},
		{"no protocol", ep(`{"url":"https://a.example"}`), errAt("field.required", "/endpoint/protocol")},
		{"no url", ep(`{"protocol":"https"}`), errAt("field.required", "/endpoint/url")},
		{"empty endpoint", ep(`{}`), []hit{{"field.required", "/endpoint/protocol"}, {"field.required", "/endpoint/url"}}},
		{"protocol number", ep(`{"protocol":1,"url":"https://a.example"}`), errAt("field.type", "/endpoint/protocol")},
		{"url null", ep(`{"protocol":"https","url":null}`), errAt("field.type", "/endpoint/url")},

		// Every protocol, with a URL it accepts.
		{"protocol http", pu("http", "https://a.example/"), nil},
		{"protocol https", pu("https", "https://a.example/"), nil},
		{"protocol grpc", pu("grpc", "grpc://a.example:443"), nil},
		{"protocol stdio", pu("stdio", "stdio://local/agent"), nil},
		{"protocol mcp", pu("mcp", "mcp://a.example/tools"), nil},
		// Near misses.
		{"protocol HTTPS", pu("HTTPS", "https://a.example/"), badProto},
		{"protocol Https", pu("Https", "https://a.example/"), badProto},
		{"protocol trailing space", pu("https ", "https://a.example/"), badProto},
		{"protocol leading space", pu(" grpc", "grpc://a.example"), badProto},
		{"protocol websocket", pu("websocket", "wss://a.example"), badProto},
		{"protocol empty", pu("", "https://a.example"), badProto},
		{"protocol bad, url bad", pu("ftp", "not a url"), []hit{{"endpoint.protocol", "/endpoint/protocol"}, {"endpoint.url", "/endpoint/url"}}},

		// Consistency of protocol and URL scheme (section 2.5.2).
		{"https/https", pu("https", "https://a.example"), nil},
		{"https/http", pu("https", "http://a.example"), append(badScheme, insecure...)},
		{"https/grpc", pu("https", "grpc://a.example"), badScheme},
		{"https/HTTPS", pu("https", "HTTPS://a.example"), nil}, // schemes are case-insensitive (RFC 3986 3.1)
		{"http/https", pu("http", "https://a.example"), nil},
		{"http/http", pu("http", "http://a.example"), insecure},
		{"http/HTTP", pu("http", "HtTp://a.example"), insecure},
		{"http/ftp", pu("http", "ftp://a.example"), badScheme},
		{"http/mailto", pu("http", "mailto:agent@a.example"), badScheme},
		{"grpc/https", pu("grpc", "https://a.example"), nil},
		{"grpc/http", pu("grpc", "http://a.example"), insecure},
		{"grpc/urn", pu("grpc", "urn:ietf:rfc:3986"), nil},
		{"stdio/stdio", pu("stdio", "stdio://./agent"), nil},
		{"stdio/file", pu("stdio", "file:///usr/local/bin/agent"), nil},
		{"mcp/mailto", pu("mcp", "mailto:agent@a.example"), nil},
		{"mcp/https", pu("mcp", "https://a.example/mcp"), nil},

		// RFC 3986 URIs.
		{"no scheme", pu("https", "agents.example.com/api"), badURL},
		{"scheme-relative", pu("https", "//agents.example.com/api"), badURL},
		{"empty url", pu("https", ""), badURL},
		{"space in host", pu("https", "https://agents example.com/"), badURL},
		{"space in path", pu("https", "https://a.example/a b"), badURL},
		{"trailing space", pu("https", "https://a.example/ "), badURL},
		{"non-ASCII host", pu("https", "https://例え.jp/"), badURL},
		{"non-ASCII path", pu("https", "https://a.example/café"), badURL},
		{"percent-encoded non-ASCII", pu("https", "https://a.example/caf%C3%A9"), nil},
		{"bad percent escape", pu("https", "https://a.example/%zz"), badURL},
		{"truncated percent escape", pu("https", "https://a.example/%4"), badURL},
		{"percent at end", pu("https", "https://a.example/%"), badURL},
		{"IPv6 literal", pu("https", "https://[2001:db8::1]:8443/api"), errAt("content.link-ip-host", "/endpoint/url")},
		{"IPv6 loopback", pu("https", "https://[::1]/"), errAt("endpoint.insecure", "/endpoint/url")},
		{"localhost", pu("https", "https://localhost:8443/"), errAt("endpoint.insecure", "/endpoint/url")},
		{"private IPv4", pu("https", "https://10.1.2.3/"), errAt("endpoint.insecure", "/endpoint/url")},
		{"IPv4-mapped IPv6", pu("https", "https://[::ffff:192.0.2.1]/"), errAt("content.link-ip-host", "/endpoint/url")},
		{"IPv6 unbracketed", pu("https", "https://2001:db8::1/"), badURL},
		{"IPv6 bad", pu("https", "https://[2001:db8::g]/"), badURL},
		{"IPv6 zone", pu("https", "https://[fe80::1%25eth0]/"), badURL}, // RFC 3986 has no zones (RFC 6874 adds them)
		{"IPv6 unclosed", pu("https", "https://[::1/"), badURL},
		{"IPvFuture", pu("https", "https://[v1.fe80::a+en1]/"), nil},
		{"IPv4 host", pu("https", "https://192.0.2.1:8080/"), errAt("content.link-ip-host", "/endpoint/url")},
		{"userinfo", pu("https", "https://user:pass@a.example/"), errAt("content.link-userinfo", "/endpoint/url")},
		{"port not digits", pu("https", "https://a.example:https/"), badURL},
		{"empty port", pu("https", "https://a.example:/"), nil},
		{"query and fragment", pu("https", "https://a.example/p?q=1&r=a/b?c#frag/x?y"), nil},
		{"second hash", pu("https", "https://a.example/#a#b"), badURL},
		{"backslash", pu("https", `https://a.example\api`), badURL},
		{"brace", pu("https", "https://a.example/{id}"), badURL},
		{"mailto", pu("grpc", "mailto:ops@a.example"), nil},
		{"urn", pu("grpc", "urn:uuid:6e8bc430-9c3a-11d9-9669-0800200c9a66"), nil},
		{"stdio://", pu("stdio", "stdio://"), nil},
		{"scheme only", pu("grpc", "grpc:"), nil},
		{"scheme digit first", pu("grpc", "1grpc://a.example"), badURL},
		{"scheme with plus", pu("grpc", "grpc+tls://a.example"), nil},

		// Section 2.5.3: auth.scheme.
		{"auth none", ep(`{"protocol":"https","url":"https://a.example","auth":{"scheme":"none"}}`), nil},
		{"auth bearer", ep(`{"protocol":"https","url":"https://a.example","auth":{"scheme":"bearer"}}`), nil},
		{"auth api_key", ep(`{"protocol":"https","url":"https://a.example","auth":{"scheme":"api_key"}}`), nil},
		{"auth oauth2", ep(`{"protocol":"https","url":"https://a.example","auth":{"scheme":"oauth2"}}`), nil},
		{"auth mtls", ep(`{"protocol":"https","url":"https://a.example","auth":{"scheme":"mtls"}}`), nil},
		{"auth Bearer", ep(`{"protocol":"https","url":"https://a.example","auth":{"scheme":"Bearer"}}`), errAt("endpoint.auth.scheme", "/endpoint/auth/scheme")},
		{"auth trailing space", ep(`{"protocol":"https","url":"https://a.example","auth":{"scheme":"mtls "}}`), errAt("endpoint.auth.scheme", "/endpoint/auth/scheme")},
		{"auth basic", ep(`{"protocol":"https","url":"https://a.example","auth":{"scheme":"basic"}}`), errAt("endpoint.auth.scheme", "/endpoint/auth/scheme")},
		{"auth api-key", ep(`{"protocol":"https","url":"https://a.example","auth":{"scheme":"api-key"}}`), errAt("endpoint.auth.scheme", "/endpoint/auth/scheme")},
		// "The default value is none": an auth object without a scheme is fine.
		{"auth without scheme", ep(`{"protocol":"https","url":"https://a.example","auth":{}}`), nil},
		{"auth scheme null", ep(`{"protocol":"https","url":"https://a.example","auth":{"scheme":null}}`), errAt("field.type", "/endpoint/auth/scheme")},
		{"auth string", ep(`{"protocol":"https","url":"https://a.example","auth":"bearer"}`), errAt("field.type", "/endpoint/auth")},
	}
	runCardCases(t, cases)
}

// Section 2.6 and rules 5.7, 5.8: the Landauer floor and non-negative
// per-token cost, judged on the number as written, not as rounded.
func TestAgentCard_Pricing(t *testing.T) {
	base := func(n string) string { return card(map[string]string{"pricing": `{"base_cost_joules":` + n + `}`}) }
	perTok := func(n string) string { return card(map[string]string{"pricing": `{"per_token_joules":` + n + `}`}) }
	landauer := errAt("pricing.landauer", "/pricing/base_cost_joules")
	rangeB := errAt("json.number-range", "/pricing/base_cost_joules")
	negTok := errAt("pricing.per-token", "/pricing/per_token_joules")
	rangeT := errAt("json.number-range", "/pricing/per_token_joules")
	cases := []cardCase{
		{"draft 2.6.3 example", card(map[string]string{"pricing": `{"base_cost_joules":2.854e-21,"per_token_joules":1.4e-24}`}), nil},
		{"empty pricing", card(map[string]string{"pricing": `{}`}), nil},
		{"base 0", base(`0`), nil},
		{"base -0", base(`-0`), nil},
		{"base 0.0", base(`0.0`), nil},
		{"base 0.0e5", base(`0.0e5`), nil},
		{"base -0.000E-7", base(`-0.000E-7`), nil},
		{"base 2.854e-21", base(`2.854e-21`), nil},
		{"base 2854e-24", base(`2854e-24`), nil},
		{"base 0.000000000000000000002854", base(`0.000000000000000000002854`), nil},
		{"base 2.8540e-21", base(`2.8540e-21`), nil},
		{"base 2.8540000000000000000001e-21", base(`2.8540000000000000000001e-21`), nil},
		{"base 2.853999e-21", base(`2.853999e-21`), landauer},
		{"base 2.8539999999999999999999e-21", base(`2.8539999999999999999999e-21`), landauer},
		{"base 2.853e-21", base(`2.853e-21`), landauer},
		{"base 1e-22", base(`1e-22`), landauer},
		{"base 1e-400", base(`1e-400`), landauer}, // underflows a float64 to 0, but is not zero
		{"base 5e-324", base(`5e-324`), landauer},
		{"base 1e-21", base(`1e-21`), landauer},
		{"base 1", base(`1`), nil},
		{"base 1e300", base(`1e300`), nil},
		{"base -1", base(`-1`), landauer},
		{"base -2.854e-21", base(`-2.854e-21`), landauer},
		{"base -1e-400", base(`-1e-400`), landauer},
		{"base 1e400", base(`1e400`), rangeB},
		{"base -1e400", base(`-1e400`), rangeB},
		{"base string", base(`"2.854e-21"`), errAt("field.type", "/pricing/base_cost_joules")},
		{"base null", base(`null`), errAt("field.type", "/pricing/base_cost_joules")},
		{"per-token 0", perTok(`0`), nil},
		{"per-token -0", perTok(`-0`), nil},
		{"per-token -0.0e-10", perTok(`-0.0e-10`), nil},
		{"per-token 1.4e-24", perTok(`1.4e-24`), nil},
		{"per-token 1e-400", perTok(`1e-400`), nil},
		{"per-token -1e-30", perTok(`-1e-30`), negTok},
		{"per-token -1e-400", perTok(`-1e-400`), negTok},
		{"per-token -1", perTok(`-1`), negTok},
		{"per-token 1e400", perTok(`1e400`), rangeT},
		{"per-token string", perTok(`"0"`), errAt("field.type", "/pricing/per_token_joules")},
		{"both bad", card(map[string]string{"pricing": `{"base_cost_joules":1e-30,"per_token_joules":-1}`}), append(landauer, negTok...)},
	}
	runCardCases(t, cases)
}

// Section 2.7 and rule 5.9: metadata is open, but pacr:trust_tier is an enum
// and pacr:substrate_scope a string.
func TestAgentCard_Metadata(t *testing.T) {
	meta := func(s string) string { return card(map[string]string{"metadata": s}) }
	tier := func(s string) string { return meta(`{"pacr:trust_tier":` + jsonString(s) + `}`) }
	badTier := errAt("metadata.trust-tier", "/metadata/pacr:trust_tier")
	cases := []cardCase{
		{"draft 2.7 example", meta(`{"pacr:trust_tier":"established","pacr:substrate_scope":"AWS_Graviton_c7g","framework":"crewai","created_at":"2026-04-23T00:00:00Z"}`), nil},
		{"empty", meta(`{}`), nil},
		{"untrusted", tier("untrusted"), nil},
		{"basic", tier("basic"), nil},
		{"established", tier("established"), nil},
		{"verified", tier("verified"), nil},
		{"banned", tier("banned"), nil},
		{"Verified", tier("Verified"), badTier},
		{"verified trailing space", tier("verified "), badTier},
		{"BANNED", tier("BANNED"), badTier},
		{"trusted", tier("trusted"), badTier},
		{"empty tier", tier(""), badTier},
		{"tier number", meta(`{"pacr:trust_tier":3}`), errAt("field.type", "/metadata/pacr:trust_tier")},
		{"tier null", meta(`{"pacr:trust_tier":null}`), errAt("field.type", "/metadata/pacr:trust_tier")},
		{"escaped tier", meta(`{"pacr:trust_tier":"b\u0061sic"}`), nil},
		{"escaped key", meta(`{"pacr:trust\u005ftier":"gold"}`), badTier},
		// The key is matched exactly: other spellings are unknown keys.
		{"tier key case", meta(`{"PACR:trust_tier":"gold"}`), nil},
		{"unknown pacr key", meta(`{"pacr:future":{"x":[1]}}`), nil},
		// Section 2.7 defines pacr:substrate_scope too: a free-form string.
		{"substrate scope", meta(`{"pacr:substrate_scope":"UKBiobank"}`), nil},
		{"empty substrate scope", meta(`{"pacr:substrate_scope":""}`), nil},
		{"substrate scope number", meta(`{"pacr:substrate_scope":42}`), errAt("field.type", "/metadata/pacr:substrate_scope")},
		{"substrate scope null", meta(`{"pacr:substrate_scope":null}`), errAt("field.type", "/metadata/pacr:substrate_scope")},
		{"unknown mcp key", meta(`{"mcp:anything":null}`), nil},
		{"deep metadata", meta(`{"a":{"b":{"c":[{"pacr:trust_tier":"gold"}]}}}`), nil},
	}
	runCardCases(t, cases)
}

// Section 2.8: a REQUIRED string goal_id, an OPTIONAL human-readable
// description and an OPTIONAL priority in [0, 1].
func TestAgentCard_Goals(t *testing.T) {
	goals := func(s string) string { return card(map[string]string{"goal_subscriptions": s}) }
	prio := func(n string) string { return goals(`[{"goal_id":"g","priority":` + n + `}]`) }
	badPrio := errAt("goal.priority", "/goal_subscriptions/0/priority")
	cases := []cardCase{
		{"draft 2.8 example", goals(`[{"goal_id":"01HZQK3P8EMXR9V7T5N2W4J6C1","description":"Competitive analysis for Q3 2026","priority":0.8}]`), nil},
		{"empty", goals(`[]`), nil},
		{"no goal_id", goals(`[{"priority":0.5}]`), errAt("goal.goal-id", "/goal_subscriptions/0/goal_id")},
		{"goal_id number", goals(`[{"goal_id":1}]`), errAt("goal.goal-id", "/goal_subscriptions/0/goal_id")},
		{"goal_id empty string", goals(`[{"goal_id":""}]`), nil},
		// "an OPTIONAL human-readable description": text, as the example's.
		{"description", goals(`[{"goal_id":"g","description":""}]`), nil},
		{"description number", goals(`[{"goal_id":"g","description":7}]`), errAt("field.type", "/goal_subscriptions/0/description")},
		{"description null", goals(`[{"goal_id":"g","description":null}]`), errAt("field.type", "/goal_subscriptions/0/description")},
		{"entry not object", goals(`[{"goal_id":"g"},"g2"]`), errAt("field.type", "/goal_subscriptions/1")},
		{"priority 0", prio(`0`), nil},
		{"priority -0", prio(`-0`), nil},
		{"priority 1", prio(`1`), nil},
		{"priority 1.0", prio(`1.0`), nil},
		{"priority 1e0", prio(`1e0`), nil},
		{"priority 10e-1", prio(`10e-1`), nil},
		{"priority 0.5", prio(`0.5`), nil},
		{"priority 1e-400", prio(`1e-400`), nil},
		{"priority 1.5", prio(`1.5`), badPrio},
		{"priority 2", prio(`2`), badPrio},
		{"priority -0.1", prio(`-0.1`), badPrio},
		{"priority -1e-400", prio(`-1e-400`), badPrio},
		{"priority 1.00000000000000000001", prio(`1.00000000000000000001`), badPrio},
		{"priority 0.99999999999999999999", prio(`0.99999999999999999999`), nil},
		{"priority 1e400", prio(`1e400`), errAt("json.number-range", "/goal_subscriptions/0/priority")},
		{"priority string", prio(`"0.5"`), errAt("field.type", "/goal_subscriptions/0/priority")},
		{"two bad entries", goals(`[{"priority":2},{"goal_id":"g","priority":-1}]`), []hit{
			{"goal.goal-id", "/goal_subscriptions/0/goal_id"}, {"goal.priority", "/goal_subscriptions/0/priority"},
			{"goal.priority", "/goal_subscriptions/1/priority"},
		}},
	}
	runCardCases(t, cases)
}

// Design goal 5 and rule 5.10: unknown members never fail a card, at any
// level, whatever they hold.
func TestAgentCard_UnknownFieldsIgnored(t *testing.T) {
	junk := `{"x":[1,-0,1e-400,"\u00e9",null,true,{"agent_id":"bad"}]}`
	cases := []cardCase{
		{"top level", card(map[string]string{"x-extra": junk, "pricing_v2": `-1`, "Name": `7`}), nil},
		{"capability", card(map[string]string{"capabilities": `[{"id":"a","description":"d","x":` + junk + `,"ID":"BAD"}]`}), nil},
		{"endpoint", card(map[string]string{"endpoint": `{"protocol":"https","url":"https://a.example","x":` + junk + `,"health_url":"not a uri"}`}), nil},
		{"auth", card(map[string]string{"endpoint": `{"protocol":"https","url":"https://a.example","auth":{"scheme":"oauth2","token_url":"::","x":` + junk + `}}`}), nil},
		{"pricing", card(map[string]string{"pricing": `{"base_cost_joules":0,"currency":"usd","x":` + junk + `}`}), nil},
		{"metadata", card(map[string]string{"metadata": `{"x":` + junk + `}`}), nil},
		{"goal", card(map[string]string{"goal_subscriptions": `[{"goal_id":"g","x":` + junk + `,"weight":7}]`}), nil},
		// Section 2.4.3 says a schema MUST conform to JSON Schema, but section 5,
		// the list a validator MUST enforce, does not include it: the content
		// of input_schema is not judged.
		{"input_schema content", card(map[string]string{"capabilities": `[{"id":"a","description":"d","input_schema":{"type":"no such type","x":` + junk + `}}]`}), nil},
	}
	runCardCases(t, cases)
}

// Many findings in one card: each is reported once, at its own path.
func TestAgentCard_ManyFindings(t *testing.T) {
	c := `{"agent_id":"nope","name":"","version":"1","capabilities":[{"id":"A"},{"description":"d"}],
		"endpoint":{"protocol":"https","url":"http://a.example","auth":{"scheme":"x"}},
		"pricing":{"base_cost_joules":1e-25,"per_token_joules":-1},
		"metadata":{"pacr:trust_tier":"gold"},"goal_subscriptions":[{"priority":7}]}`
	runCardCases(t, []cardCase{{"all rules", c, []hit{
		{"agent_id.format", "/agent_id"},
		{"name.length", "/name"},
		{"version.semver", "/version"},
		{"capability.id", "/capabilities/0/id"},
		{"capability.description-missing", "/capabilities/0"},
		{"field.required", "/capabilities/1/id"},
		{"endpoint.url-scheme", "/endpoint/url"},
		{"endpoint.insecure", "/endpoint/url"},
		{"endpoint.auth.scheme", "/endpoint/auth/scheme"},
		{"pricing.landauer", "/pricing/base_cost_joules"},
		{"pricing.per-token", "/pricing/per_token_joules"},
		{"metadata.trust-tier", "/metadata/pacr:trust_tier"},
		{"goal.goal-id", "/goal_subscriptions/0/goal_id"},
		{"goal.priority", "/goal_subscriptions/0/priority"},
	}}})
}

// Paths are RFC 6901 pointers: "~" and "/" in member names are escaped as
// "~0" and "~1"; escapes in the card's member names are decoded first.
func TestAgentCard_PointerEscaping(t *testing.T) {
	runCardCases(t, []cardCase{
		{"slash and tilde", `{"a/b":{"c~d":{"~1":{"x":1,"x":2}}}}`, errAt("json.duplicate-key", "/a~1b/c~0d/~01/x")},
		{"escaped names", `{"a\u002fb":{"\u007e":[0,{"x":1,"\u0078":2}]}}`, errAt("json.duplicate-key", "/a~1b/~0/1/x")},
		{"empty name", `{"":{"":{"x":1,"x":2}}}`, errAt("json.duplicate-key", "///x")},
	})
}

// Section 3: a card embedded as a JSON string is judged exactly as the
// object it holds, with the same findings at the same paths and offsets.
func TestAgentCard_EmbeddedStringForm(t *testing.T) {
	cards := []string{
		draftExample,
		card(nil),
		`{}`,
		`{"agent_id":"nope","name":"","version":"1","capabilities":[{"id":"A"}],"endpoint":{"protocol":"https","url":"http://a.example"}}`,
		card(map[string]string{"name": `"` + strings.Repeat("é", 129) + `"`, "metadata": `{"pacr:trust_tier":"gold","a/b":"\u00e9"}`}),
		card(map[string]string{"pricing": `{"base_cost_joules":2.8539999999999999999999e-21,"per_token_joules":1e400}`}),
		card(map[string]string{"agent_id": `"\u0030\u0031HZQK3P8EMXR9V7T5N2W4J6C0"`, "capabilities": `[{"id":"a\"b","description":"<&>"}]`}),
		`[1,2]`,
		`{"a":1,"a":2}`,
		`{"a":"\ud800"}`,
		`{"a":[}`,
	}
	plain := newTestValidator(t, "agentcard")
	embedded := newTestValidator(t, "agentcard")
	for i, c := range cards {
		want := plain.Validate([]byte(c))
		for _, form := range []string{jsonString(c), `  ` + jsonString(c) + "\n", jsonStringASCII(c)} {
			got := embedded.Validate([]byte(form))
			if got.Valid() != want.Valid() || got.Errors() != want.Errors() || got.Warnings() != want.Warnings() {
				t.Errorf("card %d: embedded verdict %v (%d errors, %d warnings), object %v (%d, %d)",
					i, got.Valid(), got.Errors(), got.Warnings(), want.Valid(), want.Errors(), want.Warnings())
			}
			// Offsets are in the card as given: of the string's text
			// that decodes to the object's offending byte.
			wantFindings := slices.Clone(want.Findings())
			for k := range wantFindings {
				wantFindings[k].Offset = offsetInString(form, c, wantFindings[k].Offset)
			}
			if !equalFindings(got.Findings(), wantFindings) {
				t.Errorf("card %d:\n embedded %v\n object   %v", i, got.Findings(), wantFindings)
			}
		}
	}
}

// jsonStringASCII encodes s as a JSON string with every non-ASCII character
// and every quote escaped as \uXXXX, so the inner card's text differs most
// from the outer string's.
func jsonStringASCII(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\' || r < 0x20 || r > 0x7e:
			if r > 0xffff {
				r -= 0x10000
				writeU(&b, 0xd800+(r>>10))
				writeU(&b, 0xdc00+(r&0x3ff))
				continue
			}
			writeU(&b, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// offsetInString returns the offset in form, a JSON string holding text
// (with white space around it), of the escape or byte at which the
// string's text decodes to text[:off] so far, by decoding its prefixes
// with encoding/json.
func offsetInString(form, text string, off int) int {
	start, end := strings.IndexByte(form, '"')+1, strings.LastIndexByte(form, '"')
	raw := form[start:end]
	for i := 0; i <= len(raw); i++ {
		var s string
		if json.Unmarshal([]byte(`"`+raw[:i]+`"`), &s) == nil && s == text[:off] {
			return start + i
		}
	}
	return -1
}

func writeU(b *strings.Builder, r rune) {
	const hex = "0123456789abcdef"
	b.WriteString(`\u`)
	for shift := 12; shift >= 0; shift -= 4 {
		b.WriteByte(hex[(r>>shift)&15])
	}
}

func equalFindings(a, b []Finding) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Code != b[i].Code || a[i].Severity != b[i].Severity || a[i].Path != b[i].Path ||
			a[i].Offset != b[i].Offset || a[i].Message() != b[i].Message() {
			return false
		}
	}
	return true
}

// Under PolicyProduction, risky values are errors (validator.go). Plain
// http is the agentcard profile's one risky value.
func TestAgentCard_ProductionPolicy(t *testing.T) {
	c := []byte(card(map[string]string{"endpoint": endpoint("http", "http://a.example/")}))
	v := MustNew("agentcard", WithPolicy(PolicyProduction), WithClock(fixedClock))
	r := v.Validate(c)
	if r.Valid() || len(r.Findings()) != 1 || r.Findings()[0].Code != CodeEndpointInsecure || r.Findings()[0].Severity != SeverityError {
		t.Errorf("production policy: got valid=%v findings %v, want one endpoint.insecure error", r.Valid(), r.Findings())
	}
	checkHits(t, newTestValidator(t, "agentcard").Validate(c), errAt("endpoint.insecure", "/endpoint/url"))
}

// A finding's Offset is the byte offset of the value it names (a string's
// opening quote), of the object that lacks a member, or of the byte where
// strict JSON broke.
func TestFinding_Offsets(t *testing.T) {
	cases := []struct {
		name, doc, rule, at string // at: the text whose first byte Offset names
	}{
		{"string value", card(map[string]string{"version": `"1.0"`}), "version.semver", `"1.0"`},
		{"number value", card(map[string]string{"pricing": `{"base_cost_joules":-5e-30}`}), "pricing.landauer", `-5e-30`},
		{"array value", card(map[string]string{"capabilities": `[ ]`}), "capabilities.empty", `[ ]`},
		{"missing member", card(map[string]string{"endpoint": `{"protocol":"https"}`}), "field.required", `{"protocol":"https"}`},
		{"capability without description", card(map[string]string{"capabilities": `[{"id":"x.y"}]`}), "capability.description-missing", `{"id":"x.y"}`},
		{"bad byte", card(map[string]string{"name": `"a` + "\x01" + `b"`}), "json.syntax", "\x01"},
		{"bad UTF-8", card(map[string]string{"name": "\"a\xffb\""}), "json.utf8", "\xff"},
		{"lone surrogate", card(map[string]string{"name": `"ab\udc00"`}), "json.utf8", `\udc00`},
		{"duplicate name", card(map[string]string{"metadata": `{"k":1,"k":2}`}), "json.duplicate-key", `"k":2`},
		{"trailing data", card(nil) + " x", "json.syntax", " x"},
	}
	v := newTestValidator(t, "agentcard")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := strings.LastIndex(c.doc, c.at)
			if c.name == "trailing data" {
				want++ // the x, past the space
			}
			r := v.Validate([]byte(c.doc))
			if len(r.Findings()) != 1 || r.Findings()[0].Code.String() != c.rule {
				t.Fatalf("findings %v, want one %s", r.Findings(), c.rule)
			}
			if got := r.Findings()[0].Offset; got != want {
				t.Errorf("Offset = %d, want %d (%q)", got, want, c.doc[want:])
			}
		})
	}
}
