package dump

import (
	"bytes"
	"encoding/hex"
	"slices"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/corpus"
	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/report"
)

func benchCards(b *testing.B, dialects ...string) [][]byte {
	g, err := corpus.New(corpus.Options{Seed: 1, Dialects: dialects, DefectRate: 0.05})
	if err != nil {
		b.Fatal(err)
	}
	cards := make([][]byte, 2000)
	for i := range cards {
		cards[i] = g.Next().JSON
	}
	return cards
}

// BenchmarkValidate, BenchmarkValidateDigest and BenchmarkValidateClaims
// judge the same cards, the second also digesting them as diff does, the
// third taking their claims as --cross-card does: the cost of each beside
// validation's.
func BenchmarkValidate(b *testing.B) { benchExtract(b, 0) }

func BenchmarkValidateDigest(b *testing.B) { benchExtract(b, 1) }

func BenchmarkValidateClaims(b *testing.B) { benchExtract(b, 2) }

// BenchmarkValidateCrossClaims takes the claims as --cross-card does of a
// file it can read again: an identified card's content is not hashed.
func BenchmarkValidateCrossClaims(b *testing.B) { benchExtract(b, 3) }

func benchExtract(b *testing.B, mode int) {
	cards := benchCards(b, "agentcard")
	var size int64
	for _, c := range cards {
		size += int64(len(c))
	}
	v := fastvalidate.MustNew("auto")
	x := NewExtractor(KeyAuto)
	x.claimsOnly = mode >= 2
	x.mayDefer = mode == 3
	x.place = []byte{0} // as Cross.Extract numbers the first input
	var buf []byte
	var out int
	b.SetBytes(size)
	for b.Loop() {
		out = 0
		for _, c := range cards {
			res := v.Validate(c)
			switch mode {
			case 1:
				buf = x.Append(buf[:0], report.FromResult("a", 1, 1, 0, c, res), v)
			case 2:
				buf = x.AppendClaims(buf[:0], report.FromResult("a", 1, 1, 0, c, res), v)
			case 3:
				buf = x.appendCrossClaims(buf[:0], report.FromResult("a", 1, 1, 0, c, res), v)
			}
			out += len(buf)
		}
	}
	// What diff holds (or spills) per card, or --cross-card: its memory
	// and disk per million cards, here with a one-byte input name.
	b.ReportMetric(float64(out)/float64(len(cards)), "B/card")
}

// digestOf returns what diff compares of a card: its content hash and the
// encoded members, which carry each member's hash and its value.
func digestOf(t *testing.T, x *Extractor, card string) ([16]byte, string) {
	t.Helper()
	v := fastvalidate.MustNew("auto")
	c := []byte(card)
	rec, _, ok := nextDigest(x.Append(nil, report.FromResult("a", 1, 1, 0, c, v.Validate(c)), v))
	if !ok {
		t.Fatalf("%s: no digest", card)
	}
	sum, _, ok := digestHead(rec)
	if !ok {
		t.Fatalf("%s: bad digest", card)
	}
	return sum, string(x.menc)
}

