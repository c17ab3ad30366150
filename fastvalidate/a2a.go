package fastvalidate

import (
	"bytes"
	"github.com/cardscan/cardscan/rule"
	"math/bits"
	"slices"

	"github.com/cardscan/cardscan/fastvalidate/internal/tape"
)

// The a2a profiles: the A2A Agent Card in each of its incompatible releases.
// "a2a" detects the release per card; "a2a/0.1" ... "a2a/1.0" force one.
//
// What each release requires comes from its published JSON Schema (0.1 to
// 0.3) and from the REQUIRED markers of the 1.0 proto, as digested in
// specs/a2a/PROFILE.md. "a2a/0.2" covers 0.2.0 through 0.2.6: they differ
// only in fields they add, and protocolVersion, required from 0.2.5, tells
// the later ones apart, so a 0.2 card without it is judged as 0.2.0-0.2.4.

// Rules of the a2a profiles.
const (
	CodeA2ARequired Code = 100 + iota
	CodeA2ANull
	CodeA2AFieldName
	CodeA2AProtocolVersion
	CodeA2AInterface
	CodeA2ATransport
	CodeA2ASecurityScheme
	CodeA2ASecurityRequirement
	CodeA2ASecurityRef
	CodeA2ASignatureFormat
	CodeA2AURL
	CodeA2AURLRisk
	CodeA2AHybrid
	CodeA2ARemoved
	CodeA2ADeprecated
	CodeA2AMIME
	CodeA2ASkillIDUnique
	CodeA2APreferredTransport
	CodeA2AInterfaceCompleteness
	CodeA2ASignatureTyp
)

// Profiles columns: rule.A2A stands for every A2A release; the others name
// the releases a rule exists in, so a new release joins the rules "from
// 0.2" without an edit here.
var (
	a2aAll    = rule.A2A
	a2aFrom02 = rule.Since(rule.A2A02)
)

func init() {
	rule.Register(
		def(CodeA2ARequired, "a2a.required", SeverityError, a2aAll, "a member the card's A2A version requires is missing, or (1.0) is an empty string or array"),
		def(CodeA2ANull, "a2a.null", SeverityWarning, a2aAll, "an optional member is null; from 0.2 on the schema wants it left out (0.1's text allows null where it types a member \"T | null\")"),
		def(CodeA2AFieldName, "a2a.field-name", SeverityWarning, a2aAll, "a member is spelled in snake_case, which readers miss: an error in 1.0, whose spec says JSON names MUST be camelCase; a warning before, whose texts say nothing of it and whose schemas allow extra members"),
		def(CodeA2AProtocolVersion, "a2a.protocol-version", SeverityWarning, a2aAll, "protocolVersion names no A2A release that has the member (0.2.0 to 0.2.6, 0.3.0, 1.x), and the card is judged by the newest release whose members it uses; or a 1.0 interface's is not Major.Minor (1.0 section 3.6: patch numbers SHOULD NOT be used)"),
		def(CodeA2AInterface, "a2a.interface", SeverityError, a2aFrom02, "an interface lacks url, protocolBinding or protocolVersion (1.0), or url or transport (0.x additionalInterfaces)"),
		def(CodeA2ATransport, "a2a.transport", SeverityWarning, a2aFrom02, "a transport or protocolBinding is none of the core JSONRPC, GRPC, HTTP+JSON, nor an absolute URI naming a custom binding (1.0 section 5.8: SHOULD be a URI); an open string: check the spelling"),
		def(CodeA2ASecurityScheme, "a2a.security-scheme", SeverityError, a2aFrom02, "a security scheme is not in its version's shape (0.x: discriminated by type; 1.0: a wrapper holding exactly one scheme, flows holding exactly one flow)"),
		def(CodeA2ASecurityRequirement, "a2a.security-requirement", SeverityError, rule.Only(rule.A2A10), "a 1.0 security requirement is not {\"schemes\": {NAME: {\"list\": [scopes]}}}"),
		def(CodeA2ASecurityRef, "a2a.security-ref", SeverityError, a2aFrom02, "a security requirement names a scheme the card's securitySchemes does not define"),
		def(CodeA2ASignatureFormat, "a2a.signature-format", SeverityError, rule.Since(rule.A2A03), "a signatures[] entry is not a JWS: protected must be base64url of a JSON object with alg and kid, signature base64url"),
		def(CodeA2AURL, "a2a.url", SeverityError, a2aAll, "a URL is not an absolute URI, or not of its interface's binding: http(s) for JSONRPC and HTTP+JSON, host:port, grpc(s) or http(s) for GRPC, any absolute URI for a custom binding"),
		def(CodeA2AURLRisk, "a2a.url-risk", SeverityWarning, a2aAll, "a URL uses plain http, localhost or a private or loopback address (an error under the production policy)"),
		def(CodeA2AHybrid, "a2a.hybrid", SeverityWarning, rule.Only(rule.A2A10), "a 1.0 card also carries 0.x fields (url, preferredTransport, additionalInterfaces, protocolVersion, security, supportsAuthenticatedExtendedCard)"),
		def(CodeA2ARemoved, "a2a.removed", SeverityWarning, a2aFrom02, "a member the card's version removed (authentication from 0.2, stateTransitionHistory in 1.0)"),
		def(CodeA2ADeprecated, "a2a.deprecated", SeverityWarning, rule.Only(rule.A2A10), "an OAuth flow 1.0 deprecates (implicit, password)"),
		def(CodeA2AMIME, "a2a.mime", SeverityWarning, a2aFrom02, "an input or output mode is not a media type (type/subtype)"),
		def(CodeA2ASkillIDUnique, "a2a.skill-id-unique", SeverityWarning, a2aAll, "two skills share an id, which the spec says identifies a skill within the agent"),
		def(CodeA2APreferredTransport, "a2a.preferred-transport", SeverityWarning, rule.Only(rule.A2A03), "a 0.3 card lacks preferredTransport: the 0.3 text (5.6.1) says REQUIRED and MUST, the 0.3 JSON Schema leaves it optional with default JSONRPC"),
		def(CodeA2AInterfaceCompleteness, "a2a.interface-completeness", SeverityWarning, rule.Only(rule.A2A03), "a 0.3 card's additionalInterfaces has no entry for its url and preferredTransport, which the 0.3 text (5.6.4) says it SHOULD include"),
		def(CodeA2ASignatureTyp, "a2a.signature-typ", SeverityWarning, rule.Only(rule.A2A10), "a signature's protected header has a typ other than \"JOSE\", which the 1.0 text (8.4.2) says it SHOULD be"),
	)
	registerProfile("a2a", "A2A Agent Card, version detected per card (0.1, 0.2.x, 0.3, 1.0)", checkA2A)
	registerProfile("a2a/0.1", "A2A Agent Card 0.1", func(w *walker) string { return w.checkA2AForced(a2aV01) })
	registerProfile("a2a/0.2", "A2A Agent Card 0.2.0 to 0.2.6", func(w *walker) string { return w.checkA2AForced(a2aV02) })
	registerProfile("a2a/0.3", "A2A Agent Card 0.3", func(w *walker) string { return w.checkA2AForced(a2aV03) })
	registerProfile("a2a/1.0", "A2A Agent Card 1.0", func(w *walker) string { return w.checkA2AForced(a2aV10) })
}

// a2aVersion is an A2A release the checks tell apart (rule.Release).
// Releases are ordered: "1.0 or later" is ver >= a2aV10 and "before 1.0"
// ver < a2aV10, so a release after 1.0 inherits 1.0's checks and only the
// rules that differ need an edit. The two equalities left are "0.1" (the
// oldest release, nothing comes before it) and preferredTransport, which
// only 0.3 has.
type a2aVersion = rule.Release

const (
	a2aV01 = rule.A2A01
	a2aV02 = rule.A2A02
	a2aV03 = rule.A2A03
	a2aV10 = rule.A2A10
)

