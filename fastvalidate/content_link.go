package fastvalidate

import (
	"bytes"
	"html"
	"net/netip"
	"unicode"
	"unsafe"

	"github.com/cespare/xxhash/v2"
	"golang.org/x/net/idna"
	"golang.org/x/net/publicsuffix"

	"github.com/cardscan/cardscan/fastvalidate/internal/tape"
)

// checkLink judges string node n, a link member's value, by the content
// rules on links. A value that is no URL at all is left to the profile's
// own rules. work says which of those rules are on: decoding an
// internationalised host allocates, and is not done for a rule that is off.
func (w *walker) checkLink(n uint32, work contentWork) {
	u := w.str(n)
	for len(u) > 0 && u[0] <= ' ' {
		u = u[1:]
	}
	if scheme, a, ok := readPlainLink(u); ok {
		if !w.judgeScheme(n, scheme, "link scheme runs code or reads local files") {
			w.judgeAuthority(n, a, work)
		}
		return
	}
	if bytes.IndexByte(u, '&') >= 0 {
		if scheme := referencedScheme(u); scheme != nil &&
			w.judgeScheme(n, scheme, "link scheme, its HTML character references decoded, runs code or reads local files") {
			return
		}
	}
	colon := bytes.IndexByte(u, ':')
	if colon <= 0 {
		return
	}
	var compact [16]byte
	if w.judgeScheme(n, schemeWithoutTabs(u[:colon], &compact), "link scheme runs code or reads local files") {
		return
	}
	rest := u[colon+1:]
	if len(rest) < 2 || rest[0] != '/' || rest[1] != '/' {
		return
	}
	a := readAuthority(rest[2:])
	a.zone, a.dashes, a.wide = true, true, true // not looked for
	w.judgeAuthority(n, a, work)
}

// judgeAuthority applies the rules on a link's authority to a, read from
// string node n.
func (w *walker) judgeAuthority(n uint32, a linkAuthority, work contentWork) {
	if a.userinfo {
		w.addContentGot(CodeContentLinkUserinfo, n, "link has userinfo before its host")
	}
	host := a.host
	if len(host) == 0 {
		return
	}
	ip := host
	if a.zone {
		ip = withoutZone(host)
	}
	if ipLiteral(ip) {
		if !isInternalIP(ip) {
			w.addContentGot(CodeContentLinkIPHost, n, "link's host is an IP address")
		}
		return
	}
	if work&workIDN != 0 && (a.wide && hasNonASCII(host) || a.dashes && hasACE(host)) {
		w.checkIDNHost(n, host)
	}
}

// readPlainLink reads link u, its leading blanks removed, in one pass
// when it is written as nearly every link is: a scheme of RFC 3986's
// letters, digits, '+', '-' and '.' up to the first colon, then "//" and
// an authority without an IPv6 literal. It returns the scheme and the
// authority; ok is false for any other link, which checkLink reads its
// general way. For a link it reads, the answers are those of that way:
// no HTML character reference can stand before the first '/' of such a
// link (see referencedScheme: one after the colon of a link without "//"
// would change the message), nor a tab in its scheme (schemeWithoutTabs),
// and the authority is readAuthority's, but read a byte at a time by
// one table rather than by six calls of bytes.IndexByte and by
// hasNonASCII, hasACE and withoutZone each reading the host again:
// a.zone, a.dashes and a.wide say whether the authority holds a '%',
// two dashes in a row or a byte beyond ASCII, and the host needs those
// calls only when it does.
func readPlainLink(u []byte) (scheme []byte, a linkAuthority, ok bool) {
	colon := 0
	for colon < len(u) && schemeByte[u[colon]] {
		colon++
	}
	if colon == 0 || colon == len(u) || u[colon] != ':' {
		return nil, a, false
	}
	scheme = u[:colon]
	rest := u[colon+1:]
	if len(rest) < 2 || rest[0] != '/' || rest[1] != '/' {
		return nil, a, false
	}
	b := rest[2:]
	lastAt, lastColon := -1, -1
	i := 0
	for ; i < len(b); i++ {
		k := authorityByte[b[i]]
		if k == authorityPlain {
			// Most bytes: one predicted branch rather than the switch's
			// jump.
			continue
		}
		if k == authorityEnd {
			break
		}
		switch k {
		case authorityAt:
			lastAt = i
		case authorityColon:
			lastColon = i
		case authorityBracket:
			return nil, a, false
		case authorityPercent:
			a.zone = true
		case authorityDash:
			a.dashes = a.dashes || i > 0 && b[i-1] == '-'
		case authorityWide:
			a.wide = true
		}
	}
	host := b[lastAt+1 : i]
	if lastColon > lastAt {
		host = b[lastAt+1 : lastColon]
	}
	a.userinfo = lastAt >= 0
	a.host = host
	return scheme, a, true
}

