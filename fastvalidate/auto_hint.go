package fastvalidate

import "github.com/cardscan/cardscan/fastvalidate/internal/tape"

// What auto says of a file that is no card of any dialect it knows. Many
// such files are well-known documents of their own (registrations, server
// manifests, plugin manifests) or hold a card one level down; naming what
// the file is sends its author to the right fix, where "missing
// defaultInputModes" would send them after the wrong one.
//
// A card nested in a file is named, with its JSON Pointer, but not judged:
// the record is what a client fetches, and a client expecting a card
// cannot read one that is wrapped, so the record stays invalid whatever
// its nested card is worth.

const (
	msgUnknown = "too little of any dialect's structure: AgentCard wants agent_id with endpoint or an array capabilities; " +
		"MA2D invocation, or its skill or example shapes; A2A a member of its own (protocolVersion, supportedInterfaces, " +
		"defaultInputModes, ...), skills with id and name, or two lesser signs (url, an AgentCapabilities object, " +
		"provider.organization, ...); --profile judges a card as one dialect"
	msgAgentIDOnly = "agent_id alone is too little of an AgentCard (it wants endpoint or an array capabilities too), " +
		"and the file has too little of MA2D or A2A"
	msgERC8004             = "an ERC-8004 agent registration file (its type names EIP-8004), not an agent card; the agent's card, if any, is at an endpoint it lists"
	msgMCPServer           = "an MCP server.json (a server manifest: packages, remotes), not an agent card"
	msgPlugin              = "an OpenAI plugin manifest (ai-plugin.json), not an agent card"
	msgMCPServerDescriptor = "an MCP server descriptor (schema mcp, or a protocolVersion that is a date, as MCP's are, " +
		"with tools, serverInfo or endpoint), not an agent card"
	msgCardReference = "a descriptor that refers to an agent card at agentCardUrl (an extension's or service's own document), " +
		"not a card: validate the card at that URL"
	msgForeignVersion = "protocolVersion is no A2A version (A2A's are Major.Minor from 0.2 on, 1.0 section 3.6; " +
		"a date or 0.1 is another protocol's), and the file has too little else of any dialect"
	msgWrapped   = "not a card but an object holding one: this member is a card (%s); validate it on its own"
	msgJSONRPC   = "not a card but a JSON-RPC response: its result is a card (%s); validate the result on its own"
	msgDirectory = "a directory of cards, not a card: its first entry, here, is a card (%s); validate each entry on its own"
	msgAgentList = "a directory of agents, not a card: the list is here"
)

// unknown reports profile.unknown for a card of no dialect, saying what
// the file looks like where it is something well known.
func (w *walker) unknown(m *topMembers) {
	if t := w.member(0, "type"); t != 0 && w.kind(t) == tape.KindString {
		if v := w.str(t); containsFold(v, "eip-8004") || containsFold(v, "erc-8004") {
			w.addAt(CodeProfileUnknown, 0, msgERC8004, "")
			return
		}
	}
	if s := w.member(0, "$schema"); s != 0 && w.kind(s) == tape.KindString && containsFold(w.str(s), "modelcontextprotocol") ||
		w.member(0, "packages")|w.member(0, "remotes") != 0 && m.name != 0 {
		w.addAt(CodeProfileUnknown, 0, msgMCPServer, "")
		return
	}
	if w.mcpServerDescriptor(m) {
		w.addAt(CodeProfileUnknown, 0, msgMCPServerDescriptor, "")
		return
	}
	if w.member(0, "name_for_model")|w.member(0, "name_for_human") != 0 {
		w.addAt(CodeProfileUnknown, 0, msgPlugin, "")
		return
	}
	if w.member(0, "agentCardUrl")|w.member(0, "agent_card_url") != 0 {
		w.addAt(CodeProfileUnknown, 0, msgCardReference, "")
		return
	}
	if w.nestedCard() {
		return
	}
	if m.agentID != 0 {
		w.addAt(CodeProfileUnknown, 0, msgAgentIDOnly, "")
		return
	}
	if m.protocolVersion != 0 && w.foreignVersion(m.protocolVersion) {
		w.addGot(CodeProfileUnknown, m.protocolVersion, msgForeignVersion)
		return
	}
	w.addAt(CodeProfileUnknown, 0, msgUnknown, "")
}

// mcpServerDescriptor reports whether the file is an MCP server's
// description of itself: it says so in schema, or states a date as its
// protocolVersion beside one of MCP's members.
func (w *walker) mcpServerDescriptor(m *topMembers) bool {
	if s := w.member(0, "schema"); s != 0 && w.kind(s) == tape.KindString && containsFold(w.str(s), "mcp") {
		return true
	}
	return m.protocolVersion != 0 && w.kind(m.protocolVersion) == tape.KindString && isDateVersion(w.str(m.protocolVersion)) &&
		w.member(0, "tools")|w.member(0, "serverInfo")|m.endpoint != 0
}

// nestedCard reports, and says so, when a top-level member holds a card
// (a wrapper object, a JSON-RPC result) or a list of them, looking one
// level down only.
func (w *walker) nestedCard() bool {
	rpc := w.member(0, "jsonrpc") != 0
	for k := uint32(1); k < w.end(0); k = w.next(k + 1) {
		v := k + 1
		switch w.kind(v) {
		case tape.KindObject:
			if profile := w.cardAt(v); profile != "" {
				msg := msgWrapped
				if rpc && string(w.name(k)) == "result" {
					msg = msgJSONRPC
				}
				w.addAt(CodeProfileUnknown, v, msg, profile)
				return true
			}
		case tape.KindArray:
			if !w.empty(v) && w.kind(v+1) == tape.KindObject {
				if profile := w.cardAt(v + 1); profile != "" {
					w.addAt(CodeProfileUnknown, v+1, msgDirectory, profile)
					return true
				}
				if string(w.name(k)) == "agents" {
					w.addAt(CodeProfileUnknown, v, msgAgentList, "")
					return true
				}
			}
		}
	}
	return false
}

// cardAt returns the profile auto would judge object obj by, "" for none.
func (w *walker) cardAt(obj uint32) string {
	var m topMembers
	w.collectMembers(obj, &m)
	switch w.dialectOf(&m) {
	case dialectAgentCard:
		return "agentcard"
	case dialectMA2D:
		return "ma2d"
	case dialectA2A:
		ver, _ := w.a2aVersionOf(&m)
		return a2aProfileName[ver]
	}
	return ""
}

// addAt reports a finding at node n whose message names got with %s.
func (w *walker) addAt(c Code, n uint32, msg, got string) {
	if w.severity(c) == SeverityOff {
		return
	}
	if w.res.full() {
		w.res.countUnlisted(c, w.severity(c))
		return
	}
	start := len(w.res.arena)
	w.appendPath(n)
	w.res.add(Finding{Code: c, Severity: w.severity(c), Path: w.res.arenaString(start), Offset: w.offset(n), msg: msg, got: got})
}

// containsFold reports whether s holds lower, an ASCII lower-case text,
// in any case.
func containsFold(s []byte, lower string) bool {
	for i := 0; i+len(lower) <= len(s); i++ {
		j := 0
		for ; j < len(lower); j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != lower[j] {
				break
			}
		}
		if j == len(lower) {
			return true
		}
	}
	return false
}
