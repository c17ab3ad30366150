package fastvalidate

import (
	"bytes"
	"html"
	"net/netip"
	"strings"
	"testing"
)

// readAuthorityAsBefore is readAuthority as the checks of links read an
// authority before: a loop over its bytes to find its end.
func readAuthorityAsBefore(b []byte) (host []byte, userinfo bool) {
	for i, c := range b {
		if c == '/' || c == '?' || c == '#' {
			b = b[:i]
			break
		}
	}
	host = b
	if at := bytes.LastIndexByte(b, '@'); at >= 0 {
		userinfo, host = true, b[at+1:]
	}
	if len(host) > 0 && host[0] == '[' {
		if end := bytes.IndexByte(host, ']'); end > 0 {
			return host[1:end], userinfo
		}
		return host[1:], userinfo
	}
	if c := bytes.LastIndexByte(host, ':'); c >= 0 {
		return host[:c], userinfo
	}
	return host, userinfo
}

// FuzzReadAuthority holds readAuthority to the plain reading of an
// authority, hasACE to a loop over every byte, and ipLiteral to itself
// before it told most names by their last letter.
func FuzzReadAuthority(f *testing.F) {
	for _, s := range []string{"user:pw@host.example.com:8443/x", "[::1]:80/", "[fe80::1%25lo", "a@b@c:1:2?q#f",
		"xn--80ak6aa92e.com", "Xn--80AK6AA92E.com.", "héllo.example", "0x7f.1", "0x", "127.0.0.1.", "2130706433", "acme.cafe",
		"a--b.example", "-", "", "@", ":", "x.0X", "1.2.3.G"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		a := readAuthority(b)
		host, userinfo := readAuthorityAsBefore(b)
		if string(a.host) != string(host) || a.userinfo != userinfo {
			t.Fatalf("%q: host %q userinfo %v, want %q %v", b, a.host, a.userinfo, host, userinfo)
		}
		if got, want := hasACE(host), hasACEAsBefore(host); got != want {
			t.Fatalf("hasACE(%q) = %v, want %v", host, got, want)
		}
		if got, want := ipLiteral(host), ipLiteralAsBefore(host); got != want {
			t.Fatalf("ipLiteral(%q) = %v, want %v", host, got, want)
		}
	})
}

// ipLiteralAsBefore is ipLiteral without its test of the last letter.
func ipLiteralAsBefore(host []byte) bool {
	last := host
	if n := len(last); n > 1 && last[n-1] == '.' {
		last = last[:n-1]
	}
	if dot := bytes.LastIndexByte(last, '.'); dot >= 0 {
		last = last[dot+1:]
	}
	if len(last) > 0 && (last[0] < '0' || last[0] > '9') && bytes.IndexByte(host, ':') < 0 {
		return false
	}
	if bytes.IndexByte(host, ':') >= 0 {
		for _, c := range host {
			if !(c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'f' || c == ':' || c == '.' || c == '%') {
				return false
			}
		}
		_, err := netip.ParseAddr(string(host))
		return err == nil
	}
	_, ok := parseIPv4Host(host)
	return ok
}

// hasACEAsBefore is hasACE as a loop over every byte.
func hasACEAsBefore(host []byte) bool {
	for i := 0; i+4 <= len(host); i++ {
		if host[i+2] == '-' && host[i+3] == '-' && host[i]|0x20 == 'x' && host[i+1]|0x20 == 'n' {
			return true
		}
	}
	return false
}

// FuzzReferencedScheme holds referencedScheme, which decodes only a
// link's span before its first '/', '?' or fragment, to decoding the
// whole link: the scheme it finds must be what the whole link decodes to
// before its first colon (leading spaces and control characters trimmed,
// tabs and newlines removed).
func FuzzReferencedScheme(f *testing.F) {
	for _, s := range []string{"javascript&colon;alert(1)", "&#x6A;avascript:x", "java&Tab;script&#58",
		"&#32;vbscript&#58;x", "https://a.example/?a=1&b=2", "a&amp;b", "&#;:", "&#38;#58;x", "&#x3a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, u string) {
		got := referencedScheme([]byte(u))
		if bytes.ContainsAny(got, "\t\n\r") {
			t.Fatalf("referencedScheme(%q) = %q keeps a tab or newline", u, got)
		}
		if got == nil {
			return
		}
		whole := strings.TrimLeft(html.UnescapeString(u), "\x00\x01\x02\x03\x04\x05\x06\x07\x08\t\n\x0b\x0c\r\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f ")
		colon := strings.IndexByte(whole, ':')
		if colon <= 0 {
			t.Fatalf("referencedScheme(%q) = %q, but %q has no scheme", u, got, whole)
		}
		want := strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(whole[:colon])
		if string(got) != want {
			t.Fatalf("referencedScheme(%q) = %q, decoding the whole link gives %q", u, got, want)
		}
	})
}
