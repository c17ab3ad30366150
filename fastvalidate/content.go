package fastvalidate

//go:generate go run ./internal/foldgen -o content_fold.go -runes content_runes.go

import (
	"encoding/binary"
	"math/bits"

	"github.com/cardscan/cardscan/rule"
	"slices"
	"sort"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/cardscan/cardscan/fastvalidate/internal/tape"
)

// The content rules read what a language model choosing an agent reads: a
// card's names, descriptions, tags and examples, and the links it gives
// (docs/design.md, section Content rules). They run on every profile,
// after the profile's own checks, over the strings the scan has decoded,
// and judge members by name wherever they stand, so that one pass serves
// every dialect:
//
//   - names: name, title, displayName, organization (mixed scripts are
//     judged here, besides everything judged in texts);
//   - texts: description, summary, examples, tags;
//   - links: every string member whose name ends in url, uri or href
//     (any case), and endpoint.
//
// A card whose strings are all printable ASCII without escapes costs one
// pass over its texts in place and one table lookup per word (see
// matchPatterns): the checks of hidden characters run only on strings the
// scan flagged as holding bytes beyond ASCII or escapes. Rules turned off
// are not run (see contentWork).

// Rules of the content group: what a card says to the model that reads
// it. Warnings by default; the production policy makes the ones that no
// honest card needs errors (see contentSeverity).
const (
	CodeContentBidiControl Code = 330 + iota
	CodeContentInvisible
	CodeContentTagCharacter
	CodeContentVariationSelector
	CodeContentPrivateUse
	CodeContentUnassigned
	CodeContentMixedScript
	CodeContentInjection
	CodeContentHiddenMarkup
	CodeContentLinkScheme
	CodeContentLinkUserinfo
	CodeContentLinkIPHost
	CodeContentIDNHost
	CodeContentLinkOrigin
	// CodeContentImpersonation is judged across a run (cardscan
	// --cross-card and cardscan merge), like the dump.* rules, from the
	// skeletons (Skeleton) of the cards' names, providers and hosts.
	CodeContentImpersonation
)

func init() {
	const prod = "; an error under the production policy"
	rule.Register(
		def(CodeContentBidiControl, "content.bidi-control", SeverityWarning, allProfiles, "a name or text holds a bidi embedding, override or isolate control (U+202A-202E, U+2066-2069), which makes it display in another order than a model reads it"+prod),
		def(CodeContentInvisible, "content.invisible", SeverityWarning, allProfiles, "a name or text holds an invisible format character (zero-width space, joiner or non-joiner outside emoji and the scripts that need them, word joiner, BOM, soft hyphen...)"),
		def(CodeContentTagCharacter, "content.tag-character", SeverityWarning, allProfiles, "a name or text holds Unicode tag characters (U+E0000-E007F) outside the flags of England, Scotland and Wales: invisible text a model reads"+prod),
		def(CodeContentVariationSelector, "content.variation-selector", SeverityWarning, allProfiles, "a name or text holds a variation selector that follows no character it can vary (a run of them can smuggle hidden bytes)"+prod),
		def(CodeContentPrivateUse, "content.private-use", SeverityWarning, allProfiles, "a name or text holds a private-use code point, which has no meaning a reader can rely on"),
		def(CodeContentUnassigned, "content.unassigned", SeverityWarning, allProfiles, "a name or text holds a code point unassigned in the Unicode version cardscan is built with, or a noncharacter"),
		def(CodeContentMixedScript, "content.mixed-script", SeverityWarning, allProfiles, "a word of a name mixes scripts below UTS #39's moderately restrictive level (Latin with Cyrillic, say), the shape of a homoglyph spoof"),
		def(CodeContentInjection, "content.injection", SeverityWarning, allProfiles, "a name, text or the texts of one object together hold an instruction aimed at the model that reads the card (ignore previous instructions, role-play, chat-template markers, tool-call syntax, requests to send secrets)"+prod),
		def(CodeContentHiddenMarkup, "content.hidden-markup", SeverityWarning, allProfiles, "a name or text holds markup that hides text from a human reader but not from a model (HTML comments, display:none, zero-size or transparent text, empty links)"+prod),
		def(CodeContentLinkScheme, "content.link-scheme", SeverityWarning, allProfiles, "a link uses javascript:, vbscript:, data: or file:, which run code or read local files instead of leading to a page"+prod),
		def(CodeContentLinkUserinfo, "content.link-userinfo", SeverityWarning, allProfiles, "a link has userinfo (user@ or user:password@ before the host), which hides the real host behind a familiar name or leaks a credential"+prod),
		def(CodeContentLinkIPHost, "content.link-ip-host", SeverityWarning, allProfiles, "a link's host is a public IP address literal, which no certificate name or reader can vouch for"),
		def(CodeContentIDNHost, "content.idn-host", SeverityWarning, allProfiles, "a link's internationalised host has a label that mixes scripts or passes for ASCII (whole-script confusable, e.g. Cyrillic аррӏе)"),
		def(CodeContentLinkOrigin, "content.link-origin", SeverityWarning, allProfiles, "provider.url or documentationUrl lies on another registrable domain (public suffix list) than every interface of the card; reported only under the production policy or a severity a policy file gives it, since honest cards often link a parent company's site"),
		def(CodeContentImpersonation, "content.impersonation", SeverityWarning, rule.CrossCard, "cards of different origins (the registrable domains of their endpoints) have names, provider organisations or hosts that share a UTS #39 confusable skeleton but are spelt differently: one passes for the other"),
	)
}

