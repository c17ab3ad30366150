package corpus

import (
	"strconv"
	"strings"
)

// The A2A dialects: valid Agent Cards of A2A 0.1, 0.2, 0.3 and 1.0, per the
// protocol's published schemas and specs/a2a/PROFILE.md. Each version keeps
// to the members its release defines; none is a hybrid.

func init() {
	for _, v := range [...]struct {
		name  string
		build func(b *builder)
	}{
		{"a2a/0.1", buildA2A01}, {"a2a/0.2", buildA2A02}, {"a2a/0.3", buildA2A03}, {"a2a/1.0", buildA2A10},
	} {
		registerDialect(v.name, "a2a", v.build)
	}
}

func buildA2A01(b *builder) {
	r := b.r
	root := b.object()
	b.put(root, "name", b.a2aName())
	b.put(root, "description", b.a2aDescription())
	b.put(root, "url", b.url("https", false))
	if r.intn(3) != 0 {
		p := b.put(root, "provider", b.object())
		b.put(p, "organization", b.str(r.pick(providerOrgs)))
		if r.intn(2) == 0 {
			b.put(p, "url", b.url("https", false))
		}
	}
	b.put(root, "version", b.semver())
	if r.intn(2) == 0 {
		b.put(root, "documentationUrl", b.url("https", false))
	}
	b.a2aCapabilities(root, false)
	// authentication is optional in 0.1, but it is the member that tells a
	// 0.1 card from a 0.2.0 one; without it the card would be both.
	a := b.put(root, "authentication", b.object())
	b.put(a, "schemes", b.strings(r.pickS("Bearer", "Basic", "OAuth2", "ApiKey")))
	modes := []string{"text"}
	if r.intn(3) == 0 {
		modes = append(modes, r.pickS("data", "file"))
	}
	b.put(root, "defaultInputModes", b.strings(modes...))
	b.put(root, "defaultOutputModes", b.strings(modes...))
	b.a2aSkills(root, false, []string{"text", "data", "file"})
}

func buildA2A02(b *builder) {
	r := b.r
	root := b.object()
	// 0.2.5 and 0.2.6 name their release in protocolVersion; the earlier
	// 0.2 releases have no such member.
	late := r.intn(2) == 0
	if late {
		b.put(root, "protocolVersion", b.str(r.pickS("0.2.5", "0.2.6")))
	}
	b.put(root, "name", b.a2aName())
	b.put(root, "description", b.a2aDescription())
	b.put(root, "url", b.url("https", false))
	if late && r.intn(2) == 0 {
		b.put(root, "preferredTransport", b.str("JSONRPC"))
	}
	b.a2aProvider(root)
	if late && r.intn(2) == 0 {
		b.put(root, "iconUrl", b.str("https://", "static.example.com/icons/", r.pick(capVerbs), ".png"))
	}
	b.put(root, "version", b.semver())
	if r.intn(2) == 0 {
		b.put(root, "documentationUrl", b.url("https", false))
	}
	b.a2aCapabilities(root, false)
	b.a2aSecurity0x(root, false)
	b.put(root, "defaultInputModes", b.a2aModes(mimeInputs))
	b.put(root, "defaultOutputModes", b.a2aModes(mimeOutputs))
	b.a2aSkills(root, false, nil)
	if late && r.intn(3) == 0 {
		b.put(root, "supportsAuthenticatedExtendedCard", b.boolean(r.intn(2) == 0))
	}
}

