package fastvalidate

import (
	"bytes"
	"encoding/json"

	"github.com/cardscan/cardscan/fastvalidate/internal/tape"
)

// The auto profile picks a dialect per card from its top-level member
// names, in one pass over them, and judges the card by it. Result.Profile
// names the dialect (and for A2A the version) that judged.

func init() {
	registerProfileDef(profileDef{
		name:     "auto",
		doc:      "per card, by its structure: agentcard, ma2d or a2a (version detected), profile.unknown with a hint when it has too little of any",
		check:    checkAuto,
		rejected: autoRejected,
	})
}

// topMembers holds the value nodes of the top-level members that profile
// detection and the A2A checks look at; 0 means absent. One pass over the
// card's keys fills it.
type topMembers struct {
	name, description, url, version, protocolVersion, provider    uint32
	documentationURL, iconURL, capabilities, authentication       uint32
	securitySchemes, security, securityRequirements               uint32
	defaultInputModes, defaultOutputModes, skills, extendedCard   uint32
	preferredTransport, additionalInterfaces, supportedInterfaces uint32
	signatures                                                    uint32
	// protocolVersionSnake is protocol_version, the proto's field name,
	// which a card may state its release by (see a2aVersionOf).
	protocolVersionSnake uint32
	// versionJudged says a2a.protocol-version has been reported for
	// protocolVersion already, so that a hybrid card's legacy members
	// do not report it again.
	versionJudged bool

	agentID, endpoint, invocation, examples uint32 // other dialects' members
	snakeCase                               bool   // some member is a snake_case spelling of an A2A name
}

// collectTop fills m from the card's top-level members. It also reads a
// tape the scan gave up on (see autoRejected): k+1 < end rather than
// k < end is the same on a whole tape, where a value follows every name,
// and stops before a name that ends a cut one.
func (w *walker) collectTop(m *topMembers) { w.collectMembers(0, m) }

// collectMembers fills m from the members of object obj, the card or an
// object nested in it that may be one (see unknown).
func (w *walker) collectMembers(obj uint32, m *topMembers) {
	vw := w.vw // see tape.View
	for k, end := obj+1, vw.End(obj); k+1 < end; k = vw.NextMember(k) {
		v := k + 1
		name := vw.Name(k)
		switch string(name) {
		case "name":
			m.name = v
		case "description":
			m.description = v
		case "url":
			m.url = v
		case "version":
			m.version = v
		case "protocolVersion":
			m.protocolVersion = v
		case "provider":
			m.provider = v
		case "documentationUrl":
			m.documentationURL = v
		case "iconUrl":
			m.iconURL = v
		case "capabilities":
			m.capabilities = v
		case "authentication":
			m.authentication = v
		case "securitySchemes":
			m.securitySchemes = v
		case "security":
			m.security = v
		case "securityRequirements":
			m.securityRequirements = v
		case "defaultInputModes":
			m.defaultInputModes = v
		case "defaultOutputModes":
			m.defaultOutputModes = v
		case "skills":
			m.skills = v
		case "supportsAuthenticatedExtendedCard":
			m.extendedCard = v
		case "preferredTransport":
			m.preferredTransport = v
		case "additionalInterfaces":
			m.additionalInterfaces = v
		case "supportedInterfaces":
			m.supportedInterfaces = v
		case "signatures":
			m.signatures = v
		case "agent_id":
			m.agentID = v
		case "endpoint":
			m.endpoint = v
		case "examples":
			m.examples = v
		case "invocation":
			m.invocation = v
		case "protocol_version":
			m.protocolVersionSnake = v
			m.snakeCase = true
		default:
			if snakeAliasOf(name, inCard) != nil {
				m.snakeCase = true
			}
		}
	}
}

// dialect is a family of cards auto tells apart.
type dialect uint8

const (
	dialectNone dialect = iota
	dialectAgentCard
	dialectMA2D
	dialectA2A
)

