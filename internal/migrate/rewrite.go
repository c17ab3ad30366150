package migrate

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cardscan/cardscan/fastvalidate"
)

// card10 rewrites one card between the 0.x shape and the 1.0 shape.
type card10 struct {
	w      *writer
	rec    *Record
	from   string
	legacy bool
	// refusal, when set, says why the card cannot be migrated after all:
	// it is then left as it was.
	refusal string
	// required holds the scheme names the card's requirements name,
	// gathered on first use (see requires).
	required map[string]bool
}

func (c *card10) to() string {
	if c.from == V10 {
		return V03
	}
	return V10
}

func (c *card10) note(code fastvalidate.Code, action, from, to, msg string, spec map[string]string) {
	c.rec.add(code, action, from, to, msg, spec[c.from], spec[c.to()])
}

// Scheme types: 0.x's type and the 1.0 wrapper member holding the scheme.
var schemeWrappers = [][2]string{
	{"apiKey", "apiKeySecurityScheme"},
	{"http", "httpAuthSecurityScheme"},
	{"oauth2", "oauth2SecurityScheme"},
	{"openIdConnect", "openIdConnectSecurityScheme"},
	{"mutualTLS", "mtlsSecurityScheme"},
}

func wrapperOf(typ string) string {
	for _, p := range schemeWrappers {
		if p[0] == typ {
			return p[1]
		}
	}
	return ""
}

func typeOf(wrapper string) string {
	for _, p := range schemeWrappers {
		if p[1] == wrapper {
			return p[0]
		}
	}
	return ""
}

// interfaceVersion is the protocolVersion of the interfaces of a 0.x card
// moved to 1.0: the release its endpoints speak, as major.minor ("Use the
// latest supported minor version per major version").
func interfaceVersion(src []byte, pv *node, from string) string {
	if s, ok := pv.str(src); ok && strings.HasPrefix(s, "0.") {
		if i := strings.IndexByte(s[2:], '.'); i >= 0 {
			return s[:2+i]
		}
		return s
	}
	return strings.TrimPrefix(from, "a2a/")
}

// up rewrites a 0.2 or 0.3 card (root, edited by e) to 1.0.
func (c *card10) up(root *node, e *edit) {
	w := c.w
	c.interfacesUp(root, e)
	caps := root.get("capabilities")
	var ce *edit
	if caps != nil && caps.kind == '{' {
		ce = w.edit(caps)
	}
	if ext := root.get("supportsAuthenticatedExtendedCard"); ext != nil && ce != nil && caps.get("extendedAgentCard") == nil {
		ce.Append(kv{"extendedAgentCard", w.rawOf(ext)})
		if !c.legacy {
			e.Drop("supportsAuthenticatedExtendedCard")
		}
		c.note(fastvalidate.CodeMigrateExtendedCard, "moved", "/supportsAuthenticatedExtendedCard", "/capabilities/extendedAgentCard", "supportsAuthenticatedExtendedCard moved into capabilities as extendedAgentCard", specCaps)
	}
	if ce != nil && caps.get("stateTransitionHistory") != nil && !c.legacy {
		ce.Drop("stateTransitionHistory")
		c.note(fastvalidate.CodeMigrateRemoved, "dropped", "/capabilities/stateTransitionHistory", "", "capabilities.stateTransitionHistory has no counterpart in 1.0 and was dropped", specCaps)
	}
	if ce != nil && ce.changed() {
		e.Set("capabilities", ce.Raw())
	}
	c.requirementsUp(root, e, "")
	if s := root.get("securitySchemes"); s != nil && s.kind == '{' {
		se := w.edit(s)
		for i, m := range s.members {
			if v := c.schemeUp(m.val, "/securitySchemes/"+escape(m.name)); v != nil {
				se.SetAt(i, v)
			}
		}
		e.Set("securitySchemes", se.Raw())
	}
	c.rewriteSkillsWith(root, e, "security", c.requirementsUp)
}

