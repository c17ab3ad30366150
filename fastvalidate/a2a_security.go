package fastvalidate

import "github.com/cardscan/cardscan/fastvalidate/internal/tape"

// Security schemes and requirements of the a2a profiles. 0.x schemes are
// OpenAPI objects discriminated by "type"; 1.0 wraps each in an object
// holding exactly one of five scheme members (a proto oneof), and its
// OAuth flows object holds exactly one flow.

func (c *a2aCheck) securitySchemes(obj uint32) {
	for k, end := obj+1, c.end(obj); k < end; k = c.next(k + 1) {
		s := k + 1
		if !c.want(s, tape.KindObject) {
			continue
		}
		if c.ver >= a2aV10 {
			c.scheme10(s)
		} else {
			c.scheme0x(s)
		}
	}
}

// Security scheme types, as 0.x's type names them and 1.0's wrapper
// member does.
const (
	schemeAPIKey = iota + 1
	schemeHTTP
	schemeOAuth2
	schemeOIDC
	schemeMTLS
)

func (c *a2aCheck) scheme0x(s uint32) {
	body := c.readScheme(s)
	typ := body.typ
	if !c.checkRequiredString(s, typ, CodeA2ASecurityScheme, "type") {
		return
	}
	which := 0
	switch string(c.str(typ)) {
	case "apiKey":
		which = schemeAPIKey
	case "http":
		which = schemeHTTP
	case "oauth2":
		which = schemeOAuth2
	case "openIdConnect":
		which = schemeOIDC
	case "mutualTLS":
		if c.ver < a2aV03 {
			c.addGot(CodeA2ASecurityScheme, typ, "type mutualTLS arrived in 0.3")
		}
		return
	default:
		c.addGot(CodeA2ASecurityScheme, typ, "type is none of apiKey, http, oauth2, openIdConnect, mutualTLS")
		return
	}
	c.checkScheme(s, which, &body)
}

func (c *a2aCheck) scheme10(s uint32) {
	w := c.walker
	held := 0
	legacy := false
	for k, end := s+1, c.end(s); k < end; k = c.next(k + 1) {
		v := k + 1
		which := 0
		switch string(c.name(k)) {
		case "apiKeySecurityScheme":
			which = schemeAPIKey
		case "httpAuthSecurityScheme":
			which = schemeHTTP
		case "oauth2SecurityScheme":
			which = schemeOAuth2
		case "openIdConnectSecurityScheme":
			which = schemeOIDC
		case "mtlsSecurityScheme":
			which = schemeMTLS
		case "type":
			legacy = true
		default:
			c.snakeKey(k, inScheme10)
		}
		// A null member sets no scheme, as proto3 JSON reads null
		// (a2a.null says so): the wrapper holds what the others hold.
		if which == 0 || !c.present(v) {
			continue
		}
		held++
		if c.want(v, tape.KindObject) {
			body := c.readScheme(v)
			c.checkScheme(v, which, &body)
		}
	}
	switch {
	case held == 0 && legacy:
		w.add(CodeA2ASecurityScheme, s, "scheme is in the 0.x shape (discriminated by type); 1.0 wraps it, e.g. {\"httpAuthSecurityScheme\": {...}}")
	case held == 0:
		// One spelled in snake_case is the missing member's one finding,
		// as for any member (addMissing).
		if a := c.takeOneSnake(s, inScheme10); a != nil {
			c.addMissingMsg(CodeA2ASecurityScheme, s, a.camel, a.missingMsg)
			return
		}
		w.add(CodeA2ASecurityScheme, s, "scheme holds none of apiKeySecurityScheme, httpAuthSecurityScheme, oauth2SecurityScheme, openIdConnectSecurityScheme, mtlsSecurityScheme")
	case held > 1:
		w.add(CodeA2ASecurityScheme, s, "scheme wrapper holds more than one scheme; 1.0 allows exactly one")
	}
}

