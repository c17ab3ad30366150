package fastvalidate

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestWalker_Name reads every member name of each document with name and
// compares it with encoding/json's decoding of the name's raw text. The
// documents go through one walker in turn, and every name of a document is
// held until its last is read, so that text left from an earlier card, or
// overwritten by a later name, shows.
func TestWalker_Name(t *testing.T) {
	docs := []string{
		`{"a":1,"\u0061b":{"c\"d":[{"\u00e9":true,"e\u0301":null}],"plain":"x"},"\n":"\\u0061"}`,
		`{"x":{"y":{"\ud83d\ude00":{"\/":0}}}}`,
		`{"short":1}`,
		`{"b":{"\u0062\u0062":2,"bbb":3},"\t\"\\":[]}`,
		// The embedded-string form: the names are escaped twice.
		jsonString(`{"\u0073kills":[],"n\u0061me":"x","plain":{"\u0041":1}}`),
		`[{"\u0061":1}]`,
		`{"` + strings.Repeat(`\u0078`, 300) + `":1,"y":2}`,
	}
	w := &newTestValidator(t, "auto").w
	for _, doc := range docs {
		w.res.reset()
		if !w.readCard([]byte(doc)) && w.sc.tape[0].kind == kindObject {
			t.Fatalf("%s: does not scan", doc)
		}
		type held struct {
			got  []byte
			want string
		}
		var names []held
		for x := range uint32(len(w.sc.tape)) {
			if w.kind(x) != kindObject {
				continue
			}
			for k := x + 1; k < w.end(x); k = w.next(k + 1) {
				var want string
				nd := &w.sc.tape[k]
				if err := json.Unmarshal(w.b[nd.start-1:nd.end+1], &want); err != nil {
					panic(err)
				}
				names = append(names, held{w.name(k), want})
			}
		}
		if len(names) == 0 && w.sc.tape[0].kind == kindObject {
			t.Fatalf("%s: no names read", doc)
		}
		for _, n := range names {
			if string(n.got) != n.want {
				t.Errorf("%s: name %q, want %q", doc, n.got, n.want)
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
		{"cut inside an escaped name", `{"agent_id":"x","nam`, `{"\u0061gent_id":"x","\u006eam`},
		{"bad escape in a name", `{"agent_id":"x","n\q":1}`, `{"\u0061gent_id":"x","\u006e\q":1}`},
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
