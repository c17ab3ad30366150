package fastvalidate

import (
	"bytes"
	"encoding/json"
	"net/netip"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// riskyHosts are URLs whose host no other machine reaches, written in a
// form that hides it: percent-encoded, in UTS #46 look-alikes, or as an
// IPv6 address carrying an internal IPv4 one; and the IPv4 and IPv6
// ranges of no public server. Each was passed as safe before hosts were
// decoded as clients decode them.
var riskyHosts = []string{
	"https://%31%32%37.0.0.1/",                     // 127.0.0.1
	"https://%6c%6f%63%61%6c%68%6f%73%74/",         // localhost
	"https://%4C%4F%43%41%4C%48%4F%53%54./a",       // LOCALHOST.
	"https://api.%6cocalhost/",                     // a name under localhost
	"https://127%2e0%2e0%2e1/",                     // encoded dots
	"https://%30x7f.1/",                            // 0x7f.1
	"https://%32%31%33%30%37%30%36%34%33%33:8080/", // 2130706433
	"https://1%30.0.0.1/",                          // 10.0.0.1
	"https://%EF%BC%91%EF%BC%92%EF%BC%97.0.0.1/",   // full-width digits
	"https://127%E3%80%820%E3%80%820%E3%80%821/",   // ideographic full stops
	"https://%EF%BD%8C%EF%BD%8F%EF%BD%83%EF%BD%81%EF%BD%8C%EF%BD%88%EF%BD%8F%EF%BD%93%EF%BD%94/", // full-width localhost
	"https://[::127.0.0.1]/",        // IPv4-compatible
	"https://[::a00:1]/",            // IPv4-compatible 10.0.0.1
	"https://[64:ff9b::7f00:1]/",    // NAT64 of 127.0.0.1
	"https://[64:ff9b::a9fe:a9fe]/", // NAT64 of 169.254.169.254
	"https://[64:ff9b:1::1]/",       // local-use NAT64
	"https://[2002:7f00:1::]/",      // 6to4 of 127.0.0.1
	"https://[2002:c0a8:101::1]/",   // 6to4 of 192.168.1.1
	"https://224.0.0.1/",            // multicast
	"https://239.255.255.250/",
	"https://[ff02::1]/",
	"https://[ff0e::1]/",
	"https://255.255.255.255/", // limited broadcast
	"https://0xffffffff/",
	"https://198.18.0.1/", // benchmarking
	"https://198.19.255.255/",
	"https://240.0.0.1/", // reserved
}

// safeHosts are public hosts in the same forms, and the hosts that look
// like a risky one but are not.
var safeHosts = []string{
	"https://%65xample.com/",
	"https://%31%32%37.0.0.1.example/",
	"https://b%C3%BCcher.example/",
	"https://[64:ff9b::808:808]/",
	"https://[2002:808:808::1]/",
	"https://[::8.8.8.8]/",
	"https://198.17.255.255/",
	"https://198.20.0.0/",
	"https://223.255.255.255/",
	"https://8.8.8.8/",
}

// Forms that were judged right before: kept so that decoding does not
// lose them.
var riskyHostsBefore = []string{
	"https://127.1/", "https://0x7f000001", "https://0177.0.0.1/a", "https://2130706433", "https://LOCALHOST.",
	"https://[::ffff:127.0.0.1]/", "https://10.0.0.5/", "https://169.254.169.254/", "https://100.64.0.1/", "https://[fd00::1]/",
}

func TestURLRisk_DecodedHosts(t *testing.T) {
	check := func(t *testing.T, raw string, risky bool) {
		u, ok := ParseURI([]byte(raw))
		if !ok {
			t.Fatalf("ParseURI(%s) failed", raw)
		}
		msg := urlRisk(u, "")
		if (msg != "") != risky {
			t.Errorf("urlRisk(%s) = %q, want risky %v", raw, msg, risky)
		}
		if unreachableHost(u.Host) != risky {
			t.Errorf("unreachableHost(%s) = %v, want %v", raw, !risky, risky)
		}
	}
	for _, raw := range riskyHosts {
		check(t, raw, true)
	}
	for _, raw := range riskyHostsBefore {
		check(t, raw, true)
	}
	for _, raw := range safeHosts {
		check(t, raw, false)
	}
}

// Each profile's URL checks see the decoded host: the two URLs
// are errors under the production policy, as 127.0.0.1 and localhost are.
func TestURLRisk_DecodedHostsInCards(t *testing.T) {
	for _, raw := range []string{"https://%31%32%37.0.0.1/", "https://%6c%6f%63%61%6c%68%6f%73%74/", "https://[64:ff9b::7f00:1]/", "https://198.18.0.1/"} {
		cases := []struct {
			profile, doc string
			want         []hit
		}{
			{"a2a", strings.Replace(a2aCard02, `"url": "https://agent.example.com/a2a"`, `"url": `+strconv.Quote(raw), 1),
				errAt("a2a.url-risk", "/url")},
			{"ma2d", strings.Replace(ma2dCard, `"endpoint": "https://`, `"endpoint": `+strconv.Quote(raw)+`, "x": "https://`, 1),
				errAt("ma2d.url-risk", "/invocation/endpoint")},
			{"agentcard", card(map[string]string{"endpoint": `{"protocol":"https","url":` + strconv.Quote(raw) + `}`}),
				errAt("endpoint.insecure", "/endpoint/url")},
		}
		for _, c := range cases {
			if !strings.Contains(c.doc, raw) {
				t.Fatalf("%s: the card to edit has changed", c.profile)
			}
			v := MustNew(c.profile, WithPolicy(PolicyProduction), WithClock(fixedClock))
			t.Run(c.profile+" "+raw, func(t *testing.T) {
				r := v.Validate([]byte(c.doc))
				if fs := r.Findings(); r.Valid() || len(fs) != 1 || fs[0].Code.String() != c.want[0].rule || fs[0].Path != c.want[0].path || fs[0].Severity != SeverityError {
					t.Errorf("findings %v, want one %s error at %s", fs, c.want[0].rule, c.want[0].path)
				}
			})
		}
	}
}

// A host without '%' is decoded without a copy, and judging one without
// allocating stays so.
func TestDecodeHost_NoAllocWithoutPercent(t *testing.T) {
	host := []byte("agents.example.com")
	if got := decodeHost(host); &got[0] != &host[0] {
		t.Error("decodeHost copied a host without '%'")
	}
	for _, raw := range []string{"https://agents.example.com/a", "https://127.0.0.1/", "https://[2002:c0a8:101::1]/"} {
		u, _ := ParseURI([]byte(raw))
		testAllocs(t, raw, 0, func() { urlRisk(u, "") })
	}
}

// whatwgHostname is what this package makes of a URL's host, written as
// the WHATWG URL Standard serializes a host: an IPv4 address in dotted
// decimal, an IPv6 one in brackets in its shortest hex form, a name in
// lower case.
func whatwgHostname(t *testing.T, raw string) string {
	u, ok := ParseURI([]byte(raw))
	if !ok {
		t.Fatalf("ParseURI(%s) failed", raw)
	}
	host := decodeHost(u.Host)
	if ip, ok := parseIPv4Host(host); ok {
		return netip.AddrFrom4(ip).String()
	}
	if bytes.IndexByte(host, ':') >= 0 {
		a, err := netip.ParseAddr(string(host))
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		return "[" + ipv6Hex(a.As16()) + "]"
	}
	return strings.ToLower(string(host))
}

// ipv6Hex writes an IPv6 address as the WHATWG URL Standard does: hex
// pieces, the first longest run of two or more zero pieces as "::", never
// an embedded dotted IPv4 part.
func ipv6Hex(b [16]byte) string {
	var p [8]uint16
	for i := range p {
		p[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
	}
	best, bestLen := -1, 1
	for i := 0; i < 8; {
		j := i
		for j < 8 && p[j] == 0 {
			j++
		}
		if j-i > bestLen {
			best, bestLen = i, j-i
		}
		i = max(j, i+1)
	}
	var s strings.Builder
	for i := 0; i < 8; i++ {
		if i == best {
			s.WriteString("::")
			i += bestLen - 1
			continue
		}
		if s.Len() > 0 && !strings.HasSuffix(s.String(), ":") {
			s.WriteByte(':')
		}
		s.WriteString(strconv.FormatUint(uint64(p[i]), 16))
	}
	return s.String()
}

// TestDecodeHost_AgreesWithNode holds the host decoding to an independent
// WHATWG URL parser, Node's: for each URL, the host this package judges is
// the host Node's new URL() connects to. Skipped without node.
func TestDecodeHost_AgreesWithNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed; the WHATWG URL comparison needs it")
	}
	urls := append(append(append([]string{}, riskyHosts...), safeHosts...), riskyHostsBefore...)
	for _, h := range []string{
		"example.com", "EXAMPLE.com", "%45XAMPLE.COM", "a.b-c.example", "xn--bcher-kva.example",
		"127.0.0.1", "127.0.0.1.", "127.0.1", "1.2.3", "0", "0x", "00", "0X7F.0.0.1", "0177.1",
		"017700000001", "4294967295", "0.0.0.0", "%30", "%30%78%37%66%2e%31", "%31%30.%31", "1%2E2%2E3%2E4",
		"[::1]", "[0:0:0:0:0:0:0:1]", "[::FFFF:127.0.0.1]", "[2002:7F00:1::]", "[1:0:0:2:0:0:0:3]", "[fe80::1]",
		"%E2%91%A0%E2%91%A1%E2%91%A6.0.0.1", "%F0%9D%9F%8F%F0%9D%9F%90%F0%9D%9F%95.0.0.1",
		"%EF%BC%A5%EF%BC%B8%EF%BC%A1%EF%BC%AD%EF%BC%B0%EF%BC%AC%EF%BC%A5.com", "ex%C3%A4mple.com",
	} {
		urls = append(urls, "http://"+h+"/")
	}
	in, err := json.Marshal(urls)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "hostname.mjs")
	cmd.Dir = filepath.Join("testdata", "whatwg")
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.Bytes())
	}
	var hostnames []*string
	if err := json.Unmarshal(out, &hostnames); err != nil || len(hostnames) != len(urls) {
		t.Fatalf("node's answer %s: %v", out, err)
	}
	for i, raw := range urls {
		if hostnames[i] == nil {
			t.Errorf("%s: Node's URL parser refuses it; the table should hold URLs it reads", raw)
			continue
		}
		if got := whatwgHostname(t, raw); got != *hostnames[i] {
			t.Errorf("%s: host %q, Node's hostname %q", raw, got, *hostnames[i])
		}
	}
}
