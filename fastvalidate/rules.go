package fastvalidate

// Code identifies a rule. Its String form (the rule ID, e.g.
// "agent_id.format") is stable: output formats, summaries and users' scripts
// key on it. Codes are small integers so that a finding is plain data and
// reporting one allocates nothing.
type Code uint16

// Severity says whether a finding fails the card.
type Severity uint8

const (
	// SeverityError marks a violated MUST: the card is invalid.
	SeverityError Severity = iota + 1
	// SeverityWarning marks a SHOULD or a risk: the card stays valid.
	SeverityWarning
)

func (s Severity) String() string {
	switch s {
	case SeverityError:
		return "error"
	case SeverityWarning:
		return "warning"
	case SeverityOff:
		return "off"
	}
	return "unknown"
}

// Rules shared by every profile, and those of the agentcard profile. Other
// profiles number their rules in ranges of their own, so that adding one
// never renumbers another: agentcard-schema from 40 (below), a2a from 100
// (a2a.go), ma2d from 200 (ma2d.go), the fetch checks from 250, signature
// verification from 270 and dump's from 290 (below), migrate's from 310
// (below), the content group from 330 (content.go) and probe's from 360
// (below).
const (
	codeInvalid Code = iota

	CodeJSONSyntax
	CodeJSONUTF8
	CodeJSONDuplicateKey
	CodeJSONDepth
	CodeJSONNumberRange
	CodeInputTooLarge
	CodeCardType
	CodeFieldRequired
	CodeFieldType

	CodeAgentIDFormat
	CodeNameLength
	CodeVersionSemver
	CodeCapabilitiesEmpty
	CodeCapabilityID
	CodeEndpointProtocol
	CodeEndpointURL
	CodeEndpointURLScheme
	CodeEndpointAuthScheme
	CodePricingLandauer
	CodePricingPerToken
	CodeMetadataTrustTier
	CodeGoalID
	CodeGoalPriority

	CodeEndpointInsecure
	CodeCapabilityDescriptionMissing
	CodeAgentIDNotULID

	CodeProfileUnknown
)

// Rules of the agentcard-schema profile, named after the JSON Schema keyword
// that failed.
const (
	CodeSchemaType Code = 40 + iota
	CodeSchemaRequired
	CodeSchemaAdditionalProperties
	CodeSchemaPattern
	CodeSchemaMinLength
	CodeSchemaMaxLength
	CodeSchemaMinItems
	CodeSchemaUniqueItems
	CodeSchemaEnum
	CodeSchemaFormat
	CodeSchemaMinimum
	CodeSchemaMaximum
	CodeSchemaOneOf
)

// Rules about how a card is served, which only cardscan fetch can see: they
// judge HTTP responses, not card bytes, so no profile reports them. From
// CodeHTTPUnreachable on, each names why a URL yielded no card at all.
const (
	CodeHTTPContentType Code = 250 + iota
	CodeHTTPCacheControl
	CodeHTTPEndpointScheme
	CodeHTTPInsecureFetch

	CodeHTTPUnreachable
	CodeHTTPTimeout
	CodeHTTPStatus
	CodeHTTPNotACard
	CodeHTTPTooLarge
	CodeHTTPRedirect
	CodeHTTPBlockedAddress
)

// Rules of A2A signature verification (A2A 1.0 section 8.4), which needs
// the keys a verifier trusts: no profile reports them; the cardscan command
// does when given keys (package cardsig verifies). The path of each is the
// signatures[] entry it judges.
const (
	CodeA2ASignatureInvalid Code = 270 + iota
	CodeA2ASignatureKeyUnknown
	CodeA2ASignatureAlg
	CodeA2ASignatureMissing
	CodeA2ASignatureUntrustedOrigin
	CodeA2ASignatureExpired
	CodeA2ASignatureRevoked
)

// Rules about a whole dump, which no single card can show: cardscan
// --cross-card reports them once every record is judged. Each finding names
// every record involved.
const (
	CodeDumpDuplicateID Code = 290 + iota
	CodeDumpSharedEndpoint
	CodeDumpDuplicateCard
)

// Rules of cardscan migrate, which moves a card between A2A releases: each
// names a member it moved, or one it could not carry, between the two
// releases' sections. No profile reports them.
const (
	CodeMigrateInterfaces Code = 310 + iota
	CodeMigrateExtendedCard
	CodeMigrateSecurityRequirements
	CodeMigrateSecurityScheme
	CodeMigrateRemoved
	CodeMigrateDeprecatedFlow
	CodeMigrateFlows
	CodeMigrateSchemeUnsupported
	CodeMigrateProtocolVersion
	CodeMigrateSigned
	CodeMigrateUnsupported
	CodeMigrateInvalidResult
)

