package dump

import (
	"bytes"
	"math/rand/v2"
	"net/url"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/cardscan/cardscan/fastvalidate"

	"github.com/zeebo/xxh3"
)

var hostCases = []string{
	"https://agents.example.com/api/v1",
	"http://Agents.Example.COM:8080/rpc?x=1#top",
	"https://a.example:/x",
	"https://a.example?q",
	"https://a.example#f",
	"https://127.0.0.1:9/jsonrpc",
	"https://localhost",
	"https://under_score.example/x",
	"https://a.example./x",
	"https://user@a.example/x",
	"https://[::1]:8080/x",
	"https://a.example:80a/x",
	"https://a%2eexample/x",
	"https://a.example/%zz",
	"https://a.example/p\x7f",
	"https://a.example/\u00e9",
	"https://p\u0430ypal.com/a",
	"https:///x",
	"https://:80/x",
	"HTTPS://a.example/x",
	"ftp://a.example/x",
	"https://a.example\\b/x",
	"https://a.example:1:2/x",
	"https://a.example/x y",
	"//a.example/x",
	"",
	"stdio:translate-agent",
	"file:///usr/local/bin/agent",
	"file:///x#//a.example",
	"File:///x",
	"x1:///a",
	"a#b:///c",
	"mailto:a@b.example",
	"urn:a:b//c.example",
	"stdio:a\x00b",
	"mcp://edge.example.org:9000/invoke/tasks",
	"grpc://a2a.acme.example:443/a2a",
	"git+ssh://a.example/x",
	"x-1.2+3://h.example/",
	"1x://a.example/",
	"+x://a.example/",
	"a?b://c.example/",
	"http:x//y://z.example/",
	"wss://a.example#x",
}

// TestPlainHostAsURLParse: where plainHost reads a host, url.Parse takes
// the URL and its Hostname is that host, so that origin finds what it
// found when it parsed every URL.
func TestPlainHostAsURLParse(t *testing.T) {
	plain := 0
	for _, raw := range hostCases {
		if checkPlainHost(t, raw) {
			plain++
		}
	}
	if plain < 19 {
		t.Errorf("plainHost read %d of the URLs, want the 19 plain ones at least", plain)
	}
}

func FuzzPlainHost(f *testing.F) {
	for _, raw := range hostCases {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw string) { checkPlainHost(t, raw) })
}

func checkPlainHost(t *testing.T, raw string) bool {
	t.Helper()
	host, known := plainHost([]byte(raw))
	if !known {
		return false
	}
	u, err := url.Parse(raw)
	if len(host) == 0 {
		if err == nil && u.Hostname() != "" {
			t.Errorf("plainHost(%q) found no host, url.Parse's Hostname %q", raw, u.Hostname())
		}
		return true
	}
	if err != nil {
		t.Errorf("plainHost(%q) = %q, but url.Parse fails: %v", raw, host, err)
		return true
	}
	if u.Hostname() != string(host) {
		t.Errorf("plainHost(%q) = %q, url.Parse's Hostname %q", raw, host, u.Hostname())
	}
	return true
}

// TestOriginsRemembered: a host's origin and claim are found once per
// worker and the same whether found or remembered; a URL plainHost leaves
// alone is parsed; a card's first endpoint with a host gives them.
func TestOriginsRemembered(t *testing.T) {
	var o origins
	eps, ends := []byte{}, []int{}
	for _, u := range []string{"mailto:x", "https://Desk.PayPal.com:443/a2a", "https://other.example/"} {
		eps = append(eps, u...)
		ends = append(ends, len(eps))
	}
	for i := range 2 {
		of := o.origin(eps, ends)
		if of == nil || of.origin != "paypal.com" || string(of.skeleton) != "host paypal.com" || string(of.other) != "paypal.com\x00paypal.com" {
			t.Fatalf("round %d: origin = %+v; want paypal.com", i, of)
		}
	}
	if o.byHost.len() != 1 {
		t.Errorf("remembered %d hosts, want 1", o.byHost.len())
	}
	raw := "https://xn--pypal-4ve.com/a"
	if of := o.origin([]byte(raw), []int{len(raw)}); of == nil || of.origin != "xn--pypal-4ve.com" ||
		string(of.skeleton) != "host paypal.com" || string(of.other) != "xn--pypal-4ve.com\x00p\u0430ypal.com" {
		t.Errorf("punycode host: origin = %+v", of)
	}
	raw = "https://p\u0430ypal.com/a"
	if of := o.origin([]byte(raw), []int{len(raw)}); of == nil || of.origin != "p\u0430ypal.com" {
		t.Errorf("Unicode host: origin = %+v", of)
	}
	if of := o.origin([]byte("https:///x"), []int{len("https:///x")}); of != nil {
		t.Errorf("a URL without a host gave an origin: %+v", of)
	}
}