// schemeBody holds the value nodes of the members of a security scheme's
// body, 0.x or wrapped in 1.0, that its type requires; 0 means absent.
type schemeBody struct {
	typ, location, name, scheme, flows, oidc, metadata uint32
}

// readScheme collects the members of scheme s, checking on the way those
// any scheme may hold.
func (c *a2aCheck) readScheme(s uint32) (body schemeBody) {
	// The API key's place: "in" in 0.x (OpenAPI), "location" in 1.0.
	location := "in"
	if c.ver >= a2aV10 {
		location = "location"
	}
	for k, end := s+1, c.end(s); k < end; k = c.next(k + 1) {
		v := k + 1
		name := c.name(k)
		// Compared apart from the switch: a switch on string(name) with a
		// case that is not a constant converts, and so allocates, for a
		// name longer than 32 bytes.
		if string(name) == location {
			body.location = v
			continue
		}
		switch string(name) {
		case "type":
			body.typ = v
		case "name":
			body.name = v
		case "scheme":
			body.scheme = v
		case "flows":
			body.flows = v
		case "openIdConnectUrl":
			body.oidc = v
		case "oauth2MetadataUrl":
			body.metadata = v
		case "description", "bearerFormat":
			c.checkString(v, false)
		default:
			c.snakeKey(k, inSchemeBody)
		}
	}
	return body
}

// checkScheme checks scheme s of a type for the members that type needs.
func (c *a2aCheck) checkScheme(s uint32, which int, body *schemeBody) {
	switch which {
	case schemeAPIKey:
		name := "in"
		if c.ver >= a2aV10 {
			name = "location"
		}
		if c.checkRequiredString(s, body.location, CodeA2ASecurityScheme, name) {
			c.apiKeyLocation(body.location)
		}
		c.checkRequiredString(s, body.name, CodeA2ASecurityScheme, "name")
	case schemeHTTP:
		c.checkRequiredString(s, body.scheme, CodeA2ASecurityScheme, "scheme")
	case schemeOAuth2:
		if body.flows == 0 {
			c.addMissing(CodeA2ASecurityScheme, s, "flows")
		} else if c.want(body.flows, tape.KindObject) {
			c.flows(body.flows)
		}
		// oauth2MetadataUrl arrived in 0.3.
		if c.ver >= a2aV03 && !c.protoDefault(body.metadata) && c.checkString(body.metadata, false) {
			c.url(body.metadata, urlEndpoint)
		}
	case schemeOIDC:
		if c.checkRequiredString(s, body.oidc, CodeA2ASecurityScheme, "openIdConnectUrl") {
			c.url(body.oidc, urlEndpoint)
		}
	}
}

func (c *a2aCheck) apiKeyLocation(n uint32) {
	switch string(c.str(n)) {
	case "cookie", "header", "query":
	default:
		c.addGot(CodeA2ASecurityScheme, n, "API key location is none of cookie, header, query")
	}
}

// OAuth flows.
const (
	flowAuthorizationCode = iota + 1
	flowClientCredentials
	flowImplicit
	flowPassword
	flowDeviceCode
)

func (c *a2aCheck) flows(obj uint32) {
	w := c.walker
	held := 0
	for k, end := obj+1, c.end(obj); k < end; k = c.next(k + 1) {
		v := k + 1
		flow := 0
		switch string(c.name(k)) {
		case "authorizationCode":
			flow = flowAuthorizationCode
		case "clientCredentials":
			flow = flowClientCredentials
		case "implicit":
			flow = flowImplicit
		case "password":
			flow = flowPassword
		case "deviceCode":
			if c.ver >= a2aV10 {
				flow = flowDeviceCode
			}
		default:
			c.snakeKey(k, inFlows)
		}
		// As in a scheme wrapper, a null flow is none.
		if flow == 0 || !c.present(v) {
			continue
		}
		held++
		if c.ver >= a2aV10 && (flow == flowImplicit || flow == flowPassword) {
			w.add(CodeA2ADeprecated, v, "OAuth flow deprecated in 1.0; use authorizationCode with PKCE, or deviceCode")
		}
		if c.want(v, tape.KindObject) {
			c.flow(v, flow)
		}
	}
	if c.ver >= a2aV10 && held != 1 {
		if a := c.takeOneSnake(obj, inFlows); held == 0 && a != nil {
			c.addMissingMsg(CodeA2ASecurityScheme, obj, a.camel, a.missingMsg)
			return
		}
		w.addArg(CodeA2ASecurityScheme, obj, "flows holds %d flows; 1.0 allows exactly one", int64(held))
	}
}