// contentSeverity is the severity of content rule c under the policy:
// under production, the rules that no honest card trips are errors.
func (w *walker) contentSeverity(c Code) Severity {
	if optIn(c) && w.cfg.policy != PolicyProduction {
		return SeverityOff
	}
	if w.cfg.policy == PolicyProduction {
		switch c {
		case CodeContentBidiControl, CodeContentTagCharacter, CodeContentVariationSelector, CodeContentInjection,
			CodeContentHiddenMarkup, CodeContentLinkScheme, CodeContentLinkUserinfo:
			return SeverityError
		}
	}
	return c.Severity()
}

// optIn reports whether rule c is reported only under the production
// policy or a severity given it: content.link-origin, since 8 of the 97
// real cards of the test corpus link a provider or documentation site on
// another domain honestly.
func optIn(c Code) bool { return c == CodeContentLinkOrigin }

// Member classes for the content rules.
const (
	memberOther = iota
	memberIsName
	memberText
	memberLink
	memberUnknown // not one commonMember knows
)

// commonMember says what the content rules read the member names they
// meet most as, without classifyMember's call, and memberUnknown for any
// other name: on the dump's first 5,000 cards, of the 11.9 names a card
// the rules read, "description" 6.4, "tags" 2.6, and "name", "url" and
// "protocol" (a string whose name ends as url's does) 0.95 each.
// TestCommonMemberAsClassifyMember holds it to classifyMember.
func commonMember(k []byte) uint8 {
	switch string(k) {
	case "description", "tags":
		return memberText
	case "name":
		return memberIsName
	case "url":
		return memberLink
	case "protocol":
		return memberOther
	}
	return memberUnknown
}

// classifyMember says what the content rules read member name k as.
func classifyMember(k []byte) uint8 {
	n := len(k)
	// Every name the rules read ends in one of a few letters: most names
	// of a card are told apart by their last byte alone.
	if n < 3 || !contentNameLast[k[n-1]] {
		return memberOther
	}
	switch string(k) {
	case "name", "title", "displayName", "organization":
		return memberIsName
	case "description", "summary", "examples", "tags":
		return memberText
	case "endpoint":
		return memberLink
	}
	a, b, c := k[n-3]|0x20, k[n-2]|0x20, k[n-1]|0x20
	if a == 'u' && (b == 'r' && (c == 'l' || c == 'i')) || n >= 4 && k[n-4]|0x20 == 'h' && a == 'r' && b == 'e' && c == 'f' {
		return memberLink
	}
	return memberOther
}

// contentNameLast has the last bytes of the member names classifyMember
// knows: those of name, title, displayName, organization, description,
// summary, examples, tags and endpoint, and of url, uri and href in
// either case.
var contentNameLast = [256]bool{'e': true, 'n': true, 'y': true, 's': true, 't': true,
	'l': true, 'L': true, 'i': true, 'I': true, 'f': true, 'F': true}

// contentWork says which parts of the content rules can report anything
// under the policy and the overrides in force: a part whose rules are all
// off is not run, so that turning a rule off saves its cost and not only
// its findings.
type contentWork uint8

const (
	workRunes    contentWork = 1 << iota // hidden and unassigned characters
	workMixed                            // content.mixed-script
	workPatterns                         // content.injection, content.hidden-markup
	workLinks                            // scheme, userinfo and IP-host links
	workIDN                              // content.idn-host
	workOrigin                           // content.link-origin
	// workKnown marks walker.work as computed: the policy and overrides
	// it depends on are the Validator's, fixed when it is made.
	workKnown contentWork = 1 << 7
)

// contentWork returns the parts of the content rules to run on this card.
func (w *walker) contentWork() contentWork {
	var work contentWork
	for c := CodeContentBidiControl; c <= CodeContentLinkOrigin; c++ {
		if w.res.level(c, w.contentSeverity(c)) == SeverityOff {
			continue
		}
		switch c {
		case CodeContentMixedScript:
			work |= workMixed
		case CodeContentInjection, CodeContentHiddenMarkup:
			work |= workPatterns
		case CodeContentLinkScheme, CodeContentLinkUserinfo, CodeContentLinkIPHost:
			work |= workLinks
		case CodeContentIDNHost:
			work |= workIDN
		case CodeContentLinkOrigin:
			work |= workOrigin
		default:
			work |= workRunes
		}
	}
	return work
}

