package mcpserver

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/report"
)

// jsonKeys lists the member names of t's JSON encoding, embedded structs
// flattened.
func jsonKeys(t reflect.Type) []string {
	var keys []string
	for f := range t.Fields() {
		if f.Anonymous {
			keys = append(keys, jsonKeys(f.Type)...)
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		keys = append(keys, name)
	}
	sort.Strings(keys)
	return keys
}

func objectKeys(t *testing.T, b []byte) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TestOutputTypesMatchEncoder holds the output schema's types to the
// record report.Encoder writes: when the record gains a member, this fails
// until verdictOut (and with it the schema clients see) names it too.
func TestOutputTypesMatchEncoder(t *testing.T) {
	v := fastvalidate.MustNew("agentcard")
	r := v.Validate([]byte(`{"agent_id":"x","name":"","version":"1","capabilities":[],"endpoint":{"protocol":"http","url":"http://localhost/"}}`))
	if len(r.Findings()) == 0 {
		t.Fatal("the card has no findings to compare")
	}
	card := []byte(`{"agent_id":"x","name":"","version":"1","capabilities":[],"endpoint":{"protocol":"http","url":"http://localhost/"}}`)
	vd := report.FromResult("<card>", 1, 1, 0, card, r)
	var enc report.Encoder
	rec := bytes.TrimSpace(enc.AppendJSONL(nil, &vd))
	if got, want := objectKeys(t, rec), jsonKeys(reflect.TypeFor[verdictOut]()); !reflect.DeepEqual(got, want) {
		t.Errorf("record members %v, verdictOut names %v", got, want)
	}
	var m struct {
		Errors   []json.RawMessage `json:"errors"`
		Warnings []json.RawMessage `json:"warnings"`
	}
	if err := json.Unmarshal(rec, &m); err != nil {
		t.Fatal(err)
	}
	for _, f := range append(m.Errors, m.Warnings...) {
		if got, want := objectKeys(t, f), jsonKeys(reflect.TypeFor[findingOut]()); !reflect.DeepEqual(got, want) {
			t.Errorf("finding members %v, findingOut names %v", got, want)
		}
	}
	// Decoding the record into the schema's type loses nothing.
	dec := json.NewDecoder(bytes.NewReader(rec))
	dec.DisallowUnknownFields()
	var out verdictOut
	if err := dec.Decode(&out); err != nil {
		t.Errorf("record into verdictOut: %v", err)
	}
}

func TestSchemasDerive(t *testing.T) {
	// mustSchema panics on a type that has no schema; derive each here
	// rather than when a server starts.
	for name, f := range map[string]func(){
		"validateArgs": func() { inSchema[validateArgs]() },
		"fetchArgs":    func() { inSchema[fetchArgs]() },
		"explainArgs":  func() { inSchema[explainArgs]() },
		"noArgs":       func() { inSchema[noArgs]() },
		"verdictOut":   func() { outSchema[verdictOut]() },
		"fetchOut":     func() { outSchema[fetchOut]() },
		"rulesOut":     func() { outSchema[rulesOut]() },
		"ruleOut":      func() { outSchema[ruleOut]() },
	} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: %v", name, r)
				}
			}()
			f()
		}()
	}
	if s := inSchema[validateArgs](); s.Properties["card"].Type != "" || len(s.Properties["profile"].Enum) != len(fastvalidate.Profiles()) {
		t.Errorf("validate_card's schema: card %+v, profile %+v", s.Properties["card"], s.Properties["profile"])
	}
}

func TestListenAddr(t *testing.T) {
	for _, tc := range []struct {
		addr        string
		allowRemote bool
		want        string // "" for an error
	}{
		{":8090", false, "127.0.0.1:8090"},
		{"127.0.0.1:8090", false, "127.0.0.1:8090"},
		{"[::1]:8090", false, "[::1]:8090"},
		{"localhost:8090", false, "localhost:8090"},
		{"0.0.0.0:8090", false, ""},
		{"[::]:8090", false, ""},
		{"192.168.1.5:8090", false, ""},
		{"example.com:8090", false, ""},
		{"0.0.0.0:8090", true, "0.0.0.0:8090"},
		{"8090", true, ""},
	} {
		got, err := listenAddr(tc.addr, tc.allowRemote)
		if (err != nil) != (tc.want == "") || got != tc.want {
			t.Errorf("listenAddr(%q, %v) = %q, %v; want %q", tc.addr, tc.allowRemote, got, err, tc.want)
		}
	}
}

func TestHelpNamesEveryFlag(t *testing.T) {
	for _, f := range newFlagSet(&options{}).Missing(usage()) {
		t.Errorf("mcp --help does not document %v", f)
	}
}
