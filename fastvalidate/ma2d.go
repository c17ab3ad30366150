package fastvalidate

import (
	"github.com/cardscan/cardscan/rule"

	"github.com/cardscan/cardscan/fastvalidate/internal/tape"
)

// The ma2d profile: the MA2D Agent Card specification (ma2d-agent-card-spec.md,
// "Specification Version: A2A 1.0", a dialect of its own despite the name).
// Missing members and wrong JSON types use the shared field.required and
// field.type rules.

// Rules of the ma2d profile.
const (
	CodeMA2DName Code = 200 + iota
	CodeMA2DVersion
	CodeMA2DDescription
	CodeMA2DSkills
	CodeMA2DSkillName
	CodeMA2DSkillDescription
	CodeMA2DProtocol
	CodeMA2DURL
	CodeMA2DURLRisk
	CodeMA2DAuthType
	CodeMA2DFormat
	CodeMA2DMode
	CodeMA2DLanguage
	CodeMA2DTimestamp
	CodeMA2DExampleSkill
)

func init() {
	rule.Register(
		def(CodeMA2DName, "ma2d.name", SeverityError, rule.MA2D, "name does not match ^[a-z0-9-]+$ or is longer than 50 characters"),
		def(CodeMA2DVersion, "ma2d.version", SeverityError, rule.MA2D, "version is not Semantic Versioning (X.Y.Z)"),
		def(CodeMA2DDescription, "ma2d.description", SeverityError, rule.MA2D, "description is not 200 to 2000 characters long"),
		def(CodeMA2DSkills, "ma2d.skills", SeverityError, rule.MA2D, "skills defines no skill"),
		def(CodeMA2DSkillName, "ma2d.skill-name", SeverityError, rule.MA2D, "skill name does not match ^[a-z0-9_]+$ (snake_case)"),
		def(CodeMA2DSkillDescription, "ma2d.skill-description", SeverityError, rule.MA2D, "skill description is shorter than 50 characters"),
		def(CodeMA2DProtocol, "ma2d.protocol", SeverityError, rule.MA2D, "invocation.protocol is not one of mcp, rest, grpc, graphql, websocket"),
		def(CodeMA2DURL, "ma2d.url", SeverityError, rule.MA2D, "endpoint, homepage or repository is not an absolute http or https URL"),
		def(CodeMA2DURLRisk, "ma2d.url-risk", SeverityWarning, rule.MA2D, "a URL uses plain http, localhost or a private or loopback address (an error under the production policy)"),
		def(CodeMA2DAuthType, "ma2d.auth-type", SeverityError, rule.MA2D, "invocation.authentication.type is not one of none, bearer, api_key, oauth2, basic, mtls"),
		def(CodeMA2DFormat, "ma2d.format", SeverityError, rule.MA2D, "invocation.format is not one of json-rpc, rest, graphql"),
		def(CodeMA2DMode, "ma2d.mode", SeverityError, rule.MA2D, "an input mode is not text, voice, image, video or file, or an output mode not text, json, speech, image, video or file"),
		def(CodeMA2DLanguage, "ma2d.language", SeverityError, rule.MA2D, "a language is not an ISO 639-1 code"),
		def(CodeMA2DTimestamp, "ma2d.timestamp", SeverityError, rule.MA2D, "a timestamp is not ISO 8601 (extended format date or date-time)"),
		def(CodeMA2DExampleSkill, "ma2d.example-skill", SeverityError, rule.MA2D, "examples[].skill names no skill the card defines"),
	)
	registerProfile("ma2d", "MA2D Agent Card (ma2d-agent-card-spec.md)", checkMA2D)
}

// MA2D's required members and the messages for strings outside an
// enumeration, from the member table.
var (
	ma2dRequired      = requiredIn(&ma2dMembers, only1)
	msgMA2DFormat     = enumMessage("format is not one of ", ma2dFormats)
	msgMA2DAuthType   = enumMessage("authentication type is not one of ", ma2dAuthTypes)
	msgMA2DProtocol   = enumMessage("protocol is not one of ", ma2dProtocols)
	msgMA2DInputMode  = enumMessage("input mode is not one of ", ma2dInputModes)
	msgMA2DOutputMode = enumMessage("output mode is not one of ", ma2dOutputModes)
)

