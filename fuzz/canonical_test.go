package fuzz

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/cardscan/cardscan/fastvalidate/canon"
	"github.com/gowebpki/jcs"
)

// canonicalSeeds are documents whose canonical forms exercise number
// formatting, escapes and UTF-16 member order.
var canonicalSeeds = []string{
	`{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001,-0.0,100.0,1e21,1e-7,5e-324]}`,
	`{"string":"\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/","literals":[null,true,false]}`,
	`{"\u20ac":1,"\r":2,"\ufb33":3,"1":4,"\ud83d\ude00":5,"\u0080":6,"\u00f6":7}`,
	"{\"\u007f\":\"\u2028\u2029\",\"b\":{\"z\":[],\"y\":{}},\"a\":\"\\u0000\\u001f\"}",
}

// checkCanonical holds cardscan's canonical form to the independent JCS
// implementation on a document both accept, and to itself: its output is
// valid JSON and its own canonical form. It reports whether both accepted.
func checkCanonical(t *testing.T, c *canon.Canonicalizer, doc []byte) bool {
	t.Helper()
	got, err := c.Append(nil, doc, canon.Options{})
	if err != nil {
		return false
	}
	if !json.Valid(got) {
		t.Fatalf("canonical form of %q is not JSON: %q", doc, got)
	}
	again, err := c.Append(nil, got, canon.Options{})
	if err != nil || !bytes.Equal(again, got) {
		t.Fatalf("canonical form of %q is not a fixed point: %q -> %q, %v", doc, got, again, err)
	}
	want, err := jcs.Transform(doc)
	if err != nil {
		return false
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("canonical forms of %q differ:\ncardscan %q\njcs      %q", doc, got, want)
	}
	return true
}

// TestCanonicalDifferential mutates seed cards and compares canonical forms
// wherever both implementations accept the mutant.
func TestCanonicalDifferential(t *testing.T) {
	n := 30000
	if testing.Short() {
		n = 3000
	}
	seeds := seedCards(t)
	for _, s := range canonicalSeeds {
		seeds = append(seeds, []byte(s))
	}
	canonicalDifferential(t, seeds, n)
}

// TestCanonicalDifferentialReal is TestCanonicalDifferential on the real
// cards beside the repository and their mutants, where they are.
func TestCanonicalDifferentialReal(t *testing.T) {
	n := 10000
	if testing.Short() {
		n = 1000
	}
	canonicalDifferential(t, realCards(t), n)
}

// canonicalDifferential compares canonical forms of the seeds, then of
// mutants of them, n documents in all.
func canonicalDifferential(t *testing.T, seeds [][]byte, n int) {
	var c canon.Canonicalizer
	r := rand.New(rand.NewPCG(3, 4))
	both := 0
	for i := range n {
		doc := seeds[i%len(seeds)]
		if i >= len(seeds) {
			doc = mutate(r, doc)
		}
		if checkCanonical(t, &c, doc) {
			both++
		}
	}
	// Most mutants break the JSON; enough must survive to compare.
	if both < n/10 {
		t.Errorf("only %d of %d documents were accepted by both implementations", both, n)
	}
}

// FuzzCanonicalDifferential: as TestCanonicalDifferential, on any input.
func FuzzCanonicalDifferential(f *testing.F) {
	for _, s := range seedCards(f) {
		f.Add(s)
	}
	for _, s := range canonicalSeeds {
		f.Add([]byte(s))
	}
	var c canon.Canonicalizer
	f.Fuzz(func(t *testing.T, doc []byte) {
		if len(doc) > maxFuzzInput {
			t.Skip("input too large")
		}
		checkCanonical(t, &c, doc)
	})
}
