package fastvalidate

import (
	"strings"

	"github.com/cardscan/cardscan/rule"
)

// The member tables of the profiles (see members.go). Each doc is the
// sentence its specification says of the member: the A2A JSON Schemas
// (0.3.0 for the 0.x releases, 1.0.1 for 1.0), the AgentCard JSON Schema
// v1.0 for both AgentCard profiles, and the MA2D field reference.

// Patterns whose matchers are IsAgentID, IsSemVer and IsCapabilityID;
// FuzzSchemaPatterns holds each to its matcher.
const (
	agentIDPattern      = "^[0-9A-HJKMNP-TV-Z]{26}$"
	semVerPattern       = `^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`
	capabilityIDPattern = "^[a-z0-9][a-z0-9._-]*$"
)

// The enumerations the checks test strings against.
var (
	draftProtocols  = []string{"http", "https", "grpc", "stdio", "mcp"}
	authSchemes     = []string{"none", "bearer", "api_key", "oauth2", "mtls"}
	trustTiers      = []string{"untrusted", "basic", "established", "verified", "banned"}
	schemaProtocols = []string{"http", "websocket", "sse", "grpc", "mcp", "google_a2a", "native"}
	ma2dProtocols   = []string{"mcp", "rest", "grpc", "graphql", "websocket"}
	ma2dFormats     = []string{"json-rpc", "rest", "graphql"}
	ma2dAuthTypes   = []string{"none", "bearer", "api_key", "oauth2", "basic", "mtls"}
	ma2dInputModes  = []string{"text", "voice", "image", "video", "file"}
	ma2dOutputModes = []string{"text", "json", "speech", "image", "video", "file"}
)

func stringArray(doc string) memberSpec {
	return memberSpec{doc: doc, types: tArray, items: &memberSpec{types: tString}}
}

func objectArray(item memberSpec) *memberSpec {
	item.types = tObject
	return &item
}

