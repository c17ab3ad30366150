package dump

import (
	"bytes"
	"fmt"
	"net/url"
	"strings"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/fastvalidate/digest"
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
}

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

// origin returns the registrable domain of the first endpoint URL of
// eps (back to back, ending at ends) that has a host, by the public
// suffix list, or that host when it has none (an address, localhost);
// "" when no endpoint has a host.
func origin(eps []byte, ends []int) string {
	start := 0
	for _, end := range ends {
		u, err := url.Parse(string(eps[start:end]))
		start = end
		if err != nil || u.Hostname() == "" {
			continue
		}
		host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
		if d, err := publicsuffix.EffectiveTLDPlusOne(host); err == nil {
			return d
		}
		return host
	}
	return ""
}

// appendLookalikeClaims appends the claims of content.impersonation of
// the card whose endpoints and texts x has gathered: a card with no
// endpoint has no origin to tell, and claims nothing.
func (x *Extractor) appendLookalikeClaims(dst []byte) []byte {
	o := origin(x.eps, x.epEnds)
	if o == "" {
		return dst
	}
	l := &x.looks
	claim := func(kind string, text []byte) {
		l.skel = append(append(l.skel[:0], kind...), ' ')
		n := len(l.skel)
		l.skel = fastvalidate.Skeleton(l.skel, text)
		if len(l.skel) == n {
			return
		}
		l.other = append(append(l.other[:0], o...), 0)
		for _, c := range text {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			l.other = append(l.other, c)
		}
		dst = appendClaim(dst, groupLookalike, l.skel, l.other, x.d.Input, x.d.Line)
	}
	start := 0
	for i, end := range l.ends {
		claim(l.kinds[i], l.text[start:end])
		start = end
	}
	// The host claimed is the origin, in Unicode: a look-alike host is
	// on a registrable domain of its own, whatever its subdomains.
	host := o
	if u, err := idna.ToUnicode(o); err == nil {
		host = u
	}
	claim("host", []byte(host))
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
	o1, sp1, _ := bytes.Cut(s.first, []byte{0})
	o2, sp2, _ := bytes.Cut(other, []byte{0})
	s.origins = s.origins || !bytes.Equal(o1, o2)
	s.spellings = s.spellings || !bytes.Equal(sp1, sp2)
}

// lookalikeFinding is the finding of a group of n claims of
// groupLookalike of key, spelt as s says.
func lookalikeFinding(key string, n int, s *lookalikeSpellings) (finding, bool) {
	if !s.origins || !s.spellings {
		return finding{}, false
	}
	what, skel, _ := strings.Cut(key, " ")
	return finding{code: fastvalidate.CodeContentImpersonation, kind: KindSkeleton, key: key,
		msg: fmt.Sprintf("%d records of different origins give a %s spelt differently with one confusable skeleton, %q: one passes for another", n, what, skel)}, true
}
