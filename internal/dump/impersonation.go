package dump

import (
	"bytes"
	"encoding/binary"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/fastvalidate/digest"
	"github.com/zeebo/xxh3"
	"golang.org/x/net/idna"
	"golang.org/x/net/publicsuffix"
)

// groupLookalike is content.impersonation's group of claims: key, what the
// claim is of ("name", "provider" or "host", the origin), a space, and its confusable
// skeleton (fastvalidate.Skeleton); other, the card's origin, a NUL, and
// the text as the card spells it, ASCII letters lower-cased. A group makes
// a finding when its claims come from two origins or more and spell the
// text two ways or more: then two of them differ in both (were every two
// alike in one, the records of every other origin would share one
// spelling, and a second spelling on the first origin would differ from
// them in both), which is one card passing for another's.
const groupLookalike byte = 'n'

// KindSkeleton is the key kind of content.impersonation's findings: what
// the skeleton is of, a space, and the skeleton.
const KindSkeleton = "skeleton"

// lookalikes holds, for the card being digested, the texts it is known
// by: its names and provider organisations, with what each is.
type lookalikes struct {
	text  []byte // back to back, each ending at its ends
	ends  []int
	kinds []string
	skel  []byte // scratch
	other []byte // scratch
	// skeletons holds the skeleton of up to maxOrigins texts seen, by
	// the text's XXH3-128 (see hashed): names repeat across the cards of
	// a crawl ("Weather Agent"), and the skeleton, Unicode normalisation
	// and all, was the largest part of a name's claim (docs/performance.md).
	skeletons hashed[[]byte]
	// skeletonOf is skeleton, as a method value made once (NewExtractor):
	// one made per card would be allocated.
	skeletonOf func(dst, text []byte) []byte
}

// skeleton appends the skeleton of text (fastvalidate.Skeleton) to dst.
func (l *lookalikes) skeleton(dst, text []byte) []byte {
	if sk, ok := appendASCIISkeleton(dst, text); ok {
		return sk
	}
	key := xxh3.Hash128(text)
	if sk, ok := l.skeletons.get(key); ok {
		return append(dst, sk...)
	}
	n := len(dst)
	dst = fastvalidate.Skeleton(dst, text)
	l.skeletons.put(key, slices.Clone(dst[n:]))
	return dst
}

