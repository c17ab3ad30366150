package corpus

import "strconv"

// The agentcard dialect: draft-aevum-agentcard-00, sections 2, 3 and 5.

func init() {
	registerDialect("agentcard", "agentcard", buildAgentCard)
}

// agentcardVariants are the valid shapes a validator most easily gets
// wrong; every one must stay valid.
var agentcardVariants = []variant{
	{"embedded-string", 0.04},      // section 3: the card as a JSON string
	{"escapes", 0.06},              // backslash escapes, a surrogate pair
	{"escaped-key", 0.03},          // a member name spelled with \u escapes
	{"name-128-code-points", 0.02}, // the longest name, mostly multi-byte
	{"boundary-values", 0.03},      // the Landauer floor itself, priorities 0 and 1
	{"unknown-fields", 0.05},       // section 5 rule 10: ignored at every level
}

func buildAgentCard(b *builder) {
	r := b.r
	v := b.pickVariant(agentcardVariants)
	root := b.cardHead(v, false)

	endpoint := b.put(root, "endpoint", b.object())
	b.draftEndpoint(endpoint)

	if r.intn(5) != 0 {
		p := b.put(root, "pricing", b.object())
		b.put(p, "base_cost_joules", b.decimal(29, 99, -r.between(12, 20)))
		if r.intn(4) != 0 {
			b.put(p, "per_token_joules", b.decimal(10, 99, -r.between(19, 24)))
		}
	}
	if r.intn(7) != 0 {
		m := b.put(root, "metadata", b.object())
		b.put(m, "pacr:trust_tier", b.str(r.pick(trustTiers)))
		b.put(m, "pacr:substrate_scope", b.str(r.pick(substrates)))
		b.put(m, "framework", b.str(r.pick(frameworks)))
		b.put(m, "created_at", b.timestamp())
		if r.intn(3) == 0 {
			b.put(m, "mcp:server", b.str(r.pick(hostPrefixes), "-", r.pick(capVerbs)))
		}
		if r.intn(3) == 0 {
			b.put(m, "region", b.str(r.pick(regions)))
		}
	}
	if r.intn(2) == 0 {
		goals := b.put(root, "goal_subscriptions", b.array())
		for i, n := 0, r.between(1, 3); i < n; i++ {
			g := b.push(goals, b.object())
			b.put(g, "goal_id", b.ulid())
			b.put(g, "description", b.str(r.pick(goalTopics), " for ", r.pick(quarters), " 202", strconv.Itoa(r.between(5, 6))))
			if r.intn(4) != 0 {
				b.put(g, "priority", b.fraction())
			}
		}
	}

	switch v {
	case "embedded-string":
		b.embed = true
	case "escapes":
		b.set("/capabilities/0/description", b.raw(`"Summarise \"quoted\" text \u2014 fast\/reliably;\ttabs,\nnewlines, caf\u00e9 and \ud83d\ude80 included\\"`))
		b.set("/endpoint/url", b.raw(`"https:\/\/agents.example.com\/api\/v1"`))
		b.set("/metadata/notes", b.raw(`"\b\f\r\u0000\u001f \u00ff\u20ac"`))
	case "escaped-key":
		// Names decode before they are matched: these are the plain
		// agent_id and endpoint.url, and nothing is missing.
		b.rename("/agent_id", `agent\u005fid`)
		b.rename("/endpoint/url", `\u0075rl`)
	case "boundary-values":
		b.set("/pricing/base_cost_joules", b.raw(b.r.pickS("2.854e-21", "2.8540e-21", "0", "0.0", "-0", "2854e-24", "0.000000000000000000002854")))
		b.set("/pricing/per_token_joules", b.raw(b.r.pickS("0", "-0.0", "0e5")))
		goals := b.set("/goal_subscriptions", b.array())
		for _, p := range [...]string{"0", "1", "1.0", "1e0", "0.0", "-0", "10e-1"} {
			g := b.push(goals, b.object())
			b.put(g, "goal_id", b.ulid())
			b.put(g, "priority", b.raw(p))
		}
	case "unknown-fields":
		x := b.put(root, "x-registry", b.object())
		b.put(x, "listed", b.boolean(true))
		b.put(x, "mirrors", b.strings("eu", "us"))
		b.set("/capabilities/0/examples", b.strings("Summarise this page."))
		b.set("/endpoint/timeout_ms", b.num(3000))
		b.set("/endpoint/auth/token_url", b.str("https://auth.example.com/token"))
		b.set("/pricing/currency", b.str("USD"))
		b.set("/goal_subscriptions", b.array())
		g := b.push(b.at("/goal_subscriptions"), b.object())
		b.put(g, "goal_id", b.ulid())
		b.put(g, "deadline", b.timestamp())
		b.put(root, "schema_version", b.raw("null"))
	}
}