// TestHashedTellsHighHalves: hashed gives a value only for the key it was
// put with, all 128 bits of it; a key of the same low half takes the
// entry's place without growing the table; the table holds maxOrigins.
func TestHashedTellsHighHalves(t *testing.T) {
	var h hashed[string]
	if _, ok := h.get(xxh3.Uint128{Hi: 1, Lo: 7}); ok {
		t.Fatal("an empty table gave a value")
	}
	h.put(xxh3.Uint128{Hi: 1, Lo: 7}, "one")
	if v, ok := h.get(xxh3.Uint128{Hi: 1, Lo: 7}); !ok || v != "one" {
		t.Errorf("get = %q, %v; want one", v, ok)
	}
	if v, ok := h.get(xxh3.Uint128{Hi: 2, Lo: 7}); ok {
		t.Errorf("another high half gave %q", v)
	}
	h.put(xxh3.Uint128{Hi: 2, Lo: 7}, "two")
	if v, ok := h.get(xxh3.Uint128{Hi: 2, Lo: 7}); !ok || v != "two" || h.len() != 1 {
		t.Errorf("get = %q, %v, %d entries; want two in 1", v, ok, h.len())
	}
	if _, ok := h.get(xxh3.Uint128{Hi: 1, Lo: 7}); ok {
		t.Error("the replaced key still gave a value")
	}
	for i := range 2 * maxOrigins {
		h.put(xxh3.Uint128{Hi: uint64(i), Lo: uint64(i)}, "x")
	}
	if h.len() != maxOrigins {
		t.Errorf("%d entries, want %d", h.len(), maxOrigins)
	}
}

// TestASCIISkeletonAsSkeleton: appendASCIISkeleton makes what
// fastvalidate.Skeleton does of every ASCII text, after a claim's kind as
// a worker makes them, and leaves any other text to it: texts of every
// ASCII byte, white space and letters of both cases most often, and
// texts beyond ASCII.
func TestASCIISkeletonAsSkeleton(t *testing.T) {
	alphabet := []byte(" \t\n\v\f\rAZaz09-._\x00\x1f\x7f")
	for c := range utf8.RuneSelf {
		alphabet = append(alphabet, byte(c))
	}
	texts := []string{"", " ", "Weather Agent", "  Weather\t\tAGENT \r\n", "p\u0430ypal", "caf\u00e9 ", "\u00a0name", "name\u0085"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		text := make([]byte, rng.IntN(12))
		for i := range text {
			if rng.IntN(2) == 0 {
				text[i] = alphabet[rng.IntN(22)]
			} else {
				text[i] = alphabet[rng.IntN(len(alphabet))]
			}
		}
		texts = append(texts, string(text))
	}
	for _, text := range texts {
		prefix := []byte("name ")
		want := fastvalidate.Skeleton(slices.Clone(prefix), []byte(text))
		got, ok := appendASCIISkeleton(slices.Clone(prefix), []byte(text))
		ascii := !slices.ContainsFunc([]byte(text), func(c byte) bool { return c >= utf8.RuneSelf })
		switch {
		case ok != ascii:
			t.Errorf("appendASCIISkeleton(%q): ok = %v", text, ok)
		case ok && !bytes.Equal(got, want):
			t.Errorf("appendASCIISkeleton(%q) = %q; fastvalidate.Skeleton %q", text, got, want)
		case !ok && !bytes.Equal(got, prefix):
			t.Errorf("appendASCIISkeleton(%q) left %q; want %q", text, got, prefix)
		}
	}
}

// TestPlainBytesAsTable: plainBytes, eight bytes at a time, finds every
// byte urlByte tells urlOther, whatever its place in a word or in the
// bytes after the last whole word, and passes every other.
func TestPlainBytesAsTable(t *testing.T) {
	for n := range 20 {
		for at := range n {
			for c := range 256 {
				b := bytes.Repeat([]byte{'a'}, n)
				b[at] = byte(c)
				want := urlByte[c] != urlOther
				if got := plainBytes(b); got != want {
					t.Errorf("plainBytes(%q) = %v, want %v", b, got, want)
				}
			}
		}
	}
	// Each byte next to a neighbour of every class: a borrow of one
	// byte's subtraction must not hide or invent another's.
	for _, c := range []byte{0, ' ', '!', '%', '&', 0x7e, 0x7f, 0x80, 0xff, 'a', '/'} {
		for d := range 256 {
			b := []byte{'a', 'a', 'a', c, byte(d), 'a', 'a', 'a'}
			want := urlByte[c] != urlOther && urlByte[d] != urlOther
			if got := plainBytes(b); got != want {
				t.Errorf("plainBytes(%q) = %v, want %v", b, got, want)
			}
		}
	}
}

// TestHostClaimHead: a host's claim, copied from the head its origin
// encodes once, is the claim appendClaim makes of its key and other, byte
// for byte, for inputs by name or by number and lines of one byte or more.
func TestHostClaimHead(t *testing.T) {
	var o origins
	for _, raw := range []string{"https://desk.paypal.com/a2a", "https://xn--pypal-4ve.com/a", "https://p\u0430ypal.com/a", "http://127.0.0.1:8080/"} {
		of := o.origin([]byte(raw), []int{len(raw)})
		if of == nil || of.head == nil {
			t.Fatalf("%s: origin %+v, want one with a head", raw, of)
		}
		for _, place := range [][]byte{{0}, {0x81, 0x01}, []byte("dir/cards.ndjson")} {
			for _, line := range []int{1, 127, 128, 1 << 40} {
				want := appendClaim([]byte("before"), groupLookalike, of.skeleton, of.other, place, line)
				got := appendHeadClaim([]byte("before"), of.head, place, line)
				if !bytes.Equal(got, want) {
					t.Errorf("%s, input %q, line %d: claim %q, want %q", raw, place, line, got, want)
				}
			}
		}
	}
}
