package fastvalidate

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/internal/jsonedit"
)

// The differential test: cards made by editing valid ones (the test cards,
// and a real card of each dialect when ../shared/corpus/real is there),
// one member at a time, are judged by cardscan and by ajv 8 (with
// ajv-formats) against the published JSON Schema of the same dialect.
// For agentcard-schema the two must agree on every card but one kind,
// where ajv-formats departs from RFC 3986 (schemaExplained). For the A2A
// releases they may disagree only where the release's text says more
// than its schema, or cardscan decided otherwise on purpose; each such
// kind of disagreement is named below with the reason, and any other
// fails the test.

// mutationValues are the values each member is set to in turn: every JSON
// type, and the boundaries of the formats, enums, patterns and lengths the
// dialects have.
var mutationValues = []string{
	`null`, `true`, `false`, `0`, `-1`, `1.5`, `2.853e-21`, `2.854e-21`, `1e20`,
	`[]`, `{}`, `["x"]`, `[{}]`, `[1]`, `{"x": 1}`,
	`""`, `" "`, `"x"`, `"X Y"`, `"a_b"`, `"a-b"`, `"A"`, `"é"`,
	`"1.0.0"`, `"1.0"`, `"0.3"`, `"0.3.0"`, `"0.2.5"`, `"1.0.0-rc.1"`, `"01.0.0"`, `"v1.0.0"`,
	`"https://example.com/a"`, `"http://example.com"`, `"https://"`, `"not a uri"`, `"urn:x:y"`,
	`"grpc://h:1"`, `"example.com:443"`, `"/relative"`,
	`"JSONRPC"`, `"GRPC"`, `"HTTP+JSON"`, `"jsonrpc"`, `"text/plain"`, `"text"`,
	`"header"`, `"query"`, `"cookie"`, `"bearer"`, `"none"`, `"https"`, `"http"`, `"stdio"`, `"mcp"`, `"websocket"`,
	`"01ARZ3NDEKTSV4RRFFQ69G5FAV"`, `"01arz3ndektsv4rrffq69g5fav"`, `"81ARZ3NDEKTSV4RRFFQ69G5FAV"`,
	`"2025-01-01"`, `"2025-01-01T00:00:00Z"`, `"en"`, `"eng"`,
	strconv.Quote(strings.Repeat("a", 64)), strconv.Quote(strings.Repeat("a", 65)),
	strconv.Quote(strings.Repeat("a", 128)), strconv.Quote(strings.Repeat("a", 129)),
	strconv.Quote(strings.Repeat("é", 128)), strconv.Quote(strings.Repeat("é", 129)),
	strconv.Quote(strings.Repeat("a", 512)), strconv.Quote(strings.Repeat("a", 513)),
	// An integer written as a decimal, negative zero; currency codes at the
	// pattern's lengths; a URI whose hier-part is empty (RFC 3986 allows
	// it, ajv-formats does not: see schemaExplained); SemVer edges.
	`1.0`, `-0`, `"USD"`, `"US"`, `"ABCDEFGHIJ"`, `"ABCDEFGHIJK"`, `"a:"`, `"mailto:a@example.com"`,
	`"1.0.0-01"`, `"1.0.0-x-y.0a"`, `"1.0.0+b.01"`,
}

// schemaFull has every member of the AgentCard JSON Schema v1.0, the
// nullable ones among them, and members the open objects (auth, metadata)
// allow beside their own.
const schemaFull = `{"agent_id": "01HZQK3P8EMXR9V7T5N2W4J6C0", "name": "Summariser", "version": "1.0.0-rc.1+b.5",
 "capabilities": [{"id": "text.summarise", "description": "Summarises text.", "tags": ["text", "summary"], "input_schema": null, "output_schema": {"type": "object"}}],
 "endpoint": {"protocol": "http", "url": "https://agents.example.com/api", "health_url": "https://agents.example.com/health",
  "auth": {"scheme": "oauth2", "token_url": "https://auth.example.com/token", "header": "Authorization", "audience": "agents"}},
 "pricing": {"base_cost_joules": 0, "estimated_latency_ms": 1.5, "currency": "USD", "cost_per_request": null},
 "metadata": {"pacr:interaction_count": 3, "pacr:avg_latency_ms": 0, "pacr:avg_cost_joules": 0.5, "pacr:reputation_score": 1,
  "pacr:influence_rank": 0, "pacr:critical_score": 2, "framework": "crewai"}}`

