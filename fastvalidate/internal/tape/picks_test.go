package tape

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// testKeys picks the names "name" and "description", and every name
// that ends in l: a filter shaped like fastvalidate's.
func testKeys() *KeyFilter {
	var f KeyFilter
	f.AddName("name")
	f.AddName("description")
	f.AddLast("l")
	return &f
}

// wanted says whether testKeys must pick the member name decoded as name.
func wanted(name []byte) bool {
	return string(name) == "name" || string(name) == "description" || strings.HasSuffix(string(name), "l")
}

// checkPicks holds sc's picks of its last scan to the tape: each is a
// member name of the object it names, in tape order, every name wanted
// is among them, and every name with escapes.
func checkPicks(t *testing.T, sc *Scanner, doc []byte) {
	t.Helper()
	v := sc.View()
	picked := sc.Picked()
	for i := 1; i < len(picked); i++ {
		if uint32(picked[i-1]) >= uint32(picked[i]) {
			t.Fatalf("%q: picks out of tape order or twice: %x", doc, picked)
		}
	}
	got := map[uint32]bool{}
	for _, p := range picked {
		obj, k := uint32(p>>32), uint32(p)
		if int(k) >= v.Len() || v.Parent(k) != obj || v.Kind(obj) != KindObject || !v.memberName(k) {
			t.Fatalf("%q: pick %x is no member name of object %d", doc, p, obj)
		}
		got[k] = true
	}
	for o := uint32(0); int(o) < v.Len(); o++ {
		if v.Kind(o) != KindObject {
			continue
		}
		for k := v.First(o); k < v.End(o) && int(k+1) < v.Len(); k = v.NextMember(k) {
			if (wanted(v.Name(k)) || v.Escaped(k)) && !got[k] {
				t.Fatalf("%q: member name %q (node %d) not picked; picks %x", doc, v.Name(k), k, picked)
			}
		}
	}
}