// a2aMembers is the A2A card in every release; init cuts one profile
// per release from it.
var a2aMembers = memberSpec{types: tObject, members: []memberSpec{
	{name: "name", types: tString, required: inAll, nonEmpty: in10,
		doc: "A human-readable name for the agent.", doc10: "A human readable name for the agent."},
	{name: "description", types: tString, required: from02, nonEmpty: in10, nullable: in01,
		doc: "A human-readable description of the agent, assisting users and other agents in understanding its purpose."},
	{name: "url", in: in0x | in10, types: tString, required: in0x, nullable: in10,
		doc: "The preferred endpoint URL for interacting with the agent."},
	{name: "supportedInterfaces", in: in10, types: tArray, required: in10, nonEmpty: in10,
		doc10: "Ordered list of supported interfaces. The first entry is preferred.",
		items: objectArray(memberSpec{members: []memberSpec{
			{name: "url", types: tString, required: in10, nonEmpty: in10, requiredRule: CodeA2AInterface,
				doc10: "The URL where this interface is available. Must be a valid absolute HTTPS URL in production."},
			{name: "protocolBinding", types: tString, required: in10, nonEmpty: in10, requiredRule: CodeA2AInterface,
				doc10: "The protocol binding supported at this URL."},
			{name: "protocolVersion", types: tString, required: in10, nonEmpty: in10, requiredRule: CodeA2AInterface,
				doc10: "The version of the A2A protocol this interface exposes."},
			{name: "tenant", types: tString, nullable: inAll,
				doc10: "Optional. An opaque string used for routing requests to a specific agent or tenant when multiple agents are served behind a single A2A endpoint."},
		}})},
	{name: "version", types: tString, required: inAll, nonEmpty: in10,
		doc: "The agent's own version number. The format is defined by the provider.", doc10: "The version of the agent."},
	{name: "protocolVersion", in: from02, types: tString, required: in03, nullable: in02 | in10,
		doc: "The version of the A2A protocol this agent supports."},
	{name: "provider", types: tObject, nullable: inAll,
		doc: "Information about the agent's service provider.", doc10: "The service provider of the agent.",
		members: []memberSpec{
			{name: "organization", types: tString, required: inAll, nonEmpty: in10,
				doc: "The name of the agent provider's organization."},
			{name: "url", types: tString, required: from02, nonEmpty: in10, nullable: in01,
				doc: "A URL for the agent provider's website or relevant documentation."},
		}},
	{name: "documentationUrl", types: tString, nullable: inAll,
		doc: "An optional URL to the agent's documentation.", doc10: "A URL providing additional documentation about the agent."},
	{name: "iconUrl", in: from02, types: tString, nullable: inAll,
		doc: "An optional URL to an icon for the agent.", doc10: "Optional. A URL to an icon for the agent."},
	{name: "capabilities", types: tObject, required: inAll,
		doc: "A declaration of optional capabilities supported by the agent.", doc10: "A2A Capability set supported by the agent.",
		members: []memberSpec{
			{name: "streaming", types: tBoolean, nullable: inAll,
				doc: "Indicates if the agent supports Server-Sent Events (SSE) for streaming responses.", doc10: "Indicates if the agent supports streaming responses."},
			{name: "pushNotifications", types: tBoolean, nullable: inAll,
				doc: "Indicates if the agent supports sending push notifications for asynchronous task updates."},
			{name: "stateTransitionHistory", in: in0x, types: tBoolean, nullable: inAll,
				doc: "Indicates if the agent provides a history of state transitions for a task."},
			{name: "extendedAgentCard", in: in10, types: tBoolean, nullable: inAll,
				doc10: "Indicates if the agent supports providing an extended agent card when authenticated."},
			{name: "extensions", in: from02, types: tArray, nullable: inAll,
				doc: "A list of protocol extensions supported by the agent.",
				items: objectArray(memberSpec{members: []memberSpec{
					{name: "uri", types: tString, required: in0x, nullable: in10,
						doc: "The unique URI identifying the extension."},
					{name: "description", types: tString, nullable: inAll,
						doc: "A human-readable description of how this agent uses the extension."},
					{name: "required", types: tBoolean, nullable: inAll,
						doc: "If true, the client must understand and comply with the extension's requirements."},
					{name: "params", types: tObject, nullable: inAll,
						doc: "Optional, extension-specific configuration parameters.", doc10: "Optional. Extension-specific configuration parameters."},
				}})},
		}},
	{name: "authentication", in: in01, types: tObject, nullable: inAll,
		doc: "The client discovers the server's required authentication schemes via the `authentication` field in the [`AgentCard`](#55-agentcard-object-structure).",
		members: []memberSpec{
			{name: "schemes", types: tArray, required: inAll, items: &memberSpec{types: tString}},
			{name: "credentials", types: tString, nullable: inAll},
		}},
	{name: "securitySchemes", in: from02, types: tObject, nullable: inAll, values: &memberSpec{types: tObject},
		doc: "A declaration of the security schemes available to authorize requests.", doc10: "The security scheme details used for authenticating with this agent."},
	{name: "security", in: from02, types: tArray, nullable: inAll, items: &memberSpec{types: tObject},
		doc: "A list of security requirement objects that apply to all agent interactions."},
	{name: "securityRequirements", in: in10, types: tArray, nullable: inAll, items: &memberSpec{types: tObject},
		doc10: "Security requirements for contacting the agent."},
	{name: "defaultInputModes", types: tArray, required: from02, nonEmpty: in10, nullable: in01, items: &memberSpec{types: tString},
		doc:   "Default set of supported input MIME types for all skills, which can be overridden on a per-skill basis.",
		doc10: "The set of interaction modes that the agent supports across all skills."},
	{name: "defaultOutputModes", types: tArray, required: from02, nonEmpty: in10, nullable: in01, items: &memberSpec{types: tString},
		doc:   "Default set of supported output MIME types for all skills, which can be overridden on a per-skill basis.",
		doc10: "The media types supported as outputs from this agent."},
	{name: "skills", types: tArray, required: inAll, nonEmpty: in10,
		doc: "The set of skills, or distinct capabilities, that the agent can perform.", doc10: "Skills represent the abilities of an agent.",
		items: objectArray(memberSpec{members: []memberSpec{
			{name: "id", types: tString, required: inAll, nonEmpty: in10,
				doc: "A unique identifier for the agent's skill."},
			{name: "name", types: tString, required: inAll, nonEmpty: in10,
				doc: "A human-readable name for the skill."},
			{name: "description", types: tString, required: from02, nonEmpty: in10, nullable: in01,
				doc: "A detailed description of the skill, intended to help clients or users understand its purpose and functionality.", doc10: "A detailed description of the skill."},
			{name: "tags", types: tArray, required: from02, nonEmpty: in10, nullable: in01, items: &memberSpec{types: tString},
				doc: "A set of keywords describing the skill's capabilities."},
			{name: "examples", types: tArray, nullable: inAll, items: &memberSpec{types: tString},
				doc: "Example prompts or scenarios that this skill can handle."},
			{name: "inputModes", types: tArray, nullable: inAll, items: &memberSpec{types: tString},
				doc:   "The set of supported input MIME types for this skill, overriding the agent's defaults.",
				doc10: "The set of supported input media types for this skill, overriding the agent's defaults."},
			{name: "outputModes", types: tArray, nullable: inAll, items: &memberSpec{types: tString},
				doc:   "The set of supported output MIME types for this skill, overriding the agent's defaults.",
				doc10: "The set of supported output media types for this skill, overriding the agent's defaults."},
			{name: "security", in: from03, types: tArray, nullable: inAll, items: &memberSpec{types: tObject},
				doc: "Security schemes necessary for the agent to leverage this skill."},
			{name: "securityRequirements", in: in10, types: tArray, nullable: inAll, items: &memberSpec{types: tObject},
				doc10: "Security schemes necessary for this skill."},
		}})},
	{name: "preferredTransport", in: from02, types: tString, nullable: inAll,
		doc: "The transport protocol for the preferred endpoint (the main 'url' field)."},
	{name: "additionalInterfaces", in: from02, types: tArray, nullable: inAll,
		doc: "A list of additional supported interfaces (transport and URL combinations).",
		items: objectArray(memberSpec{members: []memberSpec{
			{name: "url", types: tString, required: inAll, nonEmpty: in10, requiredRule: CodeA2AInterface,
				doc: "The URL where this interface is available. Must be a valid absolute HTTPS URL in production."},
			{name: "transport", types: tString, required: inAll, nonEmpty: in10, requiredRule: CodeA2AInterface,
				doc: "The transport protocol supported at this URL."},
		}})},
	{name: "supportsAuthenticatedExtendedCard", in: from02, types: tBoolean, nullable: inAll,
		doc: "If true, the agent can provide an extended agent card with additional details to authenticated users."},
	{name: "signatures", in: from03, types: tArray, nullable: inAll, items: &memberSpec{types: tObject},
		doc: "JSON Web Signatures computed for this AgentCard.", doc10: "JSON Web Signatures computed for this `AgentCard`."},
}}