// checkContent applies the content rules to the card on the tape. Each
// object's names and texts are read together (see matchPatterns), so
// that an instruction split over a name and a description is read whole.
//
// The scanner lists the member names the rules may read as it reads them
// (contentKeys, set by New), so that the walk visits those and not every
// node of the tape: which nodes are objects, and which names the rules
// read, follow no pattern a branch predictor learns, and cost more read
// from the tape than the scanner pays to note the names while their bytes
// are at hand.
func (w *walker) checkContent() {
	work := w.work
	if work == workKnown {
		return
	}
	// In the order of a walk of every object in turn: by object, then
	// name (see orderPicked).
	vw := w.vw // see tape.View
	picked := orderPicked(vw, w.sc.Picked())
	obj := tape.NoParent
	w.fold = w.fold[:0]
	w.segs = w.segs[:0]
	w.carried = 0
	w.hasTail = false
	// Once a walker rather than once a card or an object: sync.OnceValue's
	// check is some thirty instructions a call, and work, fixed with the
	// Validator, decides it for every card the walker reads.
	patterns := w.patterns
	if patterns == nil && work&workPatterns != 0 {
		patterns = loadPatterns()
		w.patterns = patterns
	}
	for _, p := range picked {
		k := uint32(p)
		v := k + 1
		// The rules read strings and arrays of them; the names of other
		// values may stand out of order (see orderPicked), and are
		// passed over before their object is looked at.
		kind := vw.Kind(v)
		if kind != tape.KindString && kind != tape.KindArray {
			continue
		}
		if o := uint32(p >> 32); o != obj {
			// An object with no text of its own (capabilities, an
			// interface's links) leaves the last text where it is. The
			// object's folded texts stay in walker.fold, where its last
			// text may be read again with the next object's.
			if len(w.segs) != 0 {
				w.matchPatterns(patterns)
				w.tail, w.hasTail = w.segs[len(w.segs)-1], true
				w.segs, w.carried = w.segs[:0], 0
			}
			obj = o
		}
		name := vw.Name(k)
		as := commonMember(name)
		if as == memberUnknown {
			as = classifyMember(name)
		}
		switch {
		case as == memberOther:
		case as == memberLink:
			if kind == tape.KindString && work&(workLinks|workIDN) != 0 {
				w.checkLink(v, work)
			}
		case kind == tape.KindString && vw.Flags(v)&(tape.FlagEscaped|tape.FlagNonASCII) == 0:
			// Printable ASCII as written, most texts: checkText's common
			// case, without its two calls. It is written out here, in
			// checkTexts and in checkText: a function for it is past the
			// inliner's budget, and a call would cost what this spares.
			if work&workPatterns != 0 {
				start, end := vw.Bounds(v)
				w.addSeg(start, end, v, false, false)
			}
		default:
			w.checkTexts(v, kind, as == memberIsName, work)
		}
	}
	if len(w.segs) != 0 {
		w.matchPatterns(patterns)
	}
	if work&workOrigin != 0 {
		w.checkLinkOrigin()
	}
}

// orderPicked returns the picked member names (tape.Scanner.Picked), in
// tape order, in an order by object, then name, as far as the names whose
// values are strings or arrays go, the only ones the rules read. Most
// cards need no sort: in tape order an outer object's names follow a
// nested object's only after that object, and the names that do so are
// mostly of objects (an AgentCard's endpoint, after every capability),
// which the rules pass over. So the list is read once for a name below
// one before it; only such a name's value is looked up, and only one that
// is a string or an array sends the list to sortPicked.
func orderPicked(vw tape.View, p []uint64) []uint64 {
	var top uint64
	for _, x := range p {
		if x > top {
			top = x
			continue
		}
		if kind := vw.Kind(uint32(x) + 1); kind == tape.KindString || kind == tape.KindArray {
			return sortPicked(vw, p)
		}
	}
	return p
}

// sortPicked keeps of the picked member names (tape.Scanner.Picked) those
// whose values are strings or arrays, the only ones the rules read, sorted
// by object, then name, in place, and returns them. They come in tape
// order, in which an object's names after a nested object's follow that
// object's names: an insertion sort moves those few back, fewer for the
// names of objects (such as an AgentCard's endpoint) left out. A card that
// nests many objects between its members would make that quadratic; past
// a budget of moves proportional to the names, a sort that is never
// quadratic takes over.
func sortPicked(vw tape.View, p []uint64) []uint64 {
	budget := 8 * len(p)
	n := 0
	for i, x := range p {
		if kind := vw.Kind(uint32(x) + 1); kind != tape.KindString && kind != tape.KindArray {
			continue
		}
		j := n
		for ; j > 0 && p[j-1] > x; j-- {
			p[j] = p[j-1]
		}
		p[j] = x
		n++
		if budget -= n - 1 - j; budget < 0 {
			// The rest, unread, moves up after the sorted names.
			n += copy(p[n:], p[i+1:])
			p = p[:n]
			p = keepTexts(vw, p)
			slices.Sort(p)
			return p
		}
	}
	return p[:n]
}