// How auto weighs a card's structure. A member only one dialect defines
// decides alone; the names several kinds of JSON document share (url,
// capabilities, skills, provider) count only in their dialect's shape, and
// an A2A card needs two such signs. docs/design.md (Profiles) states the
// same rule for users; TestAuto_Detection holds its cases.
const (
	// dialectDecides is what one member of a dialect's own counts.
	dialectDecides = 2
	// dialectThreshold is the weight from which a card is read as a
	// dialect's: one member of its own, or two lesser signs.
	dialectThreshold = 2
)

// dialectOf names the family whose structure the card has, or dialectNone
// when it has too little of any:
//
//   - AgentCard: agent_id with endpoint, or with capabilities as an array
//     (an agent_id alone names nothing: other formats use the name too);
//   - MA2D: invocation; or, weighed against A2A, skills in MA2D's shape
//     (mcp_server, mcp_tool or returns, no id) or examples naming a skill,
//     2 each, and capabilities holding MA2D's members, 1;
//   - A2A: any of protocolVersion (unless its value is another
//     protocol's version, see foreignVersion), supportedInterfaces,
//     preferredTransport, additionalInterfaces, defaultInputModes,
//     defaultOutputModes or supportsAuthenticatedExtendedCard; or skills
//     as a non-empty array of
//     objects each with id and name, 2; or skills empty, url (a string), capabilities (an
//     object, empty or with an A2A member), provider with organization,
//     securitySchemes, security, authentication with schemes,
//     documentationUrl, iconUrl, signatures, a snake_case spelling of an
//     A2A member, 1 each.
//
// A2A wins a tie with MA2D. Peeking into skills and capabilities only
// happens when no decisive member settled the card, so that a valid card
// pays for detection with one pass over its top-level names.
func (w *walker) dialectOf(m *topMembers) dialect {
	if m.agentID != 0 && (m.endpoint != 0 || m.capabilities != 0 && w.kind(m.capabilities) == tape.KindArray) {
		return dialectAgentCard
	}
	if m.invocation != 0 {
		return dialectMA2D
	}
	if m.supportedInterfaces|m.preferredTransport|m.additionalInterfaces|m.defaultInputModes|m.defaultOutputModes|m.extendedCard != 0 ||
		m.protocolVersion != 0 && !w.foreignVersion(m.protocolVersion) {
		return dialectA2A
	}
	a2a, ma2d := w.a2aWeight(m), w.ma2dWeight(m)
	switch {
	case a2a >= dialectThreshold && a2a >= ma2d:
		return dialectA2A
	case ma2d >= dialectThreshold:
		return dialectMA2D
	}
	return dialectNone
}

// foreignVersion reports whether protocolVersion node n holds a version
// no A2A card can state, so that the member, whose name other protocols
// share, says nothing of A2A: a date, as MCP's versions are (A2A's are
// Major.Minor, 1.0 section 3.6), or a version before 0.2, which predates
// the member (it came with 0.2.5). Any other value, a number or "0.2.9"
// included, is an A2A card's claim, right or wrong (a2a.protocol-version
// judges it).
func (w *walker) foreignVersion(n uint32) bool {
	if !w.peek(n, tape.KindString) {
		return false
	}
	v := w.str(n)
	return isDateVersion(v) || len(v) >= 3 && v[0] == '0' && v[1] == '.' && (v[2] == '0' || v[2] == '1') && (len(v) == 3 || v[3] == '.')
}

// isDateVersion reports whether v begins as a YYYY-MM-DD date.
func isDateVersion(v []byte) bool {
	if len(v) < 10 || v[4] != '-' || v[7] != '-' {
		return false
	}
	for _, i := range [...]int{0, 1, 2, 3, 5, 6, 8, 9} {
		if v[i]-'0' > 9 {
			return false
		}
	}
	return true
}

// peek reports whether node n is of kind k and read whole, so that its
// contents may be looked at: autoRejected weighs cards the scan gave up
// on, whose nodes on the path to the failure are unfinished.
func (w *walker) peek(n uint32, k tape.Kind) bool {
	return n != 0 && w.kind(n) == k && w.sc.Whole(n)
}