// schemeByte tells the bytes of a URL's scheme (RFC 3986 section 3.1).
var schemeByte = func() (t [256]bool) {
	for c := range t {
		t[c] = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'
	}
	return t
}()

// The classes of authorityByte.
const (
	authorityPlain   = iota
	authorityEnd     // '/', '?' or '#', which end the authority
	authorityAt      // '@', which ends userinfo
	authorityColon   // ':', which starts a port
	authorityBracket // '[', which starts an IPv6 literal
	authorityPercent // '%', which starts an IPv6 literal's zone
	authorityDash    // '-', two of which in a row may be an ACE prefix's
	authorityWide    // a byte beyond ASCII
)

// authorityByte gives each byte of an authority its class for
// readPlainLink.
var authorityByte = func() (t [256]uint8) {
	t['/'], t['?'], t['#'] = authorityEnd, authorityEnd, authorityEnd
	t['@'], t[':'], t['['], t['%'], t['-'] = authorityAt, authorityColon, authorityBracket, authorityPercent, authorityDash
	for c := 0x80; c < 0x100; c++ {
		t[c] = authorityWide
	}
	return t
}()

// judgeScheme reports content.link-scheme at string node n, with msg,
// when scheme runs code or reads local files, and tells whether the
// scheme was one the rule names, so that the link needs no more reading.
func (w *walker) judgeScheme(n uint32, scheme []byte, msg string) bool {
	switch {
	case equalFold(scheme, "javascript"), equalFold(scheme, "vbscript"), equalFold(scheme, "data"):
		w.addContentGot(CodeContentLinkScheme, n, msg)
		return true
	case equalFold(scheme, "file"):
		if !w.stdioEndpoint(n) {
			w.addContentGot(CodeContentLinkScheme, n, msg)
		}
		return true
	}
	return false
}

// referencedScheme returns the scheme link u has once the HTML character
// references before its first '/', '?' or '#' are decoded, or nil when
// there are none or they make no scheme. A registry page that puts a
// card's link in an href attribute decodes them before the browser reads
// the URL, so "javascript&colon;alert(1)" and "&#x6A;avascript:" run as
// javascript: there. Only that span is decoded, so the '&' of an honest
// query string costs no allocation; a decoded "&Tab;" or a leading
// "&#32;" is removed as the URL parser removes the character itself
// (see schemeWithoutTabs).
func referencedScheme(u []byte) []byte {
	end := len(u)
	for i, c := range u {
		// The '#' of a numeric reference ("&#58;") starts no fragment.
		if c == '/' || c == '?' || c == '#' && (i == 0 || u[i-1] != '&') {
			end = i
			break
		}
	}
	if bytes.IndexByte(u[:end], '&') < 0 {
		return nil
	}
	decoded := []byte(html.UnescapeString(string(u[:end])))
	for len(decoded) > 0 && decoded[0] <= ' ' {
		decoded = decoded[1:]
	}
	colon := bytes.IndexByte(decoded, ':')
	if colon <= 0 {
		return nil
	}
	scheme := decoded[:0]
	for _, c := range decoded[:colon] {
		if c != '\t' && c != '\n' && c != '\r' {
			scheme = append(scheme, c)
		}
	}
	return scheme
}