// keepTexts keeps of picked member names those whose values are strings
// or arrays.
func keepTexts(vw tape.View, p []uint64) []uint64 {
	return slices.DeleteFunc(p, func(x uint64) bool {
		kind := vw.Kind(uint32(x) + 1)
		return kind != tape.KindString && kind != tape.KindArray
	})
}

// contentKeys is the scanner's filter for the member names classifyMember
// may read as something other than memberOther: the names it knows, and
// every name that ends in one of the last bytes of url, uri or href in
// either case, as those may be links whatever their length.
// TestContentKeysPickEveryName holds it to classifyMember.
var contentKeys = func() *tape.KeyFilter {
	var f tape.KeyFilter
	for _, name := range contentNames {
		f.AddName(name)
	}
	f.AddLast("lLiIfF")
	return &f
}()

// contentNames are the member names classifyMember reads by name.
var contentNames = []string{"name", "title", "displayName", "organization",
	"description", "summary", "examples", "tags", "endpoint"}

// checkTexts judges node v of kind, a string or an array whose strings
// it judges, as names when name is set.
func (w *walker) checkTexts(v uint32, kind tape.Kind, name bool, work contentWork) {
	if kind == tape.KindString {
		w.checkText(v, name, work)
		return
	}
	vw := w.vw
	for e, end := v+1, vw.End(v); e < end; e = vw.Next(e) {
		switch {
		case vw.Kind(e) != tape.KindString:
		case vw.Flags(e)&(tape.FlagEscaped|tape.FlagNonASCII) == 0:
			// Printable ASCII as written, most tags and examples:
			// checkText's common case, without its call.
			if work&workPatterns != 0 {
				start, stop := vw.Bounds(e)
				w.addSeg(start, stop, e, false, false)
			}
		default:
			w.checkText(e, name, work)
		}
	}
}

// checkText judges string node n, a name when name is set, and adds its
// text to the object's segments for the patterns.
func (w *walker) checkText(n uint32, name bool, work contentWork) {
	flags := w.vw.Flags(n)
	if flags&(tape.FlagEscaped|tape.FlagNonASCII) == 0 {
		// Printable ASCII as written, the common case: the patterns read
		// the card's own bytes, and no character rule can break.
		if work&workPatterns != 0 {
			start, end := w.vw.Bounds(n)
			w.addSeg(start, end, n, false, false)
		}
		return
	}
	if flags&tape.FlagEscaped == 0 {
		// Characters beyond ASCII as written: judged, and folded for the
		// patterns, from the card's own bytes.
		text := w.vw.Raw(n)
		w.checkWide(n, text, name, work)
		if work&workPatterns != 0 {
			w.matchTurns(w.patterns, n, text, false) // no line break unescaped
			start := len(w.fold)
			w.fold = appendFolded(w.fold, text)
			w.addFoldSeg(n, start, true)
		}
		return
	}
	// Escaped: decoded straight into walker.fold, where the patterns read
	// it as it is when it is ASCII, as most escaped texts are (their
	// escapes mostly \n, \" and \/), and folded in its place otherwise.
	start := len(w.fold)
	w.fold = w.vw.AppendStr(w.fold, n)
	text := w.fold[start:]
	wide := hasNonASCII(text)
	if wide {
		w.checkWide(n, text, name, work)
	}
	switch {
	case work&workPatterns == 0:
		w.fold = w.fold[:start]
	case wide:
		w.matchTurns(w.patterns, n, text, true)
		// appendFolded reads text, which ends where it appends, and the
		// folded text then moves down over it.
		mid := len(w.fold)
		w.fold = appendFolded(w.fold, text)
		w.fold = append(w.fold[:start], w.fold[mid:]...)
		w.addFoldSeg(n, start, true)
	default:
		w.addFoldSeg(n, start, false)
	}
}

// checkWide applies the character rules to text, string node n's decoded
// value, which holds characters beyond ASCII.
func (w *walker) checkWide(n uint32, text []byte, name bool, work contentWork) {
	if work&workRunes != 0 {
		w.checkRunes(n, text)
	}
	if name && work&workMixed != 0 {
		w.checkMixedScript(n, text)
	}
}

// addFoldSeg adds the text of string node n that walker.fold holds from
// start on to the object's segments, wide when it holds bytes beyond
// ASCII.
func (w *walker) addFoldSeg(n uint32, start int, wide bool) {
	w.addSeg(uint32(start), uint32(len(w.fold)), n, true, wide)
}

