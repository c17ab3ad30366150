package canon

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/fastvalidate/internal/jcs/jcstest"
)

func TestAppendCanonical_RFC8785Numbers(t *testing.T) {
	for _, tc := range jcstest.RFC8785Numbers(t) {
		f := math.Float64frombits(tc.Bits)
		// A number as a card's text, written the way Go writes it and the
		// way RFC 8785 does, canonicalizes to RFC 8785's text.
		for _, text := range []string{strconv.FormatFloat(f, 'g', -1, 64), tc.Want} {
			got, err := Append(nil, []byte(`{"n":`+text+`}`), Options{})
			if err != nil {
				t.Errorf("%s: %v", text, err)
				continue
			}
			if want := `{"n":` + tc.Want + `}`; string(got) != want {
				t.Errorf("%s: got %s, want %s", text, got, want)
			}
		}
	}
}

func TestAppendCanonical(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		opts           Options
	}{
		{
			// RFC 8785 section 3.2.2.
			name: "rfc8785 primitives",
			in: `{
  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}`,
			want: `{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`,
		},
		{
			// RFC 8785 section 3.2.3: UTF-16 code unit order puts the
			// emoji (a surrogate pair) before U+FB33.
			name: "rfc8785 sorting",
			in: `{
  "\u20ac": "Euro Sign",
  "\r": "Carriage Return",
  "\ufb33": "Hebrew Letter Dalet With Dagesh",
  "1": "One",
  "\ud83d\ude00": "Emoji: Grinning Face",
  "\u0080": "Control",
  "\u00f6": "Latin Small Letter O With Diaeresis"
}`,
			want: "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u0080\":\"Control\",\"\u00f6\":\"Latin Small Letter O With Diaeresis\",\"\u20ac\":\"Euro Sign\",\"\U0001F600\":\"Emoji: Grinning Face\",\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"}",
		},
		{
			name: "numbers the task names",
			in:   `[100.0, -0.0, 1e21, -0, 1E+2, 0.1e1, 123456789012345678]`,
			want: "", // not an object: see the rejections
		},
		{
			name: "numbers in an object",
			in:   `{"a":[100.0, -0.0, 1e21, -0, 1E+2, 0.1e1, 123456789012345678, 1e-7, 0.0000001, 5]}`,
			want: `{"a":[100,0,1e+21,0,100,1,123456789012345680,1e-7,1e-7,5]}`,
		},
		{
			name: "raw UTF-8 and controls",
			in:   "{\"s\":\"\\u001f\\u007f\\u2028\\ud83d\\ude00 \u00e9\\t\\b\\f\\r\"}",
			want: "{\"s\":\"\\u001f\u007f\u2028😀 é\\t\\b\\f\\r\"}",
		},
		{
			name: "nested objects sorted, arrays kept in order",
			in:   `{"b":{"y":1,"x":[3,{"d":1,"c":2}]},"a":true}`,
			want: `{"a":true,"b":{"x":[3,{"c":2,"d":1}],"y":1}}`,
		},
		{
			name: "a shorter name sorts before a longer one it starts",
			in:   `{"ab":1,"a":2,"":3}`,
			want: `{"":3,"a":2,"ab":1}`,
		},
		{
			name: "top-level signatures dropped, nested kept",
			in:   `{"name":"x","signatures":[{"protected":"e30","signature":"AA"}],"o":{"signatures":1}}`,
			opts: Options{DropTopLevel: "signatures"},
			want: `{"name":"x","o":{"signatures":1}}`,
		},
		{
			name: "an escaped signatures name is the same name",
			in:   `{"name":"x","\u0073ignatures":[]}`,
			opts: Options{DropTopLevel: "signatures"},
			want: `{"name":"x"}`,
		},
		{
			name: "as-is keeps empty members",
			in:   `{"name":"Example Agent","description":"","capabilities":{"streaming":false,"pushNotifications":false,"extensions":[]},"skills":[]}`,
			want: `{"capabilities":{"extensions":[],"pushNotifications":false,"streaming":false},"description":"","name":"Example Agent","skills":[]}`,
		},
		{
			// A2A 1.0 section 8.4.1's example, as the SDKs clean it: they
			// drop the empty required members too, which the spec keeps.
			name: "drop-empty on the spec's example",
			in:   `{"name":"Example Agent","description":"","capabilities":{"streaming":false,"pushNotifications":false,"extensions":[]},"skills":[]}`,
			opts: Options{Mode: DropEmpty},
			want: `{"capabilities":{"pushNotifications":false,"streaming":false},"name":"Example Agent"}`,
		},
		{
			name: "drop-empty cleans nested containers and array elements",
			in:   `{"a":{"b":{"c":""},"d":[[],{},"",0,false,null]},"e":[{"f":[]}],"g":" "}`,
			opts: Options{Mode: DropEmpty},
			want: `{"a":{"d":[0,false,null]},"g":" "}`,
		},
		{
			name: "drop-empty keeps an escaped empty-looking string",
			in:   `{"a":"\u0000","b":""}`,
			opts: Options{Mode: DropEmpty},
			want: `{"a":"\u0000"}`,
		},
		{
			name: "drop-empty and signatures",
			in:   `{"signatures":[{"protected":"e30"}],"x":[]}`,
			opts: Options{Mode: DropEmpty, DropTopLevel: "signatures"},
			want: `{}`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Append([]byte("prefix:"), []byte(tc.in), tc.opts)
			if tc.want == "" {
				if err == nil {
					t.Fatalf("got %s, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := "prefix:" + tc.want; string(got) != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}

// Whatever the whitespace and member order, one card has one canonical
// form, and that form is its own canonical form.
func TestAppendCanonical_OrderAndWhitespace(t *testing.T) {
	forms := []string{
		`{"a":1,"b":[1,2,{"x":"y","w":null}]}`,
		"{ \"b\" : [ 1 , 2 , { \"w\" : null , \"x\" : \"y\" } ] ,\n\t\"a\" : 1.0 }",
		`{"b":[1,2,{"x":"\u0079","w":null}],"a":1e0}`,
	}
	var c Canonicalizer
	want, err := c.Append(nil, []byte(forms[0]), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range forms[1:] {
		got, err := c.Append(nil, []byte(f), Options{})
		if err != nil || string(got) != string(want) {
			t.Errorf("%s: got %s, %v; want %s", f, got, err, want)
		}
	}
	again, err := c.Append(nil, want, Options{})
	if err != nil || string(again) != string(want) {
		t.Errorf("canonical form is not a fixed point: %s -> %s, %v", want, again, err)
	}
}

func TestAppendCanonical_Rejects(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		code     Reason
	}{
		{"duplicate name", `{"a":1,"a":2}`, DuplicateKey},
		{"escaped duplicate name", `{"alg":1,"\u0061lg":2}`, DuplicateKey},
		{"duplicate in a nested object", `{"x":{"b":1,"b":1}}`, DuplicateKey},
		{"lone high surrogate", `{"a":"\ud800"}`, UTF8},
		{"lone low surrogate in a name", `{"\udc00":1}`, UTF8},
		{"invalid UTF-8", "{\"a\":\"\xff\"}", UTF8},
		{"number beyond float64", `{"a":1e400}`, NumberRange},
		{"negative number beyond float64", `{"a":-1.8e308}`, NumberRange},
		{"not an object", `[1]`, NotObject},
		{"a string", `"{}"`, NotObject},
		{"syntax", `{"a":01}`, Syntax},
		{"trailing data", `{"a":1} x`, Syntax},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dst := []byte("keep")
			got, err := Append(dst, []byte(tc.in), Options{DropTopLevel: "signatures"})
			var ce *Error
			if !errors.As(err, &ce) || ce.Reason != tc.code {
				t.Fatalf("got %s, %v; want %s", got, err, tc.code)
			}
			if !errors.Is(err, ErrNotCanonical) || string(got) != "keep" {
				t.Errorf("err %v, dst %q", err, got)
			}
			if !strings.Contains(err.Error(), tc.code.String()) {
				t.Errorf("message %q does not name %s", err, tc.code)
			}
		})
	}
}

func TestAppendCanonical_Depth(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 20) + "1" + strings.Repeat("}", 20)
	if _, err := Append(nil, []byte(deep), Options{MaxDepth: 10}); err == nil {
		t.Error("nesting past MaxDepth was accepted")
	}
	if _, err := Append(nil, []byte(deep), Options{}); err != nil {
		t.Error(err)
	}
}

// BenchmarkAppendCanonical times the canonical form of a generated A2A
// 1.0 card, the part of a signature check that is not crypto.
func BenchmarkAppendCanonical(b *testing.B) {
	card := []byte(`{"name":"Geo Route Planner","description":"Plans routes \u00e9","version":"1.2.0","supportedInterfaces":[{"url":"https://geo.example.com/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"capabilities":{"streaming":true,"pushNotifications":false},"defaultInputModes":["text/plain"],"defaultOutputModes":["application/json"],"skills":[{"id":"route","name":"Route","description":"Finds a route","tags":["maps","routing"]}],"metadata":{"weight":1.50,"max":1e3}}`)
	var c Canonicalizer
	var dst []byte
	b.ReportAllocs()
	b.SetBytes(int64(len(card)))
	for b.Loop() {
		var err error
		if dst, err = c.Append(dst[:0], card, Options{DropTopLevel: "signatures"}); err != nil {
			b.Fatal(err)
		}
	}
}