// interfacesUp gathers url, preferredTransport, additionalInterfaces and
// protocolVersion into supportedInterfaces, at url's place. An additional
// interface that repeats the main one (0.3 asks for it: "including the
// main URL's transport for completeness") becomes the first entry, so that
// its layout survives a round trip.
func (c *card10) interfacesUp(root *node, e *edit) {
	w, src := c.w, c.w.src
	url := root.get("url")
	if url == nil || root.get("supportedInterfaces") != nil {
		return
	}
	pt, ai, pv := root.get("preferredTransport"), root.get("additionalInterfaces"), root.get("protocolVersion")
	if pt.isNull(src) {
		// 0.x reads an optional member set to null as absent (a2a.null):
		// the card names no transport and takes the default.
		pt = nil
	}
	ver := interfaceVersion(src, pv, c.from)
	mainURL, _ := url.str(src)
	binding := "JSONRPC"
	if s, ok := pt.str(src); ok {
		binding = s
	}
	var first any = obj{{"url", w.rawOf(url)}, {"protocolBinding", "JSONRPC"}, {"protocolVersion", ver}}
	if pt != nil {
		first.(obj)[1].v = w.rawOf(pt)
	} else {
		c.note(fastvalidate.CodeMigrateInterfaces, "added", "", "/supportedInterfaces/0/protocolBinding", "the card names no preferredTransport; its 0.x default JSONRPC became the first interface's protocolBinding", specIfc)
	}
	list := arr{first}
	if ai != nil && ai.kind == '[' {
		seenMain := false
		for i, el := range ai.elems {
			if el.kind != '{' {
				continue
			}
			ie := w.edit(el)
			ie.Rename("transport", "protocolBinding")
			if el.get("protocolVersion") == nil {
				ie.Append(kv{"protocolVersion", ver})
			}
			u, _ := el.get("url").str(src)
			t, _ := el.get("transport").str(src)
			if !seenMain && u == mainURL && t == binding {
				seenMain = true
				list[0] = ie.Raw()
				c.note(fastvalidate.CodeMigrateInterfaces, "moved", fmt.Sprintf("/additionalInterfaces/%d", i), "/supportedInterfaces/0", "the additional interface that repeats url and preferredTransport became the first (preferred) interface", specIfc)
				continue
			}
			c.note(fastvalidate.CodeMigrateInterfaces, "moved", fmt.Sprintf("/additionalInterfaces/%d", i), fmt.Sprintf("/supportedInterfaces/%d", len(list)), "additional interface moved to supportedInterfaces; transport became protocolBinding", specIfc)
			list = append(list, ie.Raw())
		}
	}
	c.note(fastvalidate.CodeMigrateInterfaces, "moved", "/url", "/supportedInterfaces/0/url", "url and preferredTransport became the first (preferred) entry of supportedInterfaces", specIfc)
	c.note(fastvalidate.CodeMigrateProtocolVersion, "moved", "/protocolVersion", "/supportedInterfaces/0/protocolVersion", "each interface's protocolVersion is "+ver+", the release its endpoint speaks; the card's endpoints did not change", specIfc)
	if c.legacy {
		e.InsertAfter("url", "supportedInterfaces", list)
		return
	}
	e.Rename("url", "supportedInterfaces")
	e.Set("url", list)
	e.Drop("preferredTransport")
	e.Drop("additionalInterfaces")
	e.Drop("protocolVersion")
}

// requirementsUp rewrites obj's security, [{NAME: [scopes]}], to 1.0's
// securityRequirements, [{"schemes": {NAME: {"list": [scopes]}}}].
func (c *card10) requirementsUp(o *node, e *edit, at string) {
	sec := o.get("security")
	if sec == nil || sec.kind != '[' || o.get("securityRequirements") != nil {
		return
	}
	w := c.w
	ae := w.edit(sec)
	for i, r := range sec.elems {
		if r.kind != '{' {
			continue
		}
		re := w.edit(r)
		for j, m := range r.members {
			re.SetAt(j, w.wrap(m.val, obj{{"list", w.rawOf(m.val)}}))
		}
		ae.SetAt(i, w.wrap(r, obj{{"schemes", re.Raw()}}))
	}
	c.note(fastvalidate.CodeMigrateSecurityRequirements, "rewrote", at+"/security", at+"/securityRequirements", "security requirements rewrote to securityRequirements: each NAME: [scopes] became schemes.NAME.list", specSec)
	if c.legacy {
		e.InsertAfter("security", "securityRequirements", ae.Raw())
		return
	}
	e.Rename("security", "securityRequirements")
	e.Set("security", ae.Raw())
}

