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
		checkMA2D(w)
	case m.supportedInterfaces != 0 || m.url != 0 || m.skills != 0:
		w.checkA2ADetected(&m)
	default:
		w.add(CodeProfileUnknown, 0, "no telltale member: looked for agent_id (agentcard), invocation (ma2d), supportedInterfaces, url and skills (a2a)")
	}
}