// Rules of cardscan probe, which asks each interface a card advertises,
// with calls that change nothing, whether it speaks what the card says.
// They judge a server's answers, not card bytes: no profile reports them.
// The path of each is the interface it judges.
const (
	CodeProbeUnreachable Code = 360 + iota
	CodeProbeTimeout
	CodeProbeBlockedAddress
	CodeProbeRedirect
	CodeProbeHTML
	CodeProbeNotFound
	CodeProbeWrongBinding
	CodeProbeUnexpected
	CodeProbeStatus
	CodeProbeAuthRequired
	CodeProbeTLS
	CodeProbeTLSExpiring
	CodeProbeExtendedCardMissing
	CodeProbeExtendedCardOpen
	CodeProbeVersion
	CodeProbeNotProbed
)

// maxCode bounds the rule table; profile files take ranges below it.
const maxCode = 512

// Rule describes one rule for documentation and reports.
type Rule struct {
	Code        Code
	ID          string
	Severity    Severity // default severity; a policy may raise warnings to errors
	Profiles    string   // profiles that apply it, comma-separated
	Description string
}

var ruleTable [maxCode]Rule

func register(rules ...Rule) {
	for _, r := range rules {
		if r.Code == codeInvalid || r.Code >= maxCode || ruleTable[r.Code].ID != "" {
			panic("fastvalidate: rule code registered twice or out of range: " + r.ID)
		}
		ruleTable[r.Code] = r
	}
}

const (
	allProfiles   = "all"
	agentcardOnly = "agentcard"
	schemaOnly    = "agentcard-schema"
)

