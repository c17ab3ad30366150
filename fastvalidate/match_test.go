package fastvalidate

import (
	"regexp"
	"strings"
	"testing"
)

// semverOrgRegexp is the regular expression semver.org publishes for
// Semantic Versioning 2.0.0 (FAQ, "Is there a suggested regular
// expression?").
var semverOrgRegexp = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)

// The valid and invalid lists semver.org links from the same FAQ entry.
var semverOrgValid = []string{
	"0.0.4", "1.2.3", "10.20.30", "1.1.2-prerelease+meta", "1.1.2+meta", "1.1.2+meta-valid",
	"1.0.0-alpha", "1.0.0-beta", "1.0.0-alpha.beta", "1.0.0-alpha.beta.1", "1.0.0-alpha.1",
	"1.0.0-alpha0.valid", "1.0.0-alpha.0valid", "1.0.0-alpha-a.b-c-somethinglong+build.1-aef.1-its-okay",
	"1.0.0-rc.1+build.1", "2.0.0-rc.1+build.123", "1.2.3-beta", "10.2.3-DEV-SNAPSHOT", "1.2.3-SNAPSHOT-123",
	"1.0.0", "2.0.0", "1.1.7", "2.0.0+build.1848", "2.0.1-alpha.1227", "1.0.0-alpha+beta",
	"1.2.3----RC-SNAPSHOT.12.9.1--.12+788", "1.2.3----R-S.12.9.1--.12+meta", "1.2.3----RC-SNAPSHOT.12.9.1--.12",
	"1.0.0+0.build.1-rc.10000aaa-kk-0.1", "99999999999999999999999.999999999999999999.99999999999999999",
	"1.0.0-0A.is.legal",
}

var semverOrgInvalid = []string{
	"1", "1.2", "1.2.3-0123", "1.2.3-0123.0123", "1.1.2+.123", "+invalid", "-invalid", "-invalid+invalid",
	"-invalid.01", "alpha", "alpha.beta", "alpha.beta.1", "alpha.1", "alpha+beta", "alpha_beta", "alpha.",
	"alpha..", "beta", "1.0.0-alpha_beta", "-alpha.", "1.0.0-alpha..", "1.0.0-alpha..1", "1.0.0-alpha...1",
	"1.0.0-alpha....1", "1.0.0-alpha.....1", "1.0.0-alpha......1", "1.0.0-alpha.......1", "01.1.1", "1.01.1",
	"1.1.01", "1.2", "1.2.3.DEV", "1.2-SNAPSHOT", "1.2.31.2.3----RC-SNAPSHOT.12.09.1--..12+788", "1.2-RC-SNAPSHOT",
	"-1.0.3-gamma+b7718", "+justmeta", "9.8.7+meta+meta", "9.8.7-whatever+meta+meta",
	"99999999999999999999999.999999999999999999.99999999999999999----RC-SNAPSHOT.12.09.1--------------------------------..12",
}

// More edges of the grammar than the lists cover.
var semverExtraValid = []string{
	"0.0.0", "1.0.0-0", "1.0.0-0.0", "1.0.0--", "1.0.0-a-", "1.0.0+-", "1.0.0+001", "1.0.0+0.0.0",
	"1.0.0-x.7.z.92", "1.0.0-00a", "1.0.0-0-", "1.0.0-rc.1+build.01",
}

var semverExtraInvalid = []string{
	"", "1.0.0-", "1.0.0+", "1.0.0-+x", "1.0.0-a.", "1.0.0+a.", "1.0.0-.a", "1.0.0+.a", "1.0.0-00",
	"1.0.0-01.a", "v1.0.0", "1.0.0 ", " 1.0.0", "1.0.0\n", "1..0", "1.0.", ".1.0", "1.0.0-é", "1.0.0+é",
	"1.0.0-a b", "１.0.0", "1.0.0_1", "1.0.0+a+b", "00.0.0", "0.00.0", "0.0.00", "1.0.0-alpha_1", "a.b.c",
}