// ma2dTop holds the nodes of the card's members that are checked after
// the first pass over it, 0 for absent ones.
type ma2dTop struct {
	name, version, description, skills, invocation uint32 // required, in ma2dRequired's order
	capabilities, examples, metadata               uint32
}

func checkMA2D(w *walker) string {
	m := w.ma2dMembers()
	if m.name == 0 || m.version == 0 || m.description == 0 || m.skills == 0 || m.invocation == 0 {
		for i, n := range [...]uint32{m.name, m.version, m.description, m.skills, m.invocation} {
			if n == 0 {
				w.addMissing(CodeFieldRequired, 0, ma2dRequired[i])
			}
		}
	}
	w.ma2dIdentity(&m)
	// The string name nodes of the skills, for examples[].skill; nil
	// when there are more skills than seen holds.
	var seen [maxSeenSkills]uint32
	var names []uint32
	if m.skills != 0 && w.want(m.skills, tape.KindArray) {
		names = w.ma2dSkills(m.skills, seen[:0])
	}
	if m.invocation != 0 && w.want(m.invocation, tape.KindObject) {
		w.ma2dInvocation(m.invocation)
	}
	if m.capabilities != 0 && w.want(m.capabilities, tape.KindObject) {
		w.ma2dCapabilities(m.capabilities)
	}
	if m.examples != 0 && w.want(m.examples, tape.KindArray) {
		w.ma2dExamples(m.examples, m.skills, names)
	}
	if m.metadata != 0 && w.want(m.metadata, tape.KindObject) {
		w.ma2dMetadata(m.metadata)
	}
	return "ma2d"
}

// ma2dMembers finds the card's members in one pass, checking at once the
// ones that stand alone (strings and URLs) and keeping the others for
// checks that run in a fixed order after it.
func (w *walker) ma2dMembers() (m ma2dTop) {
	vw := w.vw // see tape.View
	for k, end := uint32(1), vw.End(0); k < end; k = vw.NextMember(k) {
		v := k + 1
		switch string(vw.Name(k)) {
		case "name":
			m.name = v
		case "version":
			m.version = v
		case "description":
			m.description = v
		case "skills":
			m.skills = v
		case "invocation":
			m.invocation = v
		case "capabilities":
			m.capabilities = v
		case "examples":
			m.examples = v
		case "metadata":
			m.metadata = v
		case "author", "license":
			w.want(v, tape.KindString)
		case "homepage", "repository":
			if w.want(v, tape.KindString) {
				w.checkURL(v, urlEndpoint, CodeMA2DURL, CodeMA2DURLRisk)
			}
		}
	}
	return m
}

// ma2dIdentity checks the strings that name the agent: its name, version
// and description.
func (w *walker) ma2dIdentity(m *ma2dTop) {
	if m.name != 0 && w.want(m.name, tape.KindString) {
		if text := w.str(m.name); len(text) == 0 || len(text) > 50 || !matchTable(text, &ma2dNameChars) {
			w.addGot(CodeMA2DName, m.name, "name must be 1 to 50 characters of [a-z0-9-]")
		}
	}
	if m.version != 0 && w.want(m.version, tape.KindString) && !IsSemVer(w.str(m.version)) {
		w.addGot(CodeMA2DVersion, m.version, "version is not Semantic Versioning (X.Y.Z)")
	}
	if m.description != 0 && w.want(m.description, tape.KindString) {
		if n := w.codePoints(m.description); n < 200 || n > 2000 {
			w.addArg(CodeMA2DDescription, m.description, "description has %d characters; 200 to 2000 are required", int64(n))
		}
	}
}

var ma2dNameChars, ma2dSkillChars = func() (name, skill [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		name[c], skill[c] = true, true
	}
	for c := '0'; c <= '9'; c++ {
		name[c], skill[c] = true, true
	}
	name['-'], skill['_'] = true, true
	return
}()