// appendASCIISkeleton appends the skeleton of text to dst, as
// fastvalidate.Skeleton would (TestASCIISkeletonAsSkeleton), when text is
// ASCII, with ok set; ok is false, and dst as it was, otherwise. An ASCII
// text's skeleton is the text lower-cased, its white space trimmed and
// each run of it one space: made in one pass over bytes just read, it
// costs less than looking it up, which most of a dump's names, ASCII,
// did in a table grown past the processor's caches (docs/performance.md).
func appendASCIISkeleton(dst, text []byte) (_ []byte, ok bool) {
	n := len(dst)
	space := false
	for _, c := range text {
		switch {
		case c >= utf8.RuneSelf:
			return dst[:n], false
		case asciiSpace[c]:
			// Written before the next byte that is not, if any: none
			// leads or ends the skeleton, as if trimmed.
			space = len(dst) > n
			continue
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		if space {
			dst = append(dst, ' ')
			space = false
		}
		dst = append(dst, c)
	}
	return dst, true
}

// asciiSpace tells the ASCII white space fastvalidate.Skeleton makes one
// space of and trims.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

func (l *lookalikes) reset() {
	l.text, l.ends, l.kinds = l.text[:0], l.ends[:0], l.kinds[:0]
}

func (l *lookalikes) add(kind string, text []byte) {
	if len(bytes.TrimSpace(text)) == 0 {
		return
	}
	l.text = append(l.text, text...)
	l.ends = append(l.ends, len(l.text))
	l.kinds = append(l.kinds, kind)
}

// note notes the texts that member name of the card holds: top-level
// name, title and displayName are names; provider.organization (A2A),
// organization, author (MA2D) and a provider string are providers.
func (l *lookalikes) note(name []byte, value digest.Value) {
	switch string(name) {
	case "name", "title", "displayName":
		l.add("name", value.Str())
	case "organization", "author":
		l.add("provider", value.Str())
	case "provider":
		if value.IsObject() {
			l.add("provider", value.Member("organization").Str())
		} else {
			l.add("provider", value.Str())
		}
	}
}

// origins finds the origin of each card's endpoints, as origin describes,
// for one worker, and the claim of its host. A host's are found once: the
// public suffix list's lookup, the IDNA conversion and the skeleton, with
// url.Parse before them, were most of what content.impersonation's claims
// cost a card on the make perf dump, and cards of one host are many in a
// crawl.
type origins struct {
	// byHost is keyed by the host's XXH3-128 (see hashed): a string key
	// was compared byte for byte on each look-up, whose bytes lay apart
	// from the table's, a miss of the cache per card.
	byHost hashed[*originOf]
	// byOrigin holds what each origin gives, for the hosts of an origin
	// seen before: a crawl's hosts are many subdomains of fewer
	// registrable domains, and the origin's claim (IDNA, skeleton) cost
	// more than finding the origin.
	byOrigin map[string]*originOf
}

// originOf is what a host gives: its origin, and the host claim's key
// and other (see groupLookalike), which hold that origin in Unicode;
// skeleton is nil when the host claims nothing. head is the host claim
// as appendClaim encodes it between its length and its place (group,
// key, other), made once per origin: every card of a dump makes one,
// and copying it whole reads one slice where its parts, encoded per
// card, read two apart from the origin (docs/performance.md).
type originOf struct {
	origin          string
	skeleton, other []byte
	head            []byte
}

// maxOrigins bounds the hosts, origins and texts a worker remembers the
// claims of, each: past it, it forgets one of them to remember another,
// so that a dump of distinct hosts costs a worker no more than this many.
const maxOrigins = 4096

// remember has m, made if nil, hold v for k, forgetting an entry first if
// m holds maxOrigins: the first a range yields, which Go chooses at
// random. Forgetting them all, as it once did, made a dump of a few more
// names than that miss on most cards (4,388 names on the make perf dump).
func remember[K comparable, V any](m map[K]V, k K, v V) map[K]V {
	if m == nil {
		m = make(map[K]V)
	}
	if len(m) >= maxOrigins {
		for old := range m {
			delete(m, old)
			break
		}
	}
	m[k] = v
	return m
}

// hashed remembers up to maxOrigins values by their texts' XXH3-128,
// told apart as cards are by their content hashes, with the same odds
// (sum128). The table is keyed by the hash's low half and its entry holds
// the high half: a map of uint64 keys takes Go's fast path, compared
// inline, where a map of 16-byte keys called out to compare each one, and
// the look-ups of hosts and names were most of what content.impersonation
// cost a card once their claims were remembered (docs/performance.md).
// Two texts of one low half but not the other take turns in one entry.
type hashed[V any] struct {
	m map[uint64]hashedEntry[V]
}

type hashedEntry[V any] struct {
	hi uint64
	v  V
}

func (h *hashed[V]) get(key xxh3.Uint128) (V, bool) {
	e, ok := h.m[key.Lo]
	if !ok || e.hi != key.Hi {
		var none V
		return none, false
	}
	return e.v, true
}

func (h *hashed[V]) put(key xxh3.Uint128, v V) {
	if e, ok := h.m[key.Lo]; ok {
		// Another text of this low half: it gives way, and the table
		// stays the size it is.
		e.hi, e.v = key.Hi, v
		h.m[key.Lo] = e
		return
	}
	h.m = remember(h.m, key.Lo, hashedEntry[V]{hi: key.Hi, v: v})
}

func (h *hashed[V]) len() int { return len(h.m) }

// origin returns what the host of the first endpoint URL of eps (back to
// back, ending at ends) that has one gives, or nil when none has. The
// origin is the host's registrable domain, by the public suffix list, or
// the host when it has none (an address, localhost).
func (o *origins) origin(eps []byte, ends []int) *originOf {
	start := 0
	for _, end := range ends {
		raw := eps[start:end]
		start = end
		host, known := plainHost(raw)
		if !known {
			u, err := url.Parse(string(raw))
			if err == nil {
				host = []byte(u.Hostname())
			}
		}
		if len(host) == 0 {
			continue
		}
		key := xxh3.Hash128(host)
		if of, ok := o.byHost.get(key); ok {
			return of
		}
		of := o.ofHost(string(host))
		o.byHost.put(key, of)
		return of
	}
	return nil
}

// ofHost finds what a URL's host, url.URL.Hostname's, gives.
func (o *origins) ofHost(hostname string) *originOf {
	host := strings.ToLower(strings.TrimSuffix(hostname, "."))
	if d, err := publicsuffix.EffectiveTLDPlusOne(host); err == nil {
		host = d
	}
	if of := o.byOrigin[host]; of != nil {
		return of
	}
	of := claimOfOrigin(host)
	o.byOrigin = remember(o.byOrigin, host, of)
	return of
}

// claimOfOrigin finds what an origin (a registrable domain, or a host
// without one) gives.
func claimOfOrigin(host string) *originOf {
	of := &originOf{origin: host}
	// The host claimed is the origin, in Unicode: a look-alike host is
	// on a registrable domain of its own, whatever its subdomains.
	claimed := host
	if u, err := idna.ToUnicode(host); err == nil {
		claimed = u
	}
	of.skeleton, of.other = lookalikeClaim(nil, nil, "host", []byte(claimed), host, fastvalidate.Skeleton)
	if of.skeleton != nil {
		of.head = appendClaimHead(nil, groupLookalike, of.skeleton, of.other)
	}
	return of
}

// lookalikeClaim appends the key and other of the claim of content.impersonation
// that text, a kind of text, makes for a card of origin to skel and other;
// skel is nil when the text claims nothing.
func lookalikeClaim(skel, other []byte, kind string, text []byte, origin string, skeleton func(dst, text []byte) []byte) ([]byte, []byte) {
	skel = append(append(skel, kind...), ' ')
	n := len(skel)
	skel = skeleton(skel, text)
	if len(skel) == n {
		return nil, other
	}
	other = append(append(other, origin...), 0)
	for _, c := range text {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		other = append(other, c)
	}
	return skel, other
}

// plainHost returns the host of a URL written plainly, as url.Parse and
// Hostname would (TestPlainHostAsURLParse), with known set; known is
// false for any other URL, which url.Parse is left to read. A plain URL
// has its scheme in lower case and "://", then an authority of letters,
// digits, dots, hyphens and underscores with an optional decimal port
// (https, grpc and mcp endpoints mostly are), in printable ASCII without
// a percent sign throughout; or it has no authority, so no host (url.Parse
// finds none, or fails): without "//", as stdio:name, or with a
// lower-case scheme and "///", as file:///path.
func plainHost(raw []byte) (host []byte, known bool) {
	i := plainSchemeLen(raw)
	if i == 0 || !bytes.HasPrefix(raw[i:], schemeEnd) {
		// Without "//" there is no authority.
		return nil, !bytes.Contains(raw, doubleSlash)
	}
	rest := raw[i+len(schemeEnd):]
	if len(rest) > 0 && rest[0] == '/' {
		// "///": no authority either.
		return nil, true
	}
	authority := len(rest)
authority:
	for i, c := range rest {
		switch urlByte[c] {
		case urlOther:
			return nil, false
		case urlEnd:
			authority = i
			break authority
		}
	}
	if !plainBytes(rest[authority:]) {
		return nil, false
	}
	return hostOf(rest[:authority])
}

// plainBytes reports whether b has no byte that urlByte tells urlOther.
// It reads eight bytes at a time: a look-up and a branch per byte, over
// the path and query after the host, were most of what a plain host cost
// (docs/performance.md).
func plainBytes(b []byte) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	// hasZero is nonzero when some byte of v is zero, and only then.
	hasZero := func(v uint64) uint64 { return (v - ones) &^ v & highs }
	for len(b) >= 8 {
		x := binary.LittleEndian.Uint64(b)
		// A byte of ' ' or less, of 0x80 or more, 0x7f or '%': that
		// (x - ones*n) &^ x has a byte's high bit when some byte is
		// below n, n at most 0x80, and only then, is hasZero's reason.
		if (x-ones*(' '+1))&^x&highs|x&highs|hasZero(x^ones*0x7f)|hasZero(x^ones*'%') != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if urlByte[c] == urlOther {
			return false
		}
	}
	return true
}

