package fastvalidate

import (
	"github.com/cardscan/cardscan/fastvalidate/internal/tape"

	"github.com/cardscan/cardscan/fastvalidate/internal/decimal"
)

// The agentcard-schema profile: the card judged by the AgentCard JSON Schema
// v1.0 (draft 2020-12) exactly, with format assertion on and
// additionalProperties: false honoured. The schema and the draft disagree on
// purpose (protocol values, closed objects, pricing fields, a required
// capability description), so this is a profile of its own, not a variant
// of the draft's checks. Each finding is named after the innermost keyword
// that failed; for a oneOf between an object and null, a value of neither
// type fails oneOf itself.

func init() {
	registerProfile("agentcard-schema", "AgentCard JSON Schema v1.0 (draft 2020-12, format asserted, closed objects)", checkSchemaCard)
}

// The schema's required members and the messages for strings outside an
// enumeration, from the member table.
var (
	schemaRequired      = requiredIn(&schemaMembers, only1)
	msgSchemaProtocol   = enumMessage("enum: not one of ", schemaProtocols)
	msgSchemaAuthScheme = enumMessage("enum: not one of ", authSchemes)
)

func (w *walker) schemaLength(n uint32, minLen, maxLen int) {
	if c := w.codePoints(n); c < minLen {
		w.addArg(CodeSchemaMinLength, n, "minLength: string has %d code points, fewer than allowed", int64(c))
	} else if maxLen > 0 && c > maxLen {
		w.addArg(CodeSchemaMaxLength, n, "maxLength: string has %d code points, more than allowed", int64(c))
	}
}

func (w *walker) schemaURI(n uint32) {
	if w.wantType(n, tString) {
		if _, ok := ParseURI(w.str(n)); !ok {
			w.addGot(CodeSchemaFormat, n, "format: not an absolute URI (RFC 3986)")
		}
	}
}

// schemaMinimumZero checks minimum: 0 on the number's digits, exactly.
func (w *walker) schemaMinimumZero(n uint32) {
	if w.negative(n) && !decimal.IsZero(w.raw(n)) {
		w.addGot(CodeSchemaMinimum, n, "minimum: must be >= 0")
	}
}

// schemaAdditional reports member k, which the schema's closed object does
// not define: d names the draft's reason to allow it.
func (w *walker) schemaAdditional(k uint32, d disagreement) {
	w.note = d
	w.add(CodeSchemaAdditionalProperties, k+1, "additionalProperties: the schema defines no such property")
	w.note = noDisagreement
}

// schemaOnlyURI checks a URI member the schema defines and the draft does
// not, so that the draft ignores it (section 5, rule 10).
func (w *walker) schemaOnlyURI(n uint32) {
	w.note = disSchemaOnlyMember
	w.schemaURI(n)
	w.note = noDisagreement
}

func checkSchemaCard(w *walker) string {
	var seen uint8
	for k := uint32(1); k < w.end(0); k = w.next(k + 1) {
		v := k + 1
		switch string(w.name(k)) {
		case "agent_id":
			seen |= 1
			if w.wantType(v, tString) && !IsAgentID(w.str(v)) {
				w.addGot(CodeSchemaPattern, v, "pattern: does not match ^[0-9A-HJKMNP-TV-Z]{26}$")
			}
		case "name":
			seen |= 2
			if w.wantType(v, tString) {
				w.schemaLength(v, 1, 128)
			}
		case "version":
			seen |= 4
			if w.wantType(v, tString) && !IsSemVer(w.str(v)) {
				w.addGot(CodeSchemaPattern, v, "pattern: not a Semantic Versioning 2.0.0 version")
			}
		case "capabilities":
			seen |= 8
			if w.wantType(v, tArray) {
				if w.empty(v) {
					w.add(CodeSchemaMinItems, v, "minItems: at least 1 capability is required")
				}
				for c := v + 1; c < w.end(v); c = w.next(c) {
					w.schemaCapability(c)
				}
			}
		case "endpoint":
			seen |= 16
			w.schemaEndpoint(v)
		case "pricing":
			switch w.kind(v) {
			case tape.KindObject:
				w.schemaPricing(v)
			case tape.KindNull:
			default:
				w.addGot(CodeSchemaOneOf, v, "oneOf: expected a PricingModel object or null")
			}
		case "metadata":
			w.schemaMetadata(v)
		case "goal_subscriptions":
			w.schemaAdditional(k, disGoalSubscriptions)
		default:
			w.schemaAdditional(k, disUnknownMember)
		}
	}
	for i, name := range schemaRequired {
		if seen&(1<<i) == 0 {
			w.addMissing(CodeSchemaRequired, 0, name)
		}
	}
	return "agentcard-schema"
}

func (w *walker) schemaCapability(c uint32) {
	if !w.wantType(c, tObject) {
		return
	}
	var seen uint8
	for k := c + 1; k < w.end(c); k = w.next(k + 1) {
		v := k + 1
		switch string(w.name(k)) {
		case "id":
			seen |= 1
			if w.wantType(v, tString) {
				if !IsCapabilityID(w.str(v)) {
					w.addGot(CodeSchemaPattern, v, "pattern: does not match ^[a-z0-9][a-z0-9._-]*$")
				}
				w.note = disCapabilityIDLength
				w.schemaLength(v, 0, 128)
				w.note = noDisagreement
			}
		case "description":
			seen |= 2
			if w.wantType(v, tString) {
				w.note = disDescriptionLength
				w.schemaLength(v, 1, 512)
				w.note = noDisagreement
			}
		case "tags":
			if !w.wantType(v, tArray) {
				continue
			}
			for t := v + 1; t < w.end(v); t = w.next(t) {
				if w.wantType(t, tString) {
					w.note = disTags
					w.schemaLength(t, 0, 64)
					w.note = noDisagreement
				}
			}
			if dup := w.duplicateString(v); dup != 0 {
				w.note = disTags
				w.addGot(CodeSchemaUniqueItems, dup, "uniqueItems: tag appears twice")
				w.note = noDisagreement
			}
		case "input_schema", "output_schema":
			if w.kind(v) != tape.KindObject && w.kind(v) != tape.KindNull {
				w.addGot(CodeSchemaOneOf, v, "oneOf: expected an object or null")
			}
		default:
			w.schemaAdditional(k, disUnknownMember)
		}
	}
	if seen&1 == 0 {
		w.addMissing(CodeSchemaRequired, c, "id")
	}
	if seen&2 == 0 {
		w.note = disDescriptionMissing
		w.addMissing(CodeSchemaRequired, c, "description")
		w.note = noDisagreement
	}
}