func buildA2A03(b *builder) {
	r := b.r
	root := b.object()
	b.put(root, "protocolVersion", b.str("0.3.0"))
	b.put(root, "name", b.a2aName())
	b.put(root, "description", b.a2aDescription())
	main := b.put(root, "url", b.url("https", false))
	b.put(root, "preferredTransport", b.str("JSONRPC"))
	if r.intn(2) == 0 {
		ifaces := b.put(root, "additionalInterfaces", b.array())
		first := b.push(ifaces, b.object())
		b.put(first, "url", b.str(b.textOf(main)))
		b.put(first, "transport", b.str("JSONRPC"))
		for _, t := range transports[1:r.between(1, len(transports))] {
			i := b.push(ifaces, b.object())
			b.put(i, "url", b.url("https", false))
			b.put(i, "transport", b.str(t))
		}
	}
	b.a2aProvider(root)
	if r.intn(2) == 0 {
		b.put(root, "iconUrl", b.str("https://", "static.example.com/icons/", r.pick(capVerbs), ".png"))
	}
	b.put(root, "version", b.semver())
	if r.intn(2) == 0 {
		b.put(root, "documentationUrl", b.url("https", false))
	}
	b.a2aCapabilities(root, true)
	b.a2aSecurity0x(root, true)
	b.put(root, "defaultInputModes", b.a2aModes(mimeInputs))
	b.put(root, "defaultOutputModes", b.a2aModes(mimeOutputs))
	b.a2aSkills(root, true, nil)
	if r.intn(3) == 0 {
		b.put(root, "supportsAuthenticatedExtendedCard", b.boolean(r.intn(2) == 0))
	}
}

func buildA2A10(b *builder) {
	r := b.r
	root := b.object()
	b.put(root, "name", b.a2aName())
	b.put(root, "description", b.a2aDescription())
	ifaces := b.put(root, "supportedInterfaces", b.array())
	for i, n := 0, r.between(1, 3); i < n; i++ {
		iface := b.push(ifaces, b.object())
		b.put(iface, "url", b.url("https", false))
		b.put(iface, "protocolBinding", b.str(transports[i]))
		b.put(iface, "protocolVersion", b.str("1.0"))
		if r.intn(8) == 0 {
			b.put(iface, "tenant", b.str(r.pick(regions)))
		}
	}
	b.a2aProvider(root)
	if r.intn(2) == 0 {
		b.put(root, "iconUrl", b.str("https://", "static.example.com/icons/", r.pick(capVerbs), ".png"))
	}
	b.put(root, "version", b.semver())
	if r.intn(2) == 0 {
		b.put(root, "documentationUrl", b.url("https", false))
	}
	c := b.put(root, "capabilities", b.object())
	b.put(c, "streaming", b.boolean(r.intn(2) == 0))
	b.put(c, "pushNotifications", b.boolean(r.intn(2) == 0))
	if r.intn(2) == 0 {
		b.put(c, "extendedAgentCard", b.boolean(r.intn(2) == 0))
	}
	if r.intn(4) == 0 {
		b.a2aExtensions(c)
	}
	if r.intn(4) != 0 {
		names := b.a2aSchemeNames(true)
		schemes := b.put(root, "securitySchemes", b.object())
		reqs := b.put(root, "securityRequirements", b.array())
		for _, name := range names {
			w := b.put(schemes, name, b.object())
			var s int32
			var scopes []string
			switch name {
			case "apiKey":
				s = b.put(w, "apiKeySecurityScheme", b.object())
				b.put(s, "location", b.str(r.pickS("header", "query", "cookie")))
				b.put(s, "name", b.str(r.pick(headerNames)))
			case "bearer":
				s = b.put(w, "httpAuthSecurityScheme", b.object())
				b.put(s, "scheme", b.str("Bearer"))
				b.put(s, "bearerFormat", b.str("JWT"))
			case "oauth":
				s = b.put(w, "oauth2SecurityScheme", b.object())
				flows := b.put(s, "flows", b.object())
				switch r.intn(3) {
				case 0:
					f := b.put(flows, "clientCredentials", b.object())
					b.put(f, "tokenUrl", b.url("https", false))
					scopes = b.a2aScopes(f)
				case 1:
					f := b.put(flows, "authorizationCode", b.object())
					b.put(f, "authorizationUrl", b.url("https", false))
					b.put(f, "tokenUrl", b.url("https", false))
					scopes = b.a2aScopes(f)
					b.put(f, "pkceRequired", b.boolean(true))
				default:
					f := b.put(flows, "deviceCode", b.object())
					b.put(f, "deviceAuthorizationUrl", b.url("https", false))
					b.put(f, "tokenUrl", b.url("https", false))
					scopes = b.a2aScopes(f)
				}
			case "oidc":
				s = b.put(w, "openIdConnectSecurityScheme", b.object())
				b.put(s, "openIdConnectUrl", b.str("https://accounts.example.com/.well-known/openid-configuration"))
				scopes = r.pickDistinct(nil, oidcScopes, r.between(1, 3))
			case "mtls":
				s = b.put(w, "mtlsSecurityScheme", b.object())
			}
			if r.intn(3) == 0 {
				b.put(s, "description", b.str(name, " access for registered clients"))
			}
			req := b.push(reqs, b.object())
			byName := b.put(req, "schemes", b.object())
			list := b.put(byName, name, b.object())
			if len(scopes) > 0 {
				b.put(list, "list", b.strings(scopes...))
			}
		}
	}
	b.put(root, "defaultInputModes", b.a2aModes(mimeInputs))
	b.put(root, "defaultOutputModes", b.a2aModes(mimeOutputs))
	b.a2aSkills(root, false, nil)
}

