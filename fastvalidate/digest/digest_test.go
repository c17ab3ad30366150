package digest

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/corpus"
	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/zeebo/xxh3"

	"github.com/cardscan/cardscan/fastvalidate/canon"
	"github.com/cardscan/cardscan/fastvalidate/internal/jcs"
	"github.com/cardscan/cardscan/fastvalidate/internal/tape"
)

func testHash(b []byte, seed uint64) Hash128 {
	h := xxh3.Hash128Seed(b, seed)
	return Hash128{Hi: h.Hi, Lo: h.Lo}
}

// contentHash returns the card's content hash, scanned by the hasher
// itself, and whether it has one.
func contentHash(t testing.TB, h *Hasher, card []byte) (Hash128, bool) {
	t.Helper()
	ok := h.Load(nil, card)
	return h.Sum(), ok
}

// TestContentHashEquality: values whose RFC 8785 forms are equal hash
// alike, whatever their white space, member order, escapes or number
// forms; any change of content hashes differently.
func TestContentHashEquality(t *testing.T) {
	const base = `{"url":"https://a.example/","name":"a","n":100,"f":0.5,"x":[true,false,null,{"k":"v","j":[]}],"o":{}}`
	h := New(testHash)
	want, ok := contentHash(t, h, []byte(base))
	if !ok {
		t.Fatal("base: no hash")
	}
	for _, tc := range []struct {
		name, card string
		same       bool
	}{
		{"white space", " {\n\t\"url\" : \"https://a.example/\" ,\r\n\"name\":\"a\", \"n\" :100 ,\"f\":0.5,\"x\":[ true , false,null ,{ \"k\" : \"v\" , \"j\" : [ ] } ] ,\"o\":{ }}\n", true},
		{"member order", `{"o":{},"x":[true,false,null,{"j":[],"k":"v"}],"f":0.5,"n":100,"name":"a","url":"https://a.example/"}`, true},
		{"escaped letter", `{"url":"https://a.example/","name":"\u0061","n":100,"f":0.5,"x":[true,false,null,{"k":"v","j":[]}],"o":{}}`, true},
		{"escaped solidus", `{"url":"https:\/\/a.example\/","name":"a","n":100,"f":0.5,"x":[true,false,null,{"k":"v","j":[]}],"o":{}}`, true},
		{"escaped name", `{"url":"https://a.example/","n\u0061me":"a","n":100,"f":0.5,"x":[true,false,null,{"\u006b":"v","j":[]}],"o":{}}`, true},
		{"number 1e2", `{"url":"https://a.example/","name":"a","n":1e2,"f":0.5,"x":[true,false,null,{"k":"v","j":[]}],"o":{}}`, true},
		{"number 100.0", `{"url":"https://a.example/","name":"a","n":100.0,"f":0.5,"x":[true,false,null,{"k":"v","j":[]}],"o":{}}`, true},
		{"number 1E+2", `{"url":"https://a.example/","name":"a","n":1E+2,"f":0.5,"x":[true,false,null,{"k":"v","j":[]}],"o":{}}`, true},
		{"number 5e-1", `{"url":"https://a.example/","name":"a","n":100,"f":5e-1,"x":[true,false,null,{"k":"v","j":[]}],"o":{}}`, true},
		{"number 0.50", `{"url":"https://a.example/","name":"a","n":100,"f":0.50,"x":[true,false,null,{"k":"v","j":[]}],"o":{}}`, true},
		{"string changed", `{"url":"https://a.example/","name":"b","n":100,"f":0.5,"x":[true,false,null,{"k":"v","j":[]}],"o":{}}`, false},
		{"number changed", `{"url":"https://a.example/","name":"a","n":101,"f":0.5,"x":[true,false,null,{"k":"v","j":[]}],"o":{}}`, false},
		{"fraction changed", `{"url":"https://a.example/","name":"a","n":100,"f":0.51,"x":[true,false,null,{"k":"v","j":[]}],"o":{}}`, false},
		{"number became string", `{"url":"https://a.example/","name":"a","n":"100","f":0.5,"x":[true,false,null,{"k":"v","j":[]}],"o":{}}`, false},
		{"literal changed", `{"url":"https://a.example/","name":"a","n":100,"f":0.5,"x":[false,false,null,{"k":"v","j":[]}],"o":{}}`, false},
		{"null became empty object", `{"url":"https://a.example/","name":"a","n":100,"f":0.5,"x":[true,false,{},{"k":"v","j":[]}],"o":{}}`, false},
		{"empty object became array", `{"url":"https://a.example/","name":"a","n":100,"f":0.5,"x":[true,false,null,{"k":"v","j":[]}],"o":[]}`, false},
		{"array order", `{"url":"https://a.example/","name":"a","n":100,"f":0.5,"x":[false,true,null,{"k":"v","j":[]}],"o":{}}`, false},
		{"element moved into nested array", `{"url":"https://a.example/","name":"a","n":100,"f":0.5,"x":[true,false,{"k":"v","j":[null]}],"o":{}}`, false},
		{"nested name changed", `{"url":"https://a.example/","name":"a","n":100,"f":0.5,"x":[true,false,null,{"K":"v","j":[]}],"o":{}}`, false},
		{"member added", `{"url":"https://a.example/","name":"a","n":100,"f":0.5,"x":[true,false,null,{"k":"v","j":[]}],"o":{},"m":null}`, false},
		{"member removed", `{"url":"https://a.example/","name":"a","n":100,"f":0.5,"x":[true,false,null,{"k":"v","j":[]}]}`, false},
		{"values swapped between members", `{"url":"https://a.example/","name":"a","n":0.5,"f":100,"x":[true,false,null,{"k":"v","j":[]}],"o":{}}`, false},
		{"member moved into nested object", `{"url":"https://a.example/","n":100,"f":0.5,"x":[true,false,null,{"k":"v","j":[],"name":"a"}],"o":{}}`, false},
	} {
		got, ok := contentHash(t, h, []byte(tc.card))
		if !ok {
			t.Errorf("%s: no hash", tc.name)
			continue
		}
		if (got == want) != tc.same {
			t.Errorf("%s: same hash %v, want %v", tc.name, got == want, tc.same)
		}
	}
}

