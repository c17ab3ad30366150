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