func (c *a2aCheck) flow(f uint32, flow int) {
	w := c.walker
	var authURL, tokenURL, deviceURL, scopes uint32
	for k, end := f+1, c.end(f); k < end; k = c.next(k + 1) {
		v := k + 1
		switch string(c.name(k)) {
		case "authorizationUrl":
			authURL = v
		case "tokenUrl":
			tokenURL = v
		case "deviceAuthorizationUrl":
			deviceURL = v
		case "scopes":
			scopes = v
		case "refreshUrl":
			if !c.protoDefault(v) && c.checkString(v, false) {
				c.url(v, urlEndpoint)
			}
		case "pkceRequired":
			if c.ver >= a2aV10 && c.present(v) {
				c.want(v, kindBoolean)
			}
		default:
			c.snakeKey(k, inFlow)
		}
	}
	// The deprecated 1.0 flows mark nothing REQUIRED; in 0.x they are
	// ordinary OpenAPI flows.
	deprecated10 := c.ver >= a2aV10 && (flow == flowImplicit || flow == flowPassword)
	needAuth := flow == flowAuthorizationCode || flow == flowImplicit && !deprecated10
	needToken := flow == flowAuthorizationCode || flow == flowClientCredentials || flow == flowDeviceCode || flow == flowPassword && !deprecated10
	c.flowURL(f, authURL, needAuth, "authorizationUrl")
	c.flowURL(f, tokenURL, needToken, "tokenUrl")
	c.flowURL(f, deviceURL, flow == flowDeviceCode, "deviceAuthorizationUrl")
	switch {
	case scopes == 0:
		if !deprecated10 {
			w.addMissing(CodeA2ASecurityScheme, f, "scopes")
		}
	case deprecated10 && !c.present(scopes):
		// Optional there: null is unset (a2a.null). Where scopes are
		// required, null is no object, as for any required member.
	case c.want(scopes, tape.KindObject):
		for k, end := scopes+1, c.end(scopes); k < end; k = c.next(k + 1) {
			c.want(k+1, tape.KindString)
		}
	}
}

func (c *a2aCheck) flowURL(f, n uint32, required bool, name string) {
	if n == 0 {
		if required {
			c.addMissing(CodeA2ASecurityScheme, f, name)
		}
		return
	}
	if !required && c.protoDefault(n) {
		return
	}
	if c.checkStringAs(n, required, CodeA2ASecurityScheme) {
		c.url(n, urlEndpoint)
	}
}

// requirements0x checks a 0.x security list: objects mapping scheme names
// to lists of scopes.
func (c *a2aCheck) requirements0x(arr uint32) {
	if !c.want(arr, tape.KindArray) {
		return
	}
	for r, end := arr+1, c.end(arr); r < end; r = c.next(r) {
		if !c.want(r, tape.KindObject) {
			continue
		}
		for k, end := r+1, c.end(r); k < end; k = c.next(k + 1) {
			// A name whose value is no scope list is no requirement, and
			// one finding says so.
			if c.kind(k+1) == tape.KindArray {
				c.schemeRef(k)
			}
			c.checkStringArray(k+1, false)
		}
	}
}