// hostOf returns the host of authority, the part of a plain URL between
// its scheme's "//" and its path, query or fragment, if it is plain.
func hostOf(authority []byte) (host []byte, known bool) {
	host = authority
	if i := bytes.IndexByte(authority, ':'); i >= 0 {
		host = authority[:i]
		for _, c := range authority[i+1:] {
			if c < '0' || c > '9' {
				return nil, false
			}
		}
	}
	if len(host) == 0 {
		return nil, false
	}
	for _, c := range host {
		if !hostByte[c] {
			return nil, false
		}
	}
	return host, true
}

// plainSchemeLen returns the length of the lower-case URL scheme raw
// starts with, 0 if none: url.Parse reads the authority after it alike
// whatever the scheme. No ':' is in a scheme, so when "://" follows it,
// that is raw's first, as a search for it would have found, at the cost
// of a second pass over the scheme.
func plainSchemeLen(raw []byte) int {
	for i, c := range raw {
		if !('a' <= c && c <= 'z' || i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return i
		}
	}
	return len(raw)
}

var (
	schemeEnd   = []byte("://")
	doubleSlash = []byte("//")
)

// urlByte classes the bytes of a plain URL after its scheme: printable
// ASCII but '%' (urlPlain), the ends of an authority ('/', '?', '#'), and
// the rest, which no plain URL has.
var urlByte = func() (t [256]byte) {
	for c := range 256 {
		switch {
		case c <= ' ' || c >= 0x7f || c == '%':
			t[c] = urlOther
		case c == '/' || c == '?' || c == '#':
			t[c] = urlEnd
		}
	}
	return t
}()