// TestContentHashNumbers: numbers hash alike just when RFC 8785 writes them
// alike, including those whose text is canonical already and so is hashed
// as written.
func TestContentHashNumbers(t *testing.T) {
	nums := []string{
		"0", "-0", "0.0", "-0.0", "1", "1.0", "10", "1e1", "100", "1e2", "1E2", "1e+2", "10.0e1",
		"0.5", "5e-1", "0.50", "-0.5", "0.1", "0.10", "1.5", "15e-1", "123456789012345", "123456789012345.0",
		"1234567890123456", "1.234567890123456e15", "12345678901234567", "0.000001", "1e-6", "0.0000001",
		"1e-7", "1e21", "1000000000000000000000", "1e20", "100000000000000000000", "0.3", "0.30000000000000004",
		"2.5e-5", "0.000025", "9007199254740993", "9007199254740992", "123.456", "123.4560", "1.7976931348623157e308",
	}
	h := New(testHash)
	var c canon.Canonicalizer
	for _, x := range nums {
		for _, y := range nums {
			cx, err := c.Append(nil, []byte(`{"n":`+x+`}`), canon.Options{})
			if err != nil {
				t.Fatal(err)
			}
			cy, _ := c.Append(nil, []byte(`{"n":`+y+`}`), canon.Options{})
			hx, _ := contentHash(t, h, []byte(`{"n":`+x+`}`))
			hy, _ := contentHash(t, h, []byte(`{"n":`+y+`}`))
			if (hx == hy) != bytes.Equal(cx, cy) {
				t.Errorf("%s and %s: same hash %v, canonical forms %s and %s", x, y, hx == hy, cx, cy)
			}
		}
	}
}

