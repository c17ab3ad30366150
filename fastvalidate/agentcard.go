package fastvalidate

import (
	"github.com/cardscan/cardscan/fastvalidate/internal/tape"

	"github.com/cardscan/cardscan/fastvalidate/internal/decimal"
)

// The agentcard profile: draft-aevum-agentcard-00, sections 2, 3 and 5.

func init() {
	registerProfile("agentcard", "AgentCard per draft-aevum-agentcard-00 (sections 2, 3, 5)", checkAgentCard)
}

// The draft's required members and the messages for strings outside an
// enumeration, from the member table.
var (
	draftRequired      = requiredIn(&draftMembers, only1)
	msgTrustTier       = enumMessage("pacr:trust_tier is not one of ", trustTiers)
	msgDraftProtocol   = enumMessage("endpoint.protocol is not one of ", draftProtocols)
	msgDraftAuthScheme = enumMessage("endpoint.auth.scheme is not one of ", authSchemes)
)

// landauerFloor is k_B · 300 K · ln 2 as the draft rounds it (section 2.6.1).
var landauerFloor = decimal.Must("2.854e-21")

func checkAgentCard(w *walker) string {
	root := uint32(0)
	var seen uint8
	const (
		hasAgentID = 1 << iota
		hasName
		hasVersion
		hasCapabilities
		hasEndpoint
	)
	for k := root + 1; k < w.end(root); k = w.next(k + 1) {
		v := k + 1
		switch string(w.name(k)) {
		case "agent_id":
			seen |= hasAgentID
			w.checkAgentID(v)
		case "name":
			seen |= hasName
			if w.want(v, tape.KindString) {
				if n := w.codePoints(v); n < 1 || n > 128 {
					w.addArg(CodeNameLength, v, "name has %d code points; 1 to 128 are allowed", int64(n))
				}
			}
		case "version":
			seen |= hasVersion
			if w.want(v, tape.KindString) && !IsSemVer(w.str(v)) {
				w.addGot(CodeVersionSemver, v, "version is not Semantic Versioning 2.0.0")
			}
		case "capabilities":
			seen |= hasCapabilities
			w.checkCapabilities(v)
		case "endpoint":
			seen |= hasEndpoint
			w.checkEndpoint(v)
		case "pricing":
			w.checkPricing(v)
		case "metadata":
			if w.want(v, tape.KindObject) {
				if t := w.member(v, "pacr:trust_tier"); t != 0 {
					w.checkTrustTier(t)
				}
				if t := w.member(v, "pacr:substrate_scope"); t != 0 {
					w.note = disSubstrateScope
					w.want(t, tape.KindString)
					w.note = noDisagreement
				}
			}
		case "goal_subscriptions":
			w.checkGoals(v)
		}
	}
	if seen != hasAgentID|hasName|hasVersion|hasCapabilities|hasEndpoint {
		for i, name := range draftRequired {
			if seen&(1<<i) == 0 {
				w.addMissing(CodeFieldRequired, root, name)
			}
		}
	}
	return "agentcard"
}

// checkTrustTier checks metadata's pacr:trust_tier, which the schema does
// not define: metadata is open there, so any value passes it.
func (w *walker) checkTrustTier(t uint32) {
	w.note = disTrustTier
	if w.want(t, tape.KindString) {
		if !inEnum(w.str(t), trustTiers) {
			w.addGot(CodeMetadataTrustTier, t, msgTrustTier)
		}
	}
	w.note = noDisagreement
}

// wantOrDisputedNull is want for a member the draft types as k and the
// schema as k or null: the finding of a null says that the schema allows it.
func (w *walker) wantOrDisputedNull(n uint32, k tape.Kind, d disagreement) bool {
	if w.kind(n) != tape.KindNull {
		return w.want(n, k)
	}
	w.note = d
	w.addTypeMismatch(n, k)
	w.note = noDisagreement
	return false
}

