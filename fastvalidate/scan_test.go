package fastvalidate

import (
	"strconv"
	"strings"
	"testing"
)

// Strict JSON (RFC 8259 plus the I-JSON rules of RFC 7493), judged the same
// in every profile. Paths follow one convention: an error inside a string
// or number names that value; an error at a byte that starts no value (a
// bare word, a stray comma, a missing bracket) names the innermost open
// container, since no value exists there to name; an error in a member name
// names the object that holds it.

// inMeta places raw JSON text as the value of metadata member "x" of an
// otherwise valid card, so that valid text yields no finding at all.
func inMeta(raw string) string { return card(map[string]string{"metadata": `{"x":` + raw + `}`}) }

func TestScan_Numbers(t *testing.T) {
	valid := []string{`0`, `-0`, `0.0`, `-0.0e-0`, `0e0`, `1E+2`, `1e-2`, `-1.5e10`, `123456789012345678901234567890`,
		`1e-400`, `0.5`, `9007199254740993`, `[1,-1,0]`}
	for _, raw := range valid {
		checkScanCase(t, raw, inMeta(raw), nil)
	}
	// Malformed numbers, and tokens that start no value at all: the path
	// names the member whose value is at fault.
	atX := errAt("json.syntax", "/metadata/x")
	cases := []struct {
		raw  string
		want []hit
	}{
		{`NaN`, atX},
		{`nan`, atX},
		{`Infinity`, atX},
		{`-Infinity`, atX},
		{`-Inf`, atX},
		{`+1`, atX},
		{`.5`, atX},
		{`01`, atX},
		{`-01`, atX},
		{`00`, atX},
		{`1.`, atX},
		{`1.e5`, atX},
		{`1e`, atX},
		{`1e+`, atX},
		{`1E-`, atX},
		{`-`, atX},
		{`- 1`, atX},
		{`--1`, atX},
		{`0x10`, atX},
		{`1_000`, atX},
		{`1.5.2`, atX},
		{`1e400`, errAt("json.number-range", "/metadata/x")},
		{`[1,-1e400]`, errAt("json.number-range", "/metadata/x/1")},
		{`[1,01]`, errAt("json.syntax", "/metadata/x/1")},
		{`[-]`, errAt("json.syntax", "/metadata/x/0")},
	}
	for _, c := range cases {
		checkScanCase(t, c.raw, inMeta(c.raw), c.want)
	}
}

func TestScan_Literals(t *testing.T) {
	for _, raw := range []string{`true`, `false`, `null`, `[true,false,null]`} {
		checkScanCase(t, raw, inMeta(raw), nil)
	}
	for _, raw := range []string{`True`, `FALSE`, `nul`, `tru`, `undefined`, `None`, `'x'`, `x`} {
		checkScanCase(t, raw, inMeta(raw), errAt("json.syntax", "/metadata/x"))
	}
	// A whole literal with more after it: the value is fine, its container
	// lacks a comma.
	for _, raw := range []string{`nulll`, `truex`} {
		checkScanCase(t, raw, inMeta(raw), errAt("json.syntax", "/metadata"))
	}
	// An element or member value that is no literal is named by its own
	// path, as a malformed number or string is.
	checkScanCase(t, "bad element", inMeta(`[true,tru]`), errAt("json.syntax", "/metadata/x/1"))
	checkScanCase(t, "bad member", inMeta(`{"a":{"b":nul}}`), errAt("json.syntax", "/metadata/x/a/b"))
}