// TestDigestEquality: cards whose RFC 8785 canonical forms are equal digest
// alike, whatever their white space, member order, string escapes or number
// forms; any change of content digests differently.
func TestDigestEquality(t *testing.T) {
	const base = `{"url":"https://a.example/","name":"a","version":"1","n":100,"skills":[{"id":"s1","tags":["x"]}]}`
	x := NewExtractor(KeyAuto)
	baseSum, baseMembers := digestOf(t, x, base)
	for _, tc := range []struct {
		name, card string
		same       bool
	}{
		{"white space", " {\n\t\"url\" : \"https://a.example/\",\r\n \"name\":\"a\", \"version\":\"1\",\"n\":100,\"skills\":[ {\"id\":\"s1\", \"tags\":[ \"x\" ] } ] }\n", true},
		{"member order", `{"skills":[{"tags":["x"],"id":"s1"}],"n":100,"version":"1","name":"a","url":"https://a.example/"}`, true},
		{"escaped letter", `{"url":"https://a.example/","name":"\u0061","version":"1","n":100,"skills":[{"id":"s1","tags":["x"]}]}`, true},
		{"escaped solidus", `{"url":"https:\/\/a.example\/","name":"a","version":"1","n":100,"skills":[{"id":"s1","tags":["x"]}]}`, true},
		{"escaped name", `{"url":"https://a.example/","n\u0061me":"a","version":"1","n":100,"skills":[{"id":"s1","tags":["x"]}]}`, true},
		// RFC 8785 writes numbers as ECMAScript does: 100 whatever its form.
		{"number 100.0", `{"url":"https://a.example/","name":"a","version":"1","n":100.0,"skills":[{"id":"s1","tags":["x"]}]}`, true},
		{"number 1e2", `{"url":"https://a.example/","name":"a","version":"1","n":1e2,"skills":[{"id":"s1","tags":["x"]}]}`, true},
		{"number 1E+2", `{"url":"https://a.example/","name":"a","version":"1","n":1E+2,"skills":[{"id":"s1","tags":["x"]}]}`, true},
		{"string changed", `{"url":"https://a.example/","name":"b","version":"1","n":100,"skills":[{"id":"s1","tags":["x"]}]}`, false},
		{"number changed", `{"url":"https://a.example/","name":"a","version":"1","n":101,"skills":[{"id":"s1","tags":["x"]}]}`, false},
		{"number became string", `{"url":"https://a.example/","name":"a","version":"1","n":"100","skills":[{"id":"s1","tags":["x"]}]}`, false},
		{"nested change", `{"url":"https://a.example/","name":"a","version":"1","n":100,"skills":[{"id":"s1","tags":["y"]}]}`, false},
		{"array order", `{"url":"https://a.example/","name":"a","version":"1","n":100,"skills":[{"id":"s1","tags":["x","z"]}]}`, false},
		{"member added", `{"url":"https://a.example/","name":"a","version":"1","n":100,"skills":[{"id":"s1","tags":["x"]}],"m":null}`, false},
		{"member removed", `{"url":"https://a.example/","name":"a","version":"1","skills":[{"id":"s1","tags":["x"]}]}`, false},
		{"name moved", `{"url":"https://a.example/","nam":"a","version":"1","n":100,"skills":[{"id":"s1","tags":["x"]}]}`, false},
		{"value moved between members", `{"url":"https://a.example/","name":"1","version":"a","n":100,"skills":[{"id":"s1","tags":["x"]}]}`, false},
		{"case changed", `{"url":"https://a.example/","name":"A","version":"1","n":100,"skills":[{"id":"s1","tags":["x"]}]}`, false},
	} {
		sum, members := digestOf(t, x, tc.card)
		if got := sum == baseSum; got != tc.same {
			t.Errorf("%s: same hash %v, want %v", tc.name, got, tc.same)
		}
		if got := members == baseMembers; got != tc.same {
			t.Errorf("%s: same members %v, want %v", tc.name, got, tc.same)
		}
	}
}

// TestContentKey: a content key is XXH3-128 as xxhsum -H2 writes it (its
// reference value for no input), big-endian.
func TestContentKey(t *testing.T) {
	got := sum128(nil)
	if want := "99aa06d3014798d86001c324468d497f"; hex.EncodeToString(got[:]) != want {
		t.Errorf("XXH3-128 of nothing: %x, want %s", got, want)
	}
}

// TestDigestRoundTrip decodes what Append encodes, and a digest cut short
// anywhere decodes as bad rather than panicking.
func TestDigestRoundTrip(t *testing.T) {
	card := []byte(`{"url":"https://a.example/","version":"1.0","skills":[{"id":"s1"}],"securitySchemes":{"k":{"type":"apiKey"}},"capabilities":{"streaming":true,"push":false}}`)
	x := NewExtractor(KeyAuto)
	v := fastvalidate.MustNew("auto")
	vd := report.FromResult("in", 3, 1, 0, card, v.Validate(card))
	vd.Signers = []string{"NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs", "9ZhHn5lW0GkE2t2ipf9QhSVYUtT1VJf5kM3xjCmvO4A"}
	b := x.Append(nil, vd, v)
	rec, rest, ok := nextDigest(b)
	if !ok || len(rest) != 0 {
		t.Fatal("not one digest")
	}
	d, ok := decodeDigest(rec)
	if !ok || d.Kind != KindURL || d.Key != "https://a.example/" || d.Input != "in" || d.Line != 3 {
		t.Fatalf("decoded %+v", d)
	}
	if want := strings.Join(vd.Signers, " "); d.Signers != want {
		t.Errorf("signers %q, want %q", d.Signers, want)
	}
	var items []string
	for _, m := range d.members {
		for _, it := range m.items {
			items = append(items, it.pointer+"="+it.label)
		}
	}
	// The members of objects itemised by entry come last (digestCard):
	// the order of members in a digest is its own.
	slices.Sort(items)
	want := "/capabilities/streaming=streaming /securitySchemes/k=k /skills/0=s1 /url=https://a.example/ /version=1.0"
	if got := strings.Join(items, " "); got != want {
		t.Errorf("items %s, want %s", got, want)
	}
	for i := range rec {
		if _, ok := decodeDigest(rec[:i]); ok && i < len(rec)-1 {
			// A prefix may end on a field boundary only at the very end.
			t.Errorf("a digest cut at %d of %d decoded", i, len(rec))
		}
	}
}