var a2aProfileName = [...]string{a2aV01: a2aV01.String(), a2aV02: a2aV02.String(), a2aV03: a2aV03.String(), a2aV10: a2aV10.String()}

// Where a snake_case alias may stand: a name is only reported in the
// object whose camelCase member it spells.
const (
	inCard aliasScope = 1 << iota
	inCapabilities
	inSkill
	inInterface
	inScheme10   // a 1.0 security scheme wrapper
	inSchemeBody // a security scheme's own members, 0.x or wrapped
	inFlows      // an OAuth flows object
	inFlow       // an OAuth flow
)

type aliasScope uint16

// snakeAliasOf returns the alias a member name of an object in the given
// scope is, or nil. The card's own aliases are proto field names, which
// the 1.0 JSON Schema and proto3 JSON parsers accept, but the spec says
// JSON names MUST be camelCase, and 0.x readers do not know them; the
// security schemes' camelCase names come from OpenAPI.
func snakeAliasOf(name []byte, scope aliasScope) *snakeAlias {
	// Most names the checks pass here are no alias: the lengths of the
	// scope's aliases rule out nearly all of them, the draft's
	// goal_subscriptions among them, before a search for '_' or a look
	// at the list.
	lengths := snakeAliasLengths[len(snakeAliasLengths)-1]
	if scope&(scope-1) == 0 {
		lengths = snakeAliasLengths[bits.TrailingZeros16(uint16(scope))]
	}
	if uint(len(name)) >= 64 || lengths>>len(name)&1 == 0 || bytes.IndexByte(name, '_') < 0 {
		return nil
	}
	for i := range snakeAliases {
		a := &snakeAliases[i]
		if a.scope&scope != 0 && a.snake == string(name) {
			return a
		}
	}
	return nil
}

type snakeAlias struct {
	snake, camel, msg string
	missingMsg        string // for the camelCase member missing beside it
	scope             aliasScope
	// since is the first version with the camelCase member; before it
	// the snake_case name spells nothing a reader knows. 0 for all.
	since a2aVersion
}

// snakeAliases carries a message per alias, so that reporting one
// allocates nothing.
var snakeAliases = func() []snakeAlias {
	list := []snakeAlias{
		{snake: "protocol_version", camel: "protocolVersion", scope: inCard | inInterface},
		{snake: "documentation_url", camel: "documentationUrl", scope: inCard},
		{snake: "icon_url", camel: "iconUrl", scope: inCard},
		{snake: "security_schemes", camel: "securitySchemes", scope: inCard},
		{snake: "security_requirements", camel: "securityRequirements", scope: inCard | inSkill},
		{snake: "default_input_modes", camel: "defaultInputModes", scope: inCard},
		{snake: "default_output_modes", camel: "defaultOutputModes", scope: inCard},
		{snake: "supports_authenticated_extended_card", camel: "supportsAuthenticatedExtendedCard", scope: inCard},
		{snake: "preferred_transport", camel: "preferredTransport", scope: inCard},
		{snake: "additional_interfaces", camel: "additionalInterfaces", scope: inCard},
		{snake: "supported_interfaces", camel: "supportedInterfaces", scope: inCard},
		{snake: "input_modes", camel: "inputModes", scope: inSkill},
		{snake: "output_modes", camel: "outputModes", scope: inSkill},
		{snake: "push_notifications", camel: "pushNotifications", scope: inCapabilities},
		{snake: "state_transition_history", camel: "stateTransitionHistory", scope: inCapabilities},
		{snake: "extended_agent_card", camel: "extendedAgentCard", scope: inCapabilities},
		{snake: "protocol_binding", camel: "protocolBinding", scope: inInterface},
		{snake: "api_key_security_scheme", camel: "apiKeySecurityScheme", scope: inScheme10},
		{snake: "http_auth_security_scheme", camel: "httpAuthSecurityScheme", scope: inScheme10},
		{snake: "oauth2_security_scheme", camel: "oauth2SecurityScheme", scope: inScheme10},
		{snake: "open_id_connect_security_scheme", camel: "openIdConnectSecurityScheme", scope: inScheme10},
		{snake: "mtls_security_scheme", camel: "mtlsSecurityScheme", scope: inScheme10},
		{snake: "bearer_format", camel: "bearerFormat", scope: inSchemeBody},
		{snake: "open_id_connect_url", camel: "openIdConnectUrl", scope: inSchemeBody},
		{snake: "oauth2_metadata_url", camel: "oauth2MetadataUrl", scope: inSchemeBody, since: a2aV03},
		{snake: "authorization_code", camel: "authorizationCode", scope: inFlows},
		{snake: "client_credentials", camel: "clientCredentials", scope: inFlows},
		{snake: "device_code", camel: "deviceCode", scope: inFlows, since: a2aV10},
		{snake: "authorization_url", camel: "authorizationUrl", scope: inFlow},
		{snake: "token_url", camel: "tokenUrl", scope: inFlow},
		{snake: "refresh_url", camel: "refreshUrl", scope: inFlow},
		{snake: "device_authorization_url", camel: "deviceAuthorizationUrl", scope: inFlow, since: a2aV10},
		{snake: "pkce_required", camel: "pkceRequired", scope: inFlow, since: a2aV10},
	}
	for i := range list {
		list[i].msg = "snake_case member name; A2A JSON names are camelCase: " + list[i].camel
		list[i].missingMsg = "missing required member \"%s\"; the card spells it " + list[i].snake + ", which A2A readers do not know"
	}
	return list
}()

// snakeAliasLengths has bit l of entry b set when an alias of scope 1<<b
// is l bytes long, and its last entry that bit for an alias of any scope.
// Every alias is shorter than 64 bytes (TestSnakeAliasOf_Lengths).
var snakeAliasLengths = func() (t [17]uint64) {
	for _, a := range snakeAliases {
		for b := range 16 {
			if a.scope&(1<<b) != 0 {
				t[b] |= 1 << len(a.snake)
			}
		}
		t[16] |= 1 << len(a.snake)
	}
	return t
}()

func checkA2A(w *walker) string {
	var m topMembers
	w.collectTop(&m)
	return w.checkA2ADetected(&m)
}

// checkA2ADetected judges a card by the version its members claim.
func (w *walker) checkA2ADetected(m *topMembers) string {
	ver, how := w.a2aVersionOf(m)
	w.res.Assumed = how == versionAssumed
	if how == versionNoRelease {
		w.addGot(CodeA2AProtocolVersion, m.protocolVersion, noReleaseMessages[ver])
		m.versionJudged = true
	}
	return w.checkA2AVersion(ver, m)
}

// versionSource says how a2aVersionOf chose a card's version.
type versionSource uint8

const (
	versionInterfaces     versionSource = iota + 1 // supportedInterfaces: 1.0
	versionProtocol                                // protocolVersion names a release
	versionNoRelease                               // protocolVersion names none: the members decide
	versionMembers10                               // a member only 1.0 has, nested ones too
	versionMembers03                               // a member 0.3 brought: signatures, a skill's security, mutualTLS, oauth2MetadataUrl
	versionSecurity                                // securitySchemes or security: 0.2
	versionAuthentication                          // authentication: 0.1
	versionAssumed                                 // no marker at all: 0.2.0-0.2.4 assumed
)

var noReleaseMessages = [...]string{
	a2aV01: "protocolVersion names no A2A release (0.2.0 to 0.2.6, 0.3.0, 1.x); the card is judged as 0.1, the newest release whose members it uses",
	a2aV02: "protocolVersion names no A2A release (0.2.0 to 0.2.6, 0.3.0, 1.x); the card is judged as 0.2, the newest release whose members it uses",
	a2aV03: "protocolVersion names no A2A release (0.2.0 to 0.2.6, 0.3.0, 1.x); the card is judged as 0.3, the newest release whose members it uses",
	a2aV10: "protocolVersion names no A2A release (0.2.0 to 0.2.6, 0.3.0, 1.x); the card is judged as 1.0, the newest release whose members it uses",
}