func init() {
	register(
		Rule{CodeJSONSyntax, "json.syntax", SeverityError, allProfiles, "not exactly one RFC 8259 JSON value (bad token, trailing data, control character in a string)"},
		Rule{CodeJSONUTF8, "json.utf8", SeverityError, allProfiles, "string is not valid UTF-8 or holds an escaped lone surrogate (RFC 7493)"},
		Rule{CodeJSONDuplicateKey, "json.duplicate-key", SeverityError, allProfiles, "object has the same member name twice (RFC 7493)"},
		Rule{CodeJSONDepth, "json.depth", SeverityError, allProfiles, "nesting deeper than the limit (512 by default)"},
		Rule{CodeJSONNumberRange, "json.number-range", SeverityError, allProfiles, "a number overflows a float64 (beyond ±1.8e308), wherever it stands"},
		Rule{CodeInputTooLarge, "input.too-large", SeverityError, allProfiles, "record longer than the size limit"},
		Rule{CodeCardType, "card.type", SeverityError, allProfiles, "card is not a JSON object (nor a string holding one)"},
		Rule{CodeFieldRequired, "field.required", SeverityError, agentcardOnly + ",ma2d", "a required field is missing"},
		Rule{CodeFieldType, "field.type", SeverityError, agentcardOnly + ",a2a,ma2d", "a field has the wrong JSON type"},
		Rule{CodeAgentIDFormat, "agent_id.format", SeverityError, agentcardOnly, "agent_id is not 26 characters of [0-9A-HJKMNP-TV-Z]"},
		Rule{CodeNameLength, "name.length", SeverityError, agentcardOnly, "name is not 1 to 128 Unicode code points"},
		Rule{CodeVersionSemver, "version.semver", SeverityError, agentcardOnly, "version is not Semantic Versioning 2.0.0"},
		Rule{CodeCapabilitiesEmpty, "capabilities.empty", SeverityError, agentcardOnly, "capabilities has no entry"},
		Rule{CodeCapabilityID, "capability.id", SeverityError, agentcardOnly, "capability id does not match ^[a-z0-9][a-z0-9._-]*$"},
		Rule{CodeEndpointProtocol, "endpoint.protocol", SeverityError, agentcardOnly, "endpoint.protocol is not one of http, https, grpc, stdio, mcp"},
		Rule{CodeEndpointURL, "endpoint.url", SeverityError, agentcardOnly, "endpoint.url is not an absolute RFC 3986 URI"},
		Rule{CodeEndpointURLScheme, "endpoint.url-scheme", SeverityError, agentcardOnly, "endpoint.url scheme does not match the protocol (https needs https; http needs http or https)"},
		Rule{CodeEndpointAuthScheme, "endpoint.auth.scheme", SeverityError, agentcardOnly, "endpoint.auth.scheme is not one of none, bearer, api_key, oauth2, mtls"},
		Rule{CodePricingLandauer, "pricing.landauer", SeverityError, agentcardOnly, "pricing.base_cost_joules is neither 0 nor >= 2.854e-21 (the Landauer limit at 300 K)"},
		Rule{CodePricingPerToken, "pricing.per-token", SeverityError, agentcardOnly, "pricing.per_token_joules is negative"},
		Rule{CodeMetadataTrustTier, "metadata.trust-tier", SeverityError, agentcardOnly, "metadata.pacr:trust_tier is not one of untrusted, basic, established, verified, banned"},
		Rule{CodeGoalID, "goal.goal-id", SeverityError, agentcardOnly, "goal subscription has no string goal_id"},
		Rule{CodeGoalPriority, "goal.priority", SeverityError, agentcardOnly, "goal subscription priority is not a number in [0, 1]"},
		Rule{CodeEndpointInsecure, "endpoint.insecure", SeverityWarning, agentcardOnly, "endpoint.url uses plain http:// (draft section 8.5), localhost or a private address; an error under the production policy"},
		Rule{CodeCapabilityDescriptionMissing, "capability.description-missing", SeverityWarning, agentcardOnly, "capability has no description (RECOMMENDED)"},
		Rule{CodeAgentIDNotULID, "agent_id.not-ulid", SeverityWarning, agentcardOnly, "agent_id overflows 128 bits (first character above 7) or its timestamp lies in the future"},
		Rule{CodeProfileUnknown, "profile.unknown", SeverityError, "auto", "the file has too little of any dialect's structure (docs/design.md); the message says what it looks like when it is something well known"},

		Rule{CodeHTTPContentType, "http.content-type", SeverityWarning, "fetch", "card served with a media type other than application/agentcard+json or application/json (draft section 3)"},
		Rule{CodeHTTPCacheControl, "http.cache-control", SeverityWarning, "fetch", "card served without a Cache-Control header (section 4 recommends max-age=3600)"},
		Rule{CodeHTTPEndpointScheme, "http.endpoint-scheme", SeverityError, "fetch", "an AgentCard's http(s) endpoint's scheme differs from the scheme the card was fetched over (draft section 8.5)"},
		Rule{CodeHTTPInsecureFetch, "http.insecure-fetch", SeverityWarning, "fetch", "an A2A or MA2D card was fetched over plain http, where anyone on the path could have changed it"},
		Rule{CodeHTTPUnreachable, "http.unreachable", SeverityError, "fetch", "no card: the host could not be reached (name unknown, connection refused or reset, TLS failed)"},
		Rule{CodeHTTPTimeout, "http.timeout", SeverityError, "fetch", "no card: connecting, the headers or the body took longer than --connect-timeout or --timeout"},
		Rule{CodeHTTPStatus, "http.status", SeverityError, "fetch", "no card: every well-known path answered a status other than 200"},
		Rule{CodeHTTPNotACard, "http.not-a-card", SeverityError, "fetch", "no card: a path answered 200 with HTML, or with a body that does not start as a card does (a JSON object, or a string holding one), and none with a card"},
		Rule{CodeHTTPTooLarge, "http.too-large", SeverityError, "fetch", "no card judged: the body is larger than --max-record"},
		Rule{CodeHTTPRedirect, "http.redirect", SeverityError, "fetch", "no card: a redirect was refused (more than 3, from https to http, or to another scheme)"},
		Rule{CodeHTTPBlockedAddress, "http.blocked-address", SeverityError, "fetch", "no card: the URL, a redirect or a name led to a loopback, private, link-local, CGNAT, multicast or unspecified address (--allow-private allows them)"},

		Rule{CodeA2ASignatureInvalid, "a2a.signature-invalid", SeverityError, "signatures", "a signature does not verify with the trusted key its kid names (the card or its header changed, or is not I-JSON); a warning beside a signature that verifies"},
		Rule{CodeA2ASignatureKeyUnknown, "a2a.signature-key-unknown", SeverityWarning, "signatures", "no trusted key has the signature's kid, nor a trusted jku; an error under --signatures require unless another signature verifies"},
		Rule{CodeA2ASignatureAlg, "a2a.signature-alg", SeverityError, "signatures", "the signature's alg is not accepted, or does not fit the key (type, curve, size, the JWK's alg, use or key_ops); a warning beside a signature that verifies"},
		Rule{CodeA2ASignatureMissing, "a2a.signature-missing", SeverityError, "signatures", "under --signatures require: no signature of the card verifies with a trusted key"},
		Rule{CodeA2ASignatureUntrustedOrigin, "a2a.signature-untrusted-origin", SeverityError, "signatures", "a signature verifies, but the trust policy does not allow its key for an origin of the card (its interfaces' or the one it was fetched from); a warning beside a signature that verifies"},
		Rule{CodeA2ASignatureExpired, "a2a.signature-expired", SeverityError, "signatures", "a signature verifies, but it or its key is past its exp or before its nbf (the JWK's, the protected header's or the x5c certificate's); a warning beside a signature that verifies"},
		Rule{CodeA2ASignatureRevoked, "a2a.signature-revoked", SeverityError, "signatures", "a signature verifies, but the trust policy revokes its key's thumbprint; a warning beside a signature that verifies"},

		Rule{CodeMigrateInterfaces, "migrate.interfaces", SeverityWarning, "migrate", "url, preferredTransport, additionalInterfaces and protocolVersion (0.x) moved to or from supportedInterfaces (1.0)"},
		Rule{CodeMigrateExtendedCard, "migrate.extended-card", SeverityWarning, "migrate", "supportsAuthenticatedExtendedCard (0.x) moved to or from capabilities.extendedAgentCard (1.0)"},
		Rule{CodeMigrateSecurityRequirements, "migrate.security-requirements", SeverityWarning, "migrate", "security (0.x) rewritten to or from securityRequirements (1.0), on the card or a skill"},
		Rule{CodeMigrateSecurityScheme, "migrate.security-scheme", SeverityWarning, "migrate", "a security scheme rewritten between the 0.x shape (discriminated by type) and the 1.0 wrapper"},
		Rule{CodeMigrateRemoved, "migrate.removed", SeverityWarning, "migrate", "a member with no counterpart in the target release was dropped (stateTransitionHistory, tenant, pkceRequired)"},
		Rule{CodeMigrateDeprecatedFlow, "migrate.deprecated-flow", SeverityWarning, "migrate", "an OAuth implicit or password flow carried into 1.0, which deprecates it"},
		Rule{CodeMigrateFlows, "migrate.flows", SeverityWarning, "migrate", "a 0.x OAuth scheme with several flows: 1.0 holds exactly one, the others were dropped"},
		Rule{CodeMigrateSchemeUnsupported, "migrate.scheme-unsupported", SeverityWarning, "migrate", "a security scheme or flow the target release cannot express (0.3 has no device code flow; an unknown type)"},
		Rule{CodeMigrateProtocolVersion, "migrate.protocol-version", SeverityWarning, "migrate", "the interfaces keep the protocol version their endpoints speak, which differs from the card's release"},
		Rule{CodeMigrateSigned, "migrate.signed", SeverityError, "migrate", "the card is signed and migrating changes the signed content: refused, or signatures dropped or replaced as asked"},
		Rule{CodeMigrateUnsupported, "migrate.unsupported", SeverityError, "migrate", "the card cannot be migrated: not a JSON object, or from a release migrate does not move (0.1) or to the release it has"},
		Rule{CodeMigrateInvalidResult, "migrate.invalid-result", SeverityError, "migrate", "the migrated card fails the target release's rules although the card passed its own"},

		Rule{CodeProbeUnreachable, "probe.unreachable", SeverityError, "probe", "the interface's host could not be reached (name unknown, connection refused or reset)"},
		Rule{CodeProbeTimeout, "probe.timeout", SeverityError, "probe", "the interface did not answer within --connect-timeout or --timeout"},
		Rule{CodeProbeBlockedAddress, "probe.blocked-address", SeverityError, "probe", "the interface's URL, a redirect or its name led to a loopback, private, link-local, CGNAT, multicast or unspecified address (--allow-private allows them)"},
		Rule{CodeProbeRedirect, "probe.redirect", SeverityError, "probe", "the interface redirected more than 3 times, from https to http, or to another scheme"},
		Rule{CodeProbeHTML, "probe.html", SeverityError, "probe", "the interface answered with an HTML page, not its binding's answer"},
		Rule{CodeProbeNotFound, "probe.not-found", SeverityError, "probe", "the interface answered 404 without its binding's task-not-found error: nothing serves the binding there"},
		Rule{CodeProbeWrongBinding, "probe.wrong-binding", SeverityError, "probe", "the interface answered in another binding's shape than the one the card declares (JSON-RPC, HTTP+JSON or gRPC)"},
		Rule{CodeProbeUnexpected, "probe.unexpected", SeverityWarning, "probe", "the interface answered in its binding's shape, but not with the task-not-found error a task id that does not exist should get"},
		Rule{CodeProbeStatus, "probe.status", SeverityError, "probe", "the interface answered an HTTP status (5xx, 400, 405...) with a body in no binding's shape"},
		Rule{CodeProbeAuthRequired, "probe.auth-required", SeverityWarning, "probe", "the interface asks for credentials (401 or 403), so its binding could not be confirmed without them"},
		Rule{CodeProbeTLS, "probe.tls", SeverityError, "probe", "the interface's TLS certificate does not verify for its host: another host's, expired, or from an authority not trusted"},
		Rule{CodeProbeTLSExpiring, "probe.tls-expiring", SeverityWarning, "probe", "the interface's TLS certificate expires within 21 days"},
		Rule{CodeProbeExtendedCardMissing, "probe.extended-card-missing", SeverityError, "probe", "the card promises an extended card (capabilities.extendedAgentCard, supportsAuthenticatedExtendedCard) and the interface has none"},
		Rule{CodeProbeExtendedCardOpen, "probe.extended-card-open", SeverityWarning, "probe", "the extended card is served without asking for authentication"},
		Rule{CodeProbeVersion, "probe.version", SeverityWarning, "probe", "the server answers with another protocol version than the interface declares (A2A-Version, VersionNotSupportedError, another release's error shape)"},
		Rule{CodeProbeNotProbed, "probe.not-probed", SeverityWarning, "probe", "the interface was not probed: its URL is not http(s) (grpc: host:port aside), or its binding is not one cardscan knows"},

		Rule{CodeSchemaType, "schema.type", SeverityError, schemaOnly, "type keyword failed"},
		Rule{CodeSchemaRequired, "schema.required", SeverityError, schemaOnly, "required keyword failed: a property is missing"},
		Rule{CodeSchemaAdditionalProperties, "schema.additionalProperties", SeverityError, schemaOnly, "additionalProperties: false failed: a property the schema does not define"},
		Rule{CodeSchemaPattern, "schema.pattern", SeverityError, schemaOnly, "pattern keyword failed"},
		Rule{CodeSchemaMinLength, "schema.minLength", SeverityError, schemaOnly, "minLength keyword failed (code points)"},
		Rule{CodeSchemaMaxLength, "schema.maxLength", SeverityError, schemaOnly, "maxLength keyword failed (code points)"},
		Rule{CodeSchemaMinItems, "schema.minItems", SeverityError, schemaOnly, "minItems keyword failed"},
		Rule{CodeSchemaUniqueItems, "schema.uniqueItems", SeverityError, schemaOnly, "uniqueItems keyword failed"},
		Rule{CodeSchemaEnum, "schema.enum", SeverityError, schemaOnly, "enum keyword failed"},
		Rule{CodeSchemaFormat, "schema.format", SeverityError, schemaOnly, "format keyword failed (uri: RFC 3986 absolute URI)"},
		Rule{CodeSchemaMinimum, "schema.minimum", SeverityError, schemaOnly, "minimum keyword failed"},
		Rule{CodeSchemaMaximum, "schema.maximum", SeverityError, schemaOnly, "maximum keyword failed"},
		Rule{CodeSchemaOneOf, "schema.oneOf", SeverityError, schemaOnly, "oneOf keyword failed: the value matches no alternative"},

		Rule{CodeDumpDuplicateID, "dump.duplicate-id", SeverityWarning, "cross-card", "one identity (agent_id, A2A card URL, MA2D invocation.endpoint) on cards whose content differs"},
		Rule{CodeDumpSharedEndpoint, "dump.shared-endpoint", SeverityWarning, "cross-card", "one endpoint or interface URL claimed by cards with different identities"},
		Rule{CodeDumpDuplicateCard, "dump.duplicate-card", SeverityWarning, "cross-card", "the same card (equal RFC 8785 canonical forms) more than once in the dump"},
	)
}

// String returns the rule ID.
func (c Code) String() string {
	if c < maxCode && ruleTable[c].ID != "" {
		return ruleTable[c].ID
	}
	return "unknown"
}

// Severity returns the rule's default severity.
func (c Code) Severity() Severity {
	if c < maxCode {
		return ruleTable[c].Severity
	}
	return SeverityError
}

// Rules returns every rule, ordered by code, for documentation and
// --list-rules.
func Rules() []Rule {
	n := 0
	for i := range ruleTable {
		if ruleTable[i].ID != "" {
			n++
		}
	}
	out := make([]Rule, 0, n)
	for _, r := range ruleTable {
		if r.ID != "" {
			out = append(out, r)
		}
	}
	return out
}

// LookupRule finds a rule by its ID.
func LookupRule(id string) (Rule, bool) {
	for _, r := range ruleTable {
		if r.ID == id && id != "" {
			return r, true
		}
	}
	return Rule{}, false
}
