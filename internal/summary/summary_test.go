package summary

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

func sample() *Summary {
	s := &Summary{Counts: Counts{Records: 10, Valid: 7, Invalid: 3, Errors: 4, Warnings: 2, Rules: map[string]int64{"capability.id": 3, "endpoint.insecure": 2, "json.syntax": 1}, Profiles: map[string]int64{"agentcard": 9, "none": 1}},
		Inputs: 2, BytesRead: 500, BytesDecompressed: 2_000_000, Seconds: 0.5, Shards: 1}
	s.Finish()
	return s
}

func TestRoundTrip(t *testing.T) {
	s := sample()
	b, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(b), "}\n") || strings.Index(string(b), `"capability.id"`) > strings.Index(string(b), `"json.syntax"`) {
		t.Errorf("not indented JSON with sorted keys:\n%s", b)
	}
	got, err := Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, s) {
		t.Errorf("round trip gave %+v, want %+v", got, s)
	}
	if s.MBPerSecond != 4 {
		t.Errorf("MB/s %v, want 4", s.MBPerSecond)
	}
}

func TestAdd(t *testing.T) {
	var total Summary
	a, b := sample(), sample()
	b.StoppedEarly = true
	total.Add(a)
	total.Add(b)
	if total.Records != 20 || total.Rules["capability.id"] != 6 || total.Profiles["none"] != 2 ||
		total.Shards != 2 || total.Seconds != 1 || !total.StoppedEarly || total.MBPerSecond != 4 {
		t.Errorf("sum %+v", total)
	}
}

func TestUnmarshalRejects(t *testing.T) {
	for _, doc := range []string{
		`{"records":1,"valid":1,"invalid":1}`,
		`{"records":1,"valid":1,"invalid":0,"surprise":true}`,
		`[1]`,
		`{"records":-1,"valid":-1,"invalid":0}`,
		"{\"records\":0,\"valid\":0,\"invalid\":0,\"rules\":{\"\xff\":1}}",
	} {
		if _, err := Unmarshal([]byte(doc)); err == nil {
			t.Errorf("%s: accepted", doc)
		}
	}
}