var draftMembers = memberSpec{types: tObject | tString, members: []memberSpec{
	{name: "agent_id", types: tString, required: inAll, pattern: agentIDPattern, patternRule: CodeAgentIDFormat,
		doc: "Globally unique agent identifier. 128-bit ULID encoded as Crockford Base32 (26 characters, characters 0-9 and A-HJKMNP-TV-Z)."},
	{name: "name", types: tString, required: inAll, minLength: 1, maxLength: 128, lengthRule: CodeNameLength,
		doc: "Human-readable display name of this agent."},
	{name: "version", types: tString, required: inAll, pattern: semVerPattern, patternRule: CodeVersionSemver,
		doc: "Semantic version of this agent's card format (semver 2.0)."},
	{name: "capabilities", types: tArray, required: inAll, minItems: 1, minItemsRule: CodeCapabilitiesEmpty,
		doc: "List of capabilities this agent offers. At least one capability is required.",
		items: objectArray(memberSpec{doc: "A single capability that the agent can perform.", members: []memberSpec{
			{name: "id", types: tString, required: inAll, pattern: capabilityIDPattern, patternRule: CodeCapabilityID,
				doc: "Machine-readable capability identifier. Dot-namespaced recommended: domain.verb"},
			{name: "description", types: tString,
				doc: "Human-readable description of what this capability does."},
			withDoc(stringArray(""), "tags", "Optional semantic tags for discovery and routing."),
			{name: "input_schema", types: tObject,
				doc: "JSON Schema describing the input this capability accepts."},
			{name: "output_schema", types: tObject,
				doc: "JSON Schema describing the output this capability produces."},
		}})},
	{name: "endpoint", types: tObject, required: inAll, doc: "How to reach this agent.", members: []memberSpec{
		{name: "protocol", types: tString, required: inAll, enum: draftProtocols, enumRule: CodeEndpointProtocol,
			doc: "Transport protocol used to communicate with the agent."},
		{name: "url", types: tString, required: inAll, doc: "URL or address of the endpoint."},
		{name: "auth", types: tObject, doc: "Authentication configuration for reaching this agent.", members: []memberSpec{
			{name: "scheme", types: tString, enum: authSchemes, enumRule: CodeEndpointAuthScheme, doc: "Authentication scheme name."},
		}},
	}},
	{name: "pricing", types: tObject, doc: "Optional cost model for interacting with this agent.", members: []memberSpec{
		{name: "base_cost_joules", types: tNumber,
			doc: "Base cost per request in Joules (Landauer thermodynamic unit). This is the canonical unit of account for agent-to-agent settlement. Must be >= 2.854e-21 (Landauer floor at 300K)."},
		{name: "per_token_joules", types: tNumber, minimum: "0", rangeRule: CodePricingPerToken},
	}},
	{name: "metadata", types: tObject, doc: "Metadata derived from PACR causal history via the π projection function.", members: []memberSpec{
		{name: "pacr:trust_tier", types: tString, enum: trustTiers, enumRule: CodeMetadataTrustTier},
		{name: "pacr:substrate_scope", types: tString, doc: "A free-form string identifying the computational substrate (hardware or data population) on which the agent was trained or calibrated"},
	}},
	{name: "goal_subscriptions", types: tArray, items: objectArray(memberSpec{members: []memberSpec{
		{name: "goal_id", types: tString, required: inAll, requiredRule: CodeGoalID, typeRule: CodeGoalID},
		{name: "description", types: tString},
		{name: "priority", types: tNumber, minimum: "0", maximum: "1", rangeRule: CodeGoalPriority},
	}})},
}}