// TestContentHashMatchesCanonicalForm is a differential test: over random
// cards and random rewritings of them, two cards hash alike just when
// their canonical forms are equal.
func TestContentHashMatchesCanonicalForm(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 1))
	h := New(testHash)
	var c canon.Canonicalizer
	n := 3000
	if testing.Short() {
		n = 300
	}
	var prev []byte
	same, differ := 0, 0
	for i := range n {
		card := randomObject(r, 0)
		// A rewriting of the same card, and sometimes a different card.
		other := rewrite(r, card, true)
		if i%3 == 0 {
			other = randomObject(r, 0)
		}
		for _, pair := range [][2][]byte{{card, other}, {card, prev}} {
			if pair[1] == nil {
				continue
			}
			ca, errA := c.Append(nil, pair[0], canon.Options{})
			cb, errB := c.Append(nil, pair[1], canon.Options{})
			if errA != nil || errB != nil {
				t.Fatalf("%s / %s: %v %v", pair[0], pair[1], errA, errB)
			}
			ha, okA := contentHash(t, h, pair[0])
			hb, okB := contentHash(t, h, pair[1])
			if !okA || !okB {
				t.Fatalf("no hash: %s / %s", pair[0], pair[1])
			}
			if (ha == hb) != bytes.Equal(ca, cb) {
				t.Fatalf("same hash %v, canonical forms equal %v:\n%s\n%s", ha == hb, bytes.Equal(ca, cb), pair[0], pair[1])
			}
			if ha == hb {
				same++
			} else {
				differ++
			}
		}
		prev = card
	}
	// Both outcomes, often: the pairs test something.
	if same < n/4 || differ < n/4 {
		t.Errorf("%d pairs alike, %d different, of %d", same, differ, 2*n)
	}
	t.Logf("%d pairs alike, %d different", same, differ)
}

// randomObject writes a random JSON object of small variety, so that
// random pairs often share members.
func randomObject(r *rand.Rand, depth int) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	n := r.IntN(4)
	if depth == 0 {
		n++
	}
	names := []string{"a", "b", "url", "é", "\U0001F600", "\ue000", "x/y", "property", "propertyA", "propertyB", "propertyé", "property\U0001F600", "property\ue000"}
	r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(quote(names[i]))
		b.WriteByte(':')
		b.Write(randomValue(r, depth+1))
	}
	b.WriteByte('}')
	return b.Bytes()
}

func randomValue(r *rand.Rand, depth int) []byte {
	k := r.IntN(8)
	if depth > 3 && k >= 6 {
		k = r.IntN(6)
	}
	switch k {
	case 0:
		return []byte([]string{`"a"`, `"b"`, `""`, `"é"`, `"a\"b"`, `"\n"`, `"1"`}[r.IntN(7)])
	case 1:
		return []byte([]string{"1", "2", "0", "-1", "0.5", "1.5", "100", "-0", "1e-7", "1e21"}[r.IntN(10)])
	case 2:
		return []byte("true")
	case 3:
		return []byte("false")
	case 4:
		return []byte("null")
	case 5:
		return []byte(`"` + []string{"a", "b", "url"}[r.IntN(3)] + `"`)
	case 6:
		var b bytes.Buffer
		b.WriteByte('[')
		for i := range r.IntN(4) {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(randomValue(r, depth+1))
		}
		b.WriteByte(']')
		return b.Bytes()
	}
	return randomObject(r, depth)
}