// schemeWithoutTabs returns scheme less the ASCII tabs and newlines in
// it, which the WHATWG URL parser a browser follows removes from anywhere
// in a URL: "java\tscript:" runs as "javascript:". A scheme with none,
// nearly every one, is returned as it is; one that is longer than buf
// once they are removed is none the rules name, and is returned as it is.
func schemeWithoutTabs(scheme []byte, buf *[16]byte) []byte {
	clean := true
	for _, c := range scheme { // a few bytes: cheaper than bytes.ContainsAny's set
		clean = clean && c != '\t' && c != '\n' && c != '\r'
	}
	if clean {
		return scheme
	}
	n := 0
	for _, c := range scheme {
		if c == '\t' || c == '\n' || c == '\r' {
			continue
		}
		if n == len(buf) {
			return scheme
		}
		buf[n] = c
		n++
	}
	return buf[:n]
}

// linkAuthority is what readAuthority finds in a URL's authority.
type linkAuthority struct {
	host     []byte // without userinfo and port, an IPv6 literal without brackets
	userinfo bool
	// zone, dashes and wide are false only where the authority holds no
	// '%', no two dashes in a row and no byte beyond ASCII (see
	// readPlainLink): the host then needs no withoutZone, hasACE or
	// hasNonASCII.
	zone, dashes, wide bool
}

// readAuthority reads the authority at the start of b, which ends at the
// first '/', '?' or '#': its host is what follows the last '@', less a
// port after its last colon. Each byte is found by bytes.IndexByte, which
// reads many bytes at a time, first: a loop over the authority's bytes
// cost a link more than its checks.
func readAuthority(b []byte) linkAuthority {
	var a linkAuthority
	if i := bytes.IndexByte(b, '/'); i >= 0 {
		b = b[:i]
	}
	if i := bytes.IndexByte(b, '?'); i >= 0 {
		b = b[:i]
	}
	if i := bytes.IndexByte(b, '#'); i >= 0 {
		b = b[:i]
	}
	host := b
	if bytes.IndexByte(b, '@') >= 0 {
		a.userinfo = true
		host = b[bytes.LastIndexByte(b, '@')+1:]
	}
	switch {
	case len(host) > 0 && host[0] == '[':
		if rb := bytes.IndexByte(host, ']'); rb > 0 {
			host = host[1:rb]
		} else {
			host = host[1:]
		}
	case bytes.IndexByte(host, ':') >= 0:
		host = host[:bytes.LastIndexByte(host, ':')]
	}
	a.host = host
	return a
}

// hasACE reports whether host holds the ACE prefix of a punycode label,
// "xn--", in any case: hosts are read without regard to case, so
// "Xn--80ak6aa92e.com" is the same host as "xn--80ak6aa92e.com".
func hasACE(host []byte) bool {
	// Most hosts have no two dashes in a row: bytes.Index finds them
	// faster than a loop over every byte would.
	for i := 0; ; i++ {
		d := bytes.Index(host[i:], []byte("--"))
		if d < 0 {
			return false
		}
		if i += d; i >= 2 && host[i-2]|0x20 == 'x' && host[i-1]|0x20 == 'n' {
			return true
		}
	}
}

// stdioEndpoint reports whether link n is the url of an AgentCard
// endpoint whose protocol is stdio, which names a local program.
func (w *walker) stdioEndpoint(n uint32) bool {
	p := w.vw.Parent(n)
	proto := w.member(p, "protocol")
	return proto != 0 && w.kind(proto) == tape.KindString && string(w.raw(proto)) == "stdio"
}

// withoutZone returns host less the zone of an IPv6 literal, which
// RFC 6874 writes after "%25" ("[fe80::1%25eth0]", and browsers and
// netip after a bare '%' too): the zone names an interface of the
// reader's machine, not another address, so the address is judged
// without it: ipLiteral would take "eth0"'s letters past f for a name's.
func withoutZone(host []byte) []byte {
	if zone := bytes.IndexByte(host, '%'); zone > 0 && bytes.IndexByte(host[:zone], ':') >= 0 {
		return host[:zone]
	}
	return host
}

