package fuzz

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

const schemaURL = "https://github.com/aevum-network/agentcard-spec/schema.json"

// schemaOracle judges cards by the AgentCard JSON Schema v1.0 with
// jsonschema v6, format assertion on. asIs uses the library's own "uri"
// format, which is net/url's parser and accepts strings RFC 3986 does not
// (spaces, non-ASCII, "{", "|", ...); rfc3986 replaces that one format with
// the grammar of RFC 3986, which the schema's format "uri" names (JSON
// Schema 2020-12 validation, section 7.3.5).
type schemaOracle struct {
	asIs, rfc3986 *jsonschema.Schema
	uriAsIs       *jsonschema.Schema // {"format":"uri"} alone, for telling the two apart
}

var (
	oracleOnce sync.Once
	oracle     *schemaOracle
	oracleErr  error
)

func loadOracle(t testing.TB) *schemaOracle {
	t.Helper()
	path := sharedPath(t, "specs/agentcard-schema-v1.0.json")
	oracleOnce.Do(func() { oracle, oracleErr = compileOracle(path) })
	if oracleErr != nil {
		t.Fatal(oracleErr)
	}
	return oracle
}

func compileOracle(path string) (*schemaOracle, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	compile := func(url string, doc []byte, rfcURI bool) (*jsonschema.Schema, error) {
		schema, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
		if err != nil {
			return nil, err
		}
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		if rfcURI {
			c.RegisterFormat(&jsonschema.Format{Name: "uri", Validate: func(v any) error {
				if s, ok := v.(string); ok && !uriRef.MatchString(s) {
					return fmt.Errorf("not an RFC 3986 URI")
				}
				return nil
			}})
		}
		if err := c.AddResource(url, schema); err != nil {
			return nil, err
		}
		return c.Compile(url)
	}
	var o schemaOracle
	if o.asIs, err = compile(schemaURL, raw, false); err != nil {
		return nil, err
	}
	if o.rfc3986, err = compile(schemaURL, raw, true); err != nil {
		return nil, err
	}
	o.uriAsIs, err = compile("https://cardscan.invalid/uri.json", []byte(`{"$schema":"https://json-schema.org/draft/2020-12/schema","format":"uri"}`), false)
	return &o, err
}

// schemaVerdict is the oracles' view of one document.
type schemaVerdict struct {
	strict       bool // the strict JSON reference accepts it
	asIs, rfc    bool // valid by each oracle (false when not strict)
	outOfGrammar bool // a uri-format string on which net/url and RFC 3986 disagree
}

func (o *schemaOracle) judge(doc []byte) schemaVerdict {
	var v schemaVerdict
	if v.strict, _ = strictReference(doc, fastvalidate.DefaultMaxDepth, false); !v.strict {
		return v
	}
	inst, err := decodeInstance(doc)
	if err != nil {
		panic(fmt.Sprintf("strict reference accepted an undecodable document: %v", err))
	}
	v.asIs = o.asIs.Validate(inst) == nil
	v.rfc = o.rfc3986.Validate(inst) == nil
	for _, s := range uriValues(inst) {
		if (o.uriAsIs.Validate(s) == nil) != uriRef.MatchString(s) {
			v.outOfGrammar = true
		}
	}
	return v
}

// decodeInstance decodes a card for jsonschema. The schema knows no
// embedded-string form: a string is an instance like any other.
func decodeInstance(doc []byte) (any, error) {
	return jsonschema.UnmarshalJSON(bytes.NewReader(doc))
}