func matchTable(b []byte, t *[256]bool) bool {
	for _, c := range b {
		if !t[c] {
			return false
		}
	}
	return true
}

// ma2dSkills checks the skills and returns names with the string name of
// each skill appended, or nil when names has too little room for them.
func (w *walker) ma2dSkills(arr uint32, names []uint32) []uint32 {
	vw := w.vw // see tape.View
	if w.end(arr) == arr+1 {
		w.add(CodeMA2DSkills, arr, "skills must define at least one skill")
	}
	for s, end := arr+1, w.end(arr); s < end; s = w.next(s) {
		if !w.want(s, tape.KindObject) {
			continue
		}
		var name, desc uint32
		for k, end := s+1, vw.End(s); k < end; k = vw.NextMember(k) {
			v := k + 1
			switch string(vw.Name(k)) {
			case "name":
				name = v
			case "description":
				desc = v
			case "parameters":
				w.want(v, tape.KindObject)
			case "examples":
				w.want(v, tape.KindArray)
			case "returns", "mcp_server", "mcp_tool":
				w.want(v, tape.KindString)
			}
		}
		switch {
		case name == 0:
			w.addMissing(CodeFieldRequired, s, "name")
		case w.want(name, tape.KindString):
			if text := w.str(name); len(text) == 0 || !matchTable(text, &ma2dSkillChars) {
				w.addGot(CodeMA2DSkillName, name, "skill name must match ^[a-z0-9_]+$ (snake_case)")
			}
			if names != nil && len(names) < cap(names) {
				names = append(names, name)
			} else {
				names = nil
			}
		}
		switch {
		case desc == 0:
			w.addMissing(CodeFieldRequired, s, "description")
		case w.want(desc, tape.KindString):
			if n := w.codePoints(desc); n < 50 {
				w.addArg(CodeMA2DSkillDescription, desc, "skill description has %d characters; at least 50 are required", int64(n))
			}
		}
	}
	return names
}

func (w *walker) ma2dInvocation(inv uint32) {
	vw := w.vw // see tape.View
	var protocol, endpoint uint32
	for k, end := inv+1, vw.End(inv); k < end; k = vw.NextMember(k) {
		v := k + 1
		switch string(vw.Name(k)) {
		case "protocol":
			protocol = v
		case "endpoint":
			endpoint = v
		case "method":
			w.want(v, tape.KindString)
		case "format":
			if w.want(v, tape.KindString) && !inEnum(w.str(v), ma2dFormats) {
				w.addGot(CodeMA2DFormat, v, msgMA2DFormat)
			}
		case "authentication":
			if !w.want(v, tape.KindObject) {
				continue
			}
			for a, end := v+1, vw.End(v); a < end; a = vw.NextMember(a) {
				f := a + 1
				switch string(vw.Name(a)) {
				case "type":
					if w.want(f, tape.KindString) && !inEnum(w.str(f), ma2dAuthTypes) {
						w.addGot(CodeMA2DAuthType, f, msgMA2DAuthType)
					}
				case "required":
					w.want(f, kindBoolean)
				}
			}
		}
	}
	switch {
	case protocol == 0:
		w.addMissing(CodeFieldRequired, inv, "protocol")
	case w.want(protocol, tape.KindString):
		if !inEnum(w.str(protocol), ma2dProtocols) {
			w.addGot(CodeMA2DProtocol, protocol, msgMA2DProtocol)
		}
	}
	switch {
	case endpoint == 0:
		w.addMissing(CodeFieldRequired, inv, "endpoint")
	case w.want(endpoint, tape.KindString):
		w.checkURL(endpoint, urlEndpoint, CodeMA2DURL, CodeMA2DURLRisk)
	}
}