// a2aVersionOf returns the version a card's members claim and how they
// claim it: supportedInterfaces means 1.0; otherwise protocolVersion names
// a release, or failing that protocol_version, its proto spelling, does;
// otherwise a member only 1.0 has means 1.0 (uses10), a member 0.3
// brought 0.3 (uses03), securitySchemes or security 0.2 and
// authentication 0.1. A card with none of these is
// 0.2.0-0.2.4, the releases that had neither authentication nor
// protocolVersion. A protocolVersion string that names no release
// ("0.2.9", the sample value of the 0.2.5 to 0.3.0 specifications) leaves
// the choice to the members: the newest release whose members the card
// uses, 1.0 for a member only 1.0 has, 0.3 for a member 0.3 brought, else
// as for a card that names no version.
func (w *walker) a2aVersionOf(m *topMembers) (a2aVersion, versionSource) {
	switch {
	case m.supportedInterfaces != 0:
		return a2aV10, versionInterfaces
	case m.protocolVersion != 0 && w.kind(m.protocolVersion) == tape.KindString:
		if ver := protocolRelease(w.str(m.protocolVersion)); ver != 0 {
			return ver, versionProtocol
		}
		switch {
		case w.uses10(m):
			return a2aV10, versionNoRelease
		case w.uses03(m):
			return a2aV03, versionNoRelease
		}
		ver, _ := w.a2aVersionByMembers(m)
		return ver, versionNoRelease
	case m.protocolVersion == 0 && w.peek(m.protocolVersionSnake, tape.KindString):
		// The release the author meant; a2a.field-name (or a2a.required,
		// where the release requires protocolVersion) names the spelling.
		if ver := protocolRelease(w.str(m.protocolVersionSnake)); ver != 0 {
			return ver, versionProtocol
		}
	}
	return w.a2aVersionByMembers(m)
}

// a2aVersionByMembers is the version of a card that names none.
func (w *walker) a2aVersionByMembers(m *topMembers) (a2aVersion, versionSource) {
	switch {
	case w.uses10(m):
		return a2aV10, versionMembers10
	case w.uses03(m):
		// A member 0.3 brought makes a 0.3 card, as one only 1.0 has makes
		// a 1.0 card: judged as 0.2.0-0.2.4, which know no signatures, its
		// signatures went unchecked and its missing protocolVersion unsaid.
		return a2aV03, versionMembers03
	case m.securitySchemes != 0 || m.security != 0:
		return a2aV02, versionSecurity
	case m.authentication != 0:
		return a2aV01, versionAuthentication
	}
	return a2aV02, versionAssumed
}

// uses10 reports whether the card has a member only 1.0 has, at the top
// or nested: securityRequirements, capabilities.extendedAgentCard (the
// proto's AgentCapabilities.extended_agent_card, where appendix A.2.2
// moved supportsAuthenticatedExtendedCard), a security scheme in 1.0's
// one-of wrapper (apiKeySecurityScheme, ...) rather than 0.x's type
// discriminator, a skill's securityRequirements, or an interface's
// protocolBinding (0.x's interfaces name a transport). Only cards that
// name no release pay for the look.
func (w *walker) uses10(m *topMembers) bool {
	if m.securityRequirements != 0 {
		return true
	}
	if w.peek(m.capabilities, tape.KindObject) && w.member(m.capabilities, "extendedAgentCard") != 0 {
		return true
	}
	if w.peek(m.securitySchemes, tape.KindObject) {
		for k := m.securitySchemes + 1; k < w.end(m.securitySchemes); k = w.next(k + 1) {
			if v := k + 1; w.kind(v) == tape.KindObject && w.sc.Whole(v) && w.schemeWrapper10(v) {
				return true
			}
		}
	}
	return w.anyMember(m.skills, "securityRequirements") || w.anyMember(m.additionalInterfaces, "protocolBinding")
}

// schemeWrapper10 reports whether security scheme s holds one of 1.0's
// scheme members.
func (w *walker) schemeWrapper10(s uint32) bool {
	for k := s + 1; k < w.end(s); k = w.next(k + 1) {
		switch string(w.name(k)) {
		case "apiKeySecurityScheme", "httpAuthSecurityScheme", "oauth2SecurityScheme", "openIdConnectSecurityScheme", "mtlsSecurityScheme":
			return true
		}
	}
	return false
}

// anyMember reports whether arr is an array read whole with an object
// element that has a member called name.
func (w *walker) anyMember(arr uint32, name string) bool {
	if !w.peek(arr, tape.KindArray) {
		return false
	}
	for e := arr + 1; e < w.end(arr); e = w.next(e) {
		if w.kind(e) == tape.KindObject && w.member(e, name) != 0 {
			return true
		}
	}
	return false
}

// uses03 reports whether the card has a member 0.3 brought: signatures, a
// skill's security, a mutualTLS scheme or an oauth2MetadataUrl.
func (w *walker) uses03(m *topMembers) bool {
	if m.signatures != 0 {
		return true
	}
	if w.peek(m.skills, tape.KindArray) {
		for s := m.skills + 1; s < w.end(m.skills); s = w.next(s) {
			if w.kind(s) == tape.KindObject && w.member(s, "security") != 0 {
				return true
			}
		}
	}
	if w.peek(m.securitySchemes, tape.KindObject) {
		for k := m.securitySchemes + 1; k < w.end(m.securitySchemes); k = w.next(k + 1) {
			v := k + 1
			if w.kind(v) != tape.KindObject {
				continue
			}
			if w.member(v, "oauth2MetadataUrl") != 0 {
				return true
			}
			if t := w.member(v, "type"); t != 0 && w.kind(t) == tape.KindString && string(w.str(t)) == "mutualTLS" {
				return true
			}
		}
	}
	return false
}

func (w *walker) checkA2AForced(ver a2aVersion) string {
	var m topMembers
	w.collectTop(&m)
	return w.checkA2AVersion(ver, &m)
}

// protocolRelease maps a protocolVersion to the release it names: "0.2"
// and "0.2.0" to "0.2.6" mean 0.2; "0.3" and "0.3.0" mean 0.3; "1", "1.0"
// and any 1.x.y mean 1.0 (a 1.x minor only adds fields). It returns 0 for
// anything else: "0.2.9" or "0.3.1", which no release was, and 0.1, which
// had no protocolVersion, so that a card naming it claims a release that
// could not have said so.
func protocolRelease(v []byte) a2aVersion {
	// The releases by name first: a string switch costs a few compares,
	// where parsing the version cost a valid card 170 instructions more
	// (callgrind, BenchmarkProfile/a2a_1.0).
	switch string(v) {
	case "1", "1.0", "1.0.0", "1.0.1":
		return a2aV10
	case "0.3", "0.3.0":
		return a2aV03
	case "0.2", "0.2.0", "0.2.1", "0.2.2", "0.2.3", "0.2.4", "0.2.5", "0.2.6":
		return a2aV02
	}
	if len(v) > 2 && v[0] == '1' && v[1] == '.' && minorPatch(v[2:]) {
		return a2aV10
	}
	return 0
}

// minorPatch reports whether v is MINOR or MINOR.PATCH, digits only.
func minorPatch(v []byte) bool {
	parts, digits := 1, 0
	for _, c := range v {
		switch {
		case c-'0' <= 9:
			digits++
		case c == '.' && digits > 0 && parts == 1:
			parts, digits = 2, 0
		default:
			return false
		}
	}
	return digits > 0
}

// majorMinor reports whether v is a version as 1.0 section 3.6 names one,
// Major.Minor ("1.0", "0.3"), with no patch number.
func majorMinor(v []byte) bool {
	dot := bytes.IndexByte(v, '.')
	return dot > 0 && dot < len(v)-1 && allDigits(v[:dot]) && allDigits(v[dot+1:])
}