func TestIsSemVer(t *testing.T) {
	check := func(s string, want bool) {
		t.Helper()
		if got := IsSemVer([]byte(s)); got != want {
			t.Errorf("IsSemVer(%q) = %v, want %v", s, got, want)
		}
		// The lists are the regexp's; keep the reference honest too.
		if ref := semverOrgRegexp.MatchString(s); ref != want {
			t.Errorf("semver.org regexp on %q = %v, want %v", s, ref, want)
		}
	}
	for _, s := range append(semverOrgValid, semverExtraValid...) {
		check(s, true)
	}
	for _, s := range append(semverOrgInvalid, semverExtraInvalid...) {
		check(s, false)
	}
}

// The draft's section 5 prints a looser regular expression than Semantic
// Versioning 2.0.0, which it cites and names in rule 5.2 and section 2.3.
// Where the two disagree, the cited standard decides: these strings match
// the draft's expression but are not SemVer, and are rejected.
func TestIsSemVer_DraftRegexpIsLooser(t *testing.T) {
	draft := regexp.MustCompile(`^(?:0|[1-9]\d*)\.(?:0|[1-9]\d*)\.(?:0|[1-9]\d*)(?:-[0-9A-Za-z\-.]+)?(?:\+[0-9A-Za-z\-.]+)?$`)
	for _, s := range []string{"1.2.3-0123", "1.0.0-alpha..1", "1.0.0-alpha.", "1.0.0-.a", "1.1.2+.123", "1.0.0+a..b", "1.0.0-01"} {
		if !draft.MatchString(s) {
			t.Errorf("draft regexp rejects %q; the case is moot", s)
		}
		if IsSemVer([]byte(s)) {
			t.Errorf("IsSemVer(%q) = true, want false (not SemVer 2.0.0)", s)
		}
	}
}

func TestIsAgentID(t *testing.T) {
	valid := []string{
		"01HZQK3P8EMXR9V7T5N2W4J6C0", "01ARZ3NDEKTSV4RRFFQ69G5FAV", "00000000000000000000000000",
		"7ZZZZZZZZZZZZZZZZZZZZZZZZZ", "ZZZZZZZZZZZZZZZZZZZZZZZZZZ", "80000000000000000000000000",
		crockfordDigits[:26], crockfordDigits[6:],
	}
	invalid := []string{
		"", "0", "01HZQK3P8EMXR9V7T5N2W4J6C", "01HZQK3P8EMXR9V7T5N2W4J6C00",
		"01HZQK3P8EMXR9V7T5N2W4J6CI", "01HZQK3P8EMXR9V7T5N2W4J6CL", "01HZQK3P8EMXR9V7T5N2W4J6CO",
		"01HZQK3P8EMXR9V7T5N2W4J6CU", "01hzqk3p8emxr9v7t5n2w4j6c0", "01HZQK3P8EMXR9V7T5N2W4J6Ca",
		"01HZQK3P8EMXR9V7T5N2W4J6C ", "01HZQK3P8EMXR9V7T5N2W4J6C-", "01HZQK3P8EMXR9V7T5N2W4J6C\x00",
		"01HZQK3P8EMXR9V7T5N2W4J6C\xff", "01HZQK3P8EMXR9V7T5N2W4J6C\x80", "0123456789ABCDEFGHIJKLMNOP",
		"@1HZQK3P8EMXR9V7T5N2W4J6C0", "[1HZQK3P8EMXR9V7T5N2W4J6C0", "01HZQK3P8EMXR9V7T5N2W4J6C`",
		"01HZQK3P8EMXR9V7T5N2W4J6C{", "01HZQK3P8EMXR9V7T5N2W4J6C:", "01HZQK3P8EMXR9V7T5N2W4J6C/",
	}
	for _, s := range valid {
		if !IsAgentID([]byte(s)) {
			t.Errorf("IsAgentID(%q) = false, want true", s)
		}
	}
	for _, s := range invalid {
		if IsAgentID([]byte(s)) {
			t.Errorf("IsAgentID(%q) = true, want false", s)
		}
	}
	// Every byte in every position: exactly the alphabet passes.
	base := []byte("00000000000000000000000000")
	for pos := range base {
		for c := 0; c < 256; c++ {
			b := append([]byte(nil), base...)
			b[pos] = byte(c)
			want := strings.IndexByte(crockfordDigits, byte(c)) >= 0
			if got := IsAgentID(b); got != want {
				t.Fatalf("IsAgentID with %q at %d = %v, want %v", byte(c), pos, got, want)
			}
		}
	}
}