// TestPriorDigestIsTheSame digests generated cards of every dialect (with
// defects) as an old dump, then again as the new dump with the old one's
// digests to look up (Differ.OldRead): a card found there as the same
// bytes has its hashes and members copied, or, when valid, its whole
// digest recalled, and either must be the digest it would have had
// computed, byte for byte. Cards edited in the new dump must be digested
// afresh.
func TestPriorDigestIsTheSame(t *testing.T) {
	g, err := corpus.New(corpus.Options{Seed: 7, DefectRate: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	var cards [][]byte
	for range 600 {
		cards = append(cards, g.Next().JSON)
	}
	d, err := NewDiffer(1 << 30)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	v := fastvalidate.MustNew("auto")
	plain := NewExtractor(KeyAuto)
	for i, c := range cards {
		rec := plain.Append(nil, report.FromResult("old", i+1, 1, 0, c, v.Validate(c)), v)
		if err := d.AddOld(rec); err != nil {
			t.Fatal(err)
		}
	}
	prior, recall := d.OldRead()
	if prior == nil || recall == nil {
		t.Fatal("no index of the old dump in memory")
	}
	recalls := recall()
	recalled := 0
	x := NewExtractor(KeyAuto)
	x.SetPrior(prior)
	copied := 0
	for i, c := range cards {
		if i%5 == 0 {
			// Edited: the same key, other bytes.
			c = []byte(strings.Replace(string(c), `"`, `"x`, 3))
		}
		vd := report.FromResult("new", i+1, 1, 0, c, v.Validate(c))
		want := plain.Append(nil, vd, v)
		got := x.Append(nil, vd, v)
		if x.same != nil {
			copied++
			if i%5 == 0 {
				t.Errorf("card %d: edited, but its old digest was taken", i)
			}
		}
		if string(got) != string(want) {
			t.Errorf("card %d: digest with the old dump's differs from the one computed:\n%q\n%q", i, got, want)
		}
		if got, ok := recalls(nil, c, "new", i+1); ok {
			recalled++
			if !vd.Valid || i%5 == 0 {
				t.Errorf("card %d (valid %v) recalled", i, vd.Valid)
			}
			if string(got) != string(want) {
				t.Errorf("card %d: recalled digest differs from the one computed:\n%q\n%q", i, got, want)
			}
		}
	}
	if copied < len(cards)/2 {
		t.Errorf("only %d of %d cards found the same in the old dump", copied, len(cards))
	}
	if recalled < len(cards)/2 {
		t.Errorf("only %d of %d cards recalled from the old dump", recalled, len(cards))
	}
	t.Logf("%d of %d digests copied from the old dump, %d records recalled whole", copied, len(cards), recalled)
}

// TestDigestKeyHeadAsParts checks that digestKeyHead, which merge reads
// both from, reads what digestKey and digestHead read apart, from whole
// digests and from every cut of one.
func TestDigestKeyHeadAsParts(t *testing.T) {
	batches, _ := syntheticDigests(50, 0, 40, 50, 0, "")
	for rec := range eachDigest(batches) {
		for cut := range len(rec) + 1 {
			r := rec[:cut]
			key, sum, valid, ok := digestKeyHead(r)
			wantSum, wantValid, wantOK := digestHead(r)
			_, wantKey := digestKey(r)
			if !bytes.Equal(key, wantKey) || sum != wantSum || valid != wantValid || ok != wantOK {
				t.Fatalf("%q cut at %d: key %q sum %x valid %v ok %v, want %q %x %v %v",
					rec, cut, key, sum, valid, ok, wantKey, wantSum, wantValid, wantOK)
			}
		}
	}
}