// addSeg adds a textSeg to the object's segments. Its fields are stored
// one by one into the list: appending a textSeg made on the stack stored
// them there one by one and loaded them back as one 16 bytes, which the
// CPU cannot forward from several stores and waits for (a stall that perf
// annotate put three fifths of checkText's samples on).
// Nor is it appended zeroed and then found again in the list: append
// stored the zeros and its new length, and the list was then read back
// from the walker to find the segment. Only a full list is appended to,
// and the segment then written in place.
func (w *walker) addSeg(start, end, n uint32, folded, wide bool) {
	k := len(w.segs)
	if k == cap(w.segs) {
		w.segs = append(w.segs, textSeg{})
	}
	w.segs = w.segs[:k+1]
	s := &w.segs[k]
	s.start, s.end, s.node, s.folded, s.wide = start, end, n, folded, wide
}

// textSeg is the text of one name or text member of the object the
// content rules read: the card's bytes from start to end, or, when folded,
// walker.fold's (its decoded value, folded when wide: when it holds
// characters beyond ASCII, which the patterns read byte by byte).
type textSeg struct {
	start, end, node uint32
	folded, wide     bool
}

func hasNonASCII(b []byte) bool {
	for len(b) >= 8 {
		x := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		if x&0x8080808080808080 != 0 {
			return true
		}
		b = b[8:]
	}
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// asciiRun returns how many bytes at the start of b are ASCII.
func asciiRun(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if x := binary.LittleEndian.Uint64(b[i:]) & 0x8080808080808080; x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
	}
	for ; i < len(b) && b[i] < utf8.RuneSelf; i++ {
	}
	return i
}

// checkRunes judges the characters of text, string node n's decoded
// value, which holds bytes beyond ASCII.
func (w *walker) checkRunes(n uint32, text []byte) {
	// seen has bit c-CodeContentBidiControl set once rule c is reported
	// for this string: each rule once, at its first character.
	var seen uint8
	prev := rune(' ') // the last character that is neither a selector nor a modifier
	var last rune     // the character just before
	idx := 0
	for i := 0; i < len(text); idx++ {
		if text[i] < utf8.RuneSelf {
			// A run of ASCII, most of a text beyond ASCII, breaks no rule.
			j := i + asciiRun(text[i:])
			prev, last = rune(text[j-1]), rune(text[j-1])
			idx += j - i - 1
			i = j
			continue
		}
		r, size := decodeRune(text, i)
		i += size
		if r <= 0xFFFF && plainRunes[r>>6]&(1<<(r&63)) != 0 {
			// Most characters beyond ASCII break no rule wherever they
			// stand: one lookup says so (content_runes.go).
			prev, last = r, r
			continue
		}
		code, skip := w.judgeRune(text, i, r, prev, last)
		i += skip
		if code != 0 {
			bit := uint8(1) << (code - CodeContentBidiControl)
			if seen&bit == 0 {
				seen |= bit
				w.addRune(code, n, r, idx)
			}
		}
		last = r
		if !unicode.Is(unicode.Variation_Selector, r) && (r < 0x1F3FB || r > 0x1F3FF) {
			prev = r
		}
	}
}

// judgeRune returns the rule character r, before text[i:], breaks, or 0;
// skip is how many bytes after r belong to it (an emoji tag sequence).
// prev is the character r follows, emoji modifiers and variation
// selectors aside, and last the one just before it.
func (w *walker) judgeRune(text []byte, i int, r, prev, last rune) (code Code, skip int) {
	switch {
	case unicode.Is(unicode.Bidi_Control, r):
		// The marks (LRM, RLM, ALM) change no order on their own; the
		// embeddings, overrides and isolates do.
		if r != 0x200E && r != 0x200F && r != 0x061C {
			return CodeContentBidiControl, 0
		}
	case r == 0x1F3F4:
		return 0, tagSequence(text[i:])
	case r >= 0xE0000 && r <= 0xE007F:
		return CodeContentTagCharacter, 0
	case unicode.Is(unicode.Variation_Selector, r):
		if !variedBy(last, r) {
			return CodeContentVariationSelector, 0
		}
	case r == 0x200D || r == 0x200C:
		next, _ := utf8.DecodeRune(text[i:])
		if !joinerFits(r, prev, next) {
			return CodeContentInvisible, 0
		}
	case unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r):
		if !unicode.Is(unicode.Prepended_Concatenation_Mark, r) {
			return CodeContentInvisible, 0
		}
	case unicode.Is(unicode.Co, r):
		return CodeContentPrivateUse, 0
	case !assigned(r):
		return CodeContentUnassigned, 0
	}
	return 0, 0
}

// assigned reports whether r has a general category other than Cn
// (unassigned, noncharacters included) in the Unicode tables Go ships.
func assigned(r rune) bool { return !unicode.Is(unicode.Cn, r) }