// ipLiteral reports whether host is an IP address: IPv6 (its brackets
// stripped), or IPv4 in any form the WHATWG URL Standard reads as one
// (0x7f.1, 2130706433).
func ipLiteral(host []byte) bool {
	// Most hosts are names whose last letter, a trailing dot aside, lies
	// past f: no address ends so, in any of its forms, but for the x of
	// an empty hexadecimal part (0x).
	if len(host) == 0 {
		return false
	}
	end := host[len(host)-1]
	if end == '.' && len(host) > 1 {
		end = host[len(host)-2]
	}
	if c := end | 0x20; c > 'f' && c <= 'z' && c != 'x' {
		return false
	}
	// Most hosts are names: an IPv4 host's last label (a trailing dot
	// aside) is a number, which starts with a digit.
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
		// netip's error for what is no address is an allocation; a host
		// with a letter past f (localhost:1) cannot be one.
		for _, c := range host {
			if !(c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'f' || c == ':' || c == '.' || c == '%') {
				return false
			}
		}
		_, err := netip.ParseAddr(unsafe.String(&host[0], len(host)))
		return err == nil
	}
	_, ok := parseIPv4Host(host)
	return ok
}

// checkIDNHost judges an internationalised host, given in Unicode or as
// punycode: each label must meet UTS #39's moderately restrictive level
// and, when it has no Latin, must not fold entirely to ASCII (a
// whole-script confusable of an ASCII label).
func (w *walker) checkIDNHost(n uint32, host []byte) {
	if w.idn == nil {
		w.idn = new(idnCache)
	}
	slot := &w.idn[xxhash.Sum64(host)%uint64(len(w.idn))]
	if slot.verdict == idnUnknown || !bytes.Equal(slot.host, host) {
		slot.host = append(slot.host[:0], host...)
		slot.verdict = judgeIDNHost(host)
	}
	switch slot.verdict {
	case idnMixed:
		w.addContentGot(CodeContentIDNHost, n, "a label of the link's host mixes scripts")
	case idnPassesForASCII:
		w.addContentGot(CodeContentIDNHost, n, "a label of the link's host passes for ASCII letters it is not")
	}
}

// idnCache remembers the verdicts on the internationalised hosts seen
// last, one per slot by hash, as domainCache does the registrable
// domains: golang.org/x/net/idna allocates for every host it decodes, and
// a dump's cards name the same hosts again and again, so a card judged
// again allocates nothing.
type idnCache [64]idnSlot

type idnSlot struct {
	host    []byte
	verdict idnVerdict
}

type idnVerdict uint8

const (
	idnUnknown idnVerdict = iota // an empty slot
	idnFine
	idnMixed
	idnPassesForASCII
)

// judgeIDNHost is checkIDNHost's verdict on host.
func judgeIDNHost(host []byte) idnVerdict {
	// The ACE prefix is read in any case (hasACE); idna reads only
	// "xn--", so the host's ASCII letters are lowered first, which
	// changes no script a label has.
	lower := bytes.Clone(host)
	for i, c := range lower {
		if c >= 'A' && c <= 'Z' {
			lower[i] = c + 'a' - 'A'
		}
	}
	uni, err := idna.ToUnicode(string(lower))
	if err != nil {
		// A punycode label that does not decode is the profile's to
		// judge as a host; here there is nothing to read.
		return idnFine
	}
	for label := range bytes.SplitSeq([]byte(uni), []byte{'.'}) {
		if !hasNonASCII(label) {
			continue
		}
		var set scriptSet
		passes := true
		for _, r := range string(label) {
			if s := scriptOf(r); s != nil {
				set.add(s)
			}
			if r >= 0x80 && foldRune(r) == "" {
				passes = false
			}
		}
		switch {
		case !set.moderatelyRestrictive():
			return idnMixed
		case passes && !set.has(unicode.Latin):
			return idnPassesForASCII
		}
	}
	return idnFine
}

// addContentGot reports content rule c at node n quoting its value.
func (w *walker) addContentGot(c Code, n uint32, msg string) {
	w.addGotSev(c, w.contentSeverity(c), n, msg)
}

// linkHost returns the host of the URL in string node n, or nil.
func (w *walker) linkHost(n uint32) []byte {
	if w.vw.Kind(n) != tape.KindString {
		return nil
	}
	u, ok := ParseURI(w.str(n))
	if !ok || !u.HasAuthority {
		return nil
	}
	return u.Host
}