// schemaExplained explains the one kind of card on which ajv and
// agentcard-schema may disagree: ajv-formats' "uri" pattern wants
// something after the scheme's colon, where RFC 3986's hier-part may be an
// empty path, so "a:" is a URI (docs/performance.md lists the deviation).
func schemaExplained(m mutant, r *Result, ajvErrs string) string {
	if r.Valid() && strings.HasSuffix(m.edit, `="a:"`) && strings.Contains(ajvErrs, `must match format "uri"`) {
		return "ajv-formats rejects a URI with an empty hier-part, which RFC 3986 section 3 allows"
	}
	return ""
}

// mutant is an edited card and what was done to it.
type mutant struct {
	edit string // "del PTR", "set PTR=VALUE", "extra PTR" or "dup PTR"
	ptr  string
	null bool // the edit set the member to null
	// optional is true when the card without the member passes cardscan,
	// which a null member may then stand for (set by the test).
	optional bool
	card     []byte
}

// mutants returns base and every card one edit away from it: each member
// and element deleted and set to each of mutationValues, an unknown member
// added to each object, the first element of each array repeated.
func mutants(t *testing.T, base string) []mutant {
	t.Helper()
	var root any
	dec := json.NewDecoder(strings.NewReader(base))
	dec.UseNumber()
	if err := dec.Decode(&root); err != nil {
		t.Fatal(err)
	}
	values := make([]any, len(mutationValues))
	for i, v := range mutationValues {
		d := json.NewDecoder(strings.NewReader(v))
		d.UseNumber()
		if err := d.Decode(&values[i]); err != nil {
			t.Fatalf("%s: %v", v, err)
		}
	}
	out := []mutant{{edit: "base", card: marshal(t, root)}}
	var walk func(node any, path []string)
	walk = func(node any, path []string) {
		ptr := pointerOf(path)
		if len(path) > 0 {
			out = append(out, mutant{edit: "del " + ptr, ptr: ptr, card: marshal(t, jsonedit.Edited(root, path, nil, true))})
			for i, v := range values {
				out = append(out, mutant{edit: "set " + ptr + "=" + mutationValues[i], ptr: ptr, null: v == nil,
					card: marshal(t, jsonedit.Edited(root, path, v, false))})
			}
		}
		switch n := node.(type) {
		case map[string]any:
			extra := make(map[string]any, len(n)+1)
			for k, v := range n {
				extra[k] = v
			}
			extra["x_extra"] = json.Number("1")
			out = append(out, mutant{edit: "extra " + ptr, ptr: ptr, card: marshal(t, jsonedit.Edited(root, path, extra, false))})
			for _, k := range sortedKeys(n) {
				walk(n[k], append(slices.Clip(path), k))
			}
		case []any:
			if len(n) > 0 {
				out = append(out, mutant{edit: "dup " + ptr, ptr: ptr, card: marshal(t, jsonedit.Edited(root, path, append(slices.Clip(n), n[0]), false))})
			}
			for i, v := range n {
				walk(v, append(slices.Clip(path), strconv.Itoa(i)))
			}
		}
	}
	walk(root, nil)
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func pointerOf(path []string) string {
	var b strings.Builder
	for _, p := range path {
		b.WriteString("/" + strings.ReplaceAll(strings.ReplaceAll(p, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

func marshal(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// ajvVerdicts judges each card with testdata/ajv/judge.mjs against
// definition pointer of schema: "" for valid, ajv's errors otherwise.
func ajvVerdicts(t *testing.T, node, schema, pointer, draft string, ms []mutant) []string {
	t.Helper()
	var in bytes.Buffer
	for _, m := range ms {
		in.Write(m.card)
		in.WriteByte('\n')
	}
	cmd := exec.Command(node, "testdata/ajv/judge.mjs", schema, pointer, draft)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("judge.mjs %s: %v\n%s", schema, err, stderr.Bytes())
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(ms) {
		t.Fatalf("judge.mjs %s: %d verdicts for %d cards", schema, len(lines), len(ms))
	}
	for i, l := range lines {
		switch {
		case l == "valid":
			lines[i] = ""
		case strings.HasPrefix(l, "invalid "):
			lines[i] = strings.TrimPrefix(l, "invalid ")
		default:
			t.Fatalf("judge.mjs %s: verdict %q", schema, l)
		}
	}
	return lines
}

// differentialRun is one schema's judging of the cards one edit away from
// each of its bases.
type differentialRun struct {
	profile, schema, pointer, draft string
	bases                           []string
	explain                         explained
}

// explained says why cardscan's verdict r on m may differ from the
// schema's, whose errors are ajvErrs ("" when the schema passes the card),
// or returns "" when nothing does.
type explained func(m mutant, r *Result, ajvErrs string) string

// errorRules returns the rules of r's errors.
func errorRules(r *Result) []string {
	var rules []string
	for _, f := range r.Findings() {
		if f.Severity == SeverityError {
			rules = append(rules, f.Code.String())
		}
	}
	return rules
}

func hasFinding(r *Result, rule, path string) bool {
	for _, f := range r.Findings() {
		if f.Code.String() == rule && f.Path == path {
			return true
		}
	}
	return false
}

// stricterA2A are the rules by which cardscan rejects what the 0.x
// schemas, which type these members as plain strings and objects, let
// pass: a URL that is none (the texts say URL, docs/design.md), a
// signature that is no JWS (0.3 and 1.0 say RFC 7515), a requirement
// naming a scheme the card does not define.
var stricterA2A = []string{"a2a.url", "a2a.signature-format", "a2a.security-ref"}

// a2aExplained explains the disagreements of an A2A release with its schema.
func a2aExplained(ver string) explained {
	return func(m mutant, r *Result, ajvErrs string) string {
		if ajvErrs == "" {
			for _, f := range r.Findings() {
				if f.Severity == SeverityError && !stricter(ver, m, f) {
					return ""
				}
			}
			return "cardscan is stricter than the schema (" + strings.Join(errorRules(r), ", ") + ")"
		}
		switch {
		case m.null && m.optional && hasFinding(r, "a2a.null", m.ptr):
			return "a null optional member is a2a.null, a warning (the schemas from 0.2 on want it left out)"
		case m.null && ver == "0.1" && nullable01(m.ptr):
			return `the 0.1 text types the member "T | null" (section 5.5)`
		case ver == "0.2" && m.edit == "del /protocolVersion" && strings.Contains(ajvErrs, "'protocolVersion'"):
			return "a2a/0.2 covers 0.2.0-0.2.4, which had no protocolVersion"
		case ver == "1.0" && onlyUnknownMembers(ajvErrs):
			return "the 1.0 bundle is closed where 1.0 section 5.7 says unrecognized fields SHOULD be ignored"
		}
		return ""
	}
}

// stricter reports whether f, an error of cardscan on a card the schema
// passes, is one of the kinds it reports on purpose: a stricterA2A rule,
// or in 1.0 what the proto marks REQUIRED and its one-of shapes, which the
// bundle generated from it leaves out (PROFILE.md), but not for a member
// added beside the ones a requirement has. An empty string set
// in 1.0 is held to it apart: a proto3 string without the optional
// keyword is unset when "", so only the two declared optional may fail
// a2a.url for it.
func stricter(ver string, m mutant, f Finding) bool {
	rule := f.Code.String()
	if ver != "1.0" {
		return slices.Contains(stricterA2A, rule)
	}
	switch {
	case rule == "a2a.url" && strings.HasSuffix(m.edit, `=""`):
		return f.Path == "/documentationUrl" || f.Path == "/iconUrl"
	case rule == "a2a.required":
		return required10(f.Path)
	case rule == "a2a.security-requirement" && strings.HasPrefix(m.edit, "extra "):
		return false // section 5.7: an unrecognized field is ignored
	}
	return slices.Contains(stricterA2A, rule) || rule == "a2a.interface" || rule == "a2a.security-scheme" || rule == "a2a.security-requirement"
}

// required10 reports whether ptr is a member of the card, its provider or
// a skill that the 1.0 proto marks REQUIRED.
func required10(ptr string) bool {
	parts := strings.Split(ptr, "/")[1:]
	switch {
	case len(parts) == 1:
		return slices.Contains([]string{"name", "description", "supportedInterfaces", "version", "capabilities", "defaultInputModes", "defaultOutputModes", "skills"}, parts[0])
	case len(parts) == 2 && parts[0] == "provider":
		return parts[1] == "url" || parts[1] == "organization"
	case len(parts) == 3 && parts[0] == "skills":
		return slices.Contains([]string{"id", "name", "description", "tags"}, parts[2])
	}
	return false
}

func nullable01(ptr string) bool {
	switch ptr {
	case "/description", "/provider", "/provider/url", "/documentationUrl", "/authentication", "/authentication/credentials":
		return true
	}
	for _, m := range []string{"/description", "/tags", "/examples", "/inputModes", "/outputModes"} {
		if strings.HasPrefix(ptr, "/skills/") && strings.HasSuffix(ptr, m) && strings.Count(ptr, "/") == 3 {
			return true
		}
	}
	return false
}

func onlyUnknownMembers(ajvErrs string) bool {
	for _, e := range strings.Split(ajvErrs, "; ") {
		if !strings.Contains(e, "additionalProperties") {
			return false
		}
	}
	return true
}

// typeRuleOf is the rule by which profile reports a value of the wrong
// JSON type.
func typeRuleOf(profile string) string {
	if profile == "agentcard-schema" {
		return "schema.type"
	}
	return "field.type"
}

// ajvTypeError reports whether ajv's errors, as judge.mjs prints them,
// have a type error at ptr that is no branch of a oneOf there (which
// fails as a whole, schema.oneOf): a card both reject for a value of the
// wrong JSON type should be rejected under the rule for it, at the same
// place.
func ajvTypeError(ajvErrs, ptr string) bool {
	typ := false
	for _, e := range strings.Split(ajvErrs, "; ") {
		switch {
		case strings.HasPrefix(e, ptr+" oneOf "):
			return false
		case strings.HasPrefix(e, ptr+" type "):
			typ = true
		}
	}
	return typ
}

// realBaseSchemas names, for each profile whose real cards serve as bases,
// the schema, definition and draft the test judges them by.
var realBaseSchemas = map[string][3]string{
	"a2a/0.1":          {"a2a/v0.1.0-a2a.json", "#/$defs/AgentCard", "07"},
	"a2a/0.2":          {"a2a/v0.2.6-a2a.json", "#/definitions/AgentCard", "07"},
	"a2a/0.3":          {"a2a/v0.3.0-a2a.json", "#/definitions/AgentCard", "07"},
	"a2a/1.0":          {"a2a/v1.0.1-generated-a2a.json", "#/definitions/Agent Card", "2020"},
	"agentcard-schema": {"agentcard-schema-v1.0.json", "", "2020"},
}

// maxRealBases bounds the real cards mutated per profile, each some
// thousands of cards to judge.
const maxRealBases = 1

// realRuns returns runs whose bases are real cards of the corpus, read in
// place: per profile, the first few that auto judges valid as it and ajv
// passes unedited (a real card's own disagreements, such as a 0.2 card
// without the protocolVersion 0.2.6 requires, would set every edit of it
// apart). None when the corpus is absent.
func realRuns(t *testing.T, node, specs string) []differentialRun {
	t.Helper()
	files, err := filepath.Glob("../../shared/corpus/real/*.json")
	if err != nil || len(files) == 0 {
		t.Log("the real cards are not at ../shared/corpus/real: the differential test mutates none of them")
		return nil
	}
	auto, schema := newTestValidator(t, "auto"), newTestValidator(t, "agentcard-schema")
	candidates := map[string][]mutant{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var c bytes.Buffer
		if json.Compact(&c, b) != nil {
			continue
		}
		r := auto.Validate(b)
		profile := r.Profile
		if profile == "agentcard" {
			profile = "agentcard-schema"
			r = schema.Validate(b)
		}
		if _, ok := realBaseSchemas[profile]; ok && r.Valid() {
			candidates[profile] = append(candidates[profile], mutant{edit: filepath.Base(f), card: c.Bytes()})
		}
	}
	var runs []differentialRun
	for _, profile := range slices.Sorted(maps.Keys(candidates)) {
		s := realBaseSchemas[profile]
		verdicts := ajvVerdicts(t, node, filepath.Join(specs, s[0]), s[1], s[2], candidates[profile])
		var bases []string
		for i, m := range candidates[profile] {
			if verdicts[i] == "" && len(bases) < maxRealBases {
				bases = append(bases, string(m.card))
			}
		}
		explain := schemaExplained
		if profile != "agentcard-schema" {
			explain = a2aExplained(strings.TrimPrefix(profile, "a2a/"))
		}
		runs = append(runs, differentialRun{profile, s[0], s[1], s[2], bases, explain})
	}
	return runs
}

// markOptional sets the optional flag of each mutant whose member v
// accepts the card without: a null there may be a2a.null, one in a
// member the card needs may not.
func markOptional(v *Validator, ms []mutant) {
	optional := map[string]bool{}
	for _, m := range ms {
		if strings.HasPrefix(m.edit, "del ") {
			optional[m.ptr] = v.Validate(m.card).Valid()
		}
	}
	for i := range ms {
		ms[i].optional = optional[ms[i].ptr]
	}
}

func TestDifferential_Ajv(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the differential test against ajv is skipped")
	}
	if _, err := os.Stat("testdata/ajv/node_modules/ajv"); err != nil {
		t.Skip("testdata/ajv/node_modules is missing (run make node-deps): the differential test against ajv is skipped")
	}
	const specs = "../../shared/specs"
	if _, err := os.Stat(specs); err != nil {
		t.Skip("the specifications are not at ../shared/specs: the differential test against ajv is skipped")
	}
	schemaCards, err := filepath.Glob("testdata/golden/gen-agentcard-schema-*-valid*.json")
	if err != nil || len(schemaCards) == 0 {
		t.Fatalf("no valid agentcard-schema cards in testdata/golden: %v", err)
	}
	var runs []differentialRun
	for _, f := range schemaCards {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, differentialRun{"agentcard-schema", "agentcard-schema-v1.0.json", "", "2020", []string{string(b)}, schemaExplained})
	}
	runs = append(runs, differentialRun{"agentcard-schema", "agentcard-schema-v1.0.json", "", "2020",
		[]string{schemaFull, edited(t, schemaFull, "/pricing", `null`, "/endpoint/auth", `null`)}, schemaExplained})
	runs = append(runs,
		// a2aCard01's nulls, which the 0.1 text allows, would set every card
		// of it apart from the schema: the base has values instead.
		differentialRun{"a2a/0.1", "a2a/v0.1.0-a2a.json", "#/$defs/AgentCard", "07", []string{edited(t, a2aCard01, "/provider/url", `"https://example.com"`,
			"/authentication/credentials", omitted, "/skills/0/description", `"Finds recipes."`, "/skills/0/inputModes", `["text"]`)}, a2aExplained("0.1")},
		// The 0.2.0 schema lacks the members 0.2.1 to 0.2.4 added, which
		// a2a/0.2 checks as the later releases type them: its base card
		// has none of them.
		differentialRun{"a2a/0.2", "a2a/v0.2.0-a2a.json", "#/definitions/AgentCard", "07", []string{edited(t, a2aCard02, "/iconUrl", omitted, "/capabilities/extensions", omitted,
			"/supportsAuthenticatedExtendedCard", omitted, "/preferredTransport", omitted, "/additionalInterfaces", omitted)}, a2aExplained("0.2")},
		differentialRun{"a2a/0.2", "a2a/v0.2.5-a2a.json", "#/definitions/AgentCard", "07",
			[]string{edited(t, a2aCard02, "/protocolVersion", `"0.2.5"`)}, a2aExplained("0.2")},
		// The 0.3 schemes but mutualTLS are 0.2's too, with the same members.
		differentialRun{"a2a/0.2", "a2a/v0.2.6-a2a.json", "#/definitions/AgentCard", "07",
			[]string{edited(t, a2aCard02, "/protocolVersion", `"0.2.6"`), edited(t, a2aCard03Schemes, "/protocolVersion", `"0.2.6"`, "/signatures", omitted)}, a2aExplained("0.2")},
		differentialRun{"a2a/0.3", "a2a/v0.3.0-a2a.json", "#/definitions/AgentCard", "07", []string{a2aCard03, a2aCard03Schemes}, a2aExplained("0.3")},
		differentialRun{"a2a/1.0", "a2a/v1.0.1-generated-a2a.json", "#/definitions/Agent Card", "2020", []string{a2aCard10, a2aCard10Flows}, a2aExplained("1.0")},
	)
	runs = append(runs, realRuns(t, node, specs)...)
	total, disagreed := 0, 0
	for _, r := range runs {
		v := newTestValidator(t, r.profile)
		for _, base := range r.bases {
			ms := mutants(t, base)
			verdicts := ajvVerdicts(t, node, filepath.Join(specs, r.schema), r.pointer, r.draft, ms)
			markOptional(v, ms)
			for i, m := range ms {
				res := v.Validate(m.card)
				total++
				if res.Valid() == (verdicts[i] == "") {
					if !m.null && ajvTypeError(verdicts[i], m.ptr) && !hasFinding(res, typeRuleOf(r.profile), m.ptr) &&
						// 0.x's bare scope list in a 1.0 requirement, named for what it is
						!(r.profile == "a2a/1.0" && strings.Contains(m.edit, "=[") && hasFinding(res, "a2a.security-requirement", m.ptr)) {
						t.Errorf("%s, %s: %s: ajv has a type error at the member, cardscan no %s: %v", r.profile, r.schema, m.edit, typeRuleOf(r.profile), res.Findings())
					}
					continue
				}
				disagreed++
				why := ""
				if r.explain != nil {
					why = r.explain(m, res, verdicts[i])
				}
				if why == "" {
					t.Errorf("%s, %s: %s: cardscan valid=%v %v; ajv: %q\n%s", r.profile, r.schema, m.edit, res.Valid(), res.Findings(), verdicts[i], m.card)
				}
			}
		}
	}
	t.Logf("%d cards, %d judged otherwise by ajv, each for a reason named in this test", total, disagreed)
}