// The picks stay right however the tape grows: generated cards of every
// dialect, by a scanner reused and by fresh ones, and documents of every
// size around the tape's growth points.
func TestPickKeys_EveryWantedName(t *testing.T) {
	reused := Scanner{MaxDepth: 512}
	reused.PickKeys(testKeys())
	var docs [][]byte
	docs = append(docs, generatedCards(t, 300, "a2a/0.3", "a2a/1.0", "ma2d", "agentcard")...)
	for n := range 200 {
		var b strings.Builder
		b.WriteString(`{"name":"x","list":[`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"u%durl":%d,"nam\u0065":"y","type":"z"}`, i, i)
		}
		b.WriteString(`],"description":"d","docUrl":"e"}`)
		docs = append(docs, []byte(b.String()))
	}
	for _, doc := range docs {
		if !reused.Scan(doc) {
			t.Fatalf("%q does not scan", doc)
		}
		checkPicks(t, &reused, doc)
		fresh := Scanner{MaxDepth: 512}
		fresh.PickKeys(testKeys())
		fresh.Scan(doc)
		if !slices.Equal(fresh.Picked(), reused.Picked()) {
			t.Fatalf("%q: a fresh scanner picks %x, a reused one %x", doc, fresh.Picked(), reused.Picked())
		}
	}
}

// The filter does what it is for: of the names that are not wanted, few
// are picked, and "type", the commonest name of a card's schemas, not at
// all; a scanner without a filter picks nothing.
func TestPickKeys_FewUnwanted(t *testing.T) {
	sc := Scanner{MaxDepth: 512}
	sc.PickKeys(testKeys())
	doc := []byte(`{"name":"a","type":"b","version":"c","id":"d","items":{"type":"e"},"url":"f","description":"g"}`)
	if !sc.Scan(doc) {
		t.Fatal("does not scan")
	}
	var names []string
	for _, p := range sc.Picked() {
		names = append(names, string(sc.View().Name(uint32(p))))
	}
	if want := []string{"name", "url", "description"}; !slices.Equal(names, want) {
		t.Errorf("picked %q, want %q", names, want)
	}
	sc.PickKeys(nil)
	sc.Scan(doc)
	if len(sc.Picked()) != 0 {
		t.Errorf("a scanner without a filter picked %x", sc.Picked())
	}
}

// A Scanner that picks nothing keeps no list as long as its tape: the
// digest's and the canonicaliser's scanners pay nothing for the content
// rules' filter.
func TestPickKeys_NoListWithoutFilter(t *testing.T) {
	doc := []byte(`[` + strings.Repeat(`{"name":"a","url":"b"},`, 500) + `{}]`)
	var sc Scanner
	sc.MaxDepth = 8
	if !sc.Scan(doc) {
		t.Fatal("does not scan")
	}
	if cap(sc.picks) != 0 {
		t.Errorf("a Scanner without a filter keeps room for %d names", cap(sc.picks))
	}
	sc.PickKeys(testKeys())
	if !sc.Scan(doc) || len(sc.Picked()) != 1000 {
		t.Errorf("with a filter, %d names picked of 1,000", len(sc.Picked()))
	}
}

// A failed scan lists only names on the tape it leaves.
func TestPickKeys_FailedScan(t *testing.T) {
	sc := Scanner{MaxDepth: 4}
	sc.PickKeys(testKeys())
	for _, doc := range []string{
		`{"name":"a","name":"b"}`,
		`{"name":{"name":{"name":{"name":{"name":1}}}}}`,
		`{"name":"a","url":`,
		`{"name":"a","description":"\x01"}`,
		`{"nam\u0065":"a","x":tru}`,
	} {
		if sc.Scan([]byte(doc)) {
			t.Fatalf("%q scans", doc)
		}
		for _, p := range sc.Picked() {
			if int(uint32(p)) >= sc.View().Len() {
				t.Errorf("%q: pick %x lies past the tape's %d nodes", doc, p, sc.View().Len())
			}
		}
		if len(sc.Picked()) == 0 {
			t.Errorf("%q: the name read before the error is not listed", doc)
		}
	}
}

// FuzzPickKeys holds the picks to the tape on any document that scans.
func FuzzPickKeys(f *testing.F) {
	for _, doc := range generatedCards(f, 20, "a2a/1.0", "agentcard") {
		f.Add(doc)
	}
	f.Add([]byte(`{"nam\u0065":1,"a":{"url":[{"description":"x"}]},"Xurl":2}`))
	sc := Scanner{MaxDepth: 64}
	sc.PickKeys(testKeys())
	f.Fuzz(func(t *testing.T, doc []byte) {
		if sc.Scan(doc) {
			checkPicks(t, &sc, doc)
		}
	})
}

// A filter of names alone, or of last bytes alone, picks what it was
// given, and a filter set after another replaces it whole: PickKeys
// fills one table from both parts.
func TestPickKeys_EachPartAlone(t *testing.T) {
	doc := []byte(`{"name":"a","url":"b","type":"c","label":"d"}`)
	var names, last KeyFilter
	names.AddName("type")
	last.AddLast("l")
	sc := Scanner{MaxDepth: 8}
	for _, c := range []struct {
		f    *KeyFilter
		want []string
	}{{&names, []string{"type"}}, {&last, []string{"url", "label"}}, {&names, []string{"type"}}} {
		sc.PickKeys(c.f)
		if !sc.Scan(doc) {
			t.Fatal("does not scan")
		}
		var got []string
		for _, p := range sc.Picked() {
			got = append(got, string(sc.View().Name(uint32(p))))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("picked %q, want %q", got, c.want)
		}
	}
}

// A name is held to the bits of the names given that end as it does: one
// whose last byte ends no name given, and was not given to AddLast, is
// never picked, whatever its hash's bits. With every name's bits in one
// set, "goal_id" and one name in twelve like it were.
func TestPickKeys_ByLastByte(t *testing.T) {
	var f KeyFilter
	for _, name := range []string{"name", "title", "displayName", "organization", "description", "summary",
		"examples", "tags", "endpoint", ""} {
		f.AddName(name)
	}
	f.AddLast("lLiIfF")
	sc := Scanner{MaxDepth: 8}
	sc.PickKeys(&f)
	const letters = "abcdeghjkmnopqrstuvwxyz_"
	for i := range 5000 {
		// Names ending in none of e, n, y, s, t, l, i or f.
		name := []byte{letters[i%len(letters)], letters[i/len(letters)%len(letters)], letters[i/7%len(letters)], "abdgkmoprux_"[i%12]}
		name = name[:2+i%3]
		name = append(name, "abdgkmoprux_"[i/3%12])
		doc := `{"` + string(name) + `":1,"` + "description" + `":"x","":2}`
		if !sc.Scan([]byte(doc)) {
			t.Fatalf("%s does not scan", doc)
		}
		var got []string
		for _, p := range sc.Picked() {
			got = append(got, string(sc.View().Name(uint32(p))))
		}
		if want := []string{"description", ""}; !slices.Equal(got, want) {
			t.Fatalf("%s: picked %q, want %q", doc, got, want)
		}
	}
}

// A scanner reused over cards with escaped member names, escaped values
// alone and neither lists every escaped name, and none of an earlier
// card's: Picked merges the names with escapes only after a Scan that
// decoded one.
func TestPickKeys_EscapedNamesAndValues(t *testing.T) {
	sc := Scanner{MaxDepth: 8}
	sc.PickKeys(testKeys())
	for _, doc := range []string{
		`{"nam\u0065":"a","x\"y":{"description":"b"}}`,
		`{"name":"a\nb","description":"c\/d","o":{"u\"rl":"e"}}`,
		`{"name":"a\nb","description":"c\/d","z":{"zz":"e\te"}}`,
		`{"a":{"b":1},"\u0064escription":"x","name":"\u00e9"}`,
		`{"name":"plain","list":["\"q\"","r"],"url":"s"}`,
		`{"url":"t"}`,
	} {
		if !sc.Scan([]byte(doc)) {
			t.Fatalf("%s does not scan", doc)
		}
		checkPicks(t, &sc, []byte(doc))
		v := sc.View()
		want := 0
		for n := uint32(0); int(n) < v.Len(); n++ {
			if v.Kind(n) == KindString && v.memberName(n) && (wanted(v.Name(n)) || v.Escaped(n)) {
				want++
			}
		}
		if got := len(sc.Picked()); got < want {
			t.Errorf("%s: %d picks, want at least the %d names", doc, got, want)
		}
	}
}