// schemeUp returns scheme s in 1.0's wrapper, or nil to keep it.
func (c *card10) schemeUp(s *node, at string) any {
	w, src := c.w, c.w.src
	if s.kind != '{' {
		return nil
	}
	typ, _ := s.get("type").str(src)
	wrapper := wrapperOf(typ)
	if wrapper == "" {
		for _, p := range schemeWrappers {
			if s.get(p[1]) != nil {
				return nil // already wrapped
			}
		}
		c.note(fastvalidate.CodeMigrateSchemeUnsupported, "kept", at, at, fmt.Sprintf("security scheme type %q has no 1.0 wrapper; kept as it was", typ), specSch)
		return nil
	}
	body := w.edit(s)
	body.Drop("type")
	if typ == "apiKey" {
		body.Rename("in", "location")
	}
	if f := s.get("flows"); typ == "oauth2" && f != nil && f.kind == '{' {
		if fe := c.flowsUp(f, at+"/flows"); fe != nil {
			body.Set("flows", fe.Raw())
		}
	}
	c.note(fastvalidate.CodeMigrateSecurityScheme, "rewrote", at, at+"/"+wrapper, fmt.Sprintf("type %q scheme wrapped in %s", typ, wrapper), specSch)
	if c.legacy {
		e := w.edit(s)
		e.Append(kv{wrapper, body.Raw()})
		return e.Raw()
	}
	return w.wrap(s, obj{{wrapper, body.Raw()}})
}

// flowsUp keeps one flow of a 0.x flows object, which may hold several:
// 1.0's is a oneof. The first flow 1.0 does not deprecate is kept.
func (c *card10) flowsUp(f *node, at string) *edit {
	keep := -1
	for i, m := range f.members {
		if m.name != "implicit" && m.name != "password" {
			keep = i
			break
		}
	}
	if keep < 0 && len(f.members) > 0 {
		keep = 0
	}
	fe := c.w.edit(f)
	for i, m := range f.members {
		switch {
		case i != keep:
			fe.DropAt(i)
			c.note(fastvalidate.CodeMigrateFlows, "dropped", at+"/"+escape(m.name), "", "1.0 flows hold exactly one flow: "+m.name+" was dropped, "+f.members[keep].name+" kept", specSch)
		case m.name == "implicit" || m.name == "password":
			c.note(fastvalidate.CodeMigrateDeprecatedFlow, "kept", at+"/"+m.name, at+"/"+m.name, "the "+m.name+" flow is deprecated in 1.0 (use authorization code with PKCE)", specSch)
		}
	}
	if !fe.changed() {
		return nil
	}
	return fe
}

