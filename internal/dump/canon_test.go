package dump

import (
	"slices"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/report"
)

func TestCanonReaders(t *testing.T) {
	for _, tc := range []struct {
		card string
		path []string
		want string
	}{
		{`{"a":1,"b":"x"}`, []string{"b"}, `"x"`},
		{`{"a":"q\"}{[","b":[1,{"c":"\\"}]}`, []string{"b", "1", "c"}, `"\\"`},
		{`{"a":{"b":{"c":[true,false,null]}}}`, []string{"a", "b", "c", "2"}, `null`},
		{`{"skills":[{"id":"s1"},{"id":"s\"2"}]}`, []string{"skills", "1", "id"}, `"s\"2"`},
		{`{"a":1}`, []string{"b"}, ``},
		{`{"a":[]}`, []string{"a", "0"}, ``},
	} {
		canon, err := fastvalidate.AppendCanonical(nil, []byte(tc.card), fastvalidate.CanonicalOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := string(lookup(canon, tc.path...)); got != tc.want {
			t.Errorf("%s %v: got %s, want %s", tc.card, tc.path, got, tc.want)
		}
	}
	if got := unquote([]byte(`"s\"2\u00e9"`)); got != "s\"2é" {
		t.Errorf("unquote: %q", got)
	}
}

// TestDigestRoundTrip decodes what Append encodes, and a digest cut short
// anywhere decodes as bad rather than panicking.
func TestDigestRoundTrip(t *testing.T) {
	card := []byte(`{"url":"https://a.example/","version":"1.0","skills":[{"id":"s1"}],"securitySchemes":{"k":{"type":"apiKey"}},"capabilities":{"streaming":true,"push":false}}`)
	x := NewExtractor(KeyAuto)
	v := fastvalidate.MustNew("auto")
	b := x.Append(nil, report.FromResult("in", 3, 1, 0, card, v.Validate(card)), v)
	rec, rest, ok := nextDigest(b)
	if !ok || len(rest) != 0 {
		t.Fatal("not one digest")
	}
	d, ok := decodeDigest(rec)
	if !ok || d.Kind != KindURL || d.Key != "https://a.example/" || d.Input != "in" || d.Line != 3 {
		t.Fatalf("decoded %+v", d)
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