func TestULIDTime(t *testing.T) {
	cases := []struct {
		id string
		ms uint64
		ok bool
	}{
		{"01ARZ3NDEKTSV4RRFFQ69G5FAV", 1469922850259, true}, // the ULID specification's example: 2016-07-30T23:54:10.259Z
		{"00000000000000000000000000", 0, true},
		{"0000000001ZZZZZZZZZZZZZZZZ", 1, true},
		{"7ZZZZZZZZZZZZZZZZZZZZZZZZZ", 1<<48 - 1, true},
		{"80000000000000000000000000", 0, false},
		{"ZZZZZZZZZZZZZZZZZZZZZZZZZZ", 0, false},
		{"0000000000", 0, false},
		// A character outside the alphabet in the timestamp, first and last.
		{"u0000000000000000000000000", 0, false},
		{"000000000I0000000000000000", 0, false},
		{"0000a00000000000000000000Z", 0, false},
	}
	for _, c := range cases {
		ms, ok := ULIDTime([]byte(c.id))
		if ok != c.ok || ok && ms != c.ms {
			t.Errorf("ULIDTime(%q) = %d, %v; want %d, %v", c.id, ms, ok, c.ms, c.ok)
		}
	}
	for _, at := range []uint64{0, 1, 1469918176385, uint64(testNow.UnixMilli()), 1<<48 - 1} {
		id := ulidAtMilli(at)
		if ms, ok := ULIDTime([]byte(id)); !ok || ms != at {
			t.Errorf("ULIDTime(%q) = %d, %v; want %d", id, ms, ok, at)
		}
	}
}

func ulidAtMilli(ms uint64) string {
	var b [10]byte
	for i := 9; i >= 0; i-- {
		b[i] = crockfordDigits[ms&31]
		ms >>= 5
	}
	return string(b[:]) + "0000000000000000"
}

var capabilityIDRegexp = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)

func TestIsCapabilityID(t *testing.T) {
	inputs := []string{
		"a", "0", "text.summarise", "tool.web_search", "data.fetch_csv", "fn.get_weather", "a2a.delegate",
		"com.example.custom_capability", "a-b", "a_b", "a.b", "a..", "9", "a-", "x" + strings.Repeat(".y", 100),
		"", "A", "Text", "tool.Web", ".a", "_a", "-a", "a b", "a/b", "a:b", "a+b", "a~b", "café", "a\n",
		"a\x00", "\xffa", "a\xff", "ａ", "a\u200b",
	}
	for _, s := range inputs {
		want := capabilityIDRegexp.MatchString(s)
		if got := IsCapabilityID([]byte(s)); got != want {
			t.Errorf("IsCapabilityID(%q) = %v, want %v", s, got, want)
		}
	}
	// Every byte at every position of ids of every length up to 20: the
	// byte loop, the two four-byte words, and the eight-byte words with
	// the last one overlapping.
	for c := 0; c < 256; c++ {
		var cases [][]byte
		for n := 1; n <= 20; n++ {
			for p := 0; p < n; p++ {
				b := []byte("a0._-z9a0._-z9a0._-z9")[:n]
				b[p] = byte(c)
				cases = append(cases, b)
			}
		}
		for _, b := range cases {
			want := capabilityIDRegexp.Match(b)
			if got := IsCapabilityID(b); got != want {
				t.Errorf("IsCapabilityID(%q) = %v, want %v", b, got, want)
			}
		}
	}
}

