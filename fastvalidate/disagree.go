package fastvalidate

// The draft (draft-aevum-agentcard-00) and the JSON Schema it names as
// normative (AgentCard JSON Schema v1.0) disagree on some cards. The
// agentcard profile follows the draft and agentcard-schema the schema; a
// finding either reports where the other would judge the value otherwise
// says so in its message, so that nobody takes a disagreement of the two
// texts for a fault of the card alone. docs/rules.md lists the table below.

// disputeKind is one kind of value the draft and the schema judge
// differently.
type disputeKind struct {
	// Member is where the value stands, as JSON Pointers (comma-separated)
	// in which * stands for any array index or member name; "" is the card
	// itself.
	Member string
	// Value says which values are in dispute.
	Value string
	// SchemaAllows is true where the schema accepts the value and the
	// draft does not, false for the reverse.
	SchemaAllows bool
	// Section is the draft section the draft's side rests on.
	Section string
	// Draft and Schema are the rules the agentcard and agentcard-schema
	// profiles report for the value; none for the side that accepts it
	// (the draft's may be a warning, which fails no card).
	Draft, Schema []Code
}

// disagreement indexes disagreements; a Finding's note is one, 0 for none.
type disagreement uint8

const (
	noDisagreement disagreement = iota
	disProtocolSchemaOnly
	disAuthNull
	disPricingNull
	disBaseCostNull
	disBelowLandauer
	disTrustTier
	disURLScheme
	disNotULID
	disProtocolDraftOnly
	disGoalSubscriptions
	disPerTokenJoules
	disUnknownMember
	disDescriptionMissing
	disDescriptionLength
	disCapabilityIDLength
	disTags
	disAuthSchemeMissing
	disSchemaOnlyMember
	disPACRStatistics
	disEmbeddedString
	disSchemaNull
	disSubstrateScope
	numDisagreements
)