// a2aWeight weighs the A2A structure of a card no decisive member marked.
func (w *walker) a2aWeight(m *topMembers) int {
	weight := 0
	if w.peek(m.skills, tape.KindArray) {
		switch {
		case w.empty(m.skills):
			// What the 0.x schemas allow and MA2D does not.
			weight++
		case w.skillsWithIDAndName(m.skills):
			weight += dialectDecides
		}
	}
	if w.peek(m.capabilities, tape.KindObject) && w.a2aCapabilities(m.capabilities) {
		weight++
	}
	if w.peek(m.provider, tape.KindObject) && w.member(m.provider, "organization") != 0 {
		weight++
	}
	if w.peek(m.authentication, tape.KindObject) && w.member(m.authentication, "schemes") != 0 {
		weight++
	}
	for _, sign := range [...]struct {
		n uint32
		k tape.Kind
	}{{m.url, tape.KindString}, {m.securitySchemes, tape.KindObject}, {m.security, tape.KindArray}, {m.documentationURL, tape.KindString}, {m.iconURL, tape.KindString}, {m.signatures, tape.KindArray}} {
		if sign.n != 0 && w.kind(sign.n) == sign.k {
			weight++
		}
	}
	if m.snakeCase {
		weight++
	}
	return weight
}

// skillsWithIDAndName reports whether arr holds skills in A2A's shape:
// objects, each with an id and a name.
func (w *walker) skillsWithIDAndName(arr uint32) bool {
	if w.empty(arr) {
		return false
	}
	for s := arr + 1; s < w.end(arr); s = w.next(s) {
		if w.kind(s) != tape.KindObject || w.member(s, "id") == 0 || w.member(s, "name") == 0 {
			return false
		}
	}
	return true
}

// a2aCapabilities reports whether caps looks like AgentCapabilities: empty,
// or with one of its members. MCP's capabilities (tools, prompts) and
// MA2D's (languages, domains) have none.
func (w *walker) a2aCapabilities(caps uint32) bool {
	if w.empty(caps) {
		return true
	}
	for k := caps + 1; k < w.end(caps); k = w.next(k + 1) {
		switch string(w.name(k)) {
		case "streaming", "pushNotifications", "stateTransitionHistory", "extensions", "extendedAgentCard":
			return true
		}
	}
	return false
}

// ma2dWeight weighs the MA2D structure of a card without invocation.
func (w *walker) ma2dWeight(m *topMembers) int {
	weight := 0
	if w.peek(m.skills, tape.KindArray) && w.ma2dSkillShape(m.skills) {
		weight += dialectDecides
	}
	if w.peek(m.examples, tape.KindArray) && !w.empty(m.examples) {
		if e := m.examples + 1; w.kind(e) == tape.KindObject && w.member(e, "skill") != 0 {
			weight += dialectDecides
		}
	}
	if w.peek(m.capabilities, tape.KindObject) {
		for k := m.capabilities + 1; k < w.end(m.capabilities); k = w.next(k + 1) {
			switch string(w.name(k)) {
			case "languages", "domains", "input_modes", "output_modes", "state_management", "rate_limit":
				weight++
				return weight
			}
		}
	}
	return weight
}

// ma2dSkillShape reports whether a skill of arr has MA2D's own members and no
// id, which MA2D skills lack and A2A skills require.
func (w *walker) ma2dSkillShape(arr uint32) bool {
	for s := arr + 1; s < w.end(arr); s = w.next(s) {
		if w.kind(s) != tape.KindObject || w.member(s, "id") != 0 {
			continue
		}
		if w.member(s, "mcp_server")|w.member(s, "mcp_tool")|w.member(s, "returns") != 0 {
			return true
		}
	}
	return false
}