// down rewrites a 1.0 card (root, edited by e) to 0.3. A hybrid card,
// which still carries its 0.x members, loses only its 1.0 ones.
func (c *card10) down(root *node, e *edit) {
	w := c.w
	c.interfacesDown(root, e)
	if caps := root.get("capabilities"); caps != nil && caps.kind == '{' {
		if ext := caps.get("extendedAgentCard"); ext != nil {
			ce := w.edit(caps)
			ce.Drop("extendedAgentCard")
			e.Set("capabilities", ce.Raw())
			if root.get("supportsAuthenticatedExtendedCard") == nil {
				e.Append(kv{"supportsAuthenticatedExtendedCard", w.rawOf(ext)})
			}
			c.note(fastvalidate.CodeMigrateExtendedCard, "moved", "/capabilities/extendedAgentCard", "/supportsAuthenticatedExtendedCard", "capabilities.extendedAgentCard moved to the card as supportsAuthenticatedExtendedCard", specCaps)
		}
	}
	c.requirementsDown(root, e, "")
	if s := root.get("securitySchemes"); s != nil && s.kind == '{' {
		se := w.edit(s)
		for i, m := range s.members {
			at := "/securitySchemes/" + escape(m.name)
			switch v := c.schemeDown(m.val, at, w.indentAt(m.keyStart)); {
			case v == errNoFlow && c.requires(root, m.name):
				c.refusal = fmt.Sprintf("the OAuth scheme %s has no flow but deviceCode, which 0.3 cannot express, and the card requires it: refused, as dropping it would drop a security requirement (offer an authorizationCode or clientCredentials flow beside it)", at)
			case v == errNoFlow:
				se.DropAt(i)
				c.note(fastvalidate.CodeMigrateSchemeUnsupported, "dropped", at, "", "the OAuth scheme has no flow but deviceCode, which 0.3 cannot express, and no requirement names it: it was dropped", specSch)
			case v != nil:
				se.SetAt(i, v)
			}
		}
		e.Set("securitySchemes", se.Raw())
	}
	c.rewriteSkillsWith(root, e, "securityRequirements", c.requirementsDown)
}

// ownMembers reports whether a 1.0 interface holds members url and
// preferredTransport cannot carry: any but url, protocolBinding,
// protocolVersion (the card's, in 0.3) and tenant (which 0.3 lacks).
func ownMembers(ifc *node) bool {
	for _, m := range ifc.members {
		switch m.name {
		case "url", "protocolBinding", "protocolVersion", "tenant":
		default:
			return true
		}
	}
	return false
}

// interfacesDown turns supportedInterfaces back into url and
// preferredTransport (the first interface), additionalInterfaces (all of
// them, when there are several, as 0.3 section 5.6.2 asks, or when the
// only one holds members of its own, which would otherwise be lost) and
// the card's protocolVersion, which goes first, where 0.3's sample card
// has it.
func (c *card10) interfacesDown(root *node, e *edit) {
	w, src := c.w, c.w.src
	si := root.get("supportedInterfaces")
	if si == nil {
		return
	}
	if root.get("url") != nil {
		e.Drop("supportedInterfaces")
		c.note(fastvalidate.CodeMigrateInterfaces, "dropped", "/supportedInterfaces", "/url", "the card also carries url (a hybrid): supportedInterfaces was dropped and the 0.x members kept", specIfc)
		return
	}
	if si.kind != '[' || len(si.elems) == 0 || si.elems[0].kind != '{' || si.elems[0].get("url") == nil {
		return
	}
	i0 := si.elems[0]
	e.Rename("supportedInterfaces", "url")
	e.Set("supportedInterfaces", w.rawOf(i0.get("url")))
	if b := i0.get("protocolBinding"); b != nil {
		c.putLegacy(root, e, "preferredTransport", w.rawOf(b), func() { e.InsertAfter("supportedInterfaces", "preferredTransport", w.rawOf(b)) })
	}
	if len(si.elems) > 1 || ownMembers(i0) {
		var list arr
		for i, el := range si.elems {
			if el.kind != '{' {
				continue
			}
			ie := w.edit(el)
			ie.Rename("protocolBinding", "transport")
			ie.Drop("protocolVersion")
			if ie.Drop("tenant") {
				c.note(fastvalidate.CodeMigrateRemoved, "dropped", fmt.Sprintf("/supportedInterfaces/%d/tenant", i), "", "0.3 interfaces have no tenant; it was dropped", specIfc)
			}
			list = append(list, ie.Raw())
		}
		c.putLegacy(root, e, "additionalInterfaces", list, func() { e.InsertAfter("supportedInterfaces", "additionalInterfaces", list) })
	} else if i0.get("tenant") != nil {
		c.note(fastvalidate.CodeMigrateRemoved, "dropped", "/supportedInterfaces/0/tenant", "", "0.3 interfaces have no tenant; it was dropped", specIfc)
	}
	for i, el := range si.elems {
		if v, ok := el.get("protocolVersion").str(src); ok && !strings.HasPrefix(v, "0.3") {
			c.note(fastvalidate.CodeMigrateProtocolVersion, "dropped", fmt.Sprintf("/supportedInterfaces/%d/protocolVersion", i), "/protocolVersion", "the interface speaks A2A "+v+" while the card now claims 0.3.0: a 0.3 client may not talk to it", specIfc)
		}
	}
	c.note(fastvalidate.CodeMigrateInterfaces, "moved", "/supportedInterfaces/0", "/url", "the first interface became url and preferredTransport; several interfaces, or one holding members of its own, became additionalInterfaces", specIfc)
	c.putLegacy(root, e, "protocolVersion", "0.3.0", func() { e.InsertBefore(root.members[0].name, "protocolVersion", "0.3.0") })
}