func (r *rng) pickS(list ...string) string { return list[r.intn(len(list))] }

// capabilities fills arr with n capabilities with distinct ids. For the
// schema dialect every capability has a description, tags stay unique and
// schemas may be null.
func (b *builder) capabilities(arr int32, n int, schema bool) {
	r := b.r
	ids := make([]string, 0, 8)
	for len(ids) < n {
		id := r.pick(capNamespaces) + "." + r.pick(capVerbs)
		dup := false
		for _, x := range ids {
			dup = dup || x == id
		}
		if dup {
			continue
		}
		ids = append(ids, id)
		c := b.push(arr, b.object())
		b.put(c, "id", b.str(id))
		// The draft only RECOMMENDS a description; a few real cards lack
		// one, which costs a warning, not validity.
		if schema || r.intn(80) != 0 {
			b.put(c, "description", b.sentence())
		}
		if r.intn(2) == 0 {
			b.scratch = r.pickDistinct(b.scratch[:0], tagWords, r.between(1, 3))
			tags := b.put(c, "tags", b.array())
			for _, t := range b.scratch {
				b.push(tags, b.str(t))
			}
		}
		switch {
		case schema && r.intn(10) == 0:
			b.put(c, "input_schema", b.raw("null"))
		case r.intn(5) < 2:
			b.put(c, "input_schema", b.inputSchema(paramNames))
		}
		switch {
		case schema && r.intn(10) == 0:
			b.put(c, "output_schema", b.raw("null"))
		case r.intn(5) == 0:
			b.put(c, "output_schema", b.inputSchema(resultNames))
		}
	}
}

// draftEndpoint fills an endpoint of the draft: the URL always fits the
// protocol, and a plain http URL, legal but warned about, is rare.
func (b *builder) draftEndpoint(e int32) {
	r := b.r
	switch x := r.intn(100); {
	case x < 70:
		b.put(e, "protocol", b.str("https"))
		b.put(e, "url", b.url("https", r.intn(5) == 0))
	case x < 76:
		b.put(e, "protocol", b.str("http"))
		b.put(e, "url", b.url(r.pickS("http", "https"), true))
	case x < 84:
		b.put(e, "protocol", b.str("grpc"))
		if r.intn(2) == 0 {
			b.put(e, "url", b.url("grpc", true))
		} else {
			start := b.mark()
			b.text = append(b.text, "dns:///"...)
			b.text = b.appendHost(b.text)
			b.text = append(b.text, ":443"...)
			b.put(e, "url", b.strFrom(start))
		}
	case x < 92:
		b.put(e, "protocol", b.str("mcp"))
		b.put(e, "url", b.url(r.pickS("mcp", "https"), false))
	default:
		b.put(e, "protocol", b.str("stdio"))
		if r.intn(2) == 0 {
			b.put(e, "url", b.str("file:///usr/local/bin/", r.pick(capVerbs), "-agent"))
		} else {
			b.put(e, "url", b.str("stdio:", r.pick(capVerbs), "-agent"))
		}
	}
	if r.intn(4) != 0 {
		a := b.put(e, "auth", b.object())
		b.put(a, "scheme", b.str(r.pick(authSchemes)))
	}
}

// cardHead starts a card of either AgentCard dialect with the members they
// share: agent_id, name, version and 3 to 8 capabilities (each with the
// description the schema dialect requires).
func (b *builder) cardHead(variant string, schemaDialect bool) int32 {
	root := b.object()
	b.put(root, "agent_id", b.ulid())
	if variant == "name-128-code-points" {
		b.put(root, "name", b.longName(128))
	} else {
		b.put(root, "name", b.agentName())
	}
	b.put(root, "version", b.semver())
	caps := b.put(root, "capabilities", b.array())
	b.capabilities(caps, b.r.between(3, 8), schemaDialect)
	return root
}