func (w *walker) checkAgentID(v uint32) {
	if !w.want(v, tape.KindString) {
		return
	}
	id := w.str(v)
	if !IsAgentID(id) {
		w.addGot(CodeAgentIDFormat, v, "agent_id is not 26 characters of [0-9A-HJKMNP-TV-Z]")
		return
	}
	ms, ok := ULIDTime(id)
	if !ok {
		w.addNotULID(v, "agent_id overflows 128 bits (first character above 7): not a decodable ULID")
		return
	}
	// The clock is read only when the timestamp is past the last reading:
	// time moves forward, so an earlier timestamp is in the past for sure.
	if ms > w.nowMillis {
		if now := w.cfg.now().UnixMilli(); now >= 0 {
			w.nowMillis = uint64(now)
		}
	}
	if ms > w.nowMillis {
		w.addNotULID(v, "agent_id's ULID timestamp lies in the future")
	}
}

// addNotULID reports an agent_id that is no ULID of section 2.1, which the
// schema, having the pattern only, lets pass.
func (w *walker) addNotULID(v uint32, msg string) {
	w.note = disNotULID
	w.addGot(CodeAgentIDNotULID, v, msg)
	w.note = noDisagreement
}

func (w *walker) checkCapabilities(v uint32) {
	if !w.want(v, tape.KindArray) {
		return
	}
	if w.empty(v) {
		w.add(CodeCapabilitiesEmpty, v, "capabilities must contain at least one entry")
		return
	}
	vw := w.vw // see tape.View
	for c, end := v+1, vw.End(v); c < end; c = vw.Next(c) {
		if !w.want(c, tape.KindObject) {
			continue
		}
		var id, desc uint32
		for k, members := c+1, vw.End(c); k < members; k = vw.NextMember(k) {
			f := k + 1
			switch string(vw.Name(k)) {
			case "id":
				id = f
			case "description":
				desc = f
				w.want(f, tape.KindString)
			case "tags":
				if !w.want(f, tape.KindArray) {
					break
				}
				for t, tags := f+1, vw.End(f); t < tags; t = vw.Next(t) {
					w.want(t, tape.KindString)
				}
			case "input_schema", "output_schema":
				// Section 2.4.3 types both "object (JSON Schema)"; the
				// schema adds null.
				w.wantOrDisputedNull(f, tape.KindObject, disSchemaNull)
			}
		}
		switch {
		case id == 0:
			w.addMissing(CodeFieldRequired, c, "id")
		case !w.want(id, tape.KindString):
		case !IsCapabilityID(w.str(id)):
			w.addGot(CodeCapabilityID, id, "capability id does not match ^[a-z0-9][a-z0-9._-]*$")
		}
		if desc == 0 {
			w.note = disDescriptionMissing
			w.add(CodeCapabilityDescriptionMissing, c, "capability has no description (RECOMMENDED)")
			w.note = noDisagreement
		}
	}
}

func (w *walker) checkEndpoint(v uint32) {
	if !w.want(v, tape.KindObject) {
		return
	}
	var protocol, url, auth uint32
	for k := v + 1; k < w.end(v); k = w.next(k + 1) {
		switch string(w.name(k)) {
		case "protocol":
			protocol = k + 1
		case "url":
			url = k + 1
		case "auth":
			auth = k + 1
		}
	}
	// proto: 0 unknown, else the protocol's index in the draft's list.
	proto := 0
	switch {
	case protocol == 0:
		w.addMissing(CodeFieldRequired, v, "protocol")
	case w.want(protocol, tape.KindString):
		switch p := w.str(protocol); {
		case string(p) == "http":
			proto = 1
		case string(p) == "https":
			proto = 2
		case inEnum(p, draftProtocols):
			proto = 3
		case inEnum(p, schemaProtocols):
			// The schema's values the draft lacks: http, grpc and mcp
			// are taken above.
			w.note = disProtocolSchemaOnly
			w.addGot(CodeEndpointProtocol, protocol, msgDraftProtocol)
			w.note = noDisagreement
		default:
			w.addGot(CodeEndpointProtocol, protocol, msgDraftProtocol)
		}
	}
	switch {
	case url == 0:
		w.addMissing(CodeFieldRequired, v, "url")
	case w.want(url, tape.KindString):
		u, ok := ParseURI(w.str(url))
		if !ok {
			w.addGot(CodeEndpointURL, url, "endpoint.url is not an absolute RFC 3986 URI")
			break
		}
		https, http := equalFold(u.Scheme, "https"), equalFold(u.Scheme, "http")
		switch {
		case proto == 2 && !https:
			w.addGot(CodeEndpointURLScheme, url, "protocol https needs an https:// URL")
		case proto == 1 && !https && !http:
			// The schema's http takes any URI (its own examples have wss://).
			w.note = disURLScheme
			w.addGot(CodeEndpointURLScheme, url, "protocol http needs an http:// or https:// URL")
			w.note = noDisagreement
		}
		sev := SeverityWarning
		if w.cfg.policy == PolicyProduction {
			sev = SeverityError
		}
		switch {
		case u.HasAuthority && unreachableHost(u.Host):
			w.addGotSev(CodeEndpointInsecure, sev, url, "endpoint.url names localhost or a private, loopback or link-local address: no peer can reach it as published")
		case http:
			w.addGotSev(CodeEndpointInsecure, sev, url, "endpoint.url uses plain http: an on-path attacker can redirect it (section 8.5)")
		}
	}
	if auth != 0 && w.wantOrDisputedNull(auth, tape.KindObject, disAuthNull) {
		// The draft gives "none" as the default scheme, so it may be absent.
		if s := w.member(auth, "scheme"); s != 0 && w.want(s, tape.KindString) && !inEnum(w.str(s), authSchemes) {
			w.addGot(CodeEndpointAuthScheme, s, msgDraftAuthScheme)
		}
	}
}