// putLegacy writes the 0.3 member name, v, with insert; or, when the 1.0
// card still carries a member of that name (a hybrid that has no url),
// in its place, noting the value it replaces: inserted beside it, the
// card would name the member twice.
func (c *card10) putLegacy(root *node, e *edit, name string, v any, insert func()) {
	if root.get(name) == nil {
		insert()
		return
	}
	e.Set(name, v)
	c.note(fastvalidate.CodeMigrateInterfaces, "rewrote", "/"+name, "/"+name, "the card also carried the 0.x member "+name+"; it now says what the interfaces say", specIfc)
}

func (c *card10) requirementsDown(o *node, e *edit, at string) {
	sr := o.get("securityRequirements")
	if sr == nil {
		return
	}
	if o.get("security") != nil {
		e.Drop("securityRequirements")
		c.note(fastvalidate.CodeMigrateSecurityRequirements, "dropped", at+"/securityRequirements", at+"/security", "the card also carries security (a hybrid): securityRequirements was dropped", specSec)
		return
	}
	if sr.kind != '[' {
		return
	}
	w := c.w
	ae := w.edit(sr)
	for i, r := range sr.elems {
		s := r.get("schemes")
		if s == nil || s.kind != '{' {
			ae.SetAt(i, obj{})
			continue
		}
		se := w.edit(s)
		for j, m := range s.members {
			if l := m.val.get("list"); l != nil {
				se.SetAt(j, w.rawOf(l))
			} else {
				se.SetAt(j, arr{})
			}
		}
		ae.SetAt(i, se.Raw())
	}
	c.note(fastvalidate.CodeMigrateSecurityRequirements, "rewrote", at+"/securityRequirements", at+"/security", "securityRequirements rewrote to security: each schemes.NAME.list became NAME: [scopes]", specSec)
	e.Rename("securityRequirements", "security")
	e.Set("securityRequirements", ae.Raw())
}

// errNoFlow is schemeDown's answer for an OAuth scheme whose only flow is
// deviceCode: in 0.3 it would be a scheme with no flow, which a 0.3
// client cannot get a token from and a2a-go's reader rejects.
var errNoFlow = errors.New("no flow 0.3 can express")

// requires reports whether a security requirement of the card or of one
// of its skills names the scheme, in either release's shape. The names are
// gathered on first use, once per card: gathered again for each scheme, a
// card of n schemes 0.3 cannot express and n requirements cost n².
func (c *card10) requires(root *node, scheme string) bool {
	if c.required == nil {
		c.required = requiredSchemes(root)
	}
	return c.required[scheme]
}

// requiredSchemes returns the names of the schemes the security
// requirements of the card and of its skills name, in either release's
// shape.
func requiredSchemes(root *node) map[string]bool {
	names := map[string]bool{}
	holders := []*node{root}
	if skills := root.get("skills"); skills != nil {
		holders = append(holders, skills.elems...)
	}
	for _, h := range holders {
		for _, r := range h.get("securityRequirements").elemsOf() {
			if s := r.get("schemes"); s != nil && s.kind == '{' {
				for _, m := range s.members {
					names[m.name] = true
				}
			}
		}
		for _, r := range h.get("security").elemsOf() {
			if r != nil && r.kind == '{' {
				for _, m := range r.members {
					names[m.name] = true
				}
			}
		}
	}
	return names
}

