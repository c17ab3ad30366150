package fastvalidate

// The auto profile picks a dialect per card from its top-level member
// names, in one pass over them, and judges the card by it. Result.Profile
// names the dialect (and for A2A the version) that judged.

func init() {
	registerProfile("auto", "per card: agentcard if agent_id, ma2d if invocation, a2a (version detected) if supportedInterfaces, url or skills", checkAuto)
}

func checkAuto(w *walker) {
	var m topMembers
	w.collectTop(&m)
	switch {
	case m.agentID != 0:
		checkAgentCard(w)
	case m.invocation != 0:
		if !w.notEmbedded("ma2d") {
			return
		}
		checkMA2D(w)
	case m.supportedInterfaces != 0 || m.url != 0 || m.skills != 0:
		if !w.notEmbedded("a2a") {
			return
		}
		w.checkA2ADetected(&m)
	default:
		w.add(CodeProfileUnknown, 0, "no telltale member: looked for agent_id (agentcard), invocation (ma2d), supportedInterfaces, url and skills (a2a)")
	}
}

// notEmbedded reports whether the card came as an object. Only the
// AgentCard draft lets a card come as a JSON string holding it; a card of
// another dialect in that form gets the verdict its own profile gives,
// card.type, so that auto and the profile it names never disagree.
func (w *walker) notEmbedded(profile string) bool {
	if !w.unwrapped {
		return true
	}
	w.res.Profile = profile
	w.res.add(Finding{Code: CodeCardType, Severity: w.severity(CodeCardType), msg: "card is not a JSON object but a string holding one, a form only the AgentCard draft allows; its members are those of %s", got: profile})
	return false
}