func TestScan_Structure(t *testing.T) {
	cases := []struct {
		name string
		doc  string
		want []hit
	}{
		{"trailing comma in object", inMeta(`{"a":1,}`), errAt("json.syntax", "/metadata/x")},
		{"trailing comma in array", inMeta(`[1,]`), errAt("json.syntax", "/metadata/x")},
		{"trailing comma at top", card(nil)[:len(card(nil))-1] + `,}`, errAt("json.syntax", "")},
		{"leading comma in array", inMeta(`[,1]`), errAt("json.syntax", "/metadata/x/0")},
		{"double comma", inMeta(`[1,,2]`), errAt("json.syntax", "/metadata/x/1")},
		{"missing comma", inMeta(`[1 2]`), errAt("json.syntax", "/metadata/x")},
		{"missing colon", inMeta(`{"a" 1}`), errAt("json.syntax", "/metadata/x")},
		{"missing value", inMeta(`{"a":}`), errAt("json.syntax", "/metadata/x")},
		{"number as name", inMeta(`{1:2}`), errAt("json.syntax", "/metadata/x")},
		{"single-quoted name", inMeta(`{'a':1}`), errAt("json.syntax", "/metadata/x")},
		{"bare name", inMeta(`{a:1}`), errAt("json.syntax", "/metadata/x")},
		{"block comment", inMeta(`1 /* c */`), errAt("json.syntax", "/metadata")},
		{"line comment", inMeta("1 // c\n"), errAt("json.syntax", "/metadata")},
		{"hash comment", inMeta("1 # c\n"), errAt("json.syntax", "/metadata")},
		{"mismatched brackets", inMeta(`[1}`), errAt("json.syntax", "/metadata/x")},
		{"object closed by bracket", inMeta(`{"a":1]`), errAt("json.syntax", "/metadata/x")},
		{"empty input", ``, errAt("json.syntax", "")},
		{"whitespace only", " \t\r\n ", errAt("json.syntax", "")},
		{"vertical tab", "\v" + card(nil), errAt("json.syntax", "")},
		{"NBSP before card", "\u00a0" + card(nil), errAt("json.syntax", "")},
		// RFC 8259 section 8.1: implementations MUST NOT add a byte order
		// mark and MAY ignore one. A validator sits in front of other
		// parsers, some of which reject it, so it is rejected here.
		{"BOM", "\ufeff" + card(nil), errAt("json.syntax", "")},
		{"trailing garbage", card(nil) + ` x`, errAt("json.syntax", "")},
		{"second value", card(nil) + card(nil), errAt("json.syntax", "")},
		{"trailing comma after card", card(nil) + `,`, errAt("json.syntax", "")},
		{"trailing NUL", card(nil) + "\x00", errAt("json.syntax", "")},
		{"trailing whitespace", " \n" + card(nil) + " \r\n\t", nil},
		{"unclosed object", `{"agent_id":"01HZQK3P8EMXR9V7T5N2W4J6C0"`, errAt("json.syntax", "")},
		{"unclosed array", inMeta(`[1,2`)[:len(inMeta(`[1,2`))-2], errAt("json.syntax", "/metadata/x")},
		{"unclosed string", `{"name":"abc`, errAt("json.syntax", "/name")},
		{"unclosed name", `{"name`, errAt("json.syntax", "")},
		{"lone open brace", `{`, errAt("json.syntax", "")},
		{"lone close brace", `}`, errAt("json.syntax", "")},
		// Whitespace after a bracket, colon or comma is skipped only where
		// a member name or value does not start at once.
		{"whitespace everywhere", inMeta("{ \"e\" : { } ,\n\t\"a\" : [ ] , \"b\" :\r\n[ 1 ,\t\"x\" , { \"c\" : null } ] }"), nil},
		{"whitespace in empty object", inMeta("{\n}"), nil},
		{"whitespace in empty array", inMeta("[\t]"), nil},
		{"whitespace then trailing comma in object", inMeta(`{"a":1, }`), errAt("json.syntax", "/metadata/x")},
		{"whitespace then trailing comma in array", inMeta(`[1, ]`), errAt("json.syntax", "/metadata/x")},
		{"whitespace then leading comma in array", inMeta(`[ ,1]`), errAt("json.syntax", "/metadata/x/0")},
		{"whitespace then comma in object", inMeta(`{ ,"a":1}`), errAt("json.syntax", "/metadata/x")},
		{"whitespace then missing value", inMeta(`{"a": }`), errAt("json.syntax", "/metadata/x")},
		{"whitespace then bracket of the other kind", inMeta(`[ }`), errAt("json.syntax", "/metadata/x")},
		{"whitespace then brace of the other kind", inMeta(`{ ]`), errAt("json.syntax", "/metadata/x")},
	}
	for _, c := range cases {
		checkScanCase(t, c.name, c.doc, c.want)
	}
}