// checkLinkOrigin reports provider.url and documentationUrl when they lie
// on another registrable domain than every interface of the card, which
// a card that borrows a well-known provider's name and site would. It
// says nothing when no interface has a registrable domain (localhost, an
// address, a name under no public suffix).
//
// The public suffix list's lookup allocates for a host it has not seen
// lately (see domainCache), so the rule costs nothing while it is off,
// as it is by default.
func (w *walker) checkLinkOrigin() {
	if w.res.level(CodeContentLinkOrigin, w.contentSeverity(CodeContentLinkOrigin)) == SeverityOff {
		return
	}
	// The domains are copied: a URL with escapes decodes into scratch
	// that the next str call reuses.
	var ifaces [8]span
	nIfaces := 0
	w.hostBuf = w.hostBuf[:0]
	addIface := func(n uint32) {
		if n == 0 || nIfaces == len(ifaces) {
			return
		}
		if d := w.registrableDomain(w.linkHost(n)); d != nil {
			start := len(w.hostBuf)
			w.hostBuf = append(w.hostBuf, d...)
			ifaces[nIfaces] = span{uint32(start), uint32(len(w.hostBuf))}
			nIfaces++
		}
	}
	addIface(w.member(0, "url"))
	if ep := w.member(0, "endpoint"); ep != 0 && w.kind(ep) == tape.KindObject {
		addIface(w.member(ep, "url"))
	}
	if inv := w.member(0, "invocation"); inv != 0 && w.kind(inv) == tape.KindObject {
		addIface(w.member(inv, "endpoint"))
	}
	for _, list := range [...]string{"supportedInterfaces", "additionalInterfaces"} {
		arr := w.member(0, list)
		if arr == 0 || w.kind(arr) != tape.KindArray {
			continue
		}
		for e := arr + 1; e < w.end(arr); e = w.next(e) {
			if w.kind(e) == tape.KindObject {
				addIface(w.member(e, "url"))
			}
		}
	}
	if nIfaces == 0 {
		return
	}
	check := func(n uint32) {
		if n == 0 {
			return
		}
		d := w.registrableDomain(w.linkHost(n))
		if d == nil {
			return
		}
		for _, i := range ifaces[:nIfaces] {
			if equalFoldBytes(w.hostBuf[i.start:i.end], d) {
				return
			}
		}
		w.addContentGot(CodeContentLinkOrigin, n, "link lies on another registrable domain than the card's interfaces")
	}
	if p := w.member(0, "provider"); p != 0 && w.kind(p) == tape.KindObject {
		check(w.member(p, "url"))
	}
	check(w.member(0, "documentationUrl"))
}

// registrableDomain returns host's eTLD+1 by the public suffix list, a
// suffix of host, or nil for a host that has none (an address, a bare
// name, a public suffix itself).
func (w *walker) registrableDomain(host []byte) []byte {
	if len(host) > 0 && host[len(host)-1] == '.' {
		host = host[:len(host)-1]
	}
	if len(host) == 0 || bytes.IndexByte(host, '.') < 0 || ipLiteral(host) {
		return nil
	}
	if w.domains == nil {
		w.domains = new(domainCache)
	}
	slot := &w.domains[xxhash.Sum64(host)%uint64(len(w.domains))]
	if slot.cut == 0 || !bytes.Equal(slot.host, host) {
		slot.host = append(slot.host[:0], host...)
		slot.cut = -1
		if d, err := publicsuffix.EffectiveTLDPlusOne(string(host)); err == nil {
			slot.cut = int32(len(host)-len(d)) + 1
		}
	}
	if slot.cut < 0 {
		return nil
	}
	return host[slot.cut-1:]
}

// domainCache remembers the registrable domains of the hosts seen last,
// one per slot by hash: publicsuffix allocates for every host it is
// asked about (it first tries the host as an IP address, and the error
// is an allocation), and a dump's cards name the same hosts again and
// again.
type domainCache [256]domainSlot

// domainSlot is a host and where its registrable domain starts, plus
// one; -1 for none, 0 for an empty slot.
type domainSlot struct {
	host []byte
	cut  int32
}

func equalFoldBytes(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i]|0x20 != b[i]|0x20 {
			return false
		}
	}
	return true
}
