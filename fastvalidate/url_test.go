package fastvalidate

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// FuzzParsePlainHTTP checks the fast path against ParseURI: whatever it
// accepts, ParseURI accepts with the same scheme and host.
func FuzzParsePlainHTTP(f *testing.F) {
	for _, s := range []string{
		"https://agent.example.com/a2a", "http://localhost:8080/", "https://a.b/c?d=e&f=g", "https://x", "https://x:",
		"https://x:80a", "https://x/#frag", "https://x/a b", "https://x/%41", "https://[::1]/", "https://u@x/",
		"https://x?q", "https://x_y/", "HTTPS://X/", "https://", "http:/x", "https://x/é", "https://-/",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fast, ok := parsePlainHTTP(b)
		if !ok {
			return
		}
		slow, ok := ParseURI(b)
		if !ok {
			t.Fatalf("parsePlainHTTP accepts %q, ParseURI does not", b)
		}
		if !bytes.Equal(fast.Scheme, slow.Scheme) || !bytes.Equal(fast.Host, slow.Host) || fast.HasAuthority != slow.HasAuthority {
			t.Fatalf("%q: fast path gives %q %q %v, ParseURI %q %q %v", b, fast.Scheme, fast.Host, fast.HasAuthority, slow.Scheme, slow.Host, slow.HasAuthority)
		}
	})
}

// urlSamples returns URLs about what the fast paths decide: plain ones of
// every host and path length about the eight-byte steps, edge cases, and
// each of those with one byte replaced by every byte value.
func urlSamples() [][]byte {
	bases := []string{
		"https://a.example/x", "https://agents-invoice.example.com/tasks/agents", "https://tools.example.net/v2?region=eu-1",
		"https://x", "https://LOCALHOST", "https://api.localhost./a", "https://a.localhost", "https://10.0.0.5/a2a",
		"https://8.8.8.8", "https://127.0.0.1:8080/", "https://host:8443/p", "https://host:/p", "https://host:8a/p",
		"https://a.b.c.d.e.f.g.h/", "http://x.example/", "HTTPS://x.example/", "https://x_y.example/", "https://user@x/",
		"https://[::1]/", "https://[2001:db8::1]:443/", "https://x.example/%41", "https://x.example/a#f", "https://exa mple.com",
		"https://x.example/~user", "https://cafe.example.bad", "https://deadbeef", "https://1.2.3.4.example", "https://-/",
		"https://x.example?q=1&r=2", "https://x.example/a;b=c,d+e*f(g)!h$i'j@k:l", "https:///x", "https://", "https:/x",
		"https://127.1/", "https://0x7f000001", "https://0177.0.0.1/a", "https://2130706433", "https://100.64.0.1/",
		"https://0x7F.1", "https://example.de", "https://a.0x",
	}
	var out [][]byte
	for _, b := range bases {
		out = append(out, []byte(b))
	}
	host := "abcdefghijklmnopqrstuvwxyz0123456789.-ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	for n := 1; n <= 33; n++ {
		for _, path := range []string{"", "/", "/a", "/abcdefg", "/abcdefgh/ijklmno", "?q=x"} {
			h := make([]byte, n)
			for i := range h {
				h[i] = host[(i*7+n)%len(host)]
			}
			out = append(out, []byte("https://"+string(h)+path))
		}
	}
	mutated := len(out)
	for _, b := range out[:mutated] {
		for i := range b {
			for c := 0; c < 256; c++ {
				m := append([]byte(nil), b...)
				m[i] = byte(c)
				out = append(out, m)
			}
		}
	}
	return out
}

// slowSafeHTTPS is what safeHTTPS decides, by the general path.
func slowSafeHTTPS(b []byte) bool {
	u, ok := parsePlainHTTP(b)
	return ok && string(u.Scheme) == "https" && !isLocalhost(u.Host) && !isInternalIP(u.Host)
}

// TestSafeHTTPS checks the URL fast path against the general one: it
// passes exactly the URLs parsePlainHTTP parses as https to a host neither
// local nor internal, and the full check reports nothing on those, for
// every kind of URL and under either policy.
func TestSafeHTTPS(t *testing.T) {
	vs := []*Validator{MustNew("a2a/1.0"), MustNew("a2a/1.0", WithPolicy(PolicyProduction))}
	safe := 0
	for _, u := range urlSamples() {
		fast := safeHTTPS(u)
		if slow := slowSafeHTTPS(u); fast != slow {
			t.Fatalf("safeHTTPS(%q) = %v, the general path says %v", u, fast, slow)
		}
		if !fast {
			continue
		}
		safe++
		if safe%7 != 0 {
			continue // the full check on a sample is enough
		}
		doc := []byte(`{"u":` + jsonString(string(u)) + `}`)
		for _, v := range vs {
			w := &v.w
			w.b = doc
			if !w.scan(doc) {
				t.Fatalf("%s does not scan", doc)
			}
			for _, kind := range []urlKind{urlIdentifier, urlWeb, urlEndpoint} {
				w.res.reset()
				w.judgeURL(2, kind, CodeA2AURL, CodeA2AURLRisk)
				if f := w.res.Findings(); len(f) > 0 {
					t.Fatalf("safeHTTPS passes %q, the full check reports %v", u, f)
				}
			}
		}
	}
	if safe < 1000 {
		t.Fatalf("only %d samples are safe https URLs: the samples miss the fast path", safe)
	}
}

// TestNonHostBytes checks the word-at-a-time host test against the byte
// table, every byte value at every position.
func TestNonHostBytes(t *testing.T) {
	for _, fill := range []byte{'a', 'Z', '0', '.', '/', 0x0D, 0x80, 0xFF} {
		for pos := 0; pos < 8; pos++ {
			for c := 0; c < 256; c++ {
				var word [8]byte
				for i := range word {
					word[i] = fill
				}
				word[pos] = byte(c)
				got := nonHostBytes(binary.LittleEndian.Uint64(word[:]))
				for i, b := range word {
					want := plainURLClass[b]&plainHost == 0
					if flagged := got>>(8*i+7)&1 == 1; flagged != want {
						t.Fatalf("nonHostBytes(% x): byte %d (%#x) flagged %v, want %v", word, i, b, flagged, want)
					}
				}
			}
		}
	}
}

// FuzzSafeHTTPS checks the URL fast path against the general one.
func FuzzSafeHTTPS(f *testing.F) {
	for _, u := range urlSamples()[:300] {
		f.Add(u)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if fast, slow := safeHTTPS(b), slowSafeHTTPS(b); fast != slow {
			t.Fatalf("safeHTTPS(%q) = %v, the general path says %v", b, fast, slow)
		}
	})
}