// TestMarshalText pins what the encoder writes beyond the counts: input
// names with <, > and & as they are (reports are not HTML), invalid UTF-8
// as U+FFFD, map keys sorted, and a final newline.
func TestMarshalText(t *testing.T) {
	s := Summary{Counts: Counts{Records: 1, Invalid: 1, Rules: map[string]int64{"b": 1, "a": 2}},
		WorstInputs: []InputCount{{Input: "<a&b>\xff.ndjson", Records: 1, Invalid: 1}}}
	b, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, want := range []string{`"input": "<a&b>\ufffd.ndjson"`, "\"rules\": {\n    \"a\": 2,\n    \"b\": 1\n  }"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
	if !strings.HasSuffix(text, "}\n") {
		t.Errorf("does not end in one newline: %q", text[max(0, len(text)-5):])
	}
	back, err := Unmarshal(b)
	if err != nil || back.Rules["a"] != 2 || back.WorstInputs[0].Input != "<a&b>\ufffd.ndjson" {
		t.Errorf("round trip: %v, %+v", err, back)
	}
}

func TestHuman(t *testing.T) {
	h := sample().Human()
	for _, want := range []string{"10 records: 7 valid, 3 invalid", "2 warnings", "2.0 MB in 0.50 s (4.0 MB/s)", "top rules: capability.id 3, endpoint.insecure 2, json.syntax 1"} {
		if !strings.Contains(h, want) {
			t.Errorf("%q lacks %q", h, want)
		}
	}
	if strings.Contains(h, "\n") {
		t.Errorf("%q spans lines", h)
	}
}

func TestSignatures(t *testing.T) {
	var total Summary
	a, b := sample(), sample()
	total.Add(a)
	if total.Signatures != nil || strings.Contains(total.Human(), "signed") {
		t.Errorf("runs that verified nothing gained signature counts: %+v %q", total.Signatures, total.Human())
	}
	b.Signatures = &Signatures{Signed: 4, Verified: 3, Findings: 2, Outcomes: map[string]int64{"verified": 3, "untrusted-origin": 1, "expired": 1}}
	total.Add(b)
	total.Add(b)
	want := Signatures{Signed: 8, Verified: 6, Findings: 4, Outcomes: map[string]int64{"verified": 6, "untrusted-origin": 2, "expired": 2}}
	if total.Signatures == nil || !reflect.DeepEqual(*total.Signatures, want) {
		t.Errorf("sum %+v, want %+v", total.Signatures, want)
	}
	if h := total.Human(); !strings.Contains(h, "; 6 of 8 signed cards verified (signatures: untrusted-origin 2, expired 2);") {
		t.Errorf("%q does not count the signed cards and their outcomes", h)
	}
	out, err := total.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := Unmarshal(out); err != nil || !reflect.DeepEqual(*got.Signatures, *total.Signatures) {
		t.Errorf("round trip: %+v, %v", got, err)
	}
	bad := strings.Replace(string(out), `"expired"`, `"expird"`, 1)
	if _, err := Unmarshal([]byte(bad)); err == nil || !strings.Contains(err.Error(), `unknown outcome "expird"`) {
		t.Errorf("an unknown outcome was taken: %v", err)
	}
	if out, _ := a.Marshal(); strings.Contains(string(out), "signatures") {
		t.Errorf("a run that verified nothing writes signatures:\n%s", out)
	}
}

func TestAddOverflow(t *testing.T) {
	const big = 1<<63 - 2
	for _, tc := range []struct {
		name string
		a, b Summary
	}{
		{"records", Summary{Counts: Counts{Records: big, Valid: big}}, Summary{Counts: Counts{Records: big, Valid: big}}},
		{"rules.json.syntax", Summary{Counts: Counts{Rules: map[string]int64{"json.syntax": big}}}, Summary{Counts: Counts{Rules: map[string]int64{"json.syntax": 3}}}},
		{"bytes_read", Summary{BytesRead: big}, Summary{BytesRead: big}},
	} {
		var total Summary
		if err := total.Add(&tc.a); err != nil {
			t.Fatalf("%s: first add: %v", tc.name, err)
		}
		err := total.Add(&tc.b)
		if err == nil || !strings.Contains(err.Error(), tc.name) {
			t.Errorf("%s: error %v, want one naming it", tc.name, err)
		}
		if total.Records < 0 || total.Valid < 0 || total.BytesRead < 0 || total.Rules["json.syntax"] < 0 {
			t.Errorf("%s: a count wrapped round: %+v", tc.name, total)
		}
	}
}

func TestHumanPlurals(t *testing.T) {
	one := &Summary{Counts: Counts{Records: 1, Valid: 0, Invalid: 1, Warnings: 1}, Inputs: 1, InputErrors: 1}
	if h := one.Human(); !strings.HasPrefix(h, "1 record: 0 valid, 1 invalid, 1 warning;") || !strings.Contains(h, "1 of 1 input unreadable") {
		t.Errorf("%q", h)
	}
	if h := (&Summary{}).Human(); !strings.HasPrefix(h, "0 records: ") {
		t.Errorf("%q", h)
	}
}

// TestFetchFailures: a crawl's failures by rule add up across shards,
// survive a round trip, and are absent from a file run's summary.
func TestFetchFailures(t *testing.T) {
	b, _ := sample().Marshal()
	if strings.Contains(string(b), "fetch_failures") {
		t.Errorf("a file run's summary has fetch_failures:\n%s", b)
	}
	a := &Summary{Inputs: 3, InputErrors: 2, FetchFailures: map[string]int64{"http.status": 1, "http.timeout": 1}, Shards: 1}
	c := &Summary{Inputs: 2, InputErrors: 1, FetchFailures: map[string]int64{"http.status": 1}, Shards: 1}
	var total Summary
	total.Add(a)
	total.Add(c)
	if want := map[string]int64{"http.status": 2, "http.timeout": 1}; !reflect.DeepEqual(total.FetchFailures, want) || total.InputErrors != 3 {
		t.Fatalf("fetch failures %v, input errors %d", total.FetchFailures, total.InputErrors)
	}
	b, err := total.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Unmarshal(b)
	if err != nil || !reflect.DeepEqual(back.FetchFailures, total.FetchFailures) {
		t.Fatalf("round trip: %v, %v", back, err)
	}
	if h := total.Human(); !strings.Contains(h, "; 3 of 5 inputs served no card (http.status 2, http.timeout 1)") || strings.Contains(h, "unreadable") {
		t.Errorf("Human() = %q", h)
	}
	total.InputErrors++ // one that is no fetch failure
	if h := total.Human(); !strings.Contains(h, "; 1 of 5 inputs unreadable; 3 of 5 inputs served no card (") {
		t.Errorf("Human() = %q, with an unreadable input", h)
	}
}

// Overrides survive a round trip and merge as a union; a rule two shards
// set differently is mixed.
func TestOverrides(t *testing.T) {
	for _, c := range []struct {
		name string
		a, b map[string]string
		want map[string]string
	}{
		{"none", nil, nil, nil},
		{"one shard", map[string]string{"version.semver": "warning"}, nil, map[string]string{"version.semver": "warning"}},
		{"agree", map[string]string{"version.semver": "off"}, map[string]string{"version.semver": "off", "a2a.mime": "error"},
			map[string]string{"version.semver": "off", "a2a.mime": "error"}},
		{"differ", map[string]string{"version.semver": "off"}, map[string]string{"version.semver": "warning"},
			map[string]string{"version.semver": "mixed"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, b := sample(), sample()
			a.Overrides, b.Overrides = c.a, c.b
			var total Summary
			for _, s := range []*Summary{a, b} {
				raw, err := s.Marshal()
				if err != nil {
					t.Fatal(err)
				}
				if (s.Overrides == nil) == strings.Contains(string(raw), `"overrides"`) {
					t.Errorf("overrides %v marshal as:\n%s", s.Overrides, raw)
				}
				back, err := Unmarshal(raw)
				if err != nil {
					t.Fatal(err)
				}
				if err := total.Add(back); err != nil {
					t.Fatal(err)
				}
			}
			if !reflect.DeepEqual(total.Overrides, c.want) {
				t.Errorf("merged %v, want %v", total.Overrides, c.want)
			}
		})
	}
}

func TestKeepWorst(t *testing.T) {
	in := func(name string, records, invalid int64) InputCount {
		return InputCount{Input: name, Records: records, Invalid: invalid}
	}
	for _, tc := range []struct {
		name string
		add  []InputCount
		want []InputCount
	}{
		{"most invalid first", []InputCount{in("a", 10, 1), in("b", 10, 5), in("c", 10, 3)},
			[]InputCount{in("b", 10, 5), in("c", 10, 3), in("a", 10, 1)}},
		{"a tie goes to the larger share, then the name", []InputCount{in("z", 4, 2), in("y", 2, 2), in("x", 4, 2)},
			[]InputCount{in("y", 2, 2), in("x", 4, 2), in("z", 4, 2)}},
		{"inputs with no invalid record are not kept", []InputCount{in("clean", 100, 0), in("bad", 1, 1)},
			[]InputCount{in("bad", 1, 1)}},
		{"one name read twice stays two readings", []InputCount{in("-", 3, 1), in("-", 3, 1)},
			[]InputCount{in("-", 3, 1), in("-", 3, 1)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []InputCount
			for _, c := range tc.add {
				got = KeepWorst(got, c)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestKeepWorstBounded(t *testing.T) {
	var got []InputCount
	for i := range int64(1000) {
		got = KeepWorst(got, InputCount{Input: fmt.Sprint(i), Records: 1000, Invalid: i%500 + 1})
	}
	if len(got) != MaxWorstInputs {
		t.Fatalf("%d inputs kept, want %d", len(got), MaxWorstInputs)
	}
	// 499 and 999 have 500 invalid records, 498 and 998 have 499, ...
	for i, c := range got {
		if want := int64(500 - i/2); c.Invalid != want {
			t.Errorf("entry %d: %+v, want %d invalid", i, c, want)
		}
	}
}

// Shards merge into what one run over all their inputs would have said.
func TestAddProfileVerdictsAndWorstInputs(t *testing.T) {
	var inputs []InputCount
	for i := range int64(30) {
		inputs = append(inputs, InputCount{Input: fmt.Sprintf("in%02d", i), Records: 100, Invalid: (i * 7) % 31})
	}
	var whole []InputCount
	for _, c := range inputs {
		whole = KeepWorst(whole, c)
	}
	a, b := sample(), sample()
	for _, s := range []*Summary{a, b} {
		s.Records, s.Invalid = s.Records+1000, s.Invalid+1000 // room for the inputs' invalid records
	}
	a.ProfileVerdicts = map[string]Verdicts{"agentcard": {Valid: 6, Invalid: 3}, "none": {Invalid: 1}}
	b.ProfileVerdicts = map[string]Verdicts{"agentcard": {Valid: 7, Invalid: 2}, "none": {Invalid: 1}}
	for i, c := range inputs {
		if i%3 == 0 {
			a.WorstInputs = KeepWorst(a.WorstInputs, c)
		} else {
			b.WorstInputs = KeepWorst(b.WorstInputs, c)
		}
	}
	var total Summary
	for _, s := range []*Summary{a, sample(), b} {
		if err := total.Add(s); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]Verdicts{"agentcard": {Valid: 13, Invalid: 5}, "none": {Invalid: 2}}
	if !reflect.DeepEqual(total.ProfileVerdicts, want) {
		t.Errorf("profile_verdicts %v, want %v", total.ProfileVerdicts, want)
	}
	if !reflect.DeepEqual(total.WorstInputs, whole) {
		t.Errorf("worst_inputs\n%v\nwant\n%v", total.WorstInputs, whole)
	}
	out, err := total.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Unmarshal(out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !reflect.DeepEqual(back.ProfileVerdicts, want) || !reflect.DeepEqual(back.WorstInputs, whole) {
		t.Errorf("round trip lost counts:\n%s", out)
	}
	if out, _ := sample().Marshal(); strings.Contains(string(out), "profile_verdicts") || strings.Contains(string(out), "worst_inputs") {
		t.Errorf("a summary without them writes them:\n%s", out)
	}
}

func TestUnmarshalRejectsVerdicts(t *testing.T) {
	for _, doc := range []string{
		`{"records":1,"valid":1,"invalid":0,"profiles":{"a":1},"profile_verdicts":{"a":{"valid":2,"invalid":0}}}`,
		`{"records":1,"valid":1,"invalid":0,"profiles":{"a":1},"profile_verdicts":{"b":{"valid":1,"invalid":0}}}`,
		`{"records":1,"valid":1,"invalid":0,"profiles":{"a":1},"profile_verdicts":{"a":{"valid":-1,"invalid":0}}}`,
		`{"records":1,"valid":0,"invalid":1,"worst_inputs":[{"input":"x","records":1,"invalid":2}]}`,
		`{"records":1,"valid":0,"invalid":1,"worst_inputs":[{"input":"x","records":1,"invalid":0}]}`,
		`{"records":2,"valid":1,"invalid":1,"worst_inputs":[{"input":"x","records":2,"invalid":2}]}`,
	} {
		if _, err := Unmarshal([]byte(doc)); err == nil {
			t.Errorf("%s: accepted", doc)
		}
	}
}

// TestAddExtremeFigures: times and rates are figures a merge can always
// add. Seconds that sum past the largest float64 saturate there, and a
// rate over a run too short to time is capped; neither becomes +Inf or
// NaN, which JSON cannot hold.
func TestAddExtremeFigures(t *testing.T) {
	for _, tc := range []struct {
		name        string
		a, b        Summary
		seconds     float64
		mbPerSecond float64
	}{
		{"seconds past the largest float", Summary{Seconds: 1e308, BytesDecompressed: 1e6}, Summary{Seconds: 1e308}, math.MaxFloat64, 1 / math.MaxFloat64},
		{"a subnormal time", Summary{Seconds: 1e-320, BytesDecompressed: 8 << 20}, Summary{}, 1e-320, MaxMBPerSecond},
		{"no time", Summary{BytesDecompressed: 1e6}, Summary{}, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var total Summary
			for _, s := range []*Summary{&tc.a, &tc.b} {
				if err := total.Add(s); err != nil {
					t.Fatalf("add: %v", err)
				}
			}
			if total.Seconds != tc.seconds || total.MBPerSecond != tc.mbPerSecond {
				t.Errorf("%v s at %v MB/s, want %v s at %v MB/s", total.Seconds, total.MBPerSecond, tc.seconds, tc.mbPerSecond)
			}
			b, err := total.Marshal()
			if err != nil {
				t.Fatalf("marshal: %v", err)
			}
			back, err := Unmarshal(b)
			if err != nil {
				t.Fatalf("the merged summary does not read back: %v\n%s", err, b)
			}
			if back.Seconds != total.Seconds {
				t.Errorf("read back %v s, wrote %v", back.Seconds, total.Seconds)
			}
		})
	}
}

// A summary's figures are set before it is written, however they were
// reached: Marshal never meets an infinity or NaN.
func TestMarshalNonFinite(t *testing.T) {
	for _, secs := range []float64{math.Inf(1), math.NaN(), -1} {
		s := &Summary{Seconds: secs, BytesDecompressed: 1e6}
		if _, err := s.Marshal(); err != nil {
			t.Errorf("seconds %v: %v", secs, err)
		}
		if math.IsInf(s.Seconds, 0) || math.IsNaN(s.Seconds) || s.Seconds < 0 || math.IsInf(s.MBPerSecond, 0) || math.IsNaN(s.MBPerSecond) {
			t.Errorf("seconds %v: written as %v s at %v MB/s", secs, s.Seconds, s.MBPerSecond)
		}
	}
	if _, err := Unmarshal([]byte(`{"records":0,"valid":0,"invalid":0,"seconds":-1}`)); err == nil {
		t.Error("negative seconds accepted")
	}
}

// TestSchemaWouldPass: the count of invalid AgentCards the schema passes
// survives the JSON, adds up under merge, shows on the summary line only
// when there are some, and cannot exceed the invalid records.
func TestSchemaWouldPass(t *testing.T) {
	a, b := sample(), sample()
	a.SchemaWouldPass, b.SchemaWouldPass = 2, 1
	text, err := a.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), `"schema_would_pass": 2`) {
		t.Errorf("summary lacks the count:\n%s", text)
	}
	back, err := Unmarshal(text)
	if err != nil || back.SchemaWouldPass != 2 {
		t.Fatalf("read back %+v, %v", back, err)
	}
	var total Summary
	if err := total.Add(a); err != nil {
		t.Fatal(err)
	}
	if err := total.Add(b); err != nil {
		t.Fatal(err)
	}
	if total.SchemaWouldPass != 3 {
		t.Errorf("merged %d, want 3", total.SchemaWouldPass)
	}
	if h := total.Human(); !strings.Contains(h, "; 3 of the invalid pass the AgentCard JSON Schema v1.0") {
		t.Errorf("%q does not say how many pass the schema", h)
	}
	if h := sample().Human(); strings.Contains(h, "Schema") {
		t.Errorf("%q mentions the schema without a card that passes it", h)
	}
	if text, _ := sample().Marshal(); strings.Contains(string(text), "schema_would_pass") {
		t.Errorf("a summary without such cards names the count:\n%s", text)
	}
	for _, doc := range []string{
		`{"records":3,"valid":1,"invalid":2,"schema_would_pass":3}`,
		`{"records":3,"valid":1,"invalid":2,"schema_would_pass":-1}`,
	} {
		if _, err := Unmarshal([]byte(doc)); err == nil {
			t.Errorf("%s: accepted", doc)
		}
	}
	over := sample()
	over.SchemaWouldPass = math.MaxInt64
	if err := total.Add(over); err == nil || !strings.Contains(err.Error(), "schema_would_pass") {
		t.Errorf("overflow: %v", err)
	}
}

// TestSignaturesHuman: a run that verified signatures and found no signed
// card says so, not "0 of 0 signed cards verified"; one card is singular.
func TestSignaturesHuman(t *testing.T) {
	for _, c := range []struct {
		sig  Signatures
		want string
	}{
		{Signatures{}, "; no signed cards;"},
		{Signatures{Signed: 1, Verified: 0}, "; 0 of 1 signed card verified;"},
		{Signatures{Signed: 1, Verified: 1}, "; 1 of 1 signed card verified;"},
		{Signatures{Signed: 3, Verified: 2}, "; 2 of 3 signed cards verified;"},
	} {
		s := sample()
		s.Signatures = &c.sig
		if h := s.Human(); !strings.Contains(h, c.want) {
			t.Errorf("%+v: %q does not say %q", c.sig, h, c.want)
		}
	}
}

// TestAddProbes adds the probe counts of shards, a shard that probed
// nothing leaving them as they were, and they survive a round trip.
func TestAddProbes(t *testing.T) {
	var total Summary
	a := Summary{Probes: &Probes{Interfaces: 3, Answering: 1, WrongBinding: 1, TLS: 1, CardsSkipped: 2}}
	b := Summary{Probes: &Probes{Interfaces: 2, AuthRequired: 1, Unreachable: 1}}
	for _, s := range []*Summary{&a, {Counts: Counts{Records: 5, Valid: 5}}, &b} {
		if err := total.Add(s); err != nil {
			t.Fatal(err)
		}
	}
	want := Probes{Interfaces: 5, Answering: 1, AuthRequired: 1, WrongBinding: 1, TLS: 1, Unreachable: 1, CardsSkipped: 2}
	if total.Probes == nil || *total.Probes != want {
		t.Fatalf("probes %+v, want %+v", total.Probes, want)
	}
	j, err := total.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Unmarshal(j)
	if err != nil || *back.Probes != want {
		t.Fatalf("round trip: %+v, %v", back.Probes, err)
	}
	if !strings.Contains(total.Human(), "5 interfaces probed: 1 answering, 1 asking for credentials, 1 wrong binding, 1 TLS problems, 1 unreachable") {
		t.Errorf("human: %s", total.Human())
	}
	bad := strings.Replace(string(j), `"answering": 1`, `"answering": 2`, 1)
	if _, err := Unmarshal([]byte(bad)); err == nil || !strings.Contains(err.Error(), "probes") {
		t.Errorf("classes that do not add up to the interfaces: %v", err)
	}
	var none Summary
	none.Add(&Summary{Counts: Counts{Records: 1, Valid: 1}})
	if none.Probes != nil {
		t.Errorf("a run that probed nothing has probes: %+v", none.Probes)
	}
}

// TestUnknownMemberNewer: a member unknown here is taken for a newer
// cardscan's only in what is otherwise a summary this cardscan wrote.
func TestUnknownMemberNewer(t *testing.T) {
	b, err := sample().Marshal()
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, tc := range []struct {
		name, doc string
		newer     bool
	}{
		{"a new member", strings.Replace(doc, `"records":`, `"dialects": {"a2a": 1}, "records":`, 1), true},
		{"a new member in a new object", strings.Replace(doc, `"records":`, `"future": {"x": 1}, "records":`, 1), true},
		{"a member it always has missing", strings.Replace(strings.Replace(doc, `"shards": 1`, `"shard": 1`, 1), `"records":`, `"dialects": 1, "records":`, 1), false},
		{"counts that disagree", strings.Replace(strings.Replace(doc, `"valid": 7`, `"valid": 8`, 1), `"records":`, `"dialects": 1, "records":`, 1), false},
		{"a diff line", `{"change":"added","key":"k"}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.doc == doc {
				t.Fatal("the edit did not apply")
			}
			_, err := Unmarshal([]byte(tc.doc))
			de, ok := err.(*DecodeError)
			if !ok {
				t.Fatalf("error %v, want a *DecodeError", err)
			}
			if de.Newer != tc.newer {
				t.Errorf("Newer %v, want %v (%v)", de.Newer, tc.newer, err)
			}
		})
	}
}

// TestUnmarshalRejectsNegativeCounts: a count cardscan never writes below
// zero, edited to be, was read and added up into a total that no run can
// have (errors -5, inputs -5); the member must be named instead.
func TestUnmarshalRejectsNegativeCounts(t *testing.T) {
	for _, c := range []struct{ member, doc string }{
		{"errors", `"errors":-5`},
		{"warnings", `"warnings":-1`},
		{"inputs", `"inputs":-5`},
		{"input_errors", `"input_errors":-9`},
		{"bytes_read", `"bytes_read":-1`},
		{"bytes_decompressed", `"bytes_decompressed":-1`},
		{"shards", `"shards":-2`},
		{"schema_would_pass", `"schema_would_pass":-1`},
		{`rules "capability.id"`, `"rules":{"capability.id":-5}`},
		{`framings "ndjson"`, `"framings":{"ndjson":-1}`},
		{`fetch_failures "fetch.status"`, `"fetch_failures":{"fetch.status":-1}`},
		{`profiles "none"`, `"profiles":{"agentcard":3,"none":-1}`},
		{"signatures.findings", `"signatures":{"signed":0,"verified":0,"findings":-1}`},
		{"probes.cards_skipped", `"probes":{"interfaces":0,"answering":0,"auth_required":0,"wrong_binding":0,"tls":0,"unreachable":0,"not_probed":0,"cards_skipped":-1}`},
	} {
		doc := `{"records":3,"valid":0,"invalid":3,` + c.doc + `}`
		_, err := Unmarshal([]byte(doc))
		if err == nil || !strings.Contains(err.Error(), c.member) || !strings.Contains(err.Error(), "less than none") {
			t.Errorf("%s: error %v, want one naming %s as less than none", doc, err, c.member)
		}
	}
}

// TestUnmarshalRejectsUnknownLevel: overrides hold the level a rule was
// run at, which Add compares across shards; a level no run has (a typo
// in a hand-edited file) would be carried into the total as it is.
func TestUnmarshalRejectsUnknownLevel(t *testing.T) {
	doc := `{"records":0,"valid":0,"invalid":0,"overrides":{"version.semver":"warnign"}}`
	if _, err := Unmarshal([]byte(doc)); err == nil || !strings.Contains(err.Error(), `"warnign"`) {
		t.Errorf("%s: error %v, want one naming the level", doc, err)
	}
	doc = `{"records":0,"valid":0,"invalid":0,"overrides":{"a":"off","b":"warning","c":"error","d":"mixed"}}`
	if _, err := Unmarshal([]byte(doc)); err != nil {
		t.Errorf("%s: %v", doc, err)
	}
}

// TestUnmarshalRejectsWrappingSums: the checks that parts add up to a
// whole added the parts in int64, so two parts of 5e18 wrapped to a
// negative sum that passed "not more than the whole".
func TestUnmarshalRejectsWrappingSums(t *testing.T) {
	const big, quarter = "5000000000000000000", "4611686018427387904"
	for _, doc := range []string{
		`{"records":3,"valid":0,"invalid":3,"profiles":{"a2a/1.0":3},"profile_verdicts":{"a2a/1.0":{"valid":` + big + `,"invalid":` + big + `}}}`,
		// Four classes of 2^62 wrap to 0, the interfaces.
		`{"records":3,"valid":0,"invalid":3,"probes":{"interfaces":0,"answering":` + quarter + `,"auth_required":` + quarter + `,"wrong_binding":` + quarter + `,"tls":` + quarter + `,"unreachable":0,"not_probed":0,"cards_skipped":0}}`,
	} {
		if _, err := Unmarshal([]byte(doc)); err == nil {
			t.Errorf("%s: accepted", doc)
		}
	}
}

// TestUnmarshalRejectsMoreProfiledThanRecords: each record is counted
// under one profile ("none" when none judged it), so the profiles' counts
// cannot add up to more than the records; two of 9e18 made the report's
// per-dialect totals wrap negative.
func TestUnmarshalRejectsMoreProfiledThanRecords(t *testing.T) {
	for _, doc := range []string{
		`{"records":3,"valid":0,"invalid":3,"profiles":{"a2a/1.0":9000000000000000000,"ma2d":9000000000000000000}}`,
		`{"records":3,"valid":0,"invalid":3,"profiles":{"a2a/1.0":3,"none":1}}`,
	} {
		if _, err := Unmarshal([]byte(doc)); err == nil || !strings.Contains(err.Error(), "profiles") {
			t.Errorf("%s: error %v, want one about profiles", doc, err)
		}
	}
	if _, err := Unmarshal([]byte(`{"records":3,"valid":0,"invalid":3,"profiles":{"a2a/1.0":2,"none":1}}`)); err != nil {
		t.Error(err)
	}
}

// TestUnmarshalRejectsOutcomesPastInt64: the outcomes are what a report
// adds up as the signatures checked; two of 9e18 wrapped that negative.
func TestUnmarshalRejectsOutcomesPastInt64(t *testing.T) {
	doc := `{"records":3,"valid":0,"invalid":3,"signatures":{"signed":0,"verified":0,"findings":0,"outcomes":{"verified":9000000000000000000,"invalid":9000000000000000000}}}`
	if _, err := Unmarshal([]byte(doc)); err == nil || !strings.Contains(err.Error(), "signatures.outcomes") {
		t.Errorf("%s: error %v, want one naming signatures.outcomes", doc, err)
	}
}
