package digest

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"unicode/utf8"

	"github.com/cardscan/cardscan/corpus"
	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/fastvalidate/internal/jcs"
	"github.com/cardscan/cardscan/fastvalidate/internal/tape"
)

// referenceHash computes a card's content hash as the package's doc
// defines it, from encoding/json's reading of the card rather than from
// the tape: each member written as "name":value with nested objects'
// members sorted by their names' bytes, strings escaped as RFC 8785 does
// and numbers written as ECMAScript does, hashed, and the hashes summed
// per lane. ok is false for what encoding/json reads differently from the
// scan (lone surrogates, invalid UTF-8), which the caller skips.
func referenceHash(card []byte) (sum Hash128, ok bool) {
	if !utf8.Valid(card) || bytes.Contains(bytes.ToLower(card), []byte(`\ud`)) {
		return Hash128{}, false
	}
	d := json.NewDecoder(bytes.NewReader(card))
	d.UseNumber()
	var top map[string]any
	if d.Decode(&top) != nil {
		return Hash128{}, false
	}
	var total Hash128
	for name, v := range top {
		enc := referenceValue(append(jcs.AppendEscaped([]byte{'"'}, []byte(name)), '"', ':'), v)
		m := testHash(enc, seedMember)
		total.Hi += m.Hi
		total.Lo += m.Lo
	}
	var b []byte
	b = binary.LittleEndian.AppendUint64(b, total.Hi)
	b = binary.LittleEndian.AppendUint64(b, total.Lo)
	return testHash(b, seedObject), true
}

func referenceValue(dst []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...)
	case bool:
		return strconv.AppendBool(dst, v)
	case string:
		return append(jcs.AppendEscaped(append(dst, '"'), []byte(v)), '"')
	case json.Number:
		f, _ := strconv.ParseFloat(string(v), 64)
		return jcs.AppendFloat(dst, f)
	case []any:
		dst = append(dst, '[')
		for i, e := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = referenceValue(dst, e)
		}
		return append(dst, ']')
	case map[string]any:
		names := make([]string, 0, len(v))
		for name := range v {
			names = append(names, name)
		}
		slices.Sort(names) // by bytes, as the encoding sorts nested objects
		dst = append(dst, '{')
		for i, name := range names {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(jcs.AppendEscaped(append(dst, '"'), []byte(name)), '"', ':')
			dst = referenceValue(dst, v[name])
		}
		return append(dst, '}')
	}
	panic("unexpected JSON value")
}

// checkReference holds the Hasher, reading the card itself and from a
// Validator's tape, to referenceHash.
func checkReference(t *testing.T, h *Hasher, v *fastvalidate.Validator, card []byte) bool {
	t.Helper()
	want, ok := referenceHash(card)
	if !ok || !h.Load(nil, card) {
		return false
	}
	if got := h.Sum(); got != want {
		t.Fatalf("hash %x, reference %x, of %s", got.Bytes(), want.Bytes(), card)
	}
	v.Validate(card)
	if h.Load(v, card) && h.Sum() != want {
		t.Fatalf("hash from the tape %x, reference %x, of %s", h.Sum().Bytes(), want.Bytes(), card)
	}
	return true
}

