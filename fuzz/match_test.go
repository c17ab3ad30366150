package fuzz

import (
	"bytes"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/oklog/ulid/v2"
)

// References for the matchers, each from its specification's own grammar.
var (
	// semver.org, FAQ "Is there a suggested regular expression?".
	semverRef = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)
	// draft-aevum-agentcard-00, section 2.4.1.
	capabilityIDRef = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)
	// RFC 3986 section 3 and appendix A, the URI rule, written out below.
	uriRef = regexp.MustCompile(rfc3986URI())
)

// rfc3986URI spells the ABNF of RFC 3986 appendix A as a regular
// expression, rule by rule, for the production URI. Capture groups: 1
// scheme, 2 host as written (IP-literal with brackets).
func rfc3986URI() string {
	const (
		hexdig     = `[0-9A-Fa-f]`
		pctEncoded = `%` + hexdig + hexdig
		unreserved = `A-Za-z0-9\-._~`
		subDelims  = `!$&'()*+,;=`
	)
	pchar := `(?:[` + unreserved + subDelims + `:@]|` + pctEncoded + `)`
	scheme := `([A-Za-z][A-Za-z0-9+\-.]*)`
	userinfo := `(?:[` + unreserved + subDelims + `:]|` + pctEncoded + `)*`
	h16 := hexdig + `{1,4}`
	decOctet := `(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9][0-9]|[0-9])`
	ipv4 := decOctet + `\.` + decOctet + `\.` + decOctet + `\.` + decOctet
	ls32 := `(?:` + h16 + `:` + h16 + `|` + ipv4 + `)`
	rep := func(n int) string { // ( h16 ":" ) repeated n times
		return strings.Repeat(h16+`:`, n)
	}
	upTo := func(n int) string { // [ *n( h16 ":" ) h16 ]
		return `(?:(?:` + h16 + `:){0,` + string(rune('0'+n)) + `}` + h16 + `)?`
	}
	ipv6 := `(?:` + strings.Join([]string{
		rep(6) + ls32,
		`::` + rep(5) + ls32,
		`(?:` + h16 + `)?::` + rep(4) + ls32,
		upTo(1) + `::` + rep(3) + ls32,
		upTo(2) + `::` + rep(2) + ls32,
		upTo(3) + `::` + h16 + `:` + ls32,
		upTo(4) + `::` + ls32,
		upTo(5) + `::` + h16,
		upTo(6) + `::`,
	}, `|`) + `)`
	ipvFuture := `[vV]` + hexdig + `+\.[` + unreserved + subDelims + `:]+`
	ipLiteral := `\[(?:` + ipv6 + `|` + ipvFuture + `)\]`
	regName := `(?:[` + unreserved + subDelims + `]|` + pctEncoded + `)*`
	host := `(` + ipLiteral + `|` + ipv4 + `|` + regName + `)`
	authority := `(?:` + userinfo + `@)?` + host + `(?::[0-9]*)?`
	pathAbempty := `(?:/` + pchar + `*)*`
	pathAbsolute := `/(?:` + pchar + `+(?:/` + pchar + `*)*)?`
	pathRootless := pchar + `+(?:/` + pchar + `*)*`
	hierPart := `(?://` + authority + pathAbempty + `|` + pathAbsolute + `|` + pathRootless + `|)`
	query := `(?:` + pchar + `|[/?])*`
	return `^` + scheme + `:` + hierPart + `(?:\?` + query + `)?(?:#` + query + `)?$`
}

// checkAgentID compares IsAgentID and ULIDTime with oklog/ulid's strict
// parser. ulid accepts lowercase, which the draft's alphabet excludes, so
// the verdicts are compared on inputs without lowercase letters only.
func checkAgentID(t *testing.T, b []byte) {
	t.Helper()
	isID := fastvalidate.IsAgentID(b)
	ms, timeOK := fastvalidate.ULIDTime(b)
	id, err := ulid.ParseStrict(string(b))
	if bytes.IndexFunc(b, func(r rune) bool { return r >= 'a' && r <= 'z' }) < 0 {
		want := err == nil
		if got := isID && b[0] <= '7'; got != want {
			t.Fatalf("%q: IsAgentID=%v, first char <= '7'; ulid.ParseStrict error %v", b, isID, err)
		}
		if isID && b[0] > '7' && err != ulid.ErrOverflow {
			t.Fatalf("%q: IsAgentID true above '7', ulid error %v, want ErrOverflow", b, err)
		}
	} else if isID {
		t.Fatalf("%q: IsAgentID accepts lowercase", b)
	}
	if isID && b[0] <= '7' {
		if !timeOK || ms != id.Time() {
			t.Fatalf("%q: ULIDTime = %d, %v; ulid says %d", b, ms, timeOK, id.Time())
		}
	}
}

