package fastvalidate

import (
	"strings"
	"testing"
)

// TestAuto_Detection holds the rule of docs/design.md (Profiles): auto
// reads a card as a dialect only when it has enough of that dialect's
// structure, and says what a file that is no card looks like. The files
// here are made up in the shape of the well-known documents they stand for.
func TestAuto_Detection(t *testing.T) {
	agentcard := card(nil)
	for _, tc := range []struct {
		name, card, profile string
		path, msg           string // of the profile.unknown finding, when profile is ""
	}{
		// Names other documents share are not enough.
		{name: "site descriptor with url", card: `{"name": "Acme", "url": "https://acme.example", "description": "Our site", "logo": "https://acme.example/logo.png"}`, msg: "too little of any dialect"},
		{name: "API directory with skills as strings", card: `{"name": "tools", "url": "https://api.example", "skills": ["search", "fetch"]}`, msg: "too little of any dialect"},
		{name: "MCP-style capabilities and url", card: `{"name": "srv", "url": "https://mcp.example", "capabilities": {"tools": {}, "prompts": {}}}`, msg: "too little of any dialect"},
		{name: "slug agent_id alone", card: `{"agent_id": "weather-bot", "name": "Weather", "description": "Forecasts"}`, msg: "agent_id alone is too little of an AgentCard"},
		// Well-known documents that are no card.
		{name: "ERC-8004 registration", card: `{"type": "https://eips.ethereum.org/EIPS/eip-8004#registration-v1", "name": "Bot", "url": "https://bot.example", "services": [{"name": "A2A", "endpoint": "https://bot.example/.well-known/agent-card.json"}]}`, msg: "ERC-8004 agent registration"},
		{name: "MCP server.json", card: `{"$schema": "https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json", "name": "io.example/srv", "description": "d", "version": "1.0.0", "remotes": [{"type": "streamable-http", "url": "https://mcp.example/mcp"}]}`, msg: "MCP server.json"},
		{name: "MCP server.json without $schema", card: `{"name": "io.example/srv", "version": "1.0.0", "packages": [{"registryType": "npm", "identifier": "srv"}]}`, msg: "MCP server.json"},
		{name: "OpenAI plugin manifest", card: `{"schema_version": "v1", "name_for_human": "Todo", "name_for_model": "todo", "description_for_model": "d", "auth": {"type": "none"}, "api": {"type": "openapi", "url": "https://todo.example/openapi.yaml"}, "logo_url": "https://todo.example/logo.png"}`, msg: "OpenAI plugin manifest"},
		{name: "directory of cards", card: `{"version": 1, "agents": [` + a2aCard03 + `,` + a2aCard10 + `]}`, path: "/agents/0", msg: "a directory of cards, not a card: its first entry, here, is a card (a2a/0.3)"},
		{name: "directory of agents that are no cards", card: `{"agents": [{"name": "a", "url": "https://a.example"}]}`, path: "/agents", msg: "a directory of agents"},
		{name: "wrapped card", card: `{"agentCard": ` + a2aCard10 + `, "fetchedAt": "2025-01-01"}`, path: "/agentCard", msg: "this member is a card (a2a/1.0)"},
		{name: "JSON-RPC result", card: `{"jsonrpc": "2.0", "id": 1, "result": ` + a2aCard02 + `}`, path: "/result", msg: "JSON-RPC response: its result is a card (a2a/0.2)"},
		{name: "wrapped AgentCard", card: `{"card": ` + agentcard + `}`, path: "/card", msg: "a card (agentcard)"},
		{name: "wrapped MA2D card", card: `{"data": ` + ma2dCard + `}`, path: "/data", msg: "a card (ma2d)"},
		// protocolVersion is A2A's only when its value may be an A2A
		// version: a date is MCP's (A2A's are Major.Minor, 1.0 section
		// 3.6), and 0.1.0 predates the member (it came with 0.2.5).
		{name: "MCP server descriptor", card: `{"schema": "mcp", "name": "weather", "version": "1.4.0", "protocolVersion": "2025-11-25", "endpoint": "https://mcp.example/mcp", "tools": [{"name": "forecast", "description": "Forecast"}]}`, msg: "an MCP server descriptor"},
		{name: "MCP initialize result", card: `{"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "srv", "version": "1.0.0"}}`, msg: "an MCP server descriptor"},
		{name: "extension commerce descriptor", card: `{"protocol": "acp", "protocolVersion": "0.1.0", "serviceId": "svc-42", "agentCardUrl": "https://shop.example/.well-known/agent-card.json"}`, msg: "refers to an agent card at agentCardUrl"},
		{name: "protocolVersion of another protocol", card: `{"name": "x", "protocolVersion": "0.1.0", "endpoint": "https://a.example"}`, path: "/protocolVersion", msg: `protocolVersion is no A2A version`},
		{name: "a2a by its shape, with a date protocolVersion", card: `{"name": "x", "protocolVersion": "2025-06-18", "skills": [{"id": "s", "name": "S"}]}`, profile: "a2a/0.2"},
		{name: "a2a by protocolVersion 0.2.9", card: `{"protocolVersion": "0.2.9", "name": "x"}`, profile: "a2a/0.2"},
		// Enough structure: one member of the dialect's own, or two signs.
		{name: "a2a by defaultInputModes alone", card: `{"name": "x", "defaultInputModes": ["text/plain"]}`, profile: "a2a/0.2"},
		{name: "a2a by skills with id and name", card: `{"skills": [{"id": "s", "name": "S"}]}`, profile: "a2a/0.2"},
		{name: "a2a by url and AgentCapabilities", card: `{"url": "https://a.example", "capabilities": {"streaming": true}}`, profile: "a2a/0.2"},
		{name: "a2a by url and provider", card: `{"url": "https://a.example", "provider": {"organization": "O"}}`, profile: "a2a/0.2"},
		{name: "a2a with a number protocolVersion", card: `{"protocolVersion": 1.0, "name": "x"}`, profile: "a2a/0.2"},
		{name: "agentcard by agent_id and endpoint", card: `{"agent_id": "weather-bot", "endpoint": "https://a.example"}`, profile: "agentcard"},
		{name: "agentcard by agent_id and capability list", card: `{"agent_id": "weather-bot", "capabilities": []}`, profile: "agentcard"},
		{name: "ma2d by skill shape, no invocation", card: `{"name": "w", "skills": [{"name": "get_weather", "description": "d", "mcp_server": "weather"}], "capabilities": {"languages": ["en"]}}`, profile: "ma2d"},
		{name: "ma2d by examples naming a skill", card: `{"name": "w", "skills": [{"name": "get_weather"}], "examples": [{"skill": "get_weather", "input": {}, "output": {}}]}`, profile: "ma2d"},
		{name: "a2a skills outweigh an ma2d capability", card: `{"skills": [{"id": "s", "name": "S"}], "capabilities": {"languages": ["en"]}}`, profile: "a2a/0.2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newTestValidator(t, "auto").Validate([]byte(tc.card))
			if r.Profile != tc.profile {
				t.Fatalf("Profile = %q, want %q; findings %v", r.Profile, tc.profile, r.Findings())
			}
			if tc.profile != "" {
				for _, f := range r.Findings() {
					if f.Code == CodeProfileUnknown {
						t.Errorf("profile.unknown for a card judged as %s", r.Profile)
					}
				}
				return
			}
			fs := r.Findings()
			if len(fs) != 1 || fs[0].Code != CodeProfileUnknown {
				t.Fatalf("findings %v, want one profile.unknown", fs)
			}
			if fs[0].Path != tc.path {
				t.Errorf("path %q, want %q", fs[0].Path, tc.path)
			}
			if msg := fs[0].Message(); !strings.Contains(msg, tc.msg) {
				t.Errorf("message %q does not say %q", msg, tc.msg)
			}
		})
	}
}