func allDigits(v []byte) bool {
	for _, c := range v {
		if c-'0' > 9 {
			return false
		}
	}
	return true
}

// Bits of the members a version requires, in the order they are reported.
const (
	reqName = 1 << iota
	reqDescription
	reqURL
	reqSupportedInterfaces
	reqVersion
	reqProtocolVersion
	reqCapabilities
	reqDefaultInputModes
	reqDefaultOutputModes
	reqSkills
)

var requiredNames = [...]string{"name", "description", "url", "supportedInterfaces", "version", "protocolVersion", "capabilities", "defaultInputModes", "defaultOutputModes", "skills"}

// requiredByVersion holds each version's required members as bits of
// requiredNames, from the member table.
var requiredByVersion = func() (req [rule.LatestRelease + 1]uint16) {
	for ver := a2aV01; ver <= rule.LatestRelease; ver++ {
		for _, name := range requiredIn(&a2aMembers, 1<<ver) {
			i := slices.Index(requiredNames[:], name)
			if i < 0 {
				panic("fastvalidate: required A2A member without a bit: " + name)
			}
			req[ver] |= 1 << i
		}
	}
	return req
}()

// a2aCheck carries what the checks of one card share: the walker, whose
// API its methods use as their own, the version and the top-level members.
type a2aCheck struct {
	*walker
	ver a2aVersion
	m   *topMembers
	// pending holds the snake_case member names (key nodes) whose
	// camelCase member is absent, reported at the end unless addMissing
	// has reported them as the spelling of a missing required member:
	// one finding for one fault. 0 marks one taken.
	pending  [8]uint32
	npending int
	// taken holds those addMissing reported before snakeKey saw them.
	taken  [4]uint32
	ntaken int
	// schemes indexes the names of securitySchemes once schemeRef finds
	// it long (schemesShort once it finds it short).
	schemes      *tape.StringIndex
	schemesShort bool
}

// checkA2AVersion checks the card as A2A release ver. The steps run in
// the order the card's findings are reported in, member group by member
// group.
func (w *walker) checkA2AVersion(ver a2aVersion, m *topMembers) string {
	c := a2aCheck{walker: w, ver: ver, m: m}
	req := requiredByVersion[ver]
	c.checkRequired(req)
	c.identity(req)
	c.providerAndLinks()
	// Required members are never "absent as null": null is a type error.
	if m.capabilities != 0 && c.want(m.capabilities, tape.KindObject) {
		c.capabilities(m.capabilities)
	}
	c.security()
	c.modes(m.defaultInputModes, req&reqDefaultInputModes != 0)
	c.modes(m.defaultOutputModes, req&reqDefaultOutputModes != 0)
	if m.skills != 0 && c.want(m.skills, tape.KindArray) {
		if ver >= a2aV10 && c.empty(m.skills) {
			w.add(CodeA2ARequired, m.skills, "skills must hold at least one skill")
		}
		c.skills(m.skills)
	}
	c.interfaces()
	if ver >= a2aV03 && c.present(m.signatures) && c.want(m.signatures, tape.KindArray) {
		c.signatures(m.signatures)
	}
	c.reportSnakeCase()
	return a2aProfileName[ver]
}

// checkRequired reports the top-level members that req, the release's
// required ones, names and the card lacks.
func (c *a2aCheck) checkRequired(req uint16) {
	m := c.m
	present := [...]uint32{m.name, m.description, m.url, m.supportedInterfaces, m.version, m.protocolVersion, m.capabilities, m.defaultInputModes, m.defaultOutputModes, m.skills}
	// One bit per member, set without a branch: which are there differs
	// from card to card, so a branch per member would often be
	// mispredicted.
	var have uint16
	for i, n := range present {
		have |= uint16(b2u(n != 0)) << i
	}
	if missing := req &^ have; missing != 0 {
		c.reportMissing(missing)
	}
}

// identity checks the strings that say what the agent is, and before 1.0
// the card's url and protocolVersion, which 1.0 moved into each of its
// supportedInterfaces (a hybrid card's are checked by legacy).
func (c *a2aCheck) identity(req uint16) {
	m := c.m
	if !c.goodString(m.name) || !c.goodString(m.description) || !c.goodString(m.version) {
		c.checkString(m.name, req&reqName != 0)
		c.checkString(m.description, req&reqDescription != 0)
		c.checkString(m.version, req&reqVersion != 0)
	}
	if c.ver >= a2aV10 {
		return
	}
	if c.goodString(m.url) || c.checkString(m.url, true) {
		c.url(m.url, c.preferredURL())
	}
	if c.ver >= a2aV02 && !c.goodString(m.protocolVersion) {
		c.checkString(m.protocolVersion, req&reqProtocolVersion != 0)
	}
}

// providerAndLinks checks who provides the agent and the pages about it.
func (c *a2aCheck) providerAndLinks() {
	m := c.m
	if c.present(m.provider) && c.want(m.provider, tape.KindObject) {
		c.provider(m.provider)
	}
	if c.checkOptionalString(m.documentationURL) {
		c.url(m.documentationURL, urlWeb)
	}
	if c.ver >= a2aV02 && c.checkOptionalString(m.iconURL) {
		c.url(m.iconURL, urlWeb)
	}
}

// security checks how a client authenticates: 0.1's authentication, which
// 0.2 replaced, then the security schemes and the card-wide requirements
// that name them, in their 0.x or 1.0 shape.
func (c *a2aCheck) security() {
	m := c.m
	if m.authentication != 0 {
		if c.ver == a2aV01 {
			if c.present(m.authentication) && c.want(m.authentication, tape.KindObject) {
				c.authentication(m.authentication)
			}
		} else {
			c.add(CodeA2ARemoved, m.authentication, "authentication was replaced by securitySchemes and security in 0.2")
		}
	}
	if c.ver >= a2aV02 && c.present(m.securitySchemes) && c.want(m.securitySchemes, tape.KindObject) {
		c.securitySchemes(m.securitySchemes)
	}
	if c.ver >= a2aV10 {
		if c.present(m.securityRequirements) {
			c.requirements10(m.securityRequirements)
		}
	} else if c.ver >= a2aV02 && c.present(m.security) {
		c.requirements0x(m.security)
	}
}

// interfaces checks how a client reaches the agent: 1.0's
// supportedInterfaces, and the 0.x members a hybrid 1.0 card keeps for
// older clients; before 1.0, the transports beside url.
func (c *a2aCheck) interfaces() {
	m := c.m
	if c.ver >= a2aV10 {
		if m.supportedInterfaces != 0 && c.want(m.supportedInterfaces, tape.KindArray) {
			c.supportedInterfaces(m.supportedInterfaces)
		}
		if c.hybrid() {
			c.legacy()
		}
		return
	}
	if c.ver < a2aV02 {
		return
	}
	c.transports0x()
	// 0.3 alone: 0.2 had no preferredTransport and 1.0 replaced it
	// with supportedInterfaces, so this stays an equality.
	if c.ver == a2aV03 && m.preferredTransport == 0 {
		msg := msgPreferredTransport
		if c.takeSnake(0, "preferredTransport") != nil {
			msg = msgPreferredTransportSnake
		}
		c.addMissingMsg(CodeA2APreferredTransport, 0, "preferredTransport", msg)
	}
}

// reportSnakeCase reports the card's snake_case member names, then those
// found in nested objects whose camelCase member was absent and that no
// missing-member finding has named already.
func (c *a2aCheck) reportSnakeCase() {
	if c.m.snakeCase {
		c.snakeCase(0, inCard)
	}
	for _, k := range c.pending[:c.npending] {
		if k != 0 {
			c.reportSnake(k)
		}
	}
}

// present reports whether an optional member is there and not null. null
// is allowed in 0.1, whose spec types most optional members as "T | null";
// the later schemas want the member left out instead.
func (c *a2aCheck) present(n uint32) bool {
	// Node 0, for absent, is the card itself: an object, so not null.
	if c.vw.Kind(n) != tape.KindNull {
		return n != 0
	}
	c.null(n)
	return false
}

