package fastvalidate

// The auto profile picks a dialect per card from its top-level member
// names, in one pass over them, and judges the card by it. Result.Profile
// names the dialect (and for A2A the version) that judged.

func init() {
	registerProfileDef(profileDef{
		name:     "auto",
		doc:      "per card: agentcard if agent_id, ma2d if invocation, a2a (version detected) if supportedInterfaces, url or skills",
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

	agentID, invocation uint32 // the telltales of other profiles
	snakeCase           bool   // some member is a snake_case spelling of an A2A name
}

// collectTop fills m from the card's top-level members. It also reads a
// tape the scan gave up on (see autoRejected): k+1 < end rather than
// k < end is the same on a whole tape, where a value follows every name,
// and stops before a name that ends a cut one.
func (w *walker) collectTop(m *topMembers) {
	for k := uint32(1); k+1 < w.end(0); k = w.next(k + 1) {
		v := k + 1
		name := w.name(k)
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
		case "invocation":
			m.invocation = v
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

// dialect names the family whose telltale members the card has.
func (m *topMembers) dialect() dialect {
	switch {
	case m.agentID != 0:
		return dialectAgentCard
	case m.invocation != 0:
		return dialectMA2D
	case m.supportedInterfaces != 0 || m.url != 0 || m.skills != 0:
		return dialectA2A
	}
	return dialectNone
}

func checkAuto(w *walker) string {
	var m topMembers
	w.collectTop(&m)
	switch m.dialect() {
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
	w.add(CodeProfileUnknown, 0, "no telltale member: looked for agent_id (agentcard), invocation (ma2d), supportedInterfaces, url and skills (a2a)")
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
	if len(w.sc.tape) == 0 || w.kind(0) != kindObject {
		return ""
	}
	var m topMembers
	w.collectTop(&m)
	d := m.dialect()
	if w.unwrapped && d != dialectAgentCard {
		return ""
	}
	switch d {
	case dialectAgentCard:
		return "agentcard"
	case dialectMA2D:
		return "ma2d"
	case dialectA2A:
		if m.supportedInterfaces == 0 && m.protocolVersion != 0 && !w.sc.whole(m.protocolVersion) {
			return "a2a"
		}
		ver, _ := w.a2aVersionOf(&m)
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