func TestParseURI(t *testing.T) {
	cases := []struct {
		in     string
		ok     bool
		scheme string
		host   string
		auth   bool
	}{
		{"https://agents.example.com/api/research-analyst", true, "https", "agents.example.com", true},
		{"HTTP://A.EXAMPLE", true, "HTTP", "A.EXAMPLE", true},
		{"https://user:pw@a.example:8443/p?q#f", true, "https", "a.example", true},
		{"https://[2001:db8::1]:8443/", true, "https", "2001:db8::1", true},
		{"https://[::ffff:192.0.2.1]", true, "https", "::ffff:192.0.2.1", true},
		{"https://[v7.a:b]", true, "https", "v7.a:b", true},
		{"https://192.0.2.1", true, "https", "192.0.2.1", true},
		{"https://", true, "https", "", true},
		{"file:///etc/agent", true, "file", "", true},
		{"stdio://", true, "stdio", "", true},
		{"mailto:ops@a.example", true, "mailto", "", false},
		{"urn:ietf:rfc:3986", true, "urn", "", false},
		{"urn:uuid:6e8bc430-9c3a-11d9-9669-0800200c9a66", true, "urn", "", false},
		{"tel:+1-816-555-1212", true, "tel", "", false},
		{"a:", true, "a", "", false},
		{"a+b-c.d:x", true, "a+b-c.d", "", false},
		{"news:comp.infosystems.www.servers.unix", true, "news", "", false},
		{"ldap://[2001:db8::7]/c=GB?objectClass?one", true, "ldap", "2001:db8::7", true},
		{"https://a.example/%41%7e", true, "https", "a.example", true},
		{"https://a%2Eexample/", true, "https", "a%2Eexample", true},
		{"https://a.example/!$&'()*+,;=:@-._~", true, "https", "a.example", true},
		{"https://a.example?/?#/?", true, "https", "a.example", true},
		{"x:/a//b", true, "x", "", false},
		{"x://h//a", true, "x", "h", true},

		{"", false, "", "", false},
		{":", false, "", "", false},
		{"://a", false, "", "", false},
		{"a.example/api", false, "", "", false},
		{"//a.example", false, "", "", false},
		{"/relative/path", false, "", "", false},
		{"1http://a", false, "", "", false},
		{"ht tp://a", false, "", "", false},
		{"ht_tp://a", false, "", "", false},
		{"https://a b", false, "", "", false},
		{"https://a.example/ b", false, "", "", false},
		{"https://a.example/\t", false, "", "", false},
		{"https://例え.jp", false, "", "", false},
		{"https://a.example/é", false, "", "", false},
		{"https://a.example/%", false, "", "", false},
		{"https://a.example/%4", false, "", "", false},
		{"https://a.example/%zz", false, "", "", false},
		{"https://a.example/%g0", false, "", "", false},
		{"https://a%zzexample/", false, "", "", false},
		{"https://a.example#%2", false, "", "", false},
		{"https://a.example/#a#b", false, "", "", false},
		{"https://a.example/[x]", false, "", "", false},
		{`https://a.example/"x"`, false, "", "", false},
		{"https://a.example/<x>", false, "", "", false},
		{"https://a.example/{x}", false, "", "", false},
		{"https://a.example/a|b", false, "", "", false},
		{"https://a.example/a^b", false, "", "", false},
		{"https://a.example/a`b", false, "", "", false},
		{`https://a.example\x`, false, "", "", false},
		{"https://2001:db8::1/", false, "", "", false},
		{"https://[2001:db8::1", false, "", "", false},
		{"https://[2001:db8::1]x", false, "", "", false},
		{"https://[]", false, "", "", false},
		{"https://[1.2.3.4]", false, "", "", false},
		{"https://[::g]", false, "", "", false},
		{"https://[fe80::1%25en0]", false, "", "", false},
		{"https://[v.x]", false, "", "", false},
		{"https://[v1.]", false, "", "", false},
		{"https://[vg.x]", false, "", "", false},
		{"https://a.example:80a", false, "", "", false},
		{"https://a.example:8:0", false, "", "", false},
		{"https://u@v@a.example", false, "", "", false},
		{"https://u[@a.example", false, "", "", false},
		{"https://a.example:-1", false, "", "", false},
		{"https://a.example/\x00", false, "", "", false},
		{"https://a.example/\x7f", false, "", "", false},
	}
	for _, c := range cases {
		u, ok := ParseURI([]byte(c.in))
		if ok != c.ok {
			t.Errorf("ParseURI(%q) ok = %v, want %v", c.in, ok, c.ok)
			continue
		}
		if !ok {
			continue
		}
		if string(u.Scheme) != c.scheme || string(u.Host) != c.host || u.HasAuthority != c.auth {
			t.Errorf("ParseURI(%q) = scheme %q host %q authority %v; want %q %q %v", c.in, u.Scheme, u.Host, u.HasAuthority, c.scheme, c.host, c.auth)
		}
	}
}