func (b *builder) a2aName() int32 {
	r := b.r
	if r.intn(10) == 0 {
		return b.str(r.pick(nameUnicode))
	}
	return b.str(r.pick(nameHeads), " ", r.pick(nameTails))
}

func (b *builder) a2aDescription() int32 {
	r := b.r
	start := b.mark()
	b.text = append(b.text, "Helps teams "...)
	b.text = append(b.text, strings.ToLower(r.pick(skillVerbs))...)
	b.text = append(b.text, ' ')
	b.text = append(b.text, r.pick(skillObjects)...)
	b.text = append(b.text, " and "...)
	b.text = append(b.text, strings.ToLower(r.pick(skillVerbs))...)
	b.text = append(b.text, ' ')
	b.text = append(b.text, r.pick(skillObjects)...)
	b.text = append(b.text, ". It returns "...)
	b.text = append(b.text, r.pick(capResults)...)
	b.text = append(b.text, ' ')
	b.text = append(b.text, r.pick(capQualifiers)...)
	b.text = append(b.text, '.')
	return b.strFrom(start)
}

func (b *builder) a2aProvider(root int32) {
	if b.r.intn(4) == 0 {
		return
	}
	p := b.put(root, "provider", b.object())
	b.put(p, "organization", b.str(b.r.pick(providerOrgs)))
	b.put(p, "url", b.url("https", false))
}

// a2aCapabilities writes the 0.x AgentCapabilities; extensions exist from 0.2.2.
func (b *builder) a2aCapabilities(root int32, extensions bool) {
	r := b.r
	c := b.put(root, "capabilities", b.object())
	b.put(c, "streaming", b.boolean(r.intn(2) == 0))
	b.put(c, "pushNotifications", b.boolean(r.intn(2) == 0))
	if r.intn(2) == 0 {
		b.put(c, "stateTransitionHistory", b.boolean(r.intn(2) == 0))
	}
	if extensions && r.intn(4) == 0 {
		b.a2aExtensions(c)
	}
}

func (b *builder) a2aExtensions(c int32) {
	exts := b.put(c, "extensions", b.array())
	e := b.push(exts, b.object())
	b.put(e, "uri", b.str("https://standards.example.org/extensions/", b.r.pick(tagWords), "/v1"))
	b.put(e, "description", b.str("Adds ", b.r.pick(tagWords), " metadata to task results"))
	b.put(e, "required", b.boolean(false))
}

// a2aSchemes name the security schemes cards declare; mutual TLS, the
// last, exists from 0.3 on.
var a2aSchemes = []string{"apiKey", "bearer", "oauth", "oidc", "mtls"}

// a2aSchemeNames picks the security schemes a card declares.
func (b *builder) a2aSchemeNames(mtls bool) []string {
	list := a2aSchemes
	if !mtls {
		list = list[:len(list)-1]
	}
	return b.r.pickDistinct(nil, list, b.r.between(1, 2))
}

// a2aScopes writes a flow's scopes and returns them, for the requirements
// that name the scheme.
func (b *builder) a2aScopes(flow int32) []string {
	s := b.put(flow, "scopes", b.object())
	scopes := b.r.pickDistinct(nil, oidcScopes, b.r.between(1, 3))
	for _, sc := range scopes {
		b.put(s, sc, b.str("Grants ", sc))
	}
	return scopes
}