func checkSemVer(t *testing.T, b []byte) {
	t.Helper()
	if got, want := fastvalidate.IsSemVer(b), semverRef.Match(b); got != want {
		t.Fatalf("IsSemVer(%q) = %v, semver.org regexp says %v", b, got, want)
	}
}

func checkCapabilityID(t *testing.T, b []byte) {
	t.Helper()
	if got, want := fastvalidate.IsCapabilityID(b), capabilityIDRef.Match(b); got != want {
		t.Fatalf("IsCapabilityID(%q) = %v, regexp says %v", b, got, want)
	}
}

func checkURI(t *testing.T, b []byte) {
	t.Helper()
	u, ok := fastvalidate.ParseURI(b)
	m := uriRef.FindSubmatch(b)
	if ok != (m != nil) {
		t.Fatalf("ParseURI(%q) ok = %v, RFC 3986 grammar says %v", b, ok, m != nil)
	}
	if !ok {
		return
	}
	host := m[2]
	if len(host) > 0 && host[0] == '[' {
		host = host[1 : len(host)-1]
	}
	if !bytes.Equal(u.Scheme, m[1]) || !bytes.Equal(u.Host, host) {
		t.Fatalf("ParseURI(%q) = scheme %q host %q; grammar says %q %q", b, u.Scheme, u.Host, m[1], host)
	}
	if hasAuth := bytes.HasPrefix(b[len(m[1])+1:], []byte("//")); u.HasAuthority != hasAuth {
		t.Fatalf("ParseURI(%q) HasAuthority = %v, want %v", b, u.HasAuthority, hasAuth)
	}
}

// pick returns a random element.
func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// genAgentID makes strings near the agent_id grammar: mostly 26 characters
// of the alphabet, with edits at the edges.
func genAgentID(r *rand.Rand) []byte {
	const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	const near = "ILOU@[`{:/ \x00\x80\xffiloz-"
	n := 26
	switch r.IntN(10) {
	case 0:
		n = r.IntN(30)
	case 1:
		n = 25 + r.IntN(3)
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
		if r.IntN(40) == 0 {
			b[i] = near[r.IntN(len(near))]
		}
	}
	return b
}

// genSemVer assembles versions from parts that are valid or just off.
func genSemVer(r *rand.Rand) []byte {
	nums := []string{"0", "1", "2", "9", "10", "42", "0", "1", "01", "00", "", "99999999999999999999", "1a", "-1"}
	ids := []string{"alpha", "0", "01", "00", "0a", "a0", "-", "--", "", "rc", "1", "x-y", "é", "a_b", "A", "007", "0-"}
	var b strings.Builder
	for i := range 3 {
		if i > 0 {
			b.WriteByte(pick(r, []byte("........,")))
		}
		b.WriteString(pick(r, nums))
	}
	for _, sep := range []string{"-", "+"} {
		if r.IntN(2) == 0 {
			continue
		}
		b.WriteString(sep)
		for k := r.IntN(4); k >= 0; k-- {
			b.WriteString(pick(r, ids))
			if k > 0 {
				b.WriteByte('.')
			}
		}
	}
	if r.IntN(20) == 0 {
		b.WriteString(pick(r, []string{" ", "\n", "+x", "-", "."}))
	}
	return []byte(b.String())
}

func genCapabilityID(r *rand.Rand) []byte {
	const chars = "abz09._-AZ /:é\x00"
	b := make([]byte, r.IntN(8))
	for i := range b {
		b[i] = chars[r.IntN(len(chars))]
	}
	return b
}

// genURI assembles URIs from grammar parts, some valid, some just off.
func genURI(r *rand.Rand) []byte {
	schemes := []string{"https", "http", "HTTP", "grpc+tls", "a", "urn", "mailto", "stdio", "x.y-z", "1a", "", "ht tp", "é"}
	userinfos := []string{"", "", "user@", "u:p@", "%41@", "@", "u@v@", "u[@", "%zz@", ":@"}
	hosts := []string{"a.example", "", "192.0.2.1", "256.1.1.1", "01.2.3.4", "[::1]", "[2001:db8::1]", "[::ffff:1.2.3.4]",
		"[1:2:3:4:5:6:7:8]", "[1:2:3:4:5:6:7:8:9]", "[1::2::3]", "[::]", "[fe80::1%25en0]", "[v1.x]", "[vF.a:b]", "[v.x]",
		"[1.2.3.4]", "[::g]", "[", "]", "a b", "例え", "a%2e", "a%2", "xn--a", "a_b~!$&'()*+,;="}
	ports := []string{"", "", ":80", ":", ":8a", ":65536", "::1"}
	paths := []string{"", "/", "/a/b", "//x", "/a b", "/%41", "/%4", "/é", "/a:b@c", "/{x}", "/|", `/\`, "/a?b", "a/b", ":x"}
	tails := []string{"", "", "?q=1", "?a/b?c", "#f", "#a#b", "?#", "#%zz", "? ", "#/?"}
	var b strings.Builder
	b.WriteString(pick(r, schemes))
	if r.IntN(10) != 0 {
		b.WriteByte(':')
	}
	if r.IntN(3) != 0 {
		b.WriteString("//")
		b.WriteString(pick(r, userinfos))
		b.WriteString(pick(r, hosts))
		b.WriteString(pick(r, ports))
	}
	b.WriteString(pick(r, paths))
	b.WriteString(pick(r, tails))
	out := []byte(b.String())
	if r.IntN(8) == 0 && len(out) > 0 {
		out[r.IntN(len(out))] = pick(r, []byte("%[]:@/?# \"<>^`{|}\\\x7f\x00"))
	}
	return out
}