// tagSequence returns the length of the emoji tag sequence after a black
// flag (U+1F3F4) when it is one of the flags platforms draw: England,
// Scotland or Wales (UTS #51 section 2.8 and its RGI list), tag
// characters ending with CANCEL TAG U+E007F; 0 otherwise. Any other
// sequence, a well-formed subdivision code included, shows as a plain
// black flag, and its tag characters are text a reader cannot see.
func tagSequence(b []byte) int {
	var spec [5]byte
	i, count := 0, 0
	for i < len(b) {
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == 0xE007F && count == len(spec) && drawnSubdivision(spec):
			return i + size
		case r >= 0xE0020 && r <= 0xE007E && count < len(spec):
			spec[count] = byte(r - 0xE0000)
			count++
			i += size
		default:
			return 0
		}
	}
	return 0
}

// drawnSubdivision reports whether spec, a tag sequence's characters as
// ASCII, names one of the subdivision flags in UTS #51's RGI list.
func drawnSubdivision(spec [5]byte) bool {
	switch string(spec[:]) {
	case "gbeng", "gbsct", "gbwls":
		return true
	}
	return false
}

// variedBy reports whether variation selector vs may follow base: the
// emoji and text selectors and the standardised variants any visible
// character, the ideographic variation selectors an ideograph, the
// Mongolian free variation selectors a Mongolian letter. A selector after
// another, after a space or first in a string varies nothing.
func variedBy(base, vs rune) bool {
	switch {
	case base <= ' ' || unicode.IsSpace(base) || unicode.Is(unicode.Variation_Selector, base) || unicode.Is(unicode.Cf, base):
		return false
	case vs >= 0xE0100:
		return unicode.Is(unicode.Ideographic, base)
	case vs >= 0x180B && vs <= 0x180F:
		return unicode.Is(unicode.Mongolian, base)
	}
	return true
}

// joinerFits reports whether a zero-width joiner or non-joiner sits where
// it is legitimate: after a letter of a script whose shaping uses it
// (ZWNJ in Persian words, ZWJ for Indic half forms), or, for ZWJ,
// between two pictographs of an emoji ZWJ sequence. Go's tables have no
// Extended_Pictographic, so a pictograph is a symbol of category So, the
// category of every emoji that joins (UTS #51 annex A).
func joinerFits(j, prev, next rune) bool {
	if joiningScript(prev) {
		// A joiner may end a word too: Malayalam wrote chillus as a
		// consonant, a virama and ZWJ before Unicode 5.1.
		return true
	}
	return j == 0x200D && unicode.Is(unicode.So, prev) && unicode.Is(unicode.So, next)
}

// joiningScripts are the scripts whose orthography uses ZWJ or ZWNJ
// (The Unicode Standard, section 23.2, Layout Controls).
var joiningScripts = []*unicode.RangeTable{
	unicode.Arabic, unicode.Syriac, unicode.Nko, unicode.Mongolian, unicode.Devanagari, unicode.Bengali,
	unicode.Gurmukhi, unicode.Gujarati, unicode.Oriya, unicode.Tamil, unicode.Telugu, unicode.Kannada,
	unicode.Malayalam, unicode.Sinhala, unicode.Khmer, unicode.Myanmar, unicode.Tibetan, unicode.Hebrew,
	unicode.Inherited,
}

func joiningScript(r rune) bool { return r >= 0x80 && unicode.In(r, joiningScripts...) }

// addRune reports rule c at string node n for character r, the idx-th of
// the string, naming it by code point: the character itself is what the
// reader cannot see.
func (w *walker) addRune(c Code, n uint32, r rune, idx int) {
	sev := w.res.level(c, w.contentSeverity(c))
	if sev == SeverityOff {
		return
	}
	if w.res.full() {
		w.res.countUnlisted(c, sev)
		return
	}
	start := len(w.res.arena)
	w.appendPath(n)
	path := w.res.arenaString(start)
	got := len(w.res.arena)
	w.res.arena = appendCodePoint(w.res.arena, r)
	w.res.arena = append(w.res.arena, " at character "...)
	w.res.arena = appendUint(w.res.arena, uint64(idx+1))
	w.res.add(Finding{Code: c, Severity: sev, Path: path, Offset: w.offset(n), msg: "%s", got: w.res.arenaString(got)})
}

// addContent reports rule c at node n with a message whose %s is what
// the arena holds from got on (path first, from start).
func (w *walker) addContent(c Code, n uint32, msg string, detail []byte) {
	w.addContentAtMost(c, n, msg, detail, SeverityError)
}