func checkAuto(w *walker) string {
	var m topMembers
	w.collectTop(&m)
	switch w.dialectOf(&m) {
	case dialectAgentCard:
		return checkAgentCard(w)
	case dialectMA2D:
		if !w.notEmbedded("ma2d") {
			return "ma2d"
		}
		return checkMA2D(w)
	case dialectA2A:
		if !w.notEmbedded("a2a") {
			return "a2a"
		}
		return w.checkA2ADetected(&m)
	}
	w.unknown(&m)
	return ""
}

// autoRejected names the dialect of a card the scan rejected, so that the
// cards of a dump that fail strict JSON are counted with their dialect,
// not apart. What it reads of the tape the scan gave up on is what the
// scan read whole: the names of the top-level members before the point
// where it stopped (all of them when the root object closed, as it has
// for a repeated top-level name or trailing data), and of values only
// those outside the path from the root to the failure. A card cut short
// is read as far as it goes, so a 1.0 card cut before supportedInterfaces
// is taken for 0.x, as the same card without it would be. When
// protocolVersion is needed but its value was not read whole (or is
// repeated: the later one is the failure), the version is unknown and the
// card is counted as "a2a". A card that is no object names nothing, and
// neither does a string holding a card of another dialect than AgentCard:
// its own profile rejects the string as it is (see notEmbedded).
func autoRejected(w *walker) string {
	if w.vw.Len() == 0 || w.kind(0) != tape.KindObject {
		return ""
	}
	var m topMembers
	w.collectTop(&m)
	d := w.dialectOf(&m)
	if w.unwrapped && d != dialectAgentCard {
		return ""
	}
	switch d {
	case dialectAgentCard:
		return "agentcard"
	case dialectMA2D:
		return "ma2d"
	case dialectA2A:
		if m.supportedInterfaces == 0 && m.protocolVersion != 0 && !w.sc.Whole(m.protocolVersion) {
			return "a2a"
		}
		ver, how := w.a2aVersionOf(&m)
		w.res.Assumed = how == versionAssumed
		return a2aProfileName[ver]
	}
	return ""
}

// notEmbedded reports whether the card came as an object. Only the
// AgentCard draft lets a card come as a JSON string holding it; a card of
// another dialect in that form gets the verdict its own profile gives,
// card.type, so that auto and the profile it names never disagree.
func (w *walker) notEmbedded(profile string) bool {
	if !w.unwrapped {
		return true
	}
	w.res.add(Finding{Code: CodeCardType, Severity: w.severity(CodeCardType), msg: "card is not a JSON object but a string holding one, a form only the AgentCard draft allows; its members are those of %s", got: profile})
	return false
}

// holdsNoObject reports whether the text of a string card, which failed
// to scan as JSON, does not begin as an object would; if so it goes back
// to card, the string itself, for the checks to call it no object. A
// string holding "hello" or a list of URLs is valid JSON that is no card
// (card.type, as under every profile), not a card in the draft's embedded
// form whose JSON is broken (json.syntax, kept for a text that opens an
// object). Text that is JSON but not I-JSON (a duplicate name, a lone
// surrogate, nesting too deep) keeps its strict finding: the draft's
// reader would parse it, so it must be judged as strictly as any card.
//
// Whether the text is JSON is a question about all of it, not about the
// first fault the scan met: a repeated name may come before the break, and
// a text that breaks anywhere is no JSON, whatever came first. The scan
// stops at its first fault, so for any other than a syntax error the rest
// is read by encoding/json.Valid, the grammar alone (it takes repeated
// names, lone surrogates and deep nesting, which are not syntax). This
// runs only for a string card whose text failed and opens no object.
func (w *walker) holdsNoObject(card []byte) bool {
	if text := bytes.TrimLeft(w.b, " \t\n\r"); len(text) > 0 && text[0] == '{' {
		return false
	}
	if scanCode(&w.sc) != CodeJSONSyntax && json.Valid(w.b) {
		return false
	}
	w.b, w.unwrapped = card, false
	w.scan(card) // it scanned before, as a string
	return true
}