func withDoc(m memberSpec, name, doc string) memberSpec {
	m.name, m.doc = name, doc
	return m
}

// schemaURI is a string the agentcard-schema profile asserts format "uri"
// of.
func schemaURI(name, doc string, required bool) memberSpec {
	m := memberSpec{name: name, doc: doc, types: tString, format: "uri", formatRule: CodeSchemaFormat}
	if required {
		m.required = inAll
	}
	return m
}

func schemaMeasure(name, doc, maximum string) memberSpec {
	return memberSpec{name: name, doc: doc, types: tNumber, minimum: "0", maximum: maximum,
		rangeRule: CodeSchemaMinimum, maximumRule: CodeSchemaMaximum}
}

var schemaMembers = memberSpec{types: tObject, closed: true, members: []memberSpec{
	{name: "agent_id", types: tString, required: inAll, pattern: agentIDPattern, patternRule: CodeSchemaPattern,
		doc: "Globally unique agent identifier. 128-bit ULID encoded as Crockford Base32 (26 characters, characters 0-9 and A-HJKMNP-TV-Z)."},
	{name: "name", types: tString, required: inAll, minLength: 1, maxLength: 128, lengthRule: CodeSchemaMinLength, maxLengthRule: CodeSchemaMaxLength,
		doc: "Human-readable display name of this agent."},
	{name: "version", types: tString, required: inAll, pattern: semVerPattern, patternRule: CodeSchemaPattern,
		doc: "Semantic version of this agent's card format (semver 2.0)."},
	{name: "capabilities", types: tArray, required: inAll, minItems: 1, minItemsRule: CodeSchemaMinItems,
		doc: "List of capabilities this agent offers. At least one capability is required.",
		items: objectArray(memberSpec{doc: "A single capability that the agent can perform.", closed: true, members: []memberSpec{
			{name: "id", types: tString, required: inAll, pattern: capabilityIDPattern, patternRule: CodeSchemaPattern,
				maxLength: 128, lengthRule: CodeSchemaMaxLength,
				doc: "Machine-readable capability identifier. Dot-namespaced recommended: domain.verb"},
			{name: "description", types: tString, required: inAll, minLength: 1, maxLength: 512,
				lengthRule: CodeSchemaMinLength, maxLengthRule: CodeSchemaMaxLength,
				doc: "Human-readable description of what this capability does."},
			{name: "tags", types: tArray, uniqueItems: CodeSchemaUniqueItems,
				items: &memberSpec{types: tString, maxLength: 64, lengthRule: CodeSchemaMaxLength},
				doc:   "Optional semantic tags for discovery and routing."},
			{name: "input_schema", types: tObject | tNull, typeRule: CodeSchemaOneOf,
				doc: "JSON Schema describing the input this capability accepts. Null means the input is unstructured."},
			{name: "output_schema", types: tObject | tNull, typeRule: CodeSchemaOneOf,
				doc: "JSON Schema describing the output this capability produces. Null means the output is unstructured."},
		}})},
	{name: "endpoint", types: tObject, required: inAll, closed: true, doc: "How to reach this agent.", members: []memberSpec{
		{name: "protocol", types: tString, required: inAll, enum: schemaProtocols, enumRule: CodeSchemaEnum,
			doc: "Transport protocol used to communicate with the agent."},
		schemaURI("url", "URL or address of the endpoint.", true),
		schemaURI("health_url", "Optional health-check endpoint.", false),
		{name: "auth", types: tObject | tNull, typeRule: CodeSchemaOneOf,
			doc: "Authentication configuration. Null means no authentication required.", members: []memberSpec{
				{name: "scheme", types: tString, required: inAll, enum: authSchemes, enumRule: CodeSchemaEnum, doc: "Authentication scheme name."},
				schemaURI("token_url", "Token endpoint URL (for oauth2 scheme).", false),
				{name: "header", types: tString, doc: "Header name where the credential is sent (for api_key scheme)."},
			}},
	}},
	{name: "pricing", types: tObject | tNull, typeRule: CodeSchemaOneOf, closed: true,
		doc: "Optional cost model for interacting with this agent.", members: []memberSpec{
			nullable(schemaMeasure("base_cost_joules", "Base cost per request in Joules (Landauer thermodynamic unit).", "")),
			nullable(schemaMeasure("estimated_latency_ms", "Estimated end-to-end latency in milliseconds.", "")),
			{name: "currency", types: tString | tNull, pattern: "^[A-Z]{3,10}$", patternRule: CodeSchemaPattern,
				doc: "ISO 4217 currency code or token symbol for fiat/token settlement (optional complement to Joule pricing)."},
			nullable(schemaMeasure("cost_per_request", "Cost per request in the specified fiat/token currency.", "")),
		}},
	{name: "metadata", types: tObject,
		doc: "Interaction statistics derived from PACR causal history (π projection). These fields are computed from the ledger, not self-declared.",
		members: []memberSpec{
			{name: "pacr:interaction_count", types: tInteger, minimum: "0", rangeRule: CodeSchemaMinimum,
				doc: "Count of PACR records involving this agent_id."},
			schemaMeasure("pacr:avg_latency_ms", "Time-decay-weighted average latency in milliseconds: Σ(Ω.time × exp(-λΔt)) / Σ(exp(-λΔt)).", ""),
			schemaMeasure("pacr:avg_cost_joules", "Time-decay-weighted average energy cost in Joules: Σ(Ω.energy × exp(-λΔt)) / Σ(exp(-λΔt)).", ""),
			schemaMeasure("pacr:reputation_score", "Higher is better.", "1"),
			schemaMeasure("pacr:influence_rank", "PageRank variant on causal interaction graph. Measures how central this agent is to overall system flow.", ""),
			schemaMeasure("pacr:critical_score", "Betweenness centrality score. Higher means more other agents depend on routing through this agent.", ""),
		}},
}}