// presentTyped is present for an optional member that the 0.1 text too
// types without "| null" (defaultInputModes, defaultOutputModes and the
// capabilities' flags, 0.1 sections 5.5 and 5.5.2): a null one is a2a.null
// in every release.
func (c *a2aCheck) presentTyped(n uint32) bool {
	if c.ver == a2aV01 && n != 0 && c.vw.Kind(n) == tape.KindNull {
		c.add(CodeA2ANull, n, "optional member is null; leave it out instead")
		return false
	}
	return c.present(n)
}

// null is the rare path of present, kept out of line so that present
// stays inlinable (TestWalker_Inlined).
//
//go:noinline
func (c *a2aCheck) null(n uint32) {
	if c.ver > a2aV01 {
		c.add(CodeA2ANull, n, "optional member is null; leave it out instead")
	}
}

// checkString checks a string member and reports whether it holds one to look at
// further. A required member that is null is a type error; 1.0 also
// rejects an empty required string, which proto3 cannot tell from absent.
func (c *a2aCheck) checkString(n uint32, required bool) bool {
	return stringOr(c, n, required, CodeA2ARequired, (*a2aCheck).badString)
}

func (c *a2aCheck) checkStringAs(n uint32, required bool, code Code) bool {
	return stringOr(c, n, required, code, (*a2aCheck).badString)
}

// stringOr is checkStringAs's fast path: it reports true for member n
// when it is a string to look at further, and calls bad otherwise. bad is
// a parameter for the reason plainOr's decoder is: a direct call would
// push checkStringAs past the inliner's budget, and every string member
// a check reads would be a call (TestWalker_Inlined holds them to it).
func stringOr(c *a2aCheck, n uint32, required bool, code Code, bad func(*a2aCheck, uint32, bool, Code) bool) bool {
	// Node 0, for absent, is the card itself: an object, so no string.
	if c.vw.Kind(n) == tape.KindString && (!required || c.ver < a2aV10 || !c.vw.EmptyString(n)) {
		return true
	}
	return bad(c, n, required, code)
}

// badString reports what keeps member n, which is absent or no non-empty
// string, from being a string to look at further.
//
//go:noinline
func (c *a2aCheck) badString(n uint32, required bool, code Code) bool {
	if n == 0 {
		return false
	}
	if !required && !c.present(n) {
		return false
	}
	if !c.want(n, tape.KindString) {
		return false
	}
	c.add(code, n, "required string is empty")
	return false
}

// checkRequiredString checks member n of object obj, which the version requires,
// reporting a missing or empty one under code.
func (c *a2aCheck) checkRequiredString(obj, n uint32, code Code, name string) bool {
	// Node 0, for absent, is the card itself: an object, so no string.
	if c.vw.Kind(n) == tape.KindString && (c.ver < a2aV10 || !c.vw.EmptyString(n)) {
		return true
	}
	return requiredOr(c, obj, n, code, name, (*a2aCheck).badRequired)
}

// requiredOr calls bad, the rare case of checkRequiredString, through a
// parameter, for the reason stringOr does.
func requiredOr(c *a2aCheck, obj, n uint32, code Code, name string, bad func(*a2aCheck, uint32, uint32, Code, string) bool) bool {
	return bad(c, obj, n, code, name)
}

// badRequired reports a missing, empty or mistyped required member n of
// object obj.
//
//go:noinline
func (c *a2aCheck) badRequired(obj, n uint32, code Code, name string) bool {
	if n == 0 {
		c.addMissing(code, obj, name)
		return false
	}
	return c.badString(n, true, code)
}

// checkOptionalString is checkString(n, false) with the common cases
// first.
func (c *a2aCheck) checkOptionalString(n uint32) bool {
	return stringOr(c, n, false, CodeA2ARequired, (*a2aCheck).badString)
}

// goodString reports whether member n is a string that even a required
// member may be, so that checkRequiredString would report nothing.
func (c *a2aCheck) goodString(n uint32) bool {
	return n != 0 && c.kind(n) == tape.KindString && (c.ver < a2aV10 || !c.emptyString(n))
}

// checkStringArray checks an array of strings and reports whether it is one.
// A required 1.0 array must not be empty.
func (c *a2aCheck) checkStringArray(n uint32, required bool) bool {
	w := c.walker
	if !c.want(n, tape.KindArray) {
		return false
	}
	if required && c.ver >= a2aV10 && c.empty(n) {
		w.add(CodeA2ARequired, n, "required array is empty")
	}
	ok := true
	vw := w.vw // see tape.View
	for e, end := n+1, vw.End(n); e < end; e = vw.Next(e) {
		if vw.Kind(e) != tape.KindString {
			ok = w.wantSlow(e, tape.KindString) // false, having reported it
		}
	}
	return ok
}

// modes checks a list of input or output modes. They are media types from
// 0.2 on; the 0.1 schema's own default was ["text"], so 0.1 is not held to it.
func (c *a2aCheck) modes(n uint32, required bool) {
	if n == 0 || !required && !c.presentTyped(n) {
		return
	}
	w := c.walker
	if !w.want(n, tape.KindArray) {
		return
	}
	if required && c.ver >= a2aV10 && w.empty(n) {
		w.add(CodeA2ARequired, n, "required array is empty")
	}
	vw := w.vw // see tape.View
	for e, end := n+1, vw.End(n); e < end; e = vw.Next(e) {
		switch {
		case vw.Kind(e) != tape.KindString:
			w.wantSlow(e, tape.KindString)
		case c.ver == a2aV01:
		case !vw.Escaped(e) && isMediaType(vw.Raw(e)):
		case !vw.Escaped(e) || !isMediaType(w.str(e)):
			w.addGot(CodeA2AMIME, e, "mode is not a media type (type/subtype)")
		}
	}
}

func (c *a2aCheck) provider(p uint32) {
	var org, url uint32
	for k, end := p+1, c.end(p); k < end; k = c.next(k + 1) {
		switch string(c.name(k)) {
		case "organization":
			org = k + 1
		case "url":
			url = k + 1
		}
	}
	if !c.goodString(org) {
		c.checkRequiredString(p, org, CodeA2ARequired, "organization")
	}
	if c.ver == a2aV01 {
		if c.checkOptionalString(url) {
			c.url(url, urlWeb)
		}
		return
	}
	if c.goodString(url) || c.checkRequiredString(p, url, CodeA2ARequired, "url") {
		c.url(url, urlWeb)
	}
}

func (c *a2aCheck) capabilities(caps uint32) {
	w := c.walker
	for k, end := caps+1, c.end(caps); k < end; k = c.next(k + 1) {
		v := k + 1
		switch string(c.name(k)) {
		case "streaming", "pushNotifications":
			if c.presentTyped(v) {
				c.want(v, kindBoolean)
			}
		case "stateTransitionHistory":
			if c.ver >= a2aV10 {
				w.add(CodeA2ARemoved, v, "stateTransitionHistory was removed in 1.0")
			} else if c.presentTyped(v) {
				c.want(v, kindBoolean)
			}
		case "extendedAgentCard":
			if c.ver >= a2aV10 && c.present(v) {
				c.want(v, kindBoolean)
			}
		case "extensions":
			if c.ver >= a2aV02 && c.present(v) && c.want(v, tape.KindArray) {
				for e, end := v+1, c.end(v); e < end; e = c.next(e) {
					if c.want(e, tape.KindObject) {
						c.extension(e)
					}
				}
			}
		default:
			c.snakeKey(k, inCapabilities)
		}
	}
}