// a2aSecurity0x writes OpenAPI-style securitySchemes, discriminated by
// type, and the security requirements naming them; mutualTLS is 0.3's.
func (b *builder) a2aSecurity0x(root int32, v03 bool) {
	r := b.r
	if r.intn(4) == 0 {
		return
	}
	schemes := b.put(root, "securitySchemes", b.object())
	sec := b.put(root, "security", b.array())
	for _, name := range b.a2aSchemeNames(v03) {
		s := b.put(schemes, name, b.object())
		var scopes []string
		switch name {
		case "apiKey":
			b.put(s, "type", b.str("apiKey"))
			b.put(s, "in", b.str(r.pickS("header", "query", "cookie")))
			b.put(s, "name", b.str(r.pick(headerNames)))
		case "bearer":
			b.put(s, "type", b.str("http"))
			b.put(s, "scheme", b.str("bearer"))
			if r.intn(2) == 0 {
				b.put(s, "bearerFormat", b.str("JWT"))
			}
		case "oauth":
			b.put(s, "type", b.str("oauth2"))
			flows := b.put(s, "flows", b.object())
			f := b.put(flows, "clientCredentials", b.object())
			b.put(f, "tokenUrl", b.url("https", false))
			scopes = b.a2aScopes(f)
			if v03 && r.intn(2) == 0 {
				b.put(s, "oauth2MetadataUrl", b.str("https://auth.example.com/.well-known/oauth-authorization-server"))
			}
		case "oidc":
			b.put(s, "type", b.str("openIdConnect"))
			b.put(s, "openIdConnectUrl", b.str("https://accounts.example.com/.well-known/openid-configuration"))
			scopes = r.pickDistinct(nil, oidcScopes, r.between(1, 3))
		case "mtls":
			b.put(s, "type", b.str("mutualTLS"))
		}
		req := b.push(sec, b.object())
		b.put(req, name, b.strings(scopes...))
	}
}

func (b *builder) a2aModes(list []string) int32 {
	b.scratch = b.r.pickDistinct(b.scratch[:0], list, b.r.between(1, 3))
	return b.strings(b.scratch...)
}

// a2aSkills writes 1 to 4 skills; 0.3 skills may carry their own security.
// modes, when given, replaces MIME types for 0.1's mode names.
func (b *builder) a2aSkills(root int32, skillSecurity bool, modes []string) {
	r := b.r
	skills := b.put(root, "skills", b.array())
	for i, n := 0, r.between(1, 4); i < n; i++ {
		s := b.push(skills, b.object())
		verb, obj := r.pick(skillVerbs), r.pick(skillObjects)
		b.put(s, "id", b.str(strings.ToLower(verb), "-", obj, "-", strconv.Itoa(i+1)))
		b.put(s, "name", b.str(verb, " ", obj))
		b.put(s, "description", b.sentence())
		b.scratch = r.pickDistinct(b.scratch[:0], tagWords, r.between(1, 4))
		b.put(s, "tags", b.strings(b.scratch...))
		if r.intn(2) == 0 {
			b.scratch = r.pickDistinct(b.scratch[:0], exampleAsks, r.between(1, 2))
			b.put(s, "examples", b.strings(b.scratch...))
		}
		if r.intn(3) == 0 {
			if modes != nil {
				b.put(s, "inputModes", b.strings(modes[0]))
				b.put(s, "outputModes", b.strings(modes[0]))
			} else {
				b.put(s, "inputModes", b.a2aModes(mimeInputs))
				b.put(s, "outputModes", b.a2aModes(mimeOutputs))
			}
		}
		if skillSecurity && r.intn(6) == 0 {
			if first := b.at("/securitySchemes"); first != none && b.nodes[first].first != none {
				sec := b.put(s, "security", b.array())
				req := b.push(sec, b.object())
				b.put(req, b.nodes[b.nodes[first].first].key, b.array())
			}
		}
	}
}
