package corpus

import "strings"

// The agentcard-schema dialect: cards valid under the AgentCard JSON Schema
// v1.0, which differs from the draft: a closed set of members everywhere but
// metadata and auth, its own protocol list, a required capability
// description, format: uri on every URL. Every URL is one on which RFC 3986
// and Go's net/url agree, so that JSON Schema validators built on either
// give the same verdict.

func init() {
	registerDialect("agentcard-schema", "agentcard-schema", buildSchemaCard)
}

var schemaVariants = []variant{
	{"escapes", 0.05},
	{"escaped-key", 0.03},
	{"name-128-code-points", 0.02},
	{"null-values", 0.05},     // every oneOf and type list's null branch
	{"boundary-values", 0.04}, // minimum 0, maximum 1, 12.0 as an integer, maxLength strings
}

// schemaProtocols pairs each protocol of the schema's enum with URL schemes
// that suit it.
var schemaProtocols = []struct{ protocol, scheme string }{
	{"http", "https"}, {"http", "https"}, {"http", "http"}, {"websocket", "wss"}, {"sse", "https"},
	{"grpc", "grpc"}, {"mcp", "https"}, {"mcp", "mcp"}, {"google_a2a", "https"}, {"native", "unix"},
}

func buildSchemaCard(b *builder) {
	r := b.r
	v := b.pickVariant(schemaVariants)
	root := b.cardHead(v, true)

	e := b.put(root, "endpoint", b.object())
	p := schemaProtocols[r.intn(len(schemaProtocols))]
	b.put(e, "protocol", b.str(p.protocol))
	if p.scheme == "unix" {
		b.put(e, "url", b.str("unix:///var/run/agents/", r.pick(capVerbs), ".sock"))
	} else {
		b.put(e, "url", b.url(p.scheme, r.intn(4) == 0))
	}
	if r.intn(5) < 2 {
		b.put(e, "health_url", b.url("https", false))
	}
	if r.intn(4) != 0 {
		a := b.put(e, "auth", b.object())
		scheme := r.pick(authSchemes)
		b.put(a, "scheme", b.str(scheme))
		switch scheme {
		case "oauth2":
			b.put(a, "token_url", b.url("https", false))
		case "api_key":
			b.put(a, "header", b.str(r.pick(headerNames)))
		}
		if r.intn(6) == 0 { // AuthConfig is open to other members
			b.put(a, "audience", b.str("agents"))
		}
	}
	if r.intn(4) != 0 {
		pr := b.put(root, "pricing", b.object())
		b.put(pr, "base_cost_joules", b.decimal(29, 99, -r.between(12, 20)))
		if r.intn(2) == 0 {
			b.put(pr, "estimated_latency_ms", b.decimal(10, 99, r.between(1, 3)))
		}
		if r.intn(3) == 0 {
			b.put(pr, "currency", b.str(r.pick(currencies)))
			b.put(pr, "cost_per_request", b.decimal(10, 99, -r.between(2, 5)))
		}
	}
	if r.intn(7) != 0 {
		m := b.put(root, "metadata", b.object())
		b.put(m, "pacr:interaction_count", b.num(r.intn(200000)))
		b.put(m, "pacr:avg_latency_ms", b.decimal(10, 99, r.between(0, 3)))
		if r.intn(2) == 0 {
			b.put(m, "pacr:avg_cost_joules", b.decimal(10, 99, -r.between(12, 19)))
		}
		b.put(m, "pacr:reputation_score", b.fraction())
		if r.intn(2) == 0 {
			b.put(m, "pacr:influence_rank", b.fraction())
			b.put(m, "pacr:critical_score", b.fraction())
		}
		b.put(m, "pacr:trust_tier", b.str(r.pick(trustTiers)))
		b.put(m, "framework", b.str(r.pick(frameworks)))
	}

	switch v {
	case "escapes":
		b.set("/capabilities/0/description", b.raw(`"Summarise \"quoted\" text \u2014 fast\/reliably;\ttabs, caf\u00e9 and \ud83d\ude80 included\\"`))
		b.set("/endpoint/url", b.raw(`"https:\/\/agents.example.com\/api\/v1"`))
		b.set("/name", b.raw(`"Caf\u00e9 \"Agent\""`))
	case "escaped-key":
		b.rename("/agent_id", `agent\u005fid`)
		b.rename("/endpoint/url", `\u0075rl`)
	case "null-values":
		b.set("/endpoint/auth", b.raw("null"))
		b.set("/pricing", b.raw("null"))
		b.set("/capabilities/0/input_schema", b.raw("null"))
		b.set("/capabilities/0/output_schema", b.raw("null"))
	case "boundary-values":
		pr := b.set("/pricing", b.object())
		for _, k := range [...]string{"base_cost_joules", "estimated_latency_ms", "cost_per_request"} {
			b.put(pr, k, b.raw(r.pickS("0", "0.0", "-0", "null")))
		}
		b.put(pr, "currency", b.raw(r.pickS(`"ABC"`, `"ABCDEFGHIJ"`, "null")))
		b.set("/metadata/pacr:interaction_count", b.raw(r.pickS("0", "12.0", "1e2")))
		b.set("/metadata/pacr:reputation_score", b.raw(r.pickS("1", "1.0", "0", "100e-2")))
		b.set("/metadata/pacr:critical_score", b.raw("0"))
		b.set("/capabilities/0/description", b.longText(512))
		b.set("/capabilities/0/id", b.str("text.", strings.Repeat("x", 123)))
		b.set("/capabilities/0/tags", b.strings(strings.Repeat("é", 64), "search"))
	}
}

// longText returns a string of exactly n code points, mostly multi-byte.
func (b *builder) longText(n int) int32 {
	pieces := [...]string{"a", "é", "字", " "}
	start := b.mark()
	for i := 0; i < n; i++ {
		b.text = append(b.text, pieces[i%len(pieces)]...)
	}
	return b.strFrom(start)
}