// addContentAtMost is addContent for a finding that is at most a warning
// when most is SeverityWarning, whatever the policy makes of rule c: a
// pattern an honest card quotes to name it (see walker.quoted).
func (w *walker) addContentAtMost(c Code, n uint32, msg string, detail []byte, most Severity) {
	sev := w.res.level(c, w.contentSeverity(c))
	if sev == SeverityOff {
		return
	}
	if most == SeverityWarning && sev == SeverityError {
		sev = SeverityWarning
	}
	if w.res.full() {
		w.res.countUnlisted(c, sev)
		return
	}
	start := len(w.res.arena)
	w.appendPath(n)
	path := w.res.arenaString(start)
	got := len(w.res.arena)
	w.res.arena = append(w.res.arena, detail...)
	w.res.add(Finding{Code: c, Severity: sev, Path: path, Offset: w.offset(n), msg: msg, got: w.res.arenaString(got)})
}

func appendUint(dst []byte, v uint64) []byte {
	var buf [20]byte
	i := len(buf)
	for {
		i--
		buf[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	return append(dst, buf[i:]...)
}

// Scripts, for UTS #39 restriction levels. Go's tables give each
// character's Script, not its Script_Extensions: characters shared by
// several scripts are mostly Common or Inherited, which the levels ignore.
var (
	likelyScripts = []*unicode.RangeTable{unicode.Latin, unicode.Han, unicode.Cyrillic, unicode.Greek, unicode.Arabic,
		unicode.Hebrew, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Devanagari, unicode.Thai, unicode.Bopomofo}
	// allScripts is unicode.Scripts in a fixed order, for the rest, made
	// on first use: few names hold a letter of another script.
	allScripts = sync.OnceValue(func() []*unicode.RangeTable {
		names := make([]string, 0, len(unicode.Scripts))
		for name := range unicode.Scripts {
			names = append(names, name)
		}
		sort.Strings(names)
		t := make([]*unicode.RangeTable, len(names))
		for i, name := range names {
			t[i] = unicode.Scripts[name]
		}
		return t
	})
)

// bmpScripts has, for each character of the Basic Multilingual Plane,
// the index in scripts of its script: 0 (nil) for Common and unknown,
// inheritedScript (nil too) for Inherited. Made on first use, from Go's
// tables, in which no character has two scripts
// (TestScriptOfAsSearch): a name beyond ASCII asked a binary search of
// Common's table, of Inherited's and of each likely script's in turn
// for each letter whose script was not the letter before's.
type bmpScripts struct {
	of      [0x10000]uint8
	scripts []*unicode.RangeTable
}

const inheritedScript = 1

var scriptIndex = sync.OnceValue(func() *bmpScripts {
	x := &bmpScripts{scripts: []*unicode.RangeTable{nil, nil}}
	for _, t := range allScripts() {
		idx := uint8(len(x.scripts))
		switch t {
		case unicode.Common:
			continue
		case unicode.Inherited:
			idx = inheritedScript
		default:
			x.scripts = append(x.scripts, t)
		}
		for _, rg := range t.R16 {
			for r := int(rg.Lo); r <= int(rg.Hi); r += int(rg.Stride) {
				x.of[r] = idx
			}
		}
	}
	return x
})

// inherited reports whether r's script is Inherited.
func inherited(r rune) bool { return scriptIndex().inherited(r) }

// scriptOf returns r's script, nil for Common, Inherited and unknown.
func scriptOf(r rune) *unicode.RangeTable { return scriptIndex().scriptOf(r) }

// inherited reports whether r's script is Inherited. A loop over many
// characters asks x, got once, rather than inherited: sync.OnceValue's
// check costs some twenty instructions a call.
func (x *bmpScripts) inherited(r rune) bool {
	if uint32(r) <= 0xFFFF {
		return x.of[r] == inheritedScript
	}
	return unicode.Is(unicode.Inherited, r)
}

// scriptOf returns r's script, nil for Common, Inherited and unknown (see
// bmpScripts.inherited).
func (x *bmpScripts) scriptOf(r rune) *unicode.RangeTable {
	if uint32(r) <= 0xFFFF {
		return x.scripts[x.of[r]]
	}
	return scriptOfSearch(r)
}

// scriptOfSearch is scriptOf by Go's tables, one binary search a script.
func scriptOfSearch(r rune) *unicode.RangeTable {
	if r < utf8.RuneSelf {
		if r|0x20 >= 'a' && r|0x20 <= 'z' {
			return unicode.Latin
		}
		return nil
	}
	if unicode.Is(unicode.Common, r) || unicode.Is(unicode.Inherited, r) {
		return nil
	}
	for _, s := range likelyScripts {
		if unicode.Is(s, r) {
			return s
		}
	}
	for _, s := range allScripts() {
		if unicode.Is(s, r) {
			return s
		}
	}
	return nil
}

// scriptSet collects the scripts of a word; four are more than any
// restriction level allows.
type scriptSet struct {
	s [4]*unicode.RangeTable
	n int
}

func (s *scriptSet) add(t *unicode.RangeTable) {
	for i := 0; i < s.n; i++ {
		if s.s[i] == t {
			return
		}
	}
	if s.n < len(s.s) {
		s.s[s.n] = t
		s.n++
	}
}

func (s *scriptSet) has(t *unicode.RangeTable) bool {
	for i := 0; i < s.n; i++ {
		if s.s[i] == t {
			return true
		}
	}
	return false
}

// within reports whether every script of s is Latin or one of allowed.
func (s *scriptSet) within(allowed ...*unicode.RangeTable) bool {
next:
	for i := 0; i < s.n; i++ {
		if s.s[i] == unicode.Latin {
			continue
		}
		for _, a := range allowed {
			if s.s[i] == a {
				continue next
			}
		}
		return false
	}
	return true
}

// moderatelyRestrictive reports whether a word of scripts s meets UTS #39
// section 5.2's moderately restrictive level: one script; or Latin with
// Han and Hiragana and Katakana, with Han and Bopomofo, or with Han and
// Hangul (highly restrictive); or Latin and one other script that is
// Recommended or Aspirational (recommendedScripts) but Cyrillic or Greek.
// Latin with a Limited Use or Excluded script, Cherokee's Ꭺ in "PᎪypal",
// is only minimally restrictive.
func (s *scriptSet) moderatelyRestrictive() bool {
	switch {
	case s.n <= 1:
		return true
	case s.within(unicode.Han, unicode.Hiragana, unicode.Katakana), s.within(unicode.Han, unicode.Bopomofo), s.within(unicode.Han, unicode.Hangul):
		return true
	case s.n == 2 && s.has(unicode.Latin):
		other := s.s[0]
		if other == unicode.Latin {
			other = s.s[1]
		}
		return other != unicode.Cyrillic && other != unicode.Greek && slices.Contains(recommendedScripts, other)
	}
	return false
}

// recommendedScripts are the scripts of UAX #31 (Unicode Identifiers and
// Syntax) section 2.4's table of Recommended Scripts
// (https://www.unicode.org/reports/tr31/#Table_Recommended_Scripts), but
// Common and Inherited, which scriptOf gives no script: the scripts in
// widespread everyday use that UTS #39's moderately restrictive level
// lets Latin mix with. Its table of Aspirational Use Scripts has been
// empty since Unicode 10.0, whose five scripts moved to Limited Use, so it
// adds none. Every other script, Cherokee, Canadian Aboriginal, Lisu,
// Coptic..., is Limited Use or Excluded.
var recommendedScripts = []*unicode.RangeTable{
	unicode.Arabic, unicode.Armenian, unicode.Bengali, unicode.Bopomofo, unicode.Cyrillic,
	unicode.Devanagari, unicode.Ethiopic, unicode.Georgian, unicode.Greek, unicode.Gujarati,
	unicode.Gurmukhi, unicode.Han, unicode.Hangul, unicode.Hebrew, unicode.Hiragana,
	unicode.Kannada, unicode.Katakana, unicode.Khmer, unicode.Lao, unicode.Latin,
	unicode.Malayalam, unicode.Myanmar, unicode.Oriya, unicode.Sinhala, unicode.Tamil,
	unicode.Telugu, unicode.Thaana, unicode.Thai, unicode.Tibetan,
}

// checkMixedScript judges each word of name text (a run of characters
// of some script: Common and Inherited ones, spaces, digits and
// punctuation, separate words) by UTS #39's moderately restrictive level.
// Words of fewer than three letters pass: they imitate nothing worth
// spoofing, and honest names write symbols so ("Mη").
func (w *walker) checkMixedScript(n uint32, text []byte) {
	if mixesScripts(text) {
		w.addGot(CodeContentMixedScript, n, "a word mixes scripts (UTS #39 restriction level below moderately restrictive)")
	}
}

// mixesScripts reports whether a word of text falls below UTS #39's
// moderately restrictive level (see checkMixedScript).
func mixesScripts(text []byte) bool {
	var set scriptSet
	letters := 0
	x := scriptIndex()
	for i := 0; i <= len(text); {
		var r rune = ' '
		size := 1
		if i < len(text) {
			c := text[i]
			if c|0x20 >= 'a' && c|0x20 <= 'z' {
				// A run of ASCII letters, most of a name: Latin, one
				// script for all of them.
				j := i + 1
				for j < len(text) && text[j]|0x20 >= 'a' && text[j]|0x20 <= 'z' {
					j++
				}
				set.add(unicode.Latin)
				letters += j - i
				i = j
				continue
			}
			if c < utf8.RuneSelf {
				r = rune(c)
			} else {
				r, size = decodeRune(text, i)
			}
		}
		i += size
		if s := x.scriptOf(r); s != nil {
			set.add(s)
			letters++
			continue
		}
		if x.inherited(r) && i < len(text) {
			continue
		}
		if letters >= 3 && !set.moderatelyRestrictive() {
			return true
		}
		set, letters = scriptSet{}, 0
	}
	return false
}