func (c *a2aCheck) extension(x uint32) {
	var uri uint32
	for k, end := x+1, c.end(x); k < end; k = c.next(k + 1) {
		v := k + 1
		switch string(c.name(k)) {
		case "uri":
			uri = v
		case "description":
			c.checkOptionalString(v)
		case "required":
			if c.present(v) {
				c.want(v, kindBoolean)
			}
		case "params":
			if c.present(v) {
				c.want(v, tape.KindObject)
			}
		}
	}
	// The 0.x schemas require uri; the 1.0 proto marks no AgentExtension
	// field REQUIRED, and its uri, declared without optional, is unset when
	// "".
	if c.ver >= a2aV10 {
		if !c.protoDefault(uri) && c.checkOptionalString(uri) {
			c.url(uri, urlIdentifier)
		}
		return
	}
	if c.goodString(uri) || c.checkRequiredString(x, uri, CodeA2ARequired, "uri") {
		c.url(uri, urlIdentifier)
	}
}

// protoDefault reports whether member n is the empty string that a 1.0
// string field declared without the optional keyword holds by default:
// proto3 does not tell it from an absent one (1.0 section 5.7; section 8.4.1
// leaves it out of the canonical form), so a URL field holding it names no
// URL. documentationUrl and iconUrl are declared optional: "" is a value
// set there, and is checked.
func (c *a2aCheck) protoDefault(n uint32) bool {
	return c.ver >= a2aV10 && n != 0 && c.kind(n) == tape.KindString && c.emptyString(n)
}

func (c *a2aCheck) authentication(a uint32) {
	w := c.walker
	var schemes uint32
	for k, end := a+1, c.end(a); k < end; k = c.next(k + 1) {
		v := k + 1
		switch string(c.name(k)) {
		case "schemes":
			schemes = v
		case "credentials":
			c.checkOptionalString(v)
		}
	}
	if schemes == 0 {
		w.addMissing(CodeA2ARequired, a, "schemes")
		return
	}
	c.checkStringArray(schemes, false)
}

// maxSeenSkills bounds the skill ids skills compares pair by pair for the
// uniqueness check; a longer list is indexed, so that a hostile card of n
// skills costs n log n comparisons rather than n².
const maxSeenSkills = 32

// skills checks each skill of array arr, and that no two share an id.
func (c *a2aCheck) skills(arr uint32) {
	w := c.walker
	var seen [maxSeenSkills]uint32 // the string ids of the skills so far
	nseen := 0
	vw := w.vw                // see tape.View
	var ids *tape.StringIndex // every skill's id, once seen is full
	for s, end := arr+1, vw.End(arr); s < end; s = vw.Next(s) {
		if !w.want(s, tape.KindObject) {
			continue
		}
		sk := c.skillMembers(s)
		if c.ver == a2aV01 {
			c.skillRequired01(s, &sk)
		} else {
			c.skillRequired(s, &sk)
		}
		// Every version calls the id unique within the agent.
		id := sk.id
		if id == 0 || w.kind(id) != tape.KindString {
			continue
		}
		var repeated bool
		if ids == nil && nseen == len(seen) {
			ids = c.indexSkillIDs(arr)
		}
		if ids != nil {
			// The index holds every skill's id: the first of this text is
			// an earlier skill's unless it is this one.
			repeated = ids.First(vw, id) != id
		} else {
			repeated = w.equalsAny(seen[:nseen], id)
			seen[nseen] = id
			nseen++
		}
		if repeated {
			w.addGot(CodeA2ASkillIDUnique, id, "an earlier skill has the same id")
		}
	}
}

// indexSkillIDs indexes the string ids of the skills of array arr.
func (c *a2aCheck) indexSkillIDs(arr uint32) *tape.StringIndex {
	w := c.walker
	ids := w.vw.Index(tape.IndexA)
	ids.Reset()
	for s := arr + 1; s < c.end(arr); s = c.next(s) {
		if c.kind(s) != tape.KindObject {
			continue
		}
		if id := w.member(s, "id"); id != 0 && c.kind(id) == tape.KindString {
			ids.Add(w.vw, id)
		}
	}
	ids.Sort()
	return ids
}

// skillNodes holds the nodes of a skill's members that its release
// requires, 0 for absent ones.
type skillNodes struct{ id, name, desc, tags uint32 }

// skillMembers finds the members of skill s, checking at once the
// optional ones, which no other member's check needs.
func (c *a2aCheck) skillMembers(s uint32) (sk skillNodes) {
	w := c.walker
	vw := w.vw // see tape.View
	for k, end := s+1, vw.End(s); k < end; k = vw.NextMember(k) {
		v := k + 1
		switch string(vw.Name(k)) {
		case "id":
			sk.id = v
		case "name":
			sk.name = v
		case "description":
			sk.desc = v
		case "tags":
			sk.tags = v
		case "examples":
			if !w.stringsOnly(v) && c.present(v) {
				c.checkStringArray(v, false)
			}
		case "inputModes", "outputModes":
			// 0.1 types a skill's modes "string[] | null" (section 5.5.4).
			if c.present(v) {
				c.modes(v, false)
			}
		case "security":
			// 0.3's member, which a hybrid 1.0 card keeps for 0.3 clients.
			if c.ver >= a2aV03 && c.present(v) {
				c.requirements0x(v)
			}
		case "securityRequirements":
			if c.ver >= a2aV10 && c.present(v) {
				c.requirements10(v)
			}
		default:
			c.snakeKey(k, inSkill)
		}
	}
	return sk
}

// skillRequired01 checks the members of 0.1 skill s: id and name are
// required, description and tags optional.
func (c *a2aCheck) skillRequired01(s uint32, sk *skillNodes) {
	w := c.walker
	if !c.goodString(sk.id) || !c.goodString(sk.name) {
		c.checkRequiredString(s, sk.id, CodeA2ARequired, "id")
		c.checkRequiredString(s, sk.name, CodeA2ARequired, "name")
	}
	if sk.desc != 0 && w.kind(sk.desc) != tape.KindString {
		c.checkString(sk.desc, false)
	}
	if sk.tags != 0 && !w.stringsOnly(sk.tags) && c.present(sk.tags) {
		c.checkStringArray(sk.tags, false)
	}
}

// skillRequired checks the members of skill s from 0.2 on, which
// requires id, name, description and tags; 1.0 wants tags not empty.
func (c *a2aCheck) skillRequired(s uint32, sk *skillNodes) {
	w := c.walker
	if !c.goodString(sk.id) || !c.goodString(sk.name) || !c.goodString(sk.desc) {
		c.checkRequiredString(s, sk.id, CodeA2ARequired, "id")
		c.checkRequiredString(s, sk.name, CodeA2ARequired, "name")
		c.checkRequiredString(s, sk.desc, CodeA2ARequired, "description")
	}
	switch tags := sk.tags; {
	case tags == 0:
		w.addMissing(CodeA2ARequired, s, "tags")
	case w.stringsOnly(tags) && (c.ver < a2aV10 || w.end(tags) != tags+1):
	case w.kind(tags) == tape.KindNull:
		w.addTypeMismatch(tags, tape.KindArray)
	default:
		c.checkStringArray(tags, true)
	}
}

// supportedInterfaces checks the 1.0 list of interfaces, the first of
// which is the preferred one.
func (c *a2aCheck) supportedInterfaces(arr uint32) {
	w := c.walker
	if c.empty(arr) {
		w.add(CodeA2ARequired, arr, "supportedInterfaces must hold at least one interface")
	}
	for e, end := arr+1, c.end(arr); e < end; e = c.next(e) {
		if !c.want(e, tape.KindObject) {
			continue
		}
		var url, binding, version uint32
		for k, end := e+1, c.end(e); k < end; k = c.next(k + 1) {
			v := k + 1
			switch string(c.name(k)) {
			case "url":
				url = v
			case "protocolBinding":
				binding = v
			case "protocolVersion":
				version = v
			case "tenant":
				c.checkOptionalString(v)
			default:
				c.snakeKey(k, inInterface)
			}
		}
		if c.goodString(url) || c.checkRequiredString(e, url, CodeA2AInterface, "url") {
			c.url(url, c.bindingURL(binding))
		}
		if c.goodString(binding) || c.checkRequiredString(e, binding, CodeA2AInterface, "protocolBinding") {
			c.transport(binding)
		}
		switch {
		case !c.goodString(version):
			c.checkRequiredString(e, version, CodeA2AInterface, "protocolVersion")
		case protocolRelease(c.str(version)) == 0:
			c.addGot(CodeA2AProtocolVersion, version, "protocolVersion names no A2A release that has the member")
		case !majorMinor(c.str(version)):
			c.addGot(CodeA2AProtocolVersion, version, "protocolVersion is not Major.Minor: 1.0 section 3.6 names a version by Major.Minor, and patch numbers SHOULD NOT be used in Agent Cards")
		}
	}
}