const (
	urlPlain byte = iota
	urlEnd
	urlOther
)

// hostByte tells the bytes plainHost takes in a host.
var hostByte = func() (t [256]bool) {
	for c := range 256 {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-' || c == '_'
	}
	return t
}()

// appendLookalikeClaims appends the claims of content.impersonation of
// the card whose endpoints and texts x has gathered: a card with no
// endpoint has no origin to tell, and claims nothing.
func (x *Extractor) appendLookalikeClaims(dst []byte) []byte {
	of := x.origins.origin(x.eps, x.epEnds)
	if of == nil {
		return dst
	}
	l := &x.looks
	start := 0
	for i, end := range l.ends {
		skel, other := lookalikeClaim(l.skel[:0], l.other[:0], l.kinds[i], l.text[start:end], of.origin, l.skeletonOf)
		if skel != nil {
			dst = appendClaim(dst, groupLookalike, skel, other, x.place, x.d.Line)
			l.skel = skel
		}
		l.other = other
		start = end
	}
	if of.head != nil {
		dst = appendHeadClaim(dst, of.head, x.place, x.d.Line)
	}
	return dst
}

// lookalikeSpellings tells, over the claims of one group of
// groupLookalike, whether they come from two origins or more and spell
// the text two ways or more, in memory that does not grow with them.
type lookalikeSpellings struct {
	first              []byte
	origins, spellings bool
}

func (s *lookalikeSpellings) reset() { s.first, s.origins, s.spellings = s.first[:0], false, false }

func (s *lookalikeSpellings) add(other []byte) {
	if len(s.first) == 0 {
		s.first = append(s.first, other...)
		return
	}
	if s.origins && s.spellings {
		return
	}
	origins, spellings := spellingsDiffer(s.first, other)
	s.origins, s.spellings = s.origins || origins, s.spellings || spellings
}

// spellingsDiffer tells whether two claims' others of one groupLookalike
// group differ in origin, and in spelling.
func spellingsDiffer(first, other []byte) (origins, spellings bool) {
	if bytes.Equal(other, first) {
		// The same origin and spelling as the first: a host's claims,
		// most of a dump's, are all alike.
		return false, false
	}
	o1, sp1, _ := bytes.Cut(first, []byte{0})
	o2, sp2, _ := bytes.Cut(other, []byte{0})
	return !bytes.Equal(o1, o2), !bytes.Equal(sp1, sp2)
}