func nullable(m memberSpec) memberSpec {
	m.types |= tNull
	return m
}

func ma2dString(name, doc string) memberSpec { return memberSpec{name: name, doc: doc, types: tString} }

var ma2dMembers = memberSpec{types: tObject, members: []memberSpec{
	{name: "name", types: tString, required: inAll, pattern: "^[a-z0-9-]+$", patternRule: CodeMA2DName,
		maxLength: 50, lengthRule: CodeMA2DName, doc: "Agent identifier, must be unique within organization."},
	{name: "version", types: tString, required: inAll, pattern: semVerPattern, patternRule: CodeMA2DVersion,
		doc: "Agent version following semver specification."},
	{name: "description", types: tString, required: inAll, minLength: 200, maxLength: 2000, lengthRule: CodeMA2DDescription,
		doc: "Comprehensive description of agent’s purpose and capabilities."},
	ma2dString("author", "Creator or organization name."),
	ma2dString("license", "Software license for the agent."),
	ma2dString("homepage", "Agent’s homepage or documentation site."),
	ma2dString("repository", "Source code repository."),
	{name: "skills", types: tArray, required: inAll, minItems: 1, minItemsRule: CodeMA2DSkills,
		doc: "Array of capabilities the agent provides.",
		items: objectArray(memberSpec{members: []memberSpec{
			{name: "name", types: tString, required: inAll, pattern: "^[a-z0-9_]+$", patternRule: CodeMA2DSkillName,
				doc: "Skill identifier."},
			{name: "description", types: tString, required: inAll, minLength: 50, lengthRule: CodeMA2DSkillDescription,
				doc: "What the skill does."},
			{name: "parameters", types: tObject, doc: "Parameters the skill accepts."},
			ma2dString("returns", "Description of return value."),
			{name: "examples", types: tArray},
			ma2dString("mcp_server", "MCP server that implements this skill."),
			ma2dString("mcp_tool", "Specific MCP tool name."),
		}})},
	{name: "capabilities", types: tObject, members: []memberSpec{
		{name: "languages", types: tArray, doc: "Supported natural languages (ISO 639-1 codes).",
			items: &memberSpec{types: tString, enum: iso639Codes(), enumRule: CodeMA2DLanguage}},
		withDoc(stringArray(""), "domains", "Subject matter expertise areas."),
		{name: "input_modes", types: tArray, doc: "How agent accepts input.",
			items: &memberSpec{types: tString, enum: ma2dInputModes, enumRule: CodeMA2DMode}},
		{name: "output_modes", types: tArray, doc: "How agent returns results.",
			items: &memberSpec{types: tString, enum: ma2dOutputModes, enumRule: CodeMA2DMode}},
		{name: "streaming", types: tBoolean, doc: "Whether agent supports streaming responses."},
		{name: "async", types: tBoolean, doc: "Whether agent supports asynchronous operations."},
		{name: "state_management", types: tBoolean, doc: "Whether agent maintains conversation state."},
		ma2dString("rate_limit", "Usage rate limits."),
	}},
	{name: "invocation", types: tObject, required: inAll, members: []memberSpec{
		{name: "protocol", types: tString, required: inAll, enum: ma2dProtocols, enumRule: CodeMA2DProtocol,
			doc: "Communication protocol."},
		{name: "endpoint", types: tString, required: inAll, doc: "Agent’s API endpoint."},
		{name: "authentication", types: tObject, members: []memberSpec{
			{name: "type", types: tString, enum: ma2dAuthTypes, enumRule: CodeMA2DAuthType, doc: "Authentication method."},
			{name: "required", types: tBoolean, doc: "Whether authentication is required."},
		}},
		ma2dString("method", "HTTP method (if applicable)."),
		{name: "format", types: tString, enum: ma2dFormats, enumRule: CodeMA2DFormat, doc: "Request/response format."},
	}},
	{name: "examples", types: tArray, items: objectArray(memberSpec{members: []memberSpec{
		{name: "skill", types: tString, required: inAll, doc: "Which skill the example demonstrates."},
		ma2dString("description", "What the example shows."),
		{name: "input", types: tObject, required: inAll},
		{name: "output", types: tObject, required: inAll, doc: "Expected output."},
	}})},
	{name: "metadata", types: tObject, members: []memberSpec{
		ma2dString("created_at", "When agent card was created."),
		ma2dString("updated_at", "Last update timestamp."),
		withDoc(stringArray(""), "tags", "Searchable keywords."),
		withDoc(stringArray(""), "categories", "Classification categories."),
	}},
}}