// schemeDown returns 1.0 scheme s in 0.x's shape, nil to keep it, or
// errNoFlow for a scheme 0.3 cannot express; place is the indentation
// the scheme's value will be written at.
func (c *card10) schemeDown(s *node, at, place string) any {
	w := c.w
	if s.kind != '{' {
		return nil
	}
	var wrapper string
	var body *node
	for _, m := range s.members {
		if t := typeOf(m.name); t != "" && m.val.kind == '{' {
			wrapper, body = m.name, m.val
			break
		}
	}
	if body == nil {
		return nil
	}
	if s.get("type") != nil {
		e := w.edit(s)
		e.Drop(wrapper)
		c.note(fastvalidate.CodeMigrateSecurityScheme, "dropped", at+"/"+wrapper, at, "the scheme also carries its 0.x members (a hybrid): the 1.0 wrapper was dropped", specSch)
		return e.Raw()
	}
	typ := typeOf(wrapper)
	if len(body.members) == 0 {
		c.note(fastvalidate.CodeMigrateSecurityScheme, "rewrote", at+"/"+wrapper, at, fmt.Sprintf("%s unwrapped to a type %q scheme", wrapper, typ), specSch)
		return w.wrap(s, obj{{"type", typ}})
	}
	be := w.edit(body)
	be.InsertBefore(body.members[0].name, "type", typ)
	if typ == "apiKey" {
		be.Rename("location", "in")
	}
	if f := body.get("flows"); f != nil && f.kind == '{' {
		if len(f.members) == 1 && f.members[0].name == "deviceCode" {
			return errNoFlow
		}
		fe := w.edit(f)
		for _, m := range f.members {
			switch m.name {
			case "deviceCode":
				fe.Drop(m.name)
				c.note(fastvalidate.CodeMigrateSchemeUnsupported, "dropped", at+"/"+wrapper+"/flows/deviceCode", "", "0.3 has no device code flow; it was dropped", specSch)
			case "authorizationCode":
				if m.val.kind == '{' && m.val.get("pkceRequired") != nil {
					ae := w.edit(m.val)
					ae.Drop("pkceRequired")
					fe.Set(m.name, ae.Raw())
					c.note(fastvalidate.CodeMigrateRemoved, "dropped", at+"/"+wrapper+"/flows/authorizationCode/pkceRequired", "", "0.3 flows have no pkceRequired; it was dropped", specSch)
				}
			}
		}
		be.Set("flows", fe.Raw())
	}
	c.note(fastvalidate.CodeMigrateSecurityScheme, "rewrote", at+"/"+wrapper, at, fmt.Sprintf("%s unwrapped to a type %q scheme", wrapper, typ), specSch)
	return w.unwrapped(be.Text(), body, place)
}

// escape escapes a member name for a JSON Pointer (RFC 6901).
func escape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// rewriteSkillsWith gives each skill of root that has member to rewrite,
// with the skill's JSON Pointer, and sets the skills back into e. Security
// requirements are rewritten the same way at the card and in its skills,
// in both directions.
func (c *card10) rewriteSkillsWith(root *node, e *edit, member string, rewrite func(sk *node, ske *edit, at string)) {
	skills := root.get("skills")
	if skills == nil || skills.kind != '[' {
		return
	}
	ke := c.w.edit(skills)
	for i, sk := range skills.elems {
		if sk.kind != '{' || sk.get(member) == nil {
			continue
		}
		ske := c.w.edit(sk)
		rewrite(sk, ske, fmt.Sprintf("/skills/%d", i))
		ke.SetAt(i, ske.Raw())
	}
	e.Set("skills", ke.Raw())
}