// The number rules compare the digits as written with the bounds, exactly:
// no float64 rounding can carry 2.8539999999999999999999e-21 up to the
// Landauer floor or 1.00000000000000000001 down to a priority of 1, and no
// number is parsed into a float64 just to be compared. The scanner has
// already rejected every number beyond float64's range (json.number-range).

func (w *walker) checkPricing(v uint32) {
	if !w.wantOrDisputedNull(v, tape.KindObject, disPricingNull) {
		return
	}
	for k := v + 1; k < w.end(v); k = w.next(k + 1) {
		f := k + 1
		switch string(w.name(k)) {
		case "base_cost_joules":
			if !w.wantOrDisputedNull(f, tape.KindNumber, disBaseCostNull) {
				continue
			}
			if d := decimal.Parse(w.raw(f)); !d.Zero() && d.Cmp(landauerFloor) < 0 {
				// The schema's minimum is 0: it refuses a negative cost too.
				if !w.negative(f) {
					w.note = disBelowLandauer
				}
				w.addGot(CodePricingLandauer, f, "base_cost_joules must be 0 or at least 2.854e-21 J (the Landauer limit at 300 K)")
				w.note = noDisagreement
			}
		case "per_token_joules":
			if !w.want(f, tape.KindNumber) {
				continue
			}
			if w.negative(f) && !decimal.IsZero(w.raw(f)) {
				w.addGot(CodePricingPerToken, f, "per_token_joules must not be negative")
			}
		}
	}
}

var one = decimal.Must("1")

func (w *walker) checkGoals(v uint32) {
	if !w.want(v, tape.KindArray) {
		return
	}
	for g := v + 1; g < w.end(v); g = w.next(g) {
		if !w.want(g, tape.KindObject) {
			continue
		}
		var id, p uint32
		for k := g + 1; k < w.end(g); k = w.next(k + 1) {
			switch string(w.name(k)) {
			case "goal_id":
				id = k + 1
			case "priority":
				p = k + 1
			case "description":
				// "an OPTIONAL human-readable description" (section 2.8).
				w.want(k+1, tape.KindString)
			}
		}
		switch {
		case id == 0:
			w.addMissing(CodeGoalID, g, "goal_id")
		case w.kind(id) != tape.KindString:
			w.add(CodeGoalID, id, typeMessages[tape.KindString][w.kind(id)])
		}
		if p == 0 || !w.want(p, tape.KindNumber) {
			continue
		}
		if t := w.raw(p); w.negative(p) && !decimal.IsZero(t) || decimal.Compare(t, one) > 0 {
			w.addGot(CodeGoalPriority, p, "priority must be a number in [0, 1]")
		}
	}
}