// additionalInterfaces checks the 0.2.4+ list of extra transports.
func (c *a2aCheck) additionalInterfaces(arr uint32) {
	for e, end := arr+1, c.end(arr); e < end; e = c.next(e) {
		if !c.want(e, tape.KindObject) {
			continue
		}
		var url, transport uint32
		for k, end := e+1, c.end(e); k < end; k = c.next(k + 1) {
			switch string(c.name(k)) {
			case "url":
				url = k + 1
			case "transport":
				transport = k + 1
			}
		}
		if c.goodString(url) || c.checkRequiredString(e, url, CodeA2AInterface, "url") {
			c.url(url, c.bindingURL(transport))
		}
		if c.goodString(transport) || c.checkRequiredString(e, transport, CodeA2AInterface, "transport") {
			c.transport(transport)
		}
	}
}

// transport warns about a transport outside the core three that is no
// absolute URI either. The field is an open string, and 1.0 section 5.8
// says a custom binding SHOULD be identified by a URI; "jsonrpc" or
// "websocket" is a typo or a name no client can look up.
func (c *a2aCheck) transport(n uint32) {
	switch v := c.str(n); string(v) {
	case "JSONRPC", "GRPC", "HTTP+JSON":
	default:
		if _, ok := ParseURI(v); !ok {
			c.addGot(CodeA2ATransport, n, "transport is none of the core JSONRPC, GRPC, HTTP+JSON, nor a URI naming a custom binding")
		}
	}
}

// bindingURL is the kind of URL an interface of transport or
// protocolBinding n has (see docs/rules.md, a2a.url): JSONRPC and
// HTTP+JSON are HTTP; GRPC dials a target; a custom binding names its own
// scheme. A core name in another case is judged as that name (its
// spelling is a2a.transport's), and an interface with no binding as HTTP.
func (c *a2aCheck) bindingURL(n uint32) urlKind {
	if n == 0 || c.kind(n) != tape.KindString {
		return urlEndpoint
	}
	switch v := c.str(n); {
	case equalFold(v, "jsonrpc"), equalFold(v, "http+json"):
		return urlEndpoint
	case equalFold(v, "grpc"):
		return urlGRPC
	}
	return urlCustom
}

// preferredURL is the kind of URL the card's own url is: 0.3 says it
// "MUST support the transport specified by preferredTransport", so it
// follows that transport as an interface's url does; 0.1 has no such
// member, and the default, JSONRPC, is HTTP.
func (c *a2aCheck) preferredURL() urlKind {
	if c.ver == a2aV01 || c.m.preferredTransport == 0 {
		return urlEndpoint
	}
	return c.bindingURL(c.m.preferredTransport)
}

// transports0x checks the 0.2+ members about reaching the agent beside url.
func (c *a2aCheck) transports0x() {
	m := c.m
	if c.present(m.extendedCard) {
		c.want(m.extendedCard, kindBoolean)
	}
	if c.checkString(m.preferredTransport, false) {
		c.transport(m.preferredTransport)
	}
	if c.present(m.additionalInterfaces) && c.want(m.additionalInterfaces, tape.KindArray) {
		c.additionalInterfaces(m.additionalInterfaces)
		if c.ver == a2aV03 {
			c.mainInterfaceListed(m.additionalInterfaces)
		}
	}
}

// mainInterfaceListed warns when a 0.3 card's additionalInterfaces, arr,
// has no entry for its url and preferredTransport (JSONRPC when absent,
// the schema's default), which 0.3 section 5.6.4 says it SHOULD include
// ("Interface completeness"). A url or preferredTransport of no string is
// another rule's finding, and leaves nothing to compare.
func (c *a2aCheck) mainInterfaceListed(arr uint32) {
	url, pref := c.m.url, c.m.preferredTransport
	if url == 0 || c.kind(url) != tape.KindString || pref != 0 && c.kind(pref) != tape.KindString {
		return
	}
	vw := c.vw // see tape.View
	for e, end := arr+1, c.end(arr); e < end; e = c.next(e) {
		if c.kind(e) != tape.KindObject {
			continue
		}
		u, t := c.member(e, "url"), c.member(e, "transport")
		if u == 0 || t == 0 || c.kind(u) != tape.KindString || c.kind(t) != tape.KindString {
			continue
		}
		if !vw.Same(u, url) && !c.equivalentURLNodes(u, url) {
			continue
		}
		if pref != 0 && vw.Same(t, pref) || pref == 0 && string(c.str(t)) == "JSONRPC" {
			return
		}
	}
	c.add(CodeA2AInterfaceCompleteness, arr, "additionalInterfaces has no entry for the main url and its preferredTransport; 0.3 section 5.6.4 says it SHOULD include one")
}

// equivalentURLNodes is equivalentURLs on string nodes x and y as decoded.
// The walker decodes one escaped string at a time, so two that both hold
// escapes are compared no further than tape.View.Same does.
func (c *a2aCheck) equivalentURLNodes(x, y uint32) bool {
	if c.vw.Escaped(x) && c.vw.Escaped(y) {
		return false
	}
	return equivalentURLs(c.str(x), c.str(y))
}

// equivalentURLs reports whether URLs a and b are the same by RFC 3986's
// syntax-based and scheme-based normalization (sections 6.2.2.1 and
// 6.2.3): scheme and host compared without case, and an empty path the
// same as "/", as in http and https.
func equivalentURLs(a, b []byte) bool {
	aHead, aRest := splitAuthority(a)
	bHead, bRest := splitAuthority(b)
	if aHead == nil || bHead == nil || !bytes.EqualFold(aHead, bHead) {
		return false
	}
	aRoot := len(aRest) == 0 || aRest[0] == '?' || aRest[0] == '#'
	bRoot := len(bRest) == 0 || bRest[0] == '?' || bRest[0] == '#'
	switch {
	case aRoot == bRoot:
		return bytes.Equal(aRest, bRest)
	case aRoot:
		return bRest[0] == '/' && bytes.Equal(aRest, bRest[1:])
	default:
		return aRest[0] == '/' && bytes.Equal(aRest[1:], bRest)
	}
}

// splitAuthority cuts a URL with an authority after its scheme and
// authority ("https://host:port"), or returns nil for one without.
func splitAuthority(u []byte) (head, rest []byte) {
	i := bytes.Index(u, []byte("://"))
	if i <= 0 {
		return nil, nil
	}
	end := i + 3
	for end < len(u) && u[end] != '/' && u[end] != '?' && u[end] != '#' {
		end++
	}
	return u[:end], u[end:]
}

// legacy checks the 0.x members of a hybrid 1.0 card as a 0.3 card's:
// they are there for 0.x clients, which read them as such.
func (c *a2aCheck) legacy() {
	m := c.m
	if c.checkOptionalString(m.url) {
		c.url(m.url, c.preferredURL())
	}
	if c.checkOptionalString(m.protocolVersion) && !m.versionJudged && protocolRelease(c.str(m.protocolVersion)) == 0 {
		c.addGot(CodeA2AProtocolVersion, m.protocolVersion, "protocolVersion names no A2A release that has the member")
	}
	if c.present(m.security) {
		c.requirements0x(m.security)
	}
	c.transports0x()
}

