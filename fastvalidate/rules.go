package fastvalidate

import "github.com/cardscan/cardscan/rule"

// Code identifies a rule (see package rule, where every package that
// reports findings registers its rules). The codes below are those a
// card's bytes can show, plus the groups documented at each block.
type Code = rule.Code

// Severity says whether a finding fails the card.
type Severity = rule.Severity

const (
	// SeverityError marks a violated MUST: the card is invalid.
	SeverityError = rule.SeverityError
	// SeverityWarning marks a SHOULD or a risk: the card stays valid.
	SeverityWarning = rule.SeverityWarning
)

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
const maxCode = rule.MaxCode

const (
	allProfiles   = rule.AllProfiles
	agentcardOnly = rule.Agentcard
	schemaOnly    = rule.AgentcardSchema
)

func init() {
	rule.Register(
		def(CodeJSONSyntax, "json.syntax", SeverityError, allProfiles, "not exactly one RFC 8259 JSON value (bad token, trailing data, control character in a string)"),
		def(CodeJSONUTF8, "json.utf8", SeverityError, allProfiles, "string is not valid UTF-8 or holds an escaped lone surrogate (RFC 7493)"),
		def(CodeJSONDuplicateKey, "json.duplicate-key", SeverityError, allProfiles, "object has the same member name twice (RFC 7493)"),
		def(CodeJSONDepth, "json.depth", SeverityError, allProfiles, "nesting deeper than the limit (512 by default)"),
		def(CodeJSONNumberRange, "json.number-range", SeverityError, allProfiles, "a number overflows a float64 (beyond ±1.8e308), wherever it stands"),
		def(CodeInputTooLarge, "input.too-large", SeverityError, allProfiles, "record longer than the size limit"),
		def(CodeCardType, "card.type", SeverityError, allProfiles, "card is not a JSON object (nor a string holding one)"),
		def(CodeFieldRequired, "field.required", SeverityError, agentcardOnly|rule.MA2D, "a required field is missing"),
		def(CodeFieldType, "field.type", SeverityError, agentcardOnly|rule.A2A|rule.MA2D, "a field has the wrong JSON type"),
		def(CodeAgentIDFormat, "agent_id.format", SeverityError, agentcardOnly, "agent_id is not 26 characters of [0-9A-HJKMNP-TV-Z]"),
		def(CodeNameLength, "name.length", SeverityError, agentcardOnly, "name is not 1 to 128 Unicode code points"),
		def(CodeVersionSemver, "version.semver", SeverityError, agentcardOnly, "version is not Semantic Versioning 2.0.0"),
		def(CodeCapabilitiesEmpty, "capabilities.empty", SeverityError, agentcardOnly, "capabilities has no entry"),
		def(CodeCapabilityID, "capability.id", SeverityError, agentcardOnly, "capability id does not match ^[a-z0-9][a-z0-9._-]*$"),
		def(CodeEndpointProtocol, "endpoint.protocol", SeverityError, agentcardOnly, "endpoint.protocol is not one of http, https, grpc, stdio, mcp"),
		def(CodeEndpointURL, "endpoint.url", SeverityError, agentcardOnly, "endpoint.url is not an absolute RFC 3986 URI"),
		def(CodeEndpointURLScheme, "endpoint.url-scheme", SeverityError, agentcardOnly, "endpoint.url scheme does not match the protocol (https needs https; http needs http or https)"),
		def(CodeEndpointAuthScheme, "endpoint.auth.scheme", SeverityError, agentcardOnly, "endpoint.auth.scheme is not one of none, bearer, api_key, oauth2, mtls"),
		def(CodePricingLandauer, "pricing.landauer", SeverityError, agentcardOnly, "pricing.base_cost_joules is neither 0 nor >= 2.854e-21 (the Landauer limit at 300 K)"),
		def(CodePricingPerToken, "pricing.per-token", SeverityError, agentcardOnly, "pricing.per_token_joules is negative"),
		def(CodeMetadataTrustTier, "metadata.trust-tier", SeverityError, agentcardOnly, "metadata.pacr:trust_tier is not one of untrusted, basic, established, verified, banned"),
		def(CodeGoalID, "goal.goal-id", SeverityError, agentcardOnly, "goal subscription has no string goal_id"),
		def(CodeGoalPriority, "goal.priority", SeverityError, agentcardOnly, "goal subscription priority is not a number in [0, 1]"),
		def(CodeEndpointInsecure, "endpoint.insecure", SeverityWarning, agentcardOnly, "endpoint.url uses plain http:// (draft section 8.5), localhost or a private address; an error under the production policy"),
		def(CodeCapabilityDescriptionMissing, "capability.description-missing", SeverityWarning, agentcardOnly, "capability has no description (RECOMMENDED)"),
		def(CodeAgentIDNotULID, "agent_id.not-ulid", SeverityWarning, agentcardOnly, "agent_id overflows 128 bits (first character above 7) or its timestamp lies in the future"),
		def(CodeProfileUnknown, "profile.unknown", SeverityError, rule.Auto, "the file has too little of any dialect's structure (docs/design.md); the message says what it looks like when it is something well known"),

		def(CodeHTTPContentType, "http.content-type", SeverityWarning, rule.Fetch, "card served with a media type other than application/agentcard+json or application/json (draft section 3)"),
		def(CodeHTTPCacheControl, "http.cache-control", SeverityWarning, rule.Fetch, "card served without a Cache-Control header (section 4 recommends max-age=3600)"),
		def(CodeHTTPEndpointScheme, "http.endpoint-scheme", SeverityError, rule.Fetch, "an AgentCard's http(s) endpoint's scheme differs from the scheme the card was fetched over (draft section 8.5)"),
		def(CodeHTTPInsecureFetch, "http.insecure-fetch", SeverityWarning, rule.Fetch, "an A2A or MA2D card was fetched over plain http, where anyone on the path could have changed it"),
		def(CodeHTTPUnreachable, "http.unreachable", SeverityError, rule.Fetch, "no card: the host could not be reached (name unknown, connection refused or reset, TLS failed)"),
		def(CodeHTTPTimeout, "http.timeout", SeverityError, rule.Fetch, "no card: connecting, the headers or the body took longer than --connect-timeout or --timeout, or the URL's requests all together longer than --max-time"),
		def(CodeHTTPStatus, "http.status", SeverityError, rule.Fetch, "no card: every well-known path answered a status other than 200"),
		def(CodeHTTPNotACard, "http.not-a-card", SeverityError, rule.Fetch, "no card: a path answered 200 with HTML, or with a body that does not start as a card does (a JSON object, or a string holding one), and none with a card"),
		def(CodeHTTPTooLarge, "http.too-large", SeverityError, rule.Fetch, "no card judged: the body is larger than --max-record"),
		def(CodeHTTPRedirect, "http.redirect", SeverityError, rule.Fetch, "no card: a redirect was refused (more than 3, from https to http, or to another scheme)"),
		def(CodeHTTPBlockedAddress, "http.blocked-address", SeverityError, rule.Fetch, "no card: the URL, a redirect or a name led to a loopback, private, link-local, CGNAT, multicast or unspecified address (--allow-private allows them)"),

		def(CodeA2ASignatureInvalid, "a2a.signature-invalid", SeverityError, rule.Signatures, "a signature does not verify with the trusted key its kid names (the card or its header changed, or is not I-JSON); a warning beside a signature that verifies"),
		def(CodeA2ASignatureKeyUnknown, "a2a.signature-key-unknown", SeverityWarning, rule.Signatures, "no trusted key has the signature's kid, nor a trusted jku; an error under --signatures require unless another signature verifies"),
		def(CodeA2ASignatureAlg, "a2a.signature-alg", SeverityError, rule.Signatures, "the signature's alg is not accepted, or does not fit the key (type, curve, size, the JWK's alg, use or key_ops); a warning beside a signature that verifies"),
		def(CodeA2ASignatureMissing, "a2a.signature-missing", SeverityError, rule.Signatures, "under --signatures require: no signature of the card verifies with a trusted key"),
		def(CodeA2ASignatureUntrustedOrigin, "a2a.signature-untrusted-origin", SeverityError, rule.Signatures, "a signature verifies, but the trust policy does not allow its key for an origin of the card (its interfaces' or the one it was fetched from); a warning beside a signature that verifies"),
		def(CodeA2ASignatureExpired, "a2a.signature-expired", SeverityError, rule.Signatures, "a signature verifies, but it or its key is past its exp or before its nbf (the JWK's, the protected header's or the x5c certificate's); a warning beside a signature that verifies"),
		def(CodeA2ASignatureRevoked, "a2a.signature-revoked", SeverityError, rule.Signatures, "a signature verifies, but the trust policy revokes its key's thumbprint; a warning beside a signature that verifies"),

		def(CodeMigrateInterfaces, "migrate.interfaces", SeverityWarning, rule.Migrate, "url, preferredTransport, additionalInterfaces and protocolVersion (0.x) moved to or from supportedInterfaces (1.0)"),
		def(CodeMigrateExtendedCard, "migrate.extended-card", SeverityWarning, rule.Migrate, "supportsAuthenticatedExtendedCard (0.x) moved to or from capabilities.extendedAgentCard (1.0)"),
		def(CodeMigrateSecurityRequirements, "migrate.security-requirements", SeverityWarning, rule.Migrate, "security (0.x) rewritten to or from securityRequirements (1.0), on the card or a skill"),
		def(CodeMigrateSecurityScheme, "migrate.security-scheme", SeverityWarning, rule.Migrate, "a security scheme rewritten between the 0.x shape (discriminated by type) and the 1.0 wrapper"),
		def(CodeMigrateRemoved, "migrate.removed", SeverityWarning, rule.Migrate, "a member with no counterpart in the target release was dropped (stateTransitionHistory, tenant, pkceRequired)"),
		def(CodeMigrateDeprecatedFlow, "migrate.deprecated-flow", SeverityWarning, rule.Migrate, "an OAuth implicit or password flow carried into 1.0, which deprecates it"),
		def(CodeMigrateFlows, "migrate.flows", SeverityWarning, rule.Migrate, "a 0.x OAuth scheme with several flows: 1.0 holds exactly one, the others were dropped"),
		def(CodeMigrateSchemeUnsupported, "migrate.scheme-unsupported", SeverityWarning, rule.Migrate, "a security scheme or flow the target release cannot express (0.3 has no device code flow; an unknown type)"),
		def(CodeMigrateProtocolVersion, "migrate.protocol-version", SeverityWarning, rule.Migrate, "the interfaces keep the protocol version their endpoints speak, which differs from the card's release"),
		def(CodeMigrateSigned, "migrate.signed", SeverityError, rule.Migrate, "the card is signed and migrating changes the signed content: refused, or signatures dropped or replaced as asked"),
		def(CodeMigrateUnsupported, "migrate.unsupported", SeverityError, rule.Migrate, "the card cannot be migrated: not a JSON object, or from a release migrate does not move (0.1) or to the release it has"),
		def(CodeMigrateInvalidResult, "migrate.invalid-result", SeverityError, rule.Migrate, "the migrated card fails the target release's rules although the card passed its own"),

		def(CodeProbeUnreachable, "probe.unreachable", SeverityError, rule.Probe, "the interface's host could not be reached (name unknown, connection refused or reset)"),
		def(CodeProbeTimeout, "probe.timeout", SeverityError, rule.Probe, "the interface did not answer within --connect-timeout or --timeout"),
		def(CodeProbeBlockedAddress, "probe.blocked-address", SeverityError, rule.Probe, "the interface's URL, a redirect or its name led to a loopback, private, link-local, CGNAT, multicast or unspecified address (--allow-private allows them)"),
		def(CodeProbeRedirect, "probe.redirect", SeverityError, rule.Probe, "the interface redirected more than 3 times, from https to http, or to another scheme"),
		def(CodeProbeHTML, "probe.html", SeverityError, rule.Probe, "the interface answered with an HTML page, not its binding's answer"),
		def(CodeProbeNotFound, "probe.not-found", SeverityError, rule.Probe, "the interface answered 404 without its binding's task-not-found error: nothing serves the binding there"),
		def(CodeProbeWrongBinding, "probe.wrong-binding", SeverityError, rule.Probe, "the interface answered in another binding's shape than the one the card declares (JSON-RPC, HTTP+JSON or gRPC)"),
		def(CodeProbeUnexpected, "probe.unexpected", SeverityWarning, rule.Probe, "the interface answered in its binding's shape, but not with the task-not-found error a task id that does not exist should get"),
		def(CodeProbeStatus, "probe.status", SeverityError, rule.Probe, "the interface answered an HTTP status (5xx, 400, 405...) with a body in no binding's shape"),
		def(CodeProbeAuthRequired, "probe.auth-required", SeverityWarning, rule.Probe, "the interface asks for credentials (401 or 403), so its binding could not be confirmed without them"),
		def(CodeProbeTLS, "probe.tls", SeverityError, rule.Probe, "the interface's TLS certificate does not verify for its host: another host's, expired, or from an authority not trusted"),
		def(CodeProbeTLSExpiring, "probe.tls-expiring", SeverityWarning, rule.Probe, "the interface's TLS certificate expires within 21 days"),
		def(CodeProbeExtendedCardMissing, "probe.extended-card-missing", SeverityError, rule.Probe, "the card promises an extended card (capabilities.extendedAgentCard, supportsAuthenticatedExtendedCard) and the interface has none"),
		def(CodeProbeExtendedCardOpen, "probe.extended-card-open", SeverityWarning, rule.Probe, "the extended card is served without asking for authentication"),
		def(CodeProbeVersion, "probe.version", SeverityWarning, rule.Probe, "the server answers with another protocol version than the interface declares (A2A-Version, VersionNotSupportedError, another release's error shape)"),
		def(CodeProbeNotProbed, "probe.not-probed", SeverityWarning, rule.Probe, "the interface was not probed: its URL is not http(s) (grpc: host:port aside), its binding is not one cardscan knows, or it comes after the first 32 of its card, which are all a probe asks"),

		def(CodeSchemaType, "schema.type", SeverityError, schemaOnly, "type keyword failed"),
		def(CodeSchemaRequired, "schema.required", SeverityError, schemaOnly, "required keyword failed: a property is missing"),
		def(CodeSchemaAdditionalProperties, "schema.additionalProperties", SeverityError, schemaOnly, "additionalProperties: false failed: a property the schema does not define"),
		def(CodeSchemaPattern, "schema.pattern", SeverityError, schemaOnly, "pattern keyword failed"),
		def(CodeSchemaMinLength, "schema.minLength", SeverityError, schemaOnly, "minLength keyword failed (code points)"),
		def(CodeSchemaMaxLength, "schema.maxLength", SeverityError, schemaOnly, "maxLength keyword failed (code points)"),
		def(CodeSchemaMinItems, "schema.minItems", SeverityError, schemaOnly, "minItems keyword failed"),
		def(CodeSchemaUniqueItems, "schema.uniqueItems", SeverityError, schemaOnly, "uniqueItems keyword failed"),
		def(CodeSchemaEnum, "schema.enum", SeverityError, schemaOnly, "enum keyword failed"),
		def(CodeSchemaFormat, "schema.format", SeverityError, schemaOnly, "format keyword failed (uri: RFC 3986 absolute URI)"),
		def(CodeSchemaMinimum, "schema.minimum", SeverityError, schemaOnly, "minimum keyword failed"),
		def(CodeSchemaMaximum, "schema.maximum", SeverityError, schemaOnly, "maximum keyword failed"),
		def(CodeSchemaOneOf, "schema.oneOf", SeverityError, schemaOnly, "oneOf keyword failed: the value matches no alternative"),

		def(CodeDumpDuplicateID, "dump.duplicate-id", SeverityWarning, rule.CrossCard, "one identity (agent_id, A2A card URL, MA2D invocation.endpoint) on cards whose content differs"),
		def(CodeDumpSharedEndpoint, "dump.shared-endpoint", SeverityWarning, rule.CrossCard, "one endpoint or interface URL claimed by cards with different identities"),
		def(CodeDumpDuplicateCard, "dump.duplicate-card", SeverityWarning, rule.CrossCard, "the same card (equal RFC 8785 canonical forms) more than once in the dump"),
	)
}

// def is one row of a registration table: the fields of rule.Rule in
// order.
func def(c Code, id string, sev Severity, p rule.Profiles, desc string) rule.Rule {
	return rule.Rule{Code: c, ID: id, Severity: sev, Profiles: p, Description: desc}
}