func (w *walker) ma2dCapabilities(caps uint32) {
	vw := w.vw // see tape.View
	for k, end := caps+1, vw.End(caps); k < end; k = vw.NextMember(k) {
		v := k + 1
		switch string(vw.Name(k)) {
		case "languages":
			if w.want(v, tape.KindArray) {
				for e, end := v+1, w.end(v); e < end; e = w.next(e) {
					if w.want(e, tape.KindString) && !isISO639_1(w.str(e)) {
						w.addGot(CodeMA2DLanguage, e, "language is not an ISO 639-1 code")
					}
				}
			}
		case "domains":
			w.stringList(v)
		case "input_modes":
			if w.want(v, tape.KindArray) {
				for e, end := v+1, w.end(v); e < end; e = w.next(e) {
					if !w.want(e, tape.KindString) {
						continue
					}
					if !inEnum(w.str(e), ma2dInputModes) {
						w.addGot(CodeMA2DMode, e, msgMA2DInputMode)
					}
				}
			}
		case "output_modes":
			if w.want(v, tape.KindArray) {
				for e, end := v+1, w.end(v); e < end; e = w.next(e) {
					if !w.want(e, tape.KindString) {
						continue
					}
					if !inEnum(w.str(e), ma2dOutputModes) {
						w.addGot(CodeMA2DMode, e, msgMA2DOutputMode)
					}
				}
			}
		case "streaming", "async", "state_management":
			w.want(v, kindBoolean)
		case "rate_limit":
			w.want(v, tape.KindString)
		}
	}
}

// stringList checks an array of strings.
func (w *walker) stringList(v uint32) {
	if w.stringsOnly(v) {
		return
	}
	if w.want(v, tape.KindArray) {
		for e := v + 1; e < w.end(v); e = w.next(e) {
			w.want(e, tape.KindString)
		}
	}
}

// ma2dExamples checks the examples; names are the string name nodes of
// the skills, or nil to look them up in skills.
func (w *walker) ma2dExamples(arr, skills uint32, names []uint32) {
	vw := w.vw // see tape.View
	for x, end := arr+1, w.end(arr); x < end; x = w.next(x) {
		if !w.want(x, tape.KindObject) {
			continue
		}
		var skill, input, output uint32
		for k, end := x+1, vw.End(x); k < end; k = vw.NextMember(k) {
			v := k + 1
			switch string(vw.Name(k)) {
			case "skill":
				skill = v
			case "input":
				input = v
			case "output":
				output = v
			case "description":
				w.want(v, tape.KindString)
			}
		}
		switch {
		case skill == 0:
			w.addMissing(CodeFieldRequired, x, "skill")
		case !w.want(skill, tape.KindString):
		case names != nil && w.equalsAny(names, skill):
		case names != nil || !w.ma2dDefinesSkill(skills, skill):
			w.addGot(CodeMA2DExampleSkill, skill, "example names no skill the card defines")
		}
		for i, n := range [...]uint32{input, output} {
			if n == 0 {
				w.addMissing(CodeFieldRequired, x, [...]string{"input", "output"}[i])
			} else {
				w.want(n, tape.KindObject)
			}
		}
	}
}

// ma2dDefinesSkill reports whether some skills[].name equals the string
// node name.
func (w *walker) ma2dDefinesSkill(skills, name uint32) bool {
	if skills == 0 || w.kind(skills) != tape.KindArray {
		return false
	}
	for s := skills + 1; s < w.end(skills); s = w.next(s) {
		if w.kind(s) != tape.KindObject {
			continue
		}
		if n := w.member(s, "name"); n != 0 && w.kind(n) == tape.KindString && w.same(n, name) {
			return true
		}
	}
	return false
}

func (w *walker) ma2dMetadata(meta uint32) {
	vw := w.vw // see tape.View
	for k, end := meta+1, vw.End(meta); k < end; k = vw.NextMember(k) {
		v := k + 1
		switch string(vw.Name(k)) {
		case "created_at", "updated_at":
			if w.want(v, tape.KindString) && !isISO8601(w.str(v)) {
				w.addGot(CodeMA2DTimestamp, v, "timestamp is not ISO 8601 (e.g. 2026-01-28T12:00:00Z)")
			}
		case "tags", "categories":
			w.stringList(v)
		}
	}
}