// duplicateString returns the first string element of arr equal to an
// earlier one, or 0 (see tape.View.DuplicateString).
func (w *walker) duplicateString(arr uint32) uint32 { return w.vw.DuplicateString(arr) }

func (w *walker) schemaEndpoint(v uint32) {
	if !w.wantType(v, tObject) {
		return
	}
	var seen uint8
	for k := v + 1; k < w.end(v); k = w.next(k + 1) {
		f := k + 1
		switch string(w.name(k)) {
		case "protocol":
			seen |= 1
			if w.wantType(f, tString) && !inEnum(w.str(f), schemaProtocols) {
				if s := string(w.str(f)); s == "https" || s == "stdio" {
					w.note = disProtocolDraftOnly
				}
				w.addGot(CodeSchemaEnum, f, msgSchemaProtocol)
				w.note = noDisagreement
			}
		case "url":
			seen |= 2
			w.schemaURI(f)
		case "health_url":
			w.schemaOnlyURI(f)
		case "auth":
			switch w.kind(f) {
			case tape.KindObject:
				w.schemaAuth(f)
			case tape.KindNull:
			default:
				w.addGot(CodeSchemaOneOf, f, "oneOf: expected an AuthConfig object or null")
			}
		default:
			w.schemaAdditional(k, disUnknownMember)
		}
	}
	if seen&1 == 0 {
		w.addMissing(CodeSchemaRequired, v, "protocol")
	}
	if seen&2 == 0 {
		w.addMissing(CodeSchemaRequired, v, "url")
	}
}

func (w *walker) schemaAuth(a uint32) {
	hasScheme := false
	for k := a + 1; k < w.end(a); k = w.next(k + 1) {
		f := k + 1
		switch string(w.name(k)) {
		case "scheme":
			hasScheme = true
			if w.wantType(f, tString) && !inEnum(w.str(f), authSchemes) {
				w.addGot(CodeSchemaEnum, f, msgSchemaAuthScheme)
			}
		case "token_url":
			w.schemaOnlyURI(f)
		case "header":
			w.note = disSchemaOnlyMember
			w.wantType(f, tString)
			w.note = noDisagreement
		}
	}
	if !hasScheme {
		// The draft's default scheme is none (section 2.5.3).
		w.note = disAuthSchemeMissing
		w.addMissing(CodeSchemaRequired, a, "scheme")
		w.note = noDisagreement
	}
}

func (w *walker) schemaPricing(p uint32) {
	for k := p + 1; k < w.end(p); k = w.next(k + 1) {
		f := k + 1
		switch string(w.name(k)) {
		case "base_cost_joules":
			if w.wantType(f, tNumber|tNull) && w.kind(f) == tape.KindNumber {
				w.schemaMinimumZero(f)
			}
		case "estimated_latency_ms", "cost_per_request":
			w.note = disSchemaOnlyMember
			if w.wantType(f, tNumber|tNull) && w.kind(f) == tape.KindNumber {
				w.schemaMinimumZero(f)
			}
			w.note = noDisagreement
		case "currency":
			w.note = disSchemaOnlyMember
			if w.wantType(f, tString|tNull) && w.kind(f) == tape.KindString && !isCurrency(w.str(f)) {
				w.addGot(CodeSchemaPattern, f, "pattern: does not match ^[A-Z]{3,10}$")
			}
			w.note = noDisagreement
		case "per_token_joules":
			w.schemaAdditional(k, disPerTokenJoules)
		default:
			w.schemaAdditional(k, disUnknownMember)
		}
	}
}

func isCurrency(b []byte) bool {
	if len(b) < 3 || len(b) > 10 {
		return false
	}
	for _, c := range b {
		if c-'A' > 'Z'-'A' {
			return false
		}
	}
	return true
}

func (w *walker) schemaMetadata(m uint32) {
	if !w.wantType(m, tObject) {
		return
	}
	// The draft defines none of these keys, and section 2.7 forbids
	// rejecting a card for a metadata key it does not know.
	w.note = disPACRStatistics
	for k := m + 1; k < w.end(m); k = w.next(k + 1) {
		f := k + 1
		switch string(w.name(k)) {
		case "pacr:interaction_count":
			if w.wantType(f, tInteger) {
				w.schemaMinimumZero(f)
			}
		case "pacr:avg_latency_ms", "pacr:avg_cost_joules", "pacr:influence_rank", "pacr:critical_score":
			if w.wantType(f, tNumber) {
				w.schemaMinimumZero(f)
			}
		case "pacr:reputation_score":
			if w.wantType(f, tNumber) {
				w.schemaMinimumZero(f)
				if decimal.Compare(w.raw(f), one) > 0 {
					w.addGot(CodeSchemaMaximum, f, "maximum: must be <= 1")
				}
			}
		}
	}
	w.note = noDisagreement
}