// requirements10 checks a 1.0 list of {"schemes": {NAME: {"list": [...]}}}.
func (c *a2aCheck) requirements10(arr uint32) {
	w := c.walker
	if !c.want(arr, tape.KindArray) {
		return
	}
	for r, end := arr+1, c.end(arr); r < end; r = c.next(r) {
		if !c.want(r, tape.KindObject) {
			continue
		}
		// 1.0 section 5.7 says to ignore unrecognized fields, and a member
		// beside schemes changes nothing a reader takes. Without schemes
		// the requirement is empty to a 1.0 reader, which is no
		// authentication at all: its members (0.x's {NAME: [scopes]}) are
		// errors then.
		hasSchemes := c.member(r, "schemes") != 0
		for k, end := r+1, c.end(r); k < end; k = c.next(k + 1) {
			v := k + 1
			if string(c.name(k)) != "schemes" {
				if !hasSchemes {
					w.add(CodeA2ASecurityRequirement, v, "not a member of a 1.0 security requirement, which is {\"schemes\": {NAME: {\"list\": [scopes]}}}")
				}
				continue
			}
			// schemes is a map the proto does not mark REQUIRED: null
			// leaves it empty, as {} does.
			if !c.present(v) || !c.want(v, tape.KindObject) {
				continue
			}
			for s, end := v+1, c.end(v); s < end; s = c.next(s + 1) {
				c.schemeRef(s)
				c.scopeList(s + 1)
			}
		}
	}
}

func (c *a2aCheck) scopeList(n uint32) {
	w := c.walker
	// A bare list is 0.x's shape, which the rule names; any other JSON
	// type is one, as it is in 0.x.
	if c.kind(n) == tape.KindArray {
		w.add(CodeA2ASecurityRequirement, n, "scopes of a 1.0 requirement are {\"list\": [scopes]}")
		return
	}
	if !c.want(n, tape.KindObject) {
		return
	}
	// As for the requirement: a member beside list is ignored, one in its
	// place leaves the scopes empty.
	hasList := c.member(n, "list") != 0
	for k, end := n+1, c.end(n); k < end; k = c.next(k + 1) {
		if string(c.name(k)) != "list" {
			if !hasList {
				w.add(CodeA2ASecurityRequirement, k+1, "not a member of a 1.0 scope list, which is {\"list\": [scopes]}")
			}
			continue
		}
		// list is repeated and not REQUIRED: null leaves it unset.
		if c.present(k + 1) {
			c.checkStringArray(k+1, false)
		}
	}
}

// maxScanSchemes bounds the schemes schemeRef compares a name with one by
// one; more are indexed, so that a hostile card of n schemes and n
// requirements costs n log n comparisons rather than n².
const maxScanSchemes = 16

// schemeRef reports the member at key node k when its name is not a key
// of the card's securitySchemes.
func (c *a2aCheck) schemeRef(k uint32) {
	w := c.walker
	ss := c.m.securitySchemes
	if ss != 0 && c.kind(ss) != tape.KindObject && c.kind(ss) != tape.KindNull {
		return // securitySchemes has the wrong type, reported already; no name can be looked up
	}
	if ss != 0 && c.kind(ss) == tape.KindObject {
		if c.schemeNames(ss) != nil {
			if c.schemes.First(w.vw, k) != 0 {
				return
			}
		} else {
			for d, end := ss+1, c.end(ss); d < end; d = c.next(d + 1) {
				if w.same(d, k) {
					return
				}
			}
		}
	}
	w.add(CodeA2ASecurityRef, k+1, "names a scheme that securitySchemes does not define")
}

// schemeNames returns the index of the names of object ss, built on first
// use, or nil when ss has too few members to need one.
func (c *a2aCheck) schemeNames(ss uint32) *tape.StringIndex {
	if c.schemes != nil {
		return c.schemes
	}
	if c.schemesShort {
		return nil
	}
	n := 0
	for d := ss + 1; d < c.end(ss) && n <= maxScanSchemes; d = c.next(d + 1) {
		n++
	}
	if n <= maxScanSchemes {
		c.schemesShort = true
		return nil
	}
	idx := c.vw.Index(tape.IndexB)
	idx.Reset()
	for d := ss + 1; d < c.end(ss); d = c.next(d + 1) {
		idx.Add(c.vw, d)
	}
	idx.Sort()
	c.schemes = idx
	return idx
}