// hybrid names, in one warning, the 0.x members a 1.0 card carries beside
// its 1.0 ones; SDKs emit them on purpose for older clients. It reports
// whether there are any.
func (c *a2aCheck) hybrid() bool {
	m := c.m
	if m.url|m.preferredTransport|m.additionalInterfaces|m.protocolVersion|m.security|m.extendedCard == 0 {
		return false
	}
	legacy := [...]uint32{m.url, m.preferredTransport, m.additionalInterfaces, m.protocolVersion, m.security, m.extendedCard}
	names := [...]string{"url", "preferredTransport", "additionalInterfaces", "protocolVersion", "security", "supportsAuthenticatedExtendedCard"}
	w := c.walker
	start := -1
	for i, n := range legacy {
		if n == 0 {
			continue
		}
		if start < 0 {
			start = len(w.res.arena)
		} else {
			w.res.arena = append(w.res.arena, ", "...)
		}
		w.res.arena = append(w.res.arena, names[i]...)
	}
	got := w.res.arenaString(start)
	w.res.add(Finding{Code: CodeA2AHybrid, Severity: w.severity(CodeA2AHybrid), Offset: w.offset(0),
		msg: "card is judged as A2A 1.0 but also carries the 0.x members %s", got: got})
	return true
}

// snakeCase reports the snake_case spellings of A2A names among obj's
// members, naming the camelCase one meant.
func (c *a2aCheck) snakeCase(obj uint32, scope aliasScope) {
	for k, end := obj+1, c.end(obj); k < end; k = c.next(k + 1) {
		c.snakeKey(k, scope)
	}
}

// snakeKey reports member k if its name is a snake_case alias: an error
// in 1.0, whose spec says "All JSON serializations ... MUST use camelCase";
// a warning before, whose texts say nothing of it and whose schemas allow
// members they do not define, so that the card breaks no rule but its
// readers miss the member.
func (c *a2aCheck) snakeKey(k uint32, scope aliasScope) {
	a := snakeAliasOf(c.name(k), scope)
	if a == nil || c.ver < a.since {
		return
	}
	for _, t := range c.taken[:c.ntaken] {
		if t == k {
			return
		}
	}
	if c.npending < len(c.pending) && c.member(c.vw.Parent(k+1), a.camel) == 0 {
		c.pending[c.npending] = k
		c.npending++
		return
	}
	c.reportSnake(k)
}

// reportSnake reports the snake_case member name k.
func (c *a2aCheck) reportSnake(k uint32) {
	a := snakeAliasOf(c.name(k), ^aliasScope(0))
	sev := SeverityWarning
	if c.ver >= a2aV10 {
		sev = SeverityError
	}
	c.addSev(CodeA2AFieldName, sev, k+1, a.msg, 0)
}

// msgPreferredTransport says why a 0.3 card without preferredTransport
// gets a warning and not an error: the 0.3 sources disagree. PROFILE.md
// and the schema make it optional; section 5.6.1 of the text says "The
// preferredTransport field is REQUIRED and MUST be present in every
// AgentCard". The schema is what 0.3 validators and SDKs apply, so the
// card passes, but a client may not assume the default the schema names.
const (
	msgPreferredTransport = "0.3 card without \"%s\": the 0.3 specification text (5.6.1) calls it REQUIRED and MUST, " +
		"the 0.3 JSON Schema optional with default JSONRPC; name the transport at url"
	msgPreferredTransportSnake = msgPreferredTransport + "; the card spells it preferred_transport, which A2A readers do not know"
)

// msgShape03 names, in the finding for a missing supportedInterfaces, the
// 0.3 shape of a card that claims 1.0, and whether it passes as 0.3, so
// that its author knows whether to fix the claim or the shape.
const (
	msgShape03Passes = "missing required member \"%s\": the card claims protocolVersion 1.x but has the 0.3 shape " +
		"(url, no supportedInterfaces) and passes as 0.3; fix the claim (protocolVersion \"0.3.0\") or the shape (supportedInterfaces)"
	msgShape03Fails = "missing required member \"%s\": the card claims protocolVersion 1.x but has the 0.3 shape " +
		"(url, no supportedInterfaces), and as 0.3 it has errors too (--profile a2a/0.3 lists them)"
)

// reportMissing reports the required top-level members in bitmask missing.
func (c *a2aCheck) reportMissing(missing uint16) {
	for i := range requiredNames {
		if missing&(1<<i) == 0 {
			continue
		}
		if i == 3 && c.m.url != 0 && c.claims10() { // supportedInterfaces, of a card claiming 1.0
			msg := msgShape03Fails
			if c.passesAs03() {
				msg = msgShape03Passes
			}
			c.addMissingMsg(CodeA2ARequired, 0, requiredNames[i], msg)
			continue
		}
		c.addMissing(CodeA2ARequired, 0, requiredNames[i])
	}
}

// claims10 reports whether the card's protocolVersion names 1.x, as
// against a card judged as 1.0 by its members (uses10).
func (c *a2aCheck) claims10() bool {
	n := c.m.protocolVersion
	return n != 0 && c.kind(n) == tape.KindString && protocolRelease(c.str(n)) >= a2aV10
}

// passesAs03 reports whether the card, judged as 0.3, has no error. The
// findings of that trial are taken back, leaving the Result as it was.
func (c *a2aCheck) passesAs03() bool {
	r := &c.res
	if r.full() || len(r.unlisted) > 0 {
		return false // not restorable; and such a card fails anyway
	}
	nf, na, errs, warns := len(r.findings), len(r.arena), r.errors, r.warnings
	// The trial asks what 0.3's rules say, not what the user's overrides
	// make of them: which version a card is does not change with them.
	over := r.over
	r.over = nil
	c.checkA2AVersion(a2aV03, c.m)
	pass := r.errors == errs
	r.over = over
	r.findings, r.arena, r.unlisted = r.findings[:nf], r.arena[:na], r.unlisted[:0]
	r.errors, r.warnings = errs, warns
	return pass
}

// addMissing reports a required member absent from object obj, naming
// the snake_case spelling the object has instead, if any: one finding for
// one fault, where a missing member and a misspelled one would be two.
func (c *a2aCheck) addMissing(code Code, obj uint32, name string) {
	if a := c.takeSnake(obj, name); a != nil {
		c.addMissingMsg(code, obj, name, a.missingMsg)
		return
	}
	c.walker.addMissing(code, obj, name)
}

// takeOneSnake is takeSnake for the first member of obj that is a
// snake_case alias of a member of scope the card's version has, when obj
// lacks that member: the one-of's member a holder of none spelled so.
func (c *a2aCheck) takeOneSnake(obj uint32, scope aliasScope) *snakeAlias {
	for k, end := obj+1, c.end(obj); k < end; k = c.next(k + 1) {
		if a := snakeAliasOf(c.name(k), scope); a != nil && c.ver >= a.since {
			return c.takeSnake(obj, a.camel)
		}
	}
	return nil
}

// takeSnake returns the snake_case alias of member name that object obj
// has, marking it as named by the missing member's finding so that it
// gets none of its own, or nil when obj has none.
func (c *a2aCheck) takeSnake(obj uint32, name string) *snakeAlias {
	for i := range snakeAliases {
		a := &snakeAliases[i]
		if a.camel != name {
			continue
		}
		if v := c.member(obj, a.snake); v != 0 {
			for i, k := range c.pending[:c.npending] {
				if k == v-1 {
					c.pending[i] = 0
				}
			}
			if c.ntaken < len(c.taken) {
				c.taken[c.ntaken] = v - 1
				c.ntaken++
			}
			return a
		}
	}
	return nil
}

func (c *a2aCheck) url(n uint32, kind urlKind) {
	c.checkURL(n, kind, CodeA2AURL, CodeA2AURLRisk)
}

// b2u is 1 for true and 0 for false, without a branch: the compiler turns
// it into the flag the comparison set.
func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}