// matcherRuns is how many generated inputs each matcher differential
// checks; -short (used under the race detector) takes a tenth.
func matcherRuns() int {
	if testing.Short() {
		return 20000
	}
	return 200000
}

func TestAgentIDDifferential(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range matcherRuns() {
		checkAgentID(t, genAgentID(r))
	}
	for _, s := range []string{"01HZQK3P8EMXR9V7T5N2W4J6C0", "7ZZZZZZZZZZZZZZZZZZZZZZZZZ", "80000000000000000000000000", "00000000000000000000000000"} {
		checkAgentID(t, []byte(s))
	}
}

func TestSemVerDifferential(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	valid := 0
	for range matcherRuns() {
		b := genSemVer(r)
		checkSemVer(t, b)
		if semverRef.Match(b) {
			valid++
		}
	}
	if valid < matcherRuns()/20 {
		t.Errorf("only %d of %d generated versions are valid", valid, matcherRuns())
	}
}

func TestCapabilityIDDifferential(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range matcherRuns() {
		checkCapabilityID(t, genCapabilityID(r))
	}
}

func TestURIDifferential(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	valid := 0
	for range matcherRuns() {
		b := genURI(r)
		checkURI(t, b)
		if uriRef.Match(b) {
			valid++
		}
	}
	if valid < matcherRuns()/10 {
		t.Errorf("only %d of %d generated URIs are valid", valid, matcherRuns())
	}
}

// The URI reference must be right on RFC 3986's own examples (section 1.1.2)
// and on strings the RFC's grammar excludes.
func TestURIReference(t *testing.T) {
	for _, s := range []string{
		"ftp://ftp.is.co.za/rfc/rfc1808.txt", "http://www.ietf.org/rfc/rfc2396.txt",
		"ldap://[2001:db8::7]/c=GB?objectClass?one", "mailto:John.Doe@example.com",
		"news:comp.infosystems.www.servers.unix", "tel:+1-816-555-1212", "telnet://192.0.2.16:80/",
		"urn:oasis:names:specification:docbook:dtd:xml:4.1.2", "foo://example.com:8042/over/there?name=ferret#nose",
	} {
		if !uriRef.MatchString(s) {
			t.Errorf("reference rejects RFC 3986 example %q", s)
		}
	}
	for _, s := range []string{"", "//a", "a b:", "http://a b", "http://[::1", "http://a/%", "http://a/#a#", "http://é", "http://[1::2::3]"} {
		if uriRef.MatchString(s) {
			t.Errorf("reference accepts %q", s)
		}
	}
}

func FuzzULID(f *testing.F) {
	for _, s := range []string{"01HZQK3P8EMXR9V7T5N2W4J6C0", "7ZZZZZZZZZZZZZZZZZZZZZZZZZ", "80000000000000000000000000", "01hzqk3p8emxr9v7t5n2w4j6c0", "0123456789ABCDEFGHJKMNPQRS"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 64 {
			t.Skip()
		}
		checkAgentID(t, b)
	})
}

func FuzzSemVer(f *testing.F) {
	for _, s := range []string{"1.0.0", "1.0.0-alpha.1+build.5", "1.2.3-0123", "0.0.0-0.a-b+c", "1.0.0-"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 256 {
			t.Skip()
		}
		checkSemVer(t, b)
		checkCapabilityID(t, b)
	})
}

func FuzzURI(f *testing.F) {
	for _, s := range []string{"https://user@a.example:8443/p?q#f", "https://[2001:db8::1]/", "https://[::ffff:1.2.3.4]", "urn:a:b", "a:", "https://[v1.x]/%41"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 512 {
			t.Skip()
		}
		checkURI(t, b)
	})
}