// iso639Codes lists the codes isISO639_1 accepts: strings.Fields slices
// the constant list, so that the member table's enumeration costs the
// start-up one allocation rather than one per code.
func iso639Codes() []string { return strings.Fields(iso639List) }

func init() {
	for ver := a2aV01; ver <= rule.LatestRelease; ver++ {
		registerTable(&cardTable{profile: a2aProfileName[ver], variant: 1 << ver,
			title: "A2A Agent Card " + a2aProfileName[ver][len("a2a/"):], typeRule: CodeFieldType, requiredRule: CodeA2ARequired, root: a2aMembers})
	}
	registerTable(&cardTable{profile: "agentcard", variant: only1, title: "AgentCard (draft-aevum-agentcard-00)",
		doc:      "AgentCard per draft-aevum-agentcard-00: a JSON object, or a JSON string holding one (section 3).",
		typeRule: CodeFieldType, requiredRule: CodeFieldRequired, root: draftMembers})
	registerTable(&cardTable{profile: "agentcard-schema", variant: only1, title: "AgentCard JSON Schema v1.0",
		doc:      "AgentCard v1.0 — the self-declaration of an agent's identity, capabilities, and terms.",
		typeRule: CodeSchemaType, requiredRule: CodeSchemaRequired, root: schemaMembers})
	registerTable(&cardTable{profile: "ma2d", variant: only1, title: "MA2D Agent Card",
		doc:      "Agent Cards are JSON documents that describe an AI agent’s capabilities, enabling discovery and invocation by other agents.",
		typeRule: CodeFieldType, requiredRule: CodeFieldRequired, root: ma2dMembers})
}