func TestScan_Strings(t *testing.T) {
	q := func(s string) string { return `"` + s + `"` }
	atX := errAt("json.syntax", "/metadata/x")
	utf8X := errAt("json.utf8", "/metadata/x")
	cases := []struct {
		name string
		raw  string
		want []hit
	}{
		{"plain", q("abc"), nil},
		{"all simple escapes", q(`\"\\\/\b\f\n\r\t`), nil},
		{"unicode escapes", q(`\u0000\u001f\u00e9\uFFFF\uabcd`), nil},
		{"DEL raw", q("\x7f"), nil},
		{"U+2028 raw", q("\u2028\u2029"), nil},
		{"max code point raw", q("\U0010FFFF"), nil},
		{"raw NUL", q("\x00"), atX},
		{"raw tab", q("a\tb"), atX},
		{"raw newline", q("a\nb"), atX},
		{"raw 0x1f", q("\x1f"), atX},
		{"escape x", q(`\x41`), atX},
		{"escape quote", q(`\'`), atX},
		{"escape a", q(`\a`), atX},
		{"escape U", q(`\U0041`), atX},
		{"escape u short", q(`\u12`), atX},
		{"escape u non-hex", q(`\u12G4`), atX},
		{"escape u with sign", q(`\u+123`), atX},
		{"escape at end", `"\`, errAt("json.syntax", "/metadata/x")},

		// Invalid UTF-8 (RFC 3629).
		{"lone continuation", q("\x80"), utf8X},
		{"lone continuation after ascii", q("ab\xbf"), utf8X},
		{"overlong slash C0 AF", q("\xc0\xaf"), utf8X},
		{"overlong C1", q("\xc1\x81"), utf8X},
		{"overlong 3-byte", q("\xe0\x80\xaf"), utf8X},
		{"overlong 4-byte", q("\xf0\x80\x80\xaf"), utf8X},
		{"surrogate ED A0 80", q("\xed\xa0\x80"), utf8X},
		{"surrogate ED BF BF", q("\xed\xbf\xbf"), utf8X},
		{"surrogate pair in UTF-8", q("\xed\xa0\xbd\xed\xb8\x80"), utf8X},
		{"truncated 2-byte", q("\xc3"), utf8X},
		{"truncated 3-byte", q("\xe2\x82"), utf8X},
		{"truncated 4-byte", q("\xf0\x9f\x98"), utf8X},
		{"truncated before quote at end", "\"\xe2\x82", utf8X},
		{"F4 90 above U+10FFFF", q("\xf4\x90\x80\x80"), utf8X},
		{"F5", q("\xf5\x80\x80\x80"), utf8X},
		{"F8", q("\xf8\x88\x80\x80\x80"), utf8X},
		{"FE", q("\xfe"), utf8X},
		{"FF", q("\xff"), utf8X},
		{"valid then invalid", q("é\x80"), utf8X},
		{"E0 A0 80 is valid", q("\xe0\xa0\x80"), nil},
		{"ED 9F BF is valid", q("\xed\x9f\xbf"), nil},
		{"EE 80 80 is valid", q("\xee\x80\x80"), nil},
		{"F0 90 80 80 is valid", q("\xf0\x90\x80\x80"), nil},

		// Escaped surrogates (RFC 7493 section 2.1).
		{"high alone", q(`\ud800`), utf8X},
		{"high alone at end", q(`ab\uDBFF`), utf8X},
		{"low alone", q(`\udc00`), utf8X},
		{"low alone upper", q(`\uDFFF`), utf8X},
		{"low then high", q(`\udc00\ud800`), utf8X},
		{"high then non-low escape", q(`\ud800\u0041`), utf8X},
		{"high then high", q(`\ud800\ud800`), utf8X},
		{"high then raw char", q(`\ud800A`), utf8X},
		{"high then other escape", q(`\ud800\n`), utf8X},
		{"valid pair", q(`\ud83d\ude00`), nil},
		{"valid pair upper", q(`\uD83D\uDE00`), nil},
		{"min pair", q(`\ud800\udc00`), nil},
		{"max pair", q(`\udbff\udfff`), nil},
		{"pair then lone", q(`\ud83d\ude00\ude00`), utf8X},
		{"escaped U+FFFD", q(`\ufffd`), nil},
		{"in array", `["ok","\udc00"]`, errAt("json.utf8", "/metadata/x/1")},
	}
	for _, c := range cases {
		checkScanCase(t, c.name, inMeta(c.raw), c.want)
	}

	// Member names: the finding names the object that holds the name.
	names := []struct {
		name string
		raw  string
		want []hit
	}{
		{"name with raw tab", "{\"a\tb\":1}", atX},
		{"name with invalid UTF-8", "{\"a\xc0\xaf\":1}", utf8X},
		{"name with lone surrogate", `{"\ud800":1}`, utf8X},
		{"name with bad escape", `{"\q":1}`, atX},
		{"name with surrogate pair", `{"\ud83d\ude00":1}`, nil},
	}
	for _, c := range names {
		checkScanCase(t, c.name, inMeta(c.raw), c.want)
	}
	checkScanCase(t, "top-level name", "{\"\xff\":1}", errAt("json.utf8", ""))
}

func TestScan_DuplicateKeys(t *testing.T) {
	members := func(n int) []string {
		var ms []string
		for i := range n {
			ms = append(ms, `"k`+strconv.Itoa(i)+`":`+strconv.Itoa(i))
		}
		return ms
	}
	obj := func(ms ...string) string { return "{" + strings.Join(ms, ",") + "}" }
	big := members(40)
	cases := []struct {
		name string
		doc  string
		want []hit
	}{
		{"plain", inMeta(`{"a":1,"a":2}`), errAt("json.duplicate-key", "/metadata/x/a")},
		{"same value", inMeta(`{"a":1,"a":1}`), errAt("json.duplicate-key", "/metadata/x/a")},
		{"not adjacent", inMeta(`{"a":1,"b":2,"c":3,"a":4}`), errAt("json.duplicate-key", "/metadata/x/a")},
		{"escaped equal", inMeta(`{"a":1,"\u0061":2}`), errAt("json.duplicate-key", "/metadata/x/a")},
		{"both escaped", inMeta(`{"\u00e9":1,"\u00E9":2}`), errAt("json.duplicate-key", "/metadata/x/é")},
		{"escaped and raw UTF-8", inMeta(`{"é":1,"\u00e9":2}`), errAt("json.duplicate-key", "/metadata/x/é")},
		{"escaped solidus", inMeta(`{"a/b":1,"a\/b":2}`), errAt("json.duplicate-key", "/metadata/x/a~1b")},
		{"surrogate pair and raw", inMeta(`{"😀":1,"\ud83d\ude00":2}`), errAt("json.duplicate-key", "/metadata/x/😀")},
		{"empty names", inMeta(`{"":1,"":2}`), errAt("json.duplicate-key", "/metadata/x/")},
		{"value is container", inMeta(`{"a":{"b":1},"a":[2]}`), errAt("json.duplicate-key", "/metadata/x/a")},
		{"top level", card(nil)[:len(card(nil))-1] + `,"name":"again"}`, errAt("json.duplicate-key", "/name")},
		{"top-level required member twice", `{"agent_id":"01HZQK3P8EMXR9V7T5N2W4J6C0","agent_id":"01HZQK3P8EMXR9V7T5N2W4J6C0"}`, errAt("json.duplicate-key", "/agent_id")},
		{"inside input_schema", card(map[string]string{"capabilities": `[{"id":"a","description":"d","input_schema":{"type":"object","properties":{"text":{"type":"string"},"text":{"type":"integer"}}}}]`}),
			errAt("json.duplicate-key", "/capabilities/0/input_schema/properties/text")},
		{"distinct names", inMeta(`{"a":1,"A":2,"a ":3,"\u0061\u0062":4,"e\u0301":5,"é":6}`), nil},
		{"same names in sibling objects", inMeta(`[{"a":1},{"a":2}]`), nil},
		{"same name nested", inMeta(`{"a":{"a":{"a":1}}}`), nil},
		// More than 16 members take the sorted-hash path.
		{"17 distinct", inMeta(obj(members(17)...)), nil},
		{"40 distinct", inMeta(obj(big...)), nil},
		{"17th repeats first", inMeta(obj(append(members(16), `"k0":0`)...)), errAt("json.duplicate-key", "/metadata/x/k0")},
		{"40 with last repeated", inMeta(obj(append(big, `"k39":1`)...)), errAt("json.duplicate-key", "/metadata/x/k39")},
		{"40 with middle repeated", inMeta(obj(append(big[:20:20], append([]string{`"k7":7`}, big[20:]...)...)...)), errAt("json.duplicate-key", "/metadata/x/k7")},
		{"40 with escaped repeat", inMeta(obj(append(big, `"\u006b12":1`)...)), errAt("json.duplicate-key", "/metadata/x/k12")},
		{"escaped first of 41, repeated last", inMeta(obj(append(append([]string{`"\u006b\u0078":0`}, big...), `"kx":1`)...)), errAt("json.duplicate-key", "/metadata/x/kx")},
		// The first member that repeats an earlier name is the one named,
		// on every way the search goes.
		{"two repeats in 41, the earlier named", inMeta(obj(append(append([]string{`"kb":0`, `"ka":0`, `"ka":1`}, big[:38]...), `"kb":1`)...)), errAt("json.duplicate-key", "/metadata/x/ka")},
		{"two repeats in 41, the earlier named, escaped", inMeta(obj(append(append([]string{`"kb":0`, `"ka":0`, `"\u006ba":1`}, big[:38]...), `"kb":1`)...)), errAt("json.duplicate-key", "/metadata/x/ka")},
		{"repeat within the first 16 of 17", inMeta(obj(append([]string{`"":0`, `"":1`}, members(15)...)...)), errAt("json.duplicate-key", "/metadata/x/")},
		{"16 with escaped repeat", inMeta(obj(append(members(15), `"\u006b3":1`)...)), errAt("json.duplicate-key", "/metadata/x/k3")},
		{"A2A 1.0 interface names", inMeta(`{"url":"u","protocolBinding":"b","protocolVersion":"v","tenant":"t"}`), nil},
		{"A2A 1.0 interface name repeated", inMeta(`{"protocolBinding":"b","protocolVersion":"v","protocolBinding":"c"}`), errAt("json.duplicate-key", "/metadata/x/protocolBinding")},
		// The scanner's name filter hashes a name's length and first eight
		// bytes: names alike in both must still be told apart, and equal
		// names of every length, near the document's end too, caught.
		{"long names sharing eight bytes", inMeta(`{"description_a":1,"description_b":2,"descriptionXa":3}`), nil},
		{"long names repeated", inMeta(`{"a_member_name_longer_than_sixteen":1,"b":2,"a_member_name_longer_than_sixteen":3}`),
			errAt("json.duplicate-key", "/metadata/x/a_member_name_longer_than_sixteen")},
		{"eight-byte names repeated", inMeta(`{"12345678":1,"12345678":2}`), errAt("json.duplicate-key", "/metadata/x/12345678")},
		{"names of 9 to 16 bytes repeated", inMeta(`{"123456789":1,"1234567890123456":2,"1234567890123456":3}`),
			errAt("json.duplicate-key", "/metadata/x/1234567890123456")},
		{"repeat at the document's end", `{"ab":1,"ab":2}`, errAt("json.duplicate-key", "/ab")},
		{"distinct at the document's end", `{"ab":1,"ac":2}`, []hit{{"field.required", "/agent_id"}, {"field.required", "/name"},
			{"field.required", "/version"}, {"field.required", "/capabilities"}, {"field.required", "/endpoint"}}},
		{"70 distinct saturate the filter", inMeta(obj(members(70)...)), nil},
		{"many empty objects", inMeta("[" + strings.Repeat(`{"a":1,"b":2},`, 50) + `{"a":1,"a":2}]`), errAt("json.duplicate-key", "/metadata/x/50/a")},
	}
	for _, c := range cases {
		checkScanCase(t, c.name, c.doc, c.want)
	}
}

func TestScan_BOMSaysSo(t *testing.T) {
	r := newTestValidator(t, "agentcard").Validate([]byte("\ufeff" + card(nil)))
	if f := r.Findings(); len(f) != 1 || !strings.HasPrefix(f[0].Message(), "byte order mark: ") || f[0].Offset != 0 {
		t.Errorf("findings %v, want one naming the byte order mark", hitsOf(r))
	}
	r = newTestValidator(t, "agentcard").Validate([]byte("\u00a0" + card(nil)))
	if f := r.Findings(); len(f) != 1 || f[0].Message() != "expected a value, found U+00A0 NO-BREAK SPACE" {
		t.Errorf("NBSP: findings %v", hitsOf(r))
	}
}

func TestScan_Depth(t *testing.T) {
	// Nesting within metadata.x: the card and metadata are two levels.
	nested := func(levels int) string {
		return inMeta(strings.Repeat("[", levels) + strings.Repeat("]", levels))
	}
	innermost := func(levels int) string { // pointer to the deepest array opened
		return "/metadata/x" + strings.Repeat("/0", levels-1)
	}
	checkScanCase(t, "depth 512", nested(DefaultMaxDepth-2), nil)
	checkScanCase(t, "depth 513", nested(DefaultMaxDepth-1), errAt("json.depth", innermost(DefaultMaxDepth-2)))
	checkScanCase(t, "depth 100000, unclosed", "{\"metadata\":{\"x\":"+strings.Repeat("[", 100000), errAt("json.depth", innermost(DefaultMaxDepth-2)))
	checkScanCase(t, "depth 100000 of objects", strings.Repeat(`{"a":`, 100000)+"1"+strings.Repeat("}", 100000),
		errAt("json.depth", strings.Repeat("/a", DefaultMaxDepth-1)))
	checkScanCase(t, "depth 513 bare arrays", strings.Repeat("[", 513)+strings.Repeat("]", 513), errAt("json.depth", strings.Repeat("/0", 511)))
	checkScanCase(t, "depth 512 bare arrays", strings.Repeat("[", 512)+strings.Repeat("]", 512), errAt("card.type", ""))

	// The limit is the option's; the scanner keeps no recursion, so a very
	// deep document within a raised limit is walked, not overflowed.
	for _, c := range []struct {
		limit, levels int
		want          []hit
	}{
		{1, 1, errAt("card.type", "")},
		{1, 2, errAt("json.depth", "")},
		{3, 3, errAt("card.type", "")},
		{3, 4, errAt("json.depth", "/0/0")},
		{200000, 100000, errAt("card.type", "")},
	} {
		v := MustNew("agentcard", WithMaxDepth(c.limit), WithClock(fixedClock))
		doc := strings.Repeat("[", c.levels) + strings.Repeat("]", c.levels)
		t.Run("limit "+strconv.Itoa(c.limit)+" levels "+strconv.Itoa(c.levels), func(t *testing.T) {
			checkHits(t, v.Validate([]byte(doc)), c.want)
		})
	}
}

// checkScanCase validates doc with the agentcard profile and, when doc is
// valid strict JSON, the agentcard-schema profile too where the profile
// accepts a metadata member: strict JSON findings do not depend on the
// profile.
func checkScanCase(t *testing.T, name, doc string, want []hit) {
	t.Helper()
	t.Run(name, func(t *testing.T) {
		v := newTestValidator(t, "agentcard")
		r := v.Validate([]byte(doc))
		checkHits(t, r, want)
		if len(want) == 1 && strings.HasPrefix(want[0].rule, "json.") {
			if s, err := New("agentcard-schema", WithClock(fixedClock)); err == nil {
				checkHits(t, s.Validate([]byte(doc)), want)
			}
		}
	})
}