func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		switch c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(c)
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// rewrite writes card again in a form with the same canonical form: white
// space added, members shuffled, characters escaped, numbers rewritten;
// and when mayChange is set, one time in four, with one value replaced,
// which may or may not change the canonical form.
func rewrite(r *rand.Rand, card []byte, mayChange bool) []byte {
	var sc tape.Scanner
	sc.MaxDepth = fastvalidate.DefaultMaxDepth
	if !sc.Scan(card) {
		panic("rewrite: not JSON: " + string(card))
	}
	vw := sc.View()
	var out bytes.Buffer
	var write func(n uint32)
	ws := func() {
		if r.IntN(3) == 0 {
			out.WriteString([]string{" ", "\n", "\t", "\r\n  "}[r.IntN(4)])
		}
	}
	change := mayChange && r.IntN(4) == 0
	// Any value but the root; a member name is never replaced.
	target := uint32(1 + r.IntN(vw.Len()))
	write = func(n uint32) {
		ws()
		if change && n == target {
			out.WriteString([]string{`"changed"`, "7", "null", "[]", "{}", "0.5"}[r.IntN(6)])
			ws()
			return
		}
		switch vw.Kind(n) {
		case tape.KindString:
			writeString(r, &out, vw.AppendStr(nil, n))
		case tape.KindNumber:
			out.WriteString(renumber(r, string(vw.Raw(n))))
		case tape.KindTrue:
			out.WriteString("true")
		case tape.KindFalse:
			out.WriteString("false")
		case tape.KindNull:
			out.WriteString("null")
		case tape.KindArray:
			out.WriteByte('[')
			for e := n + 1; e < vw.End(n); e = vw.Next(e) {
				if e > n+1 {
					out.WriteByte(',')
				}
				write(e)
			}
			ws()
			out.WriteByte(']')
		case tape.KindObject:
			var keys []uint32
			for k := n + 1; k < vw.End(n); k = vw.NextMember(k) {
				keys = append(keys, k)
			}
			r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
			out.WriteByte('{')
			for i, k := range keys {
				if i > 0 {
					out.WriteByte(',')
				}
				ws()
				writeString(r, &out, vw.Name(k))
				ws()
				out.WriteByte(':')
				write(k + 1)
			}
			ws()
			out.WriteByte('}')
		}
		ws()
	}
	write(0)
	return out.Bytes()
}

// writeString writes s as a JSON string, escaping some characters that
// need no escape.
func writeString(r *rand.Rand, out *bytes.Buffer, s []byte) {
	out.WriteByte('"')
	for _, c := range string(s) {
		switch {
		case c == '"' || c == '\\':
			out.WriteByte('\\')
			out.WriteRune(c)
		case c < 0x20:
			fmt.Fprintf(out, `\u%04x`, c)
		case c == '/' && r.IntN(2) == 0:
			out.WriteString(`\/`)
		case c > 0xFFFF && r.IntN(2) == 0:
			c -= 0x10000
			fmt.Fprintf(out, `\u%04X\u%04x`, 0xD800+c>>10, 0xDC00+c&0x3FF)
		case c <= 0xFFFF && r.IntN(4) == 0:
			fmt.Fprintf(out, `\u%04x`, c)
		default:
			out.WriteRune(c)
		}
	}
	out.WriteByte('"')
}

// renumber writes a number in another form of the same value.
func renumber(r *rand.Rand, s string) string {
	integer := !strings.ContainsAny(s, ".eE")
	switch r.IntN(4) {
	case 0:
		if integer {
			return s + ".0"
		}
	case 1:
		if !strings.ContainsAny(s, "eE") {
			return s + "e0"
		}
	case 2:
		if integer && strings.TrimPrefix(s, "-")[0] != '0' {
			return s + "0E-1"
		}
	}
	return s
}

// TestContentHashRealCorpus: each real card hashes as its canonical form
// does (the canonical form read back hashes the same), and a rewriting of
// it, members shuffled and characters escaped, hashes the same again.
func TestContentHashRealCorpus(t *testing.T) {
	files, _ := filepath.Glob("../../../shared/corpus/real/*.json")
	if len(files) == 0 {
		t.Skip("no real cards at ../../../shared/corpus/real/")
	}
	h := New(testHash)
	r := rand.New(rand.NewPCG(24, 2))
	var c canon.Canonicalizer
	hashed := 0
	for _, f := range files {
		card, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cf, err := c.Append(nil, card, canon.Options{})
		sum, ok := contentHash(t, h, card)
		if (err == nil) != ok {
			t.Errorf("%s: canonical form error %v, hashed %v", f, err, ok)
			continue
		}
		if !ok {
			continue
		}
		hashed++
		if got, _ := contentHash(t, h, cf); got != sum {
			t.Errorf("%s: its canonical form hashes differently", f)
		}
		for range 3 {
			if got, _ := contentHash(t, h, rewrite(r, card, false)); got != sum {
				t.Errorf("%s: a rewriting hashes differently", f)
			}
		}
	}
	if hashed == 0 {
		t.Error("no real card hashed")
	}
}