// Hints and detection allocate nothing once warm, as the rest of auto.
func TestAuto_HintAllocs(t *testing.T) {
	v := newTestValidator(t, "auto")
	for _, c := range []string{
		`{"agentCard": ` + a2aCard10 + `}`,
		`{"type": "https://eips.ethereum.org/EIPS/eip-8004#registration-v1", "name": "Bot"}`,
		`{"url": "https://a.example", "skills": ["a"]}`,
		`{"schema": "mcp", "protocolVersion": "2025-11-25", "tools": []}`,
		`{"protocolVersion": "0.1.0", "name": "x"}`,
	} {
		card := []byte(c)
		testAllocs(t, c[:20], 0, func() { v.Validate(card) })
	}
}

// A JSON string that holds no JSON object is valid JSON and no card:
// card.type, as every profile says, not json.syntax. A string whose text
// opens an object is the embedded form with broken JSON, and keeps
// json.syntax.
func TestAuto_StringHoldingNoObject(t *testing.T) {
	for _, tc := range []struct{ card, rule string }{
		{`"hello"`, "card.type"},
		{`"https://a.example https://b.example"`, "card.type"},
		{`"[\"https://a.example\", \"https://b.example\"]"`, "card.type"},
		{`"[\"https://a.example\", "`, "card.type"},
		{`""`, "card.type"},
		{`"  \n"`, "card.type"},
		// Broken text is no JSON wherever it breaks: a repeated name, a
		// lone surrogate or deep nesting before the break does not make
		// it JSON that is merely not I-JSON.
		{`"[{\"a\": 1, \"a\": 2}, 1.]"`, "card.type"},
		{`"[\"\\ud800\", 1.]"`, "card.type"},
		{`"` + strings.Repeat("[", DefaultMaxDepth+1) + `1.` + `"`, "card.type"},
		// JSON that is not I-JSON keeps its strict finding.
		{`"[{\"a\": 1, \"a\": 2}, 1]"`, "json.duplicate-key"},
		{`"[\"\\ud800\", 1]"`, "json.utf8"},
		{`"{\"name\": "`, "json.syntax"},
		{`" \n {\"name\": 1,}"`, "json.syntax"},
	} {
		for _, profile := range []string{"auto", "agentcard", "a2a"} {
			r := newTestValidator(t, profile).Validate([]byte(tc.card))
			fs := r.Findings()
			if r.Valid() || len(fs) != 1 || fs[0].Rule() != tc.rule && profile != "a2a" {
				t.Errorf("%s: %s: findings %v, want one %s", profile, tc.card, fs, tc.rule)
			}
		}
	}
}
