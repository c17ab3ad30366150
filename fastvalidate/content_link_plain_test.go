package fastvalidate

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// plainLinkSeeds are links of the forms readPlainLink reads and of those
// it leaves to checkLink's general way.
var plainLinkSeeds = []string{
	"https://example.com/a", "http://example.com:8080", "https://user:pw@example.com/",
	"https://a@b@example.com:1/x?y#z", "https://[::1]:8080/", "https://[fe80::1%25eth0]/",
	"http://127.0.0.1/", "http://2130706433", "http://0x7f.1/", "https://xn--80ak6aa92e.com/",
	"https://Xn--80ak6aa92e.com", "https://ex--ample.com", "https://пример.рф/", "https://a-b.c-d/",
	"javascript://x%0Aalert(1)", "file:///etc/passwd", "FILE://host/x", "data://x", "http://",
	"http:///x", "http://@", "http://:80", "http://h?x@y", "http://h#@y", "http://h/@y:1",
	"mailto:a@b", "javascript:alert(1)&x", "java\tscript://x", "&#106;avascript://x",
	"ht&tp://x", "x:&colon;//y", "https:/x", "https:", ":x", "1http://x", "a+b-c.d://h",
	"http://fe80::1%eth0/", "http://h%41/", "http://h--%/", "http://\xff\xfe/", "http://a\x80@b/",
}

// TestReadPlainLinkAsGeneral holds readPlainLink to checkLink's general
// way of reading a link (referencedScheme, schemeWithoutTabs,
// readAuthority, withoutZone, hasNonASCII, hasACE): on every link it
// reads, the same scheme and authority, and no flag off that the host
// needed.
func TestReadPlainLinkAsGeneral(t *testing.T) {
	read := 0
	for _, u := range plainLinkSeeds {
		if comparePlainLink(t, []byte(u)) {
			read++
		}
	}
	if read < len(plainLinkSeeds)/2 {
		t.Fatalf("readPlainLink read %d of %d links: the common forms should be read in one pass", read, len(plainLinkSeeds))
	}
	for _, u := range []string{"https://example.com/a", "http://user@h:1?q"} {
		if _, _, ok := readPlainLink([]byte(u)); !ok {
			t.Errorf("readPlainLink(%q) left a plain link to the general way", u)
		}
	}
}

func FuzzReadPlainLink(f *testing.F) {
	for _, u := range plainLinkSeeds {
		f.Add([]byte(u))
	}
	f.Fuzz(func(t *testing.T, u []byte) {
		for len(u) > 0 && u[0] <= ' ' {
			u = u[1:]
		}
		comparePlainLink(t, u)
	})
}

// comparePlainLink compares readPlainLink's reading of u with the
// general way's, and says whether readPlainLink read it.
func comparePlainLink(t *testing.T, u []byte) bool {
	t.Helper()
	scheme, a, ok := readPlainLink(u)
	if !ok {
		return false
	}
	if bytes.IndexByte(u, '&') >= 0 && referencedScheme(u) != nil {
		t.Fatalf("%q: read in one pass, but has a character reference before its first '/'", u)
	}
	colon := bytes.IndexByte(u, ':')
	var compact [16]byte
	if colon <= 0 || !bytes.Equal(scheme, schemeWithoutTabs(u[:colon], &compact)) {
		t.Fatalf("%q: scheme %q, the general way's colon at %d", u, scheme, colon)
	}
	rest := u[colon+1:]
	if len(rest) < 2 || rest[0] != '/' || rest[1] != '/' {
		t.Fatalf("%q: read an authority where the general way reads none", u)
	}
	want := readAuthority(rest[2:])
	if !bytes.Equal(a.host, want.host) || a.userinfo != want.userinfo {
		t.Fatalf("%q: host %q, userinfo %v; readAuthority says %q, %v", u, a.host, a.userinfo, want.host, want.userinfo)
	}
	if !a.zone && !bytes.Equal(withoutZone(a.host), a.host) {
		t.Fatalf("%q: no zone seen, but withoutZone(%q) cuts it", u, a.host)
	}
	if !a.wide && hasNonASCII(a.host) {
		t.Fatalf("%q: no byte beyond ASCII seen in host %q", u, a.host)
	}
	if !a.dashes && hasACE(a.host) {
		t.Fatalf("%q: no two dashes seen in host %q, which has an ACE prefix", u, a.host)
	}
	return true
}

// readLinkGeneral reads link u checkLink's general way, as far as
// readPlainLink reads it, and says whether its host needs checkIDNHost.
func readLinkGeneral(u []byte) (linkAuthority, bool) {
	if bytes.IndexByte(u, '&') >= 0 && referencedScheme(u) != nil {
		return linkAuthority{}, false
	}
	colon := bytes.IndexByte(u, ':')
	if colon <= 0 {
		return linkAuthority{}, false
	}
	var compact [16]byte
	if len(schemeWithoutTabs(u[:colon], &compact)) == 0 {
		return linkAuthority{}, false
	}
	rest := u[colon+1:]
	if len(rest) < 2 || rest[0] != '/' || rest[1] != '/' {
		return linkAuthority{}, false
	}
	a := readAuthority(rest[2:])
	host := withoutZone(a.host)
	return a, hasNonASCII(host) || hasACE(host)
}

// BenchmarkReadLink reads the links of the cards of $CARDSCAN_CONTENT_DUMP
// (the values of endpoint and of names ending in url, uri or href) the
// general way and by readPlainLink, falling back to the general way.
func BenchmarkReadLink(b *testing.B) {
	var links [][]byte
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				walk(k, e)
			}
		case []any:
			for _, e := range v {
				walk(key, e)
			}
		case string:
			if k := strings.ToLower(key); k == "endpoint" || strings.HasSuffix(k, "url") || strings.HasSuffix(k, "uri") || strings.HasSuffix(k, "href") {
				links = append(links, []byte(v))
			}
		}
	}
	for _, card := range contentDumpCards(b) {
		var v any
		if json.Unmarshal(card, &v) == nil {
			walk("", v)
		}
	}
	b.Run("general", func(b *testing.B) {
		idn := 0
		for b.Loop() {
			for _, u := range links {
				if _, ok := readLinkGeneral(u); ok {
					idn++
				}
			}
		}
		b.ReportMetric(float64(len(links)), "links")
	})
	b.Run("plain", func(b *testing.B) {
		idn := 0
		for b.Loop() {
			for _, u := range links {
				a, plain := linkAuthority{}, false
				if _, a, plain = readPlainLink(u); plain {
					if a.wide && hasNonASCII(a.host) || a.dashes && hasACE(a.host) {
						idn++
					}
					continue
				}
				if _, ok := readLinkGeneral(u); ok {
					idn++
				}
			}
		}
		b.ReportMetric(float64(len(links)), "links")
	})
}