// uriValues returns the strings the schema checks with format "uri".
func uriValues(inst any) []string {
	var out []string
	card, _ := inst.(map[string]any)
	ep, _ := card["endpoint"].(map[string]any)
	for _, k := range []string{"url", "health_url"} {
		if s, ok := ep[k].(string); ok {
			out = append(out, s)
		}
	}
	if auth, ok := ep["auth"].(map[string]any); ok {
		if s, ok := auth["token_url"].(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func schemaValidator(t testing.TB) *fastvalidate.Validator {
	t.Helper()
	v, err := fastvalidate.New("agentcard-schema", fastvalidate.WithClock(fixedClock))
	if err != nil {
		t.Skipf("profile agentcard-schema is not available yet: %v", err)
	}
	return v
}

// checkSchemaDoc compares the profile with the oracles on one document and
// reports which class it fell in.
func checkSchemaDoc(t *testing.T, v *fastvalidate.Validator, o *schemaOracle, doc []byte) schemaVerdict {
	t.Helper()
	r := v.Validate(doc)
	checkResult(t, "agentcard-schema", doc, r)
	want := o.judge(doc)
	if got := r.Valid(); got != want.rfc {
		t.Fatalf("agentcard-schema says valid=%v, jsonschema (format uri per RFC 3986) says %v\nfindings: %v\ninput: %s",
			got, want.rfc, r.Findings(), doc)
	}
	if !want.outOfGrammar && want.asIs != want.rfc {
		t.Fatalf("oracles disagree away from the uri zone: as is %v, RFC 3986 %v\ninput: %s", want.asIs, want.rfc, doc)
	}
	return want
}

// TestSchemaDifferential judges generated cards, valid and mutated, with
// the agentcard-schema profile and with jsonschema v6: the verdicts must be
// equal on every card. Cards whose uri-format strings lie where net/url and
// RFC 3986 disagree are counted apart; on them the profile must side with
// RFC 3986 (TestSchemaOracleURIDeviation pins the difference itself).
func TestSchemaDifferential(t *testing.T) {
	v := schemaValidator(t)
	o := loadOracle(t)
	n := 100000
	if testing.Short() {
		n = 5000
	}
	cards := schemaCards(t, n)
	var valid, invalid, zone, notStrict int
	for _, doc := range cards {
		w := checkSchemaDoc(t, v, o, doc)
		switch {
		case !w.strict:
			notStrict++
		case w.outOfGrammar:
			zone++
		case w.rfc:
			valid++
		default:
			invalid++
		}
	}
	t.Logf("%d cards: %d valid, %d invalid by the schema, %d not strict JSON, %d in the net/url-vs-RFC 3986 zone (compared with RFC 3986)",
		len(cards), valid, invalid, notStrict, zone)
	if valid < len(cards)/10 || invalid < len(cards)/10 {
		t.Errorf("generated cards are off balance: %d valid, %d invalid", valid, invalid)
	}
}

// TestSchemaOracleURIDeviation pins where jsonschema v6's "uri" format,
// which is net/url's parser, and RFC 3986 part ways, in both directions. The
// profile follows RFC 3986 (JSON Schema 2020-12 names it for "uri"), and the
// schema differential compares cards holding such strings with the RFC 3986
// oracle instead. If jsonschema changes, this test says so.
func TestSchemaOracleURIDeviation(t *testing.T) {
	o := loadOracle(t)
	cases := []struct {
		uri   string
		why   string
		isRFC bool
	}{
		// net/url accepts these; RFC 3986 has no room for them.
		{"https://a.example/a b", "space", false},
		{"https://a.example/café", "non-ASCII: an IRI (RFC 3987), not a URI", false},
		{"https://例え.jp/", "non-ASCII host", false},
		{"https://a.example/{id}", "braces", false},
		{"https://a.example/a|b", "vertical bar", false},
		{"https://a.example/a^b", "caret", false},
		{"https://a.example/a`b", "backquote", false},
		{`https://a.example/"x"`, "double quote", false},
		{"https://a.example/<x>", "angle brackets", false},
		{`https://a.example/\x`, "backslash", false},
		{"https://a.example/#a#b", "a second #", false},
		{"https://a.example/[x]", "brackets outside an IP literal", false},
		{"https://u@v@a.example/", "two @ in the authority", false},
		// net/url rejects these; RFC 3986 allows them.
		{"https://[v1.x]/", "IPvFuture literal", true},
		{"https://[vF.a:b]:/", "IPvFuture literal with a colon", true},
		{"https://%41.example/", "percent-encoded reg-name", true},
	}
	for _, c := range cases {
		asIs := o.uriAsIs.Validate(c.uri) == nil
		if rfc := uriRef.MatchString(c.uri); rfc != c.isRFC {
			t.Errorf("%q (%s): RFC 3986 grammar says %v, want %v", c.uri, c.why, rfc, c.isRFC)
		}
		if asIs == c.isRFC {
			t.Errorf("%q (%s): jsonschema v6 format uri now says %v, as RFC 3986 does: the known deviation has changed", c.uri, c.why, asIs)
		}
		if _, ok := fastvalidate.ParseURI([]byte(c.uri)); ok != c.isRFC {
			t.Errorf("%q (%s): ParseURI says %v, RFC 3986 %v", c.uri, c.why, ok, c.isRFC)
		}
	}
}

// schemaCards returns n cards: the generator's agentcard-schema cards and
// structural mutants of valid schema cards.
func schemaCards(t testing.TB, n int) [][]byte {
	gen := generatedSchemaCards(t, n/2)
	r := rand.New(rand.NewPCG(11, 12))
	bases := []any{}
	for _, s := range []string{handSeeds[2], schemaBaseMinimal} {
		inst, err := decodeInstance([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		bases = append(bases, inst)
	}
	for _, g := range gen {
		if inst, err := decodeInstance(g); err == nil && len(bases) < 64 {
			bases = append(bases, inst)
		}
	}
	cards := gen
	for len(cards) < n {
		tree := deepCopy(pick(r, bases))
		for k := r.IntN(4) / 3; k >= 0; k-- { // mostly one edit, some two
			tree = mutateTree(r, tree)
		}
		doc := encodeJSON(tree)
		if r.IntN(20) == 0 {
			doc = encodeJSON(string(doc))
		}
		cards = append(cards, doc)
	}
	return cards
}

const schemaBaseMinimal = `{"agent_id":"01HZQK3P8EMXR9V7T5N2W4J6C0","name":"M","version":"1.0.0","capabilities":[{"id":"a","description":"d"}],"endpoint":{"protocol":"http","url":"https://a.example"}}`

// Values the mutator puts in place of others: bounds of every keyword in
// the schema, both enums, and types the schema does not expect.
var mutantValues = []string{
	`"01HZQK3P8EMXR9V7T5N2W4J6C0"`, `"01hzqk3p8emxr9v7t5n2w4j6c0"`, `"01HZQK3P8EMXR9V7T5N2W4J6CI"`, `"81HZQK3P8EMXR9V7T5N2W4J6C0"`, `"01HZQK3P8EMXR9V7T5N2W4J6C"`,
	`""`, `"a"`, `"` + strings.Repeat("é", 128) + `"`, `"` + strings.Repeat("é", 129) + `"`, `"` + strings.Repeat("a", 64) + `"`, `"` + strings.Repeat("😀", 65) + `"`,
	`"` + strings.Repeat("x", 512) + `"`, `"` + strings.Repeat("x", 513) + `"`,
	`"1.0.0"`, `"1.0"`, `"01.0.0"`, `"1.0.0-alpha.01"`, `"1.0.0+b.1"`, `"1.0.0-0a"`,
	`"text.generate"`, `"Text"`, `"a b"`, `"` + strings.Repeat("a", 129) + `"`,
	`"http"`, `"websocket"`, `"sse"`, `"grpc"`, `"mcp"`, `"google_a2a"`, `"native"`, `"https"`, `"HTTP"`, `"stdio"`,
	`"none"`, `"bearer"`, `"api_key"`, `"oauth2"`, `"mtls"`, `"Bearer"`, `"basic"`,
	`"https://a.example/x"`, `"wss://s.example/e"`, `"urn:a:b"`, `"a.example/x"`, `"https://a.example/%zz"`, `"https://[::1]:8080/"`, `"//a.example"`, `"https://a.example/a b"`, `"https://a.example/{id}"`, `"https://[v1.x]/"`, `"https://u@v@a.example/"`,
	`"USD"`, `"USDC"`, `"usd"`, `"US"`, `"ABCDEFGHIJK"`,
	`0`, `-0`, `1`, `-1`, `1.0`, `0.5`, `1e2`, `1.5`, `-1e-400`, `1e-400`, `1e400`, `-1e400`, `2.854e-21`, `1.00000000000000000001`, `0.99999999999999999999`, `12.0`, `1E0`,
	`null`, `true`, `false`, `{}`, `[]`, `[{"id":"a","description":"d"}]`, `["a","a"]`, `["a","b"]`, `["a","\u0061"]`, `[1]`, `{"scheme":"none"}`, `{"scheme":"bearer","x":1}`, `{"type":"object"}`,
}

var mutantKeys = []string{
	"agent_id", "name", "version", "capabilities", "endpoint", "pricing", "metadata", "id", "description", "tags",
	"input_schema", "output_schema", "protocol", "url", "health_url", "auth", "scheme", "token_url", "header",
	"base_cost_joules", "estimated_latency_ms", "currency", "cost_per_request", "pacr:interaction_count",
	"pacr:avg_latency_ms", "pacr:avg_cost_joules", "pacr:reputation_score", "pacr:influence_rank", "pacr:critical_score",
	"pacr:trust_tier", "goal_subscriptions", "x-extra",
}

// mutateTree applies one random edit somewhere in a decoded card: replace a
// value, delete a member, add a member, or repeat an array element.
func mutateTree(r *rand.Rand, root any) any {
	// Collect every container with the path to it, then pick one.
	var containers []any
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			containers = append(containers, x)
			for _, k := range sortedKeys(x) {
				walk(x[k])
			}
		case []any:
			containers = append(containers, x)
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(root)
	if len(containers) == 0 || r.IntN(50) == 0 {
		return decodeValue(pick(r, mutantValues))
	}
	switch c := pick(r, containers).(type) {
	case map[string]any:
		keys := sortedKeys(c)
		switch op := r.IntN(4); {
		case op == 0 && len(keys) > 0:
			delete(c, pick(r, keys))
		case op == 1:
			c[pick(r, mutantKeys)] = decodeValue(pick(r, mutantValues))
		case len(keys) > 0:
			c[pick(r, keys)] = decodeValue(pick(r, mutantValues))
		}
	case []any:
		if len(c) > 0 {
			i := r.IntN(len(c))
			if j := r.IntN(len(c)); r.IntN(2) == 0 || j == i {
				c[i] = decodeValue(pick(r, mutantValues))
			} else {
				c[i] = deepCopy(c[j]) // a repeated element, for uniqueItems
			}
		}
	}
	return root
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func decodeValue(s string) any {
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(s))
	if err != nil {
		panic(err)
	}
	return v
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = deepCopy(e)
		}
		return a
	}
	return v
}

func encodeJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// FuzzSchemaDifferential: the agentcard-schema profile and jsonschema v6
// agree on every input that is strict JSON (format uri read per RFC 3986),
// and every Result has checkResult's properties.
func FuzzSchemaDifferential(f *testing.F) {
	for _, doc := range schemaCards(f, 300) {
		f.Add(doc)
	}
	for _, s := range handSeeds {
		f.Add([]byte(s))
	}
	v := schemaValidator(f)
	o := loadOracle(f)
	f.Fuzz(func(t *testing.T, doc []byte) {
		if len(doc) > maxFuzzInput {
			t.Skip("input too large")
		}
		checkSchemaDoc(t, v, o, doc)
	})
}

// TestSchemaEdgeCases compares the profile with jsonschema v6 on the edges
// of each keyword that random cards rarely reach: integers written as
// decimals, numbers beyond float64, exact bounds, escaped duplicates.
func TestSchemaEdgeCases(t *testing.T) {
	v := schemaValidator(t)
	o := loadOracle(t)
	with := func(member, value string) []byte {
		return []byte(strings.TrimSuffix(schemaBaseMinimal, "}") + `,"` + member + `":` + value + `}`)
	}
	meta := func(k, val string) []byte { return with("metadata", `{"`+k+`":`+val+`}`) }
	docs := [][]byte{
		[]byte(schemaBaseMinimal),
		meta("pacr:interaction_count", "1.0"), meta("pacr:interaction_count", "1e2"), meta("pacr:interaction_count", "12.50e1"),
		meta("pacr:interaction_count", "1.5"), meta("pacr:interaction_count", "-0"), meta("pacr:interaction_count", "-1"),
		meta("pacr:interaction_count", "1e400"), meta("pacr:interaction_count", "1e-400"), meta("pacr:interaction_count", "0.1e1"),
		meta("pacr:interaction_count", "100000000000000000000000000001"), meta("pacr:interaction_count", `"1"`),
		meta("pacr:reputation_score", "1"), meta("pacr:reputation_score", "1.0"), meta("pacr:reputation_score", "1.00000000000000000001"),
		meta("pacr:reputation_score", "0.99999999999999999999"), meta("pacr:reputation_score", "1e400"), meta("pacr:reputation_score", "-1e400"),
		meta("pacr:reputation_score", "-0"), meta("pacr:reputation_score", "-1e-400"), meta("pacr:reputation_score", "null"),
		meta("pacr:avg_latency_ms", "-0.0"), meta("pacr:avg_latency_ms", "-1e-400"), meta("pacr:critical_score", "1e400"),
		meta("pacr:trust_tier", `"gold"`), meta("other", `{"a":[1]}`),
		with("pricing", `null`), with("pricing", `{}`), with("pricing", `[]`), with("pricing", `{"base_cost_joules":null}`),
		with("pricing", `{"base_cost_joules":-0}`), with("pricing", `{"base_cost_joules":-1e-400}`), with("pricing", `{"base_cost_joules":"1"}`),
		with("pricing", `{"currency":"USD"}`), with("pricing", `{"currency":"usd"}`), with("pricing", `{"currency":null}`),
		with("pricing", `{"currency":"ABCDEFGHIJ"}`), with("pricing", `{"currency":"ABCDEFGHIJK"}`), with("pricing", `{"currency":"\u0055SD"}`),
		with("pricing", `{"per_token_joules":1}`),
		with("x", `1`), with("goal_subscriptions", `[]`),
	}
	for _, caps := range []string{
		`[{"id":"a","description":"d","tags":["a","a"]}]`, `[{"id":"a","description":"d","tags":["a","\u0061"]}]`,
		`[{"id":"a","description":"d","tags":["a","A"]}]`, `[{"id":"a","description":"d","tags":[1,1]}]`,
		`[{"id":"a","description":"d","tags":["` + strings.Repeat("é", 64) + `"]}]`, `[{"id":"a","description":"d","tags":["` + strings.Repeat("é", 65) + `"]}]`,
		`[{"id":"a","description":"d","input_schema":true}]`, `[{"id":"a","description":"d","input_schema":null,"output_schema":[]}]`,
		`[{"id":"a","description":""}]`, `[{"id":"` + strings.Repeat("a", 128) + `","description":"d"}]`, `[{"id":"` + strings.Repeat("a", 129) + `","description":"d"}]`,
		`[{"id":"a"}]`, `[]`, `[1]`, `{}`, `[{"id":"a","description":"d","x":1}]`,
	} {
		docs = append(docs, []byte(strings.Replace(schemaBaseMinimal, `[{"id":"a","description":"d"}]`, caps, 1)))
	}
	for _, ep := range []string{
		`{"protocol":"http","url":"https://a.example","auth":null}`, `{"protocol":"http","url":"https://a.example","auth":{}}`,
		`{"protocol":"http","url":"https://a.example","auth":{"scheme":"none","header":5}}`, `{"protocol":"http","url":"https://a.example","auth":{"scheme":"none","x":5}}`,
		`{"protocol":"http","url":"https://a.example","auth":{"scheme":"oauth2","token_url":"relative/path"}}`, `{"protocol":"http","url":"https://a.example","auth":"none"}`,
		`{"protocol":"http","url":"https://a.example","health_url":"https://a.example/h"}`, `{"protocol":"http","url":"https://a.example","health_url":7}`,
		`{"protocol":"http","url":"mailto:a@b"}`, `{"protocol":"http","url":"https://[::1]/"}`, `{"protocol":"http","url":"https://[::1/"}`,
		`{"protocol":"google_a2a","url":"urn:x"}`, `{"protocol":"https","url":"https://a"}`, `{"url":"https://a"}`, `{"protocol":"http","url":"https://a","x":1}`,
	} {
		docs = append(docs, []byte(strings.Replace(schemaBaseMinimal, `{"protocol":"http","url":"https://a.example"}`, ep, 1)))
	}
	docs = append(docs, encodeJSON(schemaBaseMinimal), encodeJSON(string(encodeJSON(schemaBaseMinimal))))
	for _, doc := range docs {
		checkSchemaDoc(t, v, o, doc)
	}
}
