package fastvalidate

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/fastvalidate/internal/tape"
)

// TestWalker_Str reads every string of each document with str, and every
// member name with name, and compares them with encoding/json's decoding
// of their raw text. The documents go through one walker in turn, and the
// names of a document are held until its last string is read, so that
// text left from an earlier card, or overwritten by a later string, shows.
func TestWalker_Str(t *testing.T) {
	docs := []string{
		`{"a":1,"\u0061b":{"c\"d":[{"\u00e9":true,"e\u0301":null}],"plain":"x"},"\n":"\\u0061"}`,
		`{"x":{"y":{"\ud83d\ude00":{"\/":"\ud83d\ude00\/"}}}}`,
		`{"short":1}`,
		"{\n  \"\\u0061\" : \"\\u0062\",\n  \"c\":\t\"\\u0064\",\"\\u0065\"\r\n:[ \"\\u0066\" ]\n}",
		`{"b":{"\u0062\u0062":2,"bbb":"\t"},"\t\"\\":["\u0062","b","\"\""]}`,
		// The embedded-string form: the strings are escaped twice.
		jsonString(`{"\u0073kills":["\u0061"],"n\u0061me":"x\ny","plain":{"\u0041":1}}`),
		`[{"\u0061":"\u0062"},"\u0063"]`,
		`{"` + strings.Repeat(`\u0078`, 300) + `":1,"y":"` + strings.Repeat(`\"`, 300) + `"}`,
	}
	w := &newTestValidator(t, "auto").w
	for _, doc := range docs {
		w.res.reset()
		if !w.readCard([]byte(doc)) && w.vw.Kind(0) == tape.KindObject {
			t.Fatalf("%s: does not scan", doc)
		}
		type held struct {
			got  []byte
			want string
		}
		isName := map[uint32]bool{}
		for x := range uint32(w.vw.Len()) {
			if w.kind(x) == tape.KindObject {
				for k := x + 1; k < w.end(x); k = w.next(k + 1) {
					isName[k] = true
				}
			}
		}
		var strs []held
		for x := range uint32(w.vw.Len()) {
			if w.kind(x) != tape.KindString {
				continue
			}
			var want string
			start, end := w.vw.Bounds(x)
			if err := json.Unmarshal(w.b[start-1:end+1], &want); err != nil {
				panic(err)
			}
			if !isName[x] {
				if got := w.str(x); string(got) != want {
					t.Errorf("%s: str %q, want %q", doc, got, want)
				}
				continue
			}
			strs = append(strs, held{w.name(x), want})
		}
		if len(strs) == 0 && w.kind(0) == tape.KindObject {
			t.Fatalf("%s: no names read", doc)
		}
		for _, s := range strs {
			if string(s.got) != s.want {
				t.Errorf("%s: %q, want %q", doc, s.got, s.want)
			}
		}
	}
}

// TestWalker_NameOnRejectedTape: auto names the dialect of a card the strict
// scan rejects from the top-level names it read before it stopped, escaped
// or not; a name the scan stopped inside is never read.
func TestWalker_NameOnRejectedTape(t *testing.T) {
	for _, tc := range []struct{ name, plain, escaped string }{
		{"duplicate", `{"supportedInterfaces":[],"name":"a","name":"b"}`, `{"\u0073upportedInterfaces":[],"name":"a","n\u0061me":"b"}`},
		{"ma2d, cut", `{"invocation":{},"name":"a",`, `{"\u0069nvocation":{},"name":"a",`},
		{"cut inside an escaped name", `{"agent_id":"x","endpoint":{},"nam`, `{"\u0061gent_id":"x","\u0065ndpoint":{},"\u006eam`},
		{"bad escape in a name", `{"agent_id":"x","endpoint":{},"n\q":1}`, `{"\u0061gent_id":"x","\u0065ndpoint":{},"\u006e\q":1}`},
	} {
		v := newTestValidator(t, "auto")
		plain := v.Validate([]byte(tc.plain))
		if plain.Valid() || plain.Profile == "" {
			t.Fatalf("%s: plain card: valid %v, profile %q; want invalid and a profile", tc.name, plain.Valid(), plain.Profile)
		}
		want := plain.Profile
		if got := v.Validate([]byte(tc.escaped)).Profile; got != want {
			t.Errorf("%s: profile %q with escaped names, %q without", tc.name, got, want)
		}
	}
}