// TestContentHashFromValidator: the hash taken from a fastvalidate.Validator's tape is
// the one the hasher's own scan gives, and a tape of other bytes, of a
// string holding the card, or of a failed scan is not used.
func TestContentHashFromValidator(t *testing.T) {
	g, err := corpus.New(corpus.Options{Seed: 24, Dialects: corpus.Dialects(), DefectRate: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	v := fastvalidate.MustNew("auto")
	h := New(testHash)
	for range 500 {
		card := g.Next().JSON
		want, wantOK := contentHash(t, h, card)
		v.Validate(card)
		if ok := h.Load(v, card); ok != wantOK || h.Sum() != want {
			t.Fatalf("from the tape %v %x, scanned %v %x: %s", ok, h.Sum(), wantOK, want, card)
		}
	}
	card := []byte(`{"a":1}`)
	v.Validate([]byte(`{"a":2}`))
	want, _ := contentHash(t, h, card)
	if h.Load(v, card); h.Sum() != want {
		t.Error("the tape of other bytes was used")
	}
	embedded := []byte(`"{\"a\":1}"`)
	v.Validate(embedded)
	if h.Load(v, embedded) {
		t.Error("a string holding a card was hashed")
	}
	broken := []byte(`{"a":1,}`)
	v.Validate(broken)
	if h.Load(v, broken) {
		t.Error("a card that is no JSON was hashed")
	}
	// Whether a card has a hash does not depend on the fastvalidate.Validator's
	// nesting limit: it is fastvalidate.DefaultMaxDepth's.
	deep := []byte(`{"a":[[[1]]]}`)
	shallow := fastvalidate.MustNew("auto", fastvalidate.WithMaxDepth(2))
	shallow.Validate(deep)
	if want, _ := contentHash(t, h, deep); !h.Load(shallow, deep) || h.Sum() != want {
		t.Error("a card deeper than the fastvalidate.Validator's limit was not hashed")
	}
	deeper := []byte(`{"a":` + strings.Repeat("[", fastvalidate.DefaultMaxDepth) + strings.Repeat("]", fastvalidate.DefaultMaxDepth) + `}`)
	lenient := fastvalidate.MustNew("auto", fastvalidate.WithMaxDepth(2*fastvalidate.DefaultMaxDepth))
	lenient.Validate(deeper)
	if h.Load(lenient, deeper) {
		t.Error("a card deeper than fastvalidate.DefaultMaxDepth was hashed")
	}
}

// TestContentHashBind: Bind reads a card as Load does without hashing
// it, Root reads its values, and Hash then gives Load's hash; a card that
// is no object binds no more than it loads.
func TestContentHashBind(t *testing.T) {
	g, err := corpus.New(corpus.Options{Seed: 25, Dialects: corpus.Dialects(), DefectRate: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	v := fastvalidate.MustNew("auto")
	h, loaded := New(testHash), New(testHash)
	for range 300 {
		card := g.Next().JSON
		v.Validate(card)
		ok := loaded.Load(v, card)
		if h.Bind(v, card) != ok {
			t.Fatalf("Bind and Load disagree on %s", card)
		}
		if !ok {
			if h.Root().Exists() {
				t.Fatalf("a card that is no object has a root: %s", card)
			}
			continue
		}
		for _, name := range []string{"name", "url", "agent_id", "version"} {
			if got, want := h.Root().Member(name).Str(), loaded.Root().Member(name).Str(); string(got) != string(want) {
				t.Fatalf("member %s: %q bound, %q loaded", name, got, want)
			}
		}
		if h.Hash(); h.Sum() != loaded.Sum() {
			t.Fatalf("Bind then Hash %x, Load %x: %s", h.Sum(), loaded.Sum(), card)
		}
	}
}

// TestContentHashMembers: Members lists an object's members in canonical
// order, with each value's hash, its text as written for a container and
// its canonical form for a scalar.
func TestContentHashMembers(t *testing.T) {
	card := []byte(`{ "z" : [ 1 , {"q": [] } ] , "b\u00e9":"x\/y", "a":1.50, "s": { "k2" : { } , "k1" : true }, "e":{}, "\u0063": "\u0041" }`)
	h := New(testHash)
	if !h.Load(nil, card) {
		t.Fatal("no hash")
	}
	var got []string
	h.Members("", func(name []byte, value Value, sum Hash128) {
		got = append(got, string(name)+"="+string(value.Text()))
	})
	want := `a=1.5 bé="x/y" c="A" e={} s={ "k2" : { } , "k1" : true } z=[ 1 , {"q": [] } ]`
	if g := strings.Join(got, " "); g != want {
		t.Errorf("members\n%s, want\n%s", g, want)
	}
	got = got[:0]
	h.Members("s", func(name []byte, value Value, sum Hash128) {
		got = append(got, string(name)+"="+string(value.Text()))
	})
	if g := strings.Join(got, " "); g != "k1=true k2={ }" {
		t.Errorf("members of s: %s", g)
	}
	// A member's hash is equal just when its value's canonical form is.
	memberSum := func(card, name string) Hash128 {
		t.Helper()
		if !h.Load(nil, []byte(card)) {
			t.Fatalf("%s: no hash", card)
		}
		var got Hash128
		h.Members("", func(n []byte, _ Value, sum Hash128) {
			if string(n) == name {
				got = sum
			}
		})
		return got
	}
	s := memberSum(string(card), "s")
	if memberSum(`{"s":{"k1":true,"k2":{}},"other":1}`, "s") != s {
		t.Error("the same value in another card: another member hash")
	}
	if memberSum(`{"s":{"k1":true,"k2":[]}}`, "s") == s {
		t.Error("another value: the same member hash")
	}
}

// TestContentHashDoesNotAllocate: hashing a card from a fastvalidate.Validator's tape
// and listing its members allocates nothing once the buffers have grown.
func TestContentHashDoesNotAllocate(t *testing.T) {
	g, err := corpus.New(corpus.Options{Seed: 3, Dialects: corpus.Dialects()})
	if err != nil {
		t.Fatal(err)
	}
	var cards [][]byte
	for range 50 {
		cards = append(cards, g.Next().JSON)
	}
	v := fastvalidate.MustNew("auto")
	h := New(testHash)
	var n int
	visit := func(name []byte, value Value, sum Hash128) {
		n += len(value.Text()) + len(value.Member("url").Str()) + len(value.First().Next().Str())
	}
	run := func() {
		for _, c := range cards {
			v.Validate(c)
			if h.Load(v, c) {
				h.Members("", visit)
				h.Members("securitySchemes", visit)
			}
		}
	}
	run()
	if a := testing.AllocsPerRun(20, run); a != 0 {
		t.Errorf("%v allocations for %d cards", a, len(cards))
	}
}

// BenchmarkContentHash hashes generated AgentCards, from the tape of the
// fastvalidate.Validator that judged them or from a scan of their own,
// and lists their members.
func BenchmarkContentHash(b *testing.B) {
	g, err := corpus.New(corpus.Options{Seed: 1, Dialects: []string{"agentcard"}, DefectRate: 0.05})
	if err != nil {
		b.Fatal(err)
	}
	type judged struct {
		card []byte
		v    *fastvalidate.Validator
	}
	var cards []judged
	var size int64
	for range 200 {
		c := g.Next().JSON
		v := fastvalidate.MustNew("auto")
		v.Validate(c)
		cards = append(cards, judged{c, v})
		size += int64(len(c))
	}
	visit := func(name []byte, value Value, sum Hash128) {}
	// "tape" hashes from the tape of the Validator that judged the card,
	// as diff and --cross-card do; "scan" scans the card again, which is
	// what that saves.
	for _, reuse := range []bool{true, false} {
		name := map[bool]string{true: "tape", false: "scan"}[reuse]
		b.Run(name, func(b *testing.B) {
			h := New(testHash)
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				for _, c := range cards {
					v := c.v
					if !reuse {
						v = nil
					}
					if h.Load(v, c.card) {
						h.Members("", visit)
					}
				}
			}
		})
	}
}

// TestContentHashValues: a loaded card's values read from the tape.
func TestContentHashValues(t *testing.T) {
	card := []byte(`{"a":{"u\u0072l":"x\/y","n":[1,"two",{"k":null},[]]},"b":"c"}`)
	h := New(testHash)
	if !h.Load(nil, card) {
		t.Fatal("no hash")
	}
	var a Value
	h.Members("", func(name []byte, v Value, _ Hash128) {
		if string(name) == "a" {
			a = v
		}
	})
	if !a.IsObject() || a.IsArray() || a.IsString() {
		t.Fatal("a is not an object")
	}
	if got := string(a.Member("url").Str()); got != "x/y" {
		t.Errorf("a.url: %q", got)
	}
	if a.Member("b").Exists() || a.Member("url").Member("x").Exists() || a.Member("url").First().Exists() {
		t.Error("an absent member exists")
	}
	var texts []string
	for e := a.Member("n").First(); e.Exists(); e = e.Next() {
		texts = append(texts, string(e.Text()))
	}
	if got := strings.Join(texts, " "); got != `1 "two" {"k":null} []` {
		t.Errorf("elements: %s", got)
	}
	if a.Member("n").First().Str() != nil {
		t.Error("a number has a string")
	}
	if a.Next().Exists() || (Value{}).Next().Exists() || (Value{}).Member("a").Exists() {
		t.Error("a value with no next one has one")
	}
}

// TestContentHashMembersOrder: Members lists names in the canonical form's
// order, by UTF-16 code units, for few members and for many, with names
// sharing long prefixes, escaped, and beyond ASCII.
func TestContentHashMembersOrder(t *testing.T) {
	names := []string{"propertyB", "property", "propertyA", "\ue000", "\U0001F600", "é", "a", "propertyé", "property\U0001F600", "property\ue000", "zz", "b", "c", "d"}
	h := New(testHash)
	for _, n := range []int{3, 6, len(names)} {
		var card bytes.Buffer
		card.WriteByte('{')
		for i, name := range names[:n] {
			if i > 0 {
				card.WriteByte(',')
			}
			if i%2 == 0 {
				writeString(rand.New(rand.NewPCG(uint64(i), 0)), &card, []byte(name))
			} else {
				card.WriteString(quote(name))
			}
			card.WriteString(":1")
		}
		card.WriteByte('}')
		if !h.Load(nil, card.Bytes()) {
			t.Fatalf("%s: no hash", card.Bytes())
		}
		var got []string
		h.Members("", func(name []byte, _ Value, _ Hash128) { got = append(got, string(name)) })
		want := slices.Clone(names[:n])
		slices.SortFunc(want, func(x, y string) int { return jcs.CompareUTF16([]byte(x), []byte(y)) })
		if !slices.Equal(got, want) {
			t.Errorf("%d members: %q, want %q", n, got, want)
		}
		// Each hands out the same names, decoded, as written.
		got = got[:0]
		var values []string
		h.Each(func(name []byte, v Value) {
			got = append(got, string(name))
			values = append(values, string(v.Text()))
		})
		if !slices.Equal(got, names[:n]) {
			t.Errorf("%d members as written: %q, want %q", n, got, names[:n])
		}
		if len(values) != n || slices.ContainsFunc(values, func(v string) bool { return v != "1" }) {
			t.Errorf("%d members as written: values %q", n, values)
		}
	}
}

// contentHashGolden holds the content hashes of generated cards, of every
// dialect, with defects, and of the same cards rewritten (white space,
// member order, escapes, number forms): the hash is part of cardscan's
// output (dump.duplicate-card's key), so a faster way to compute it must
// give the same values. -update rewrites it.
const contentHashGolden = "testdata/contenthash.golden"

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ from the current output")

func TestContentHashGolden(t *testing.T) {
	g, err := corpus.New(corpus.Options{Seed: 2024, Dialects: corpus.Dialects(), DefectRate: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(24, 2))
	v := fastvalidate.MustNew("auto")
	h := New(testHash)
	var got bytes.Buffer
	for i := range 400 {
		card := g.Next().JSON
		cards := [][]byte{card}
		if h.Load(nil, card) {
			cards = append(cards, rewrite(r, card, false)) // which reads a whole tape
		}
		for j, c := range cards {
			v.Validate(c)
			if !h.Load(v, c) {
				fmt.Fprintf(&got, "%d.%d none\n", i, j)
				continue
			}
			b := h.Sum().Bytes()
			fmt.Fprintf(&got, "%d.%d %x\n", i, j, b)
		}
	}
	if *update {
		if err := os.WriteFile(contentHashGolden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(contentHashGolden)
	if err != nil {
		t.Fatal(err)
	}
	gl, wl := strings.Split(got.String(), "\n"), strings.Split(string(want), "\n")
	for i := range min(len(gl), len(wl)) {
		if gl[i] != wl[i] {
			t.Fatalf("line %d: got %q, want %q", i+1, gl[i], wl[i])
		}
	}
	if len(gl) != len(wl) {
		t.Fatalf("%d lines, want %d", len(gl), len(wl))
	}
}

// TestLoadReusesValidatorTape: a card the Validator has just judged is
// hashed from the Validator's tape, not scanned a second time, which
// would double the parsing in diff and --cross-card.
func TestLoadReusesValidatorTape(t *testing.T) {
	card := []byte(`{"name":"a","skills":[{"id":"x"}]}`)
	v := fastvalidate.MustNew("auto")
	v.Validate(card)
	h := New(testHash)
	if !h.Load(v, card) {
		t.Fatal("not loaded")
	}
	if n := h.sc.View().Len(); n != 0 {
		t.Errorf("the hasher scanned the card itself (%d nodes)", n)
	}
	if !h.Load(nil, card) || h.sc.View().Len() == 0 {
		t.Error("without a Validator the hasher did not scan the card")
	}
}

// TestEachAfterBind: Each reads the card Bind read, without Hash, as it
// reads it after Load (--cross-card takes a card's claims so, hashing it
// only when it needs the hash), and Hash then gives Load's sum.
func TestEachAfterBind(t *testing.T) {
	g, err := corpus.New(corpus.Options{Seed: 3, Dialects: corpus.Dialects(), DefectRate: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	v := fastvalidate.MustNew("auto")
	loaded, bound := New(testHash), New(testHash)
	each := func(h *Hasher) string {
		var b strings.Builder
		h.Each(func(name []byte, v Value) { fmt.Fprintf(&b, "%s=%s;", name, v.Text()) })
		return b.String()
	}
	members := 0
	for range 500 {
		card := g.Next().JSON
		v.Validate(card)
		okL, okB := loaded.Load(v, card), bound.Bind(v, card)
		if okL != okB {
			t.Fatalf("%s: Load %v, Bind %v", card, okL, okB)
		}
		want, got := each(loaded), each(bound)
		if got != want {
			t.Errorf("%s: Each after Bind %q, after Load %q", card, got, want)
		}
		members += strings.Count(got, ";")
		if bound.Hash(); bound.Sum() != loaded.Sum() {
			t.Errorf("%s: Bind and Hash %x, Load %x", card, bound.Sum(), loaded.Sum())
		}
	}
	if members < 500 {
		t.Fatalf("%d members in 500 cards", members)
	}
}