var disagreements = [numDisagreements]disputeKind{
	disProtocolSchemaOnly: {"/endpoint/protocol", `"websocket", "sse", "google_a2a" or "native"`, true, "2.5.1", []Code{CodeEndpointProtocol}, nil},
	disAuthNull:           {"/endpoint/auth", "null (the schema: no authentication required)", true, "2.5.3", []Code{CodeFieldType}, nil},
	disPricingNull:        {"/pricing", "null", true, "2.6", []Code{CodeFieldType}, nil},
	disBaseCostNull:       {"/pricing/base_cost_joules", "null", true, "2.6.1", []Code{CodeFieldType}, nil},
	disBelowLandauer:      {"/pricing/base_cost_joules", "above 0 and below 2.854e-21 (the schema has minimum 0 only)", true, "2.6.1", []Code{CodePricingLandauer}, nil},
	disTrustTier:          {"/metadata/pacr:trust_tier", "anything but untrusted, basic, established, verified or banned (the schema does not define the member, and metadata is open)", true, "2.7", []Code{CodeMetadataTrustTier, CodeFieldType}, nil},
	disURLScheme:          {"/endpoint/url", "a URI of another scheme than http or https under protocol http (the schema does not tie url to protocol)", true, "2.5.2", []Code{CodeEndpointURLScheme}, nil},
	disNotULID:            {"/agent_id", "26 Crockford Base32 characters that are no ULID: above 128 bits, or a timestamp in the future (the schema has the pattern only)", true, "2.1", []Code{CodeAgentIDNotULID}, nil},
	disProtocolDraftOnly:  {"/endpoint/protocol", `"https" or "stdio"`, false, "2.5.1", nil, []Code{CodeSchemaEnum}},
	disGoalSubscriptions:  {"/goal_subscriptions", "any (the schema's card is a closed object without it)", false, "2.8", nil, []Code{CodeSchemaAdditionalProperties}},
	disPerTokenJoules:     {"/pricing/per_token_joules", "any (the schema's PricingModel is a closed object without it)", false, "2.6.2", nil, []Code{CodeSchemaAdditionalProperties}},
	disUnknownMember:      {"/*, /endpoint/*, /capabilities/*/*, /pricing/*", "a member neither defines (the schema's objects are closed)", false, "5, rule 10", nil, []Code{CodeSchemaAdditionalProperties}},
	disDescriptionMissing: {"/capabilities/*/description", "absent (the schema requires it)", false, "2.4.2", []Code{CodeCapabilityDescriptionMissing}, []Code{CodeSchemaRequired}},
	disDescriptionLength:  {"/capabilities/*/description", "empty, or longer than 512 code points", false, "2.4.2", nil, []Code{CodeSchemaMinLength, CodeSchemaMaxLength}},
	disCapabilityIDLength: {"/capabilities/*/id", "longer than 128 code points", false, "2.4.1", nil, []Code{CodeSchemaMaxLength}},
	disTags:               {"/capabilities/*/tags", "a tag longer than 64 code points, or the same tag twice", false, "2.4.4", nil, []Code{CodeSchemaMaxLength, CodeSchemaUniqueItems}},
	disAuthSchemeMissing:  {"/endpoint/auth/scheme", "absent (the draft's default is none; the schema requires it)", false, "2.5.3", nil, []Code{CodeSchemaRequired}},
	disSchemaOnlyMember:   {"/endpoint/health_url, /endpoint/auth/token_url, /endpoint/auth/header, /pricing/estimated_latency_ms, /pricing/cost_per_request, /pricing/currency", "a value the schema's type, format, minimum or pattern refuses (the draft does not define these members)", false, "5, rule 10", nil, []Code{CodeSchemaType, CodeSchemaFormat, CodeSchemaMinimum, CodeSchemaPattern}},
	disPACRStatistics:     {"/metadata/pacr:interaction_count, /metadata/pacr:avg_latency_ms, /metadata/pacr:avg_cost_joules, /metadata/pacr:reputation_score, /metadata/pacr:influence_rank, /metadata/pacr:critical_score", "a value of another type, below 0, or a reputation score above 1 (the draft does not define these keys)", false, "2.7", nil, []Code{CodeSchemaType, CodeSchemaMinimum, CodeSchemaMaximum}},
	disEmbeddedString:     {"", "a JSON string holding the card (the embedded-string form)", false, "3", nil, []Code{CodeSchemaType}},
	disSchemaNull:         {"/capabilities/*/input_schema, /capabilities/*/output_schema", "null (the schema: the input or output is unstructured)", true, "2.4.3", []Code{CodeFieldType}, nil},
	disSubstrateScope:     {"/metadata/pacr:substrate_scope", "anything but a string (the schema does not define the member, and metadata is open)", true, "2.7", []Code{CodeFieldType}, nil},
}

// disagreementNotes is what a finding's message ends with for each
// disagreement, built once so that rendering one costs no allocation.
var disagreementNotes = func() (t [numDisagreements]string) {
	for i := disagreement(1); i < numDisagreements; i++ {
		t[i] = disagreements[i].note()
	}
	return t
}()

// note is what the message of a finding this disagreement explains ends
// with.
func (d disputeKind) note() string {
	if d.SchemaAllows {
		return "the AgentCard JSON Schema v1.0 allows this; draft section " + d.Section + " does not"
	}
	return "draft section " + d.Section + " allows this; the AgentCard JSON Schema v1.0 does not"
}

// disagreementList returns every kind of value the draft and the schema judge
// differently, for documentation.
func disagreementList() []disputeKind {
	return append([]disputeKind(nil), disagreements[1:]...)
}

// disputed returns the disagreement of the draft and the schema that
// the finding reports, if it reports one.
func (f *Finding) disputed() (disputeKind, bool) {
	if f.note == noDisagreement {
		return disputeKind{}, false
	}
	return disagreements[f.note], true
}