// TestContentHashReference: generated cards, random cards and their
// rewritings (white space, member order, escapes, number forms) hash as
// the reference does.
func TestContentHashReference(t *testing.T) {
	h, v := New(testHash), fastvalidate.MustNew("auto")
	g, err := corpus.New(corpus.Options{Seed: 5, Dialects: corpus.Dialects(), DefectRate: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(40, 2))
	var sc tape.Scanner // rewrite takes only what the scan accepts
	sc.MaxDepth = fastvalidate.DefaultMaxDepth
	checked := 0
	for range 500 {
		card := g.Next().JSON
		cards := [][]byte{card, randomObject(r, 0)}
		if sc.Scan(card) {
			cards = append(cards, rewrite(r, card, false))
		}
		for _, c := range cards {
			if checkReference(t, h, v, c) {
				checked++
			}
		}
	}
	// Most cards are compared, not skipped.
	if checked < 1000 {
		t.Errorf("%d cards of 1500 compared", checked)
	}
}

// FuzzContentHashReference holds the Hasher to the reference on any
// object encoding/json and the scan read alike.
func FuzzContentHashReference(f *testing.F) {
	for _, s := range []string{
		`{"a":1}`, `{"b":{"z":1,"a":[1.50,-0,1e2,"x\u0041"]},"a":"\"q\""}`,
		`{ "x" : { "b" : true , "a" : null } , "y" : [ { } , [ ] ] }`,
		`{"k":{"\u00e9":1,"e":2,"\ue000":3,"😀":4}}`, `{"n":[1E400,0.000001,1e-7,123456789012345678]}`,
	} {
		f.Add([]byte(s))
	}
	h, v := New(testHash), fastvalidate.MustNew("auto")
	f.Fuzz(func(t *testing.T, card []byte) {
		checkReference(t, h, v, card)
	})
}

// checkSpan holds spanMember to encodeMember, member by member, on a card
// the scan accepts, and returns how many members took spanMember's path.
func checkSpan(t *testing.T, h *Hasher, card []byte) int {
	t.Helper()
	if !h.Bind(nil, card) {
		return 0
	}
	spans := 0
	for k := uint32(1); k < h.vw.End(0); k = h.vw.NextMember(k) {
		fast, ok := h.spanMember(k)
		if !ok {
			continue
		}
		spans++
		enc, _ := h.encodeMember(nil, k)
		if want := testHash(enc, seedMember); fast != want {
			s, _ := h.vw.Bounds(k)
			t.Fatalf("member at offset %d: span hash %x, encoding's %x (%s) in %s", s-1, fast.Bytes(), want.Bytes(), enc, card)
		}
	}
	return spans
}

// TestContentHashSpan: members copied whole and rearranged hash as they
// do encoded value by value, on generated cards (compact, with nested
// objects out of order), random cards and their rewritings.
func TestContentHashSpan(t *testing.T) {
	h := New(testHash)
	g, err := corpus.New(corpus.Options{Seed: 6, Dialects: corpus.Dialects(), DefectRate: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(40, 3))
	var sc tape.Scanner
	sc.MaxDepth = fastvalidate.DefaultMaxDepth
	spans := 0
	for range 500 {
		card := g.Next().JSON
		spans += checkSpan(t, h, card) + checkSpan(t, h, randomObject(r, 0))
		if sc.Scan(card) {
			checkSpan(t, h, rewrite(r, card, false))
		}
	}
	// Most members of generated cards take the path.
	if spans < 1500 {
		t.Errorf("%d members took spanMember's path", spans)
	}
}

// FuzzContentHashSpan holds spanMember to encodeMember on any object.
func FuzzContentHashSpan(f *testing.F) {
	for _, s := range []string{
		`{"a":{"c":1,"b":[{"z":null,"y":false}],"a":{}}}`, `{"a":[{"b":1,"a":2},{"d":"x","c":"y"}],"b":"s"}`,
		`{"x":{"b":true,"a":null} ,"y":{"b" :1,"a":2}}`, `{"k":{"aaaaaaaaaz":1,"aaaaaaaaay":2,"é":3,"e":4}}`,
		`{"n":{"b":1.50,"a":1e400}}`, `{"s":{"b":"\u0041","a":1}}`, `{"e":{"b":[],"a":{}},"f":[[],[{}]]}`,
		`{"w":{"b":1 },"v":[1 ],"u":{"a":{} }}`,
	} {
		f.Add([]byte(s))
	}
	h := New(testHash)
	f.Fuzz(func(t *testing.T, card []byte) {
		checkSpan(t, h, card)
	})
}
