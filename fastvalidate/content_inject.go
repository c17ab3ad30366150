package fastvalidate

import (
	_ "embed"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// patternsText is the maintained pattern set of content.injection and
// content.hidden-markup; its header says how to read and extend it.
//
//go:embed content/patterns.txt
var patternsText string

// ContentPatternsVersion is the version of the pattern set the content
// rules match, from its "version" line: reports and `cardscan explain`
// name it, so that a finding can be traced to the set that made it.
var ContentPatternsVersion = patterns.version

// wordPattern is a "words" line: tokens to match word by word.
type wordPattern struct {
	kind, id string
	tokens   []patternToken
}

// patternToken is a set of words, or, when gap > 0, up to gap words of
// any kind.
type patternToken struct {
	words []string
	gap   int
}

// literalPattern is a "literal" line. anchor is the offset in text of
// its first byte that is neither a letter, a digit nor a space, which
// every literal has: the text is searched for those bytes only.
type literalPattern struct {
	kind, id, text string
	anchor         int
}

type patternSet struct {
	version  string
	words    []wordPattern
	literals []literalPattern
	// byFirst lists, for each word a pattern starts with, the patterns
	// that do; firstWords has the bit of firstKey set for each of those
	// words, so that most words of a text are passed over with one lookup
	// and no map access.
	byFirst    map[string][]int
	firstWords [1 << 16 / 64]uint64
	// byAnchor lists the literals by their anchor byte: one pass over a
	// text finds the places where any literal can match.
	byAnchor [256][]int
	anchors  [256]bool
}

var patterns = mustParsePatterns(patternsText)

// mustParsePatterns reads the pattern set; the set ships with the binary,
// so a mistake in it is a bug that the package's tests catch at once.
func mustParsePatterns(text string) *patternSet {
	p := &patternSet{byFirst: map[string][]int{}}
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, " \t\r")
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Fields(line)
		bad := func() { panic("fastvalidate: content/patterns.txt line " + strconv.Itoa(i+1) + ": " + line) }
		switch {
		case f[0] == "version" && len(f) == 2:
			p.version = f[1]
		case f[0] == "words" && len(f) >= 4:
			wp := wordPattern{kind: f[1], id: f[2]}
			for _, tok := range f[3:] {
				if n, ok := strings.CutPrefix(tok, "*"); ok {
					gap, err := strconv.Atoi(n)
					if err != nil || gap < 1 {
						bad()
					}
					wp.tokens = append(wp.tokens, patternToken{gap: gap})
					continue
				}
				wp.tokens = append(wp.tokens, patternToken{words: strings.Split(tok, "|")})
			}
			if wp.tokens[0].gap != 0 {
				bad()
			}
			for _, first := range wp.tokens[0].words {
				p.byFirst[first] = append(p.byFirst[first], len(p.words))
				k := firstKey([]byte(first))
				p.firstWords[k/64] |= 1 << (k % 64)
			}
			p.words = append(p.words, wp)
		case f[0] == "literal" && len(f) >= 4:
			// The text is the rest of the line after the id, folded as
			// card text is.
			rest := strings.SplitN(line, " ", 4)[3]
			lit := string(appendFolded(nil, []byte(rest)))
			anchor := strings.IndexFunc(lit, func(r rune) bool { return !foldWordByte[byte(r)] && r != ' ' })
			if anchor < 0 {
				bad()
			}
			p.byAnchor[lit[anchor]] = append(p.byAnchor[lit[anchor]], len(p.literals))
			p.anchors[lit[anchor]] = true
			p.literals = append(p.literals, literalPattern{kind: f[1], id: f[2], text: lit, anchor: anchor})
		default:
			bad()
		}
	}
	if p.version == "" {
		panic("fastvalidate: content/patterns.txt has no version line")
	}
	return p
}

// lowerASCII maps ASCII to lowercase and white space to a space.
var lowerASCII = func() (t [utf8.RuneSelf]byte) {
	for c := range t {
		t[c] = byte(c)
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = byte(c + 'a' - 'A')
	}
	for _, c := range "\t\n\v\f\r" {
		t[c] = ' '
	}
	return t
}()

// appendLowerASCII appends ASCII text lowercased, white space collapsed.
// It writes into dst grown once, which is what keeps it cheap: it reads
// every byte of every text of every card.
func appendLowerASCII(dst, text []byte) []byte {
	n := len(dst)
	dst = slices.Grow(dst, len(text))[:n+len(text)]
	prev := byte(0)
	if n > 0 {
		prev = dst[n-1]
	}
	for _, c := range text {
		c = lowerASCII[c&0x7F]
		dst[n] = c
		if c != ' ' || prev != ' ' {
			n++
		}
		prev = c
	}
	return dst[:n]
}

// foldOther stands for a character beyond ASCII that passes for none:
// part of a word, but of no word a pattern names.
const foldOther = 0x80

// appendFolded appends text folded for pattern matching: ASCII
// lowercased; a character beyond ASCII replaced by the ASCII it passes
// for (NFKC and UTS #39 confusables, see foldTable), dropped when it is
// invisible (format characters, default ignorables, variation selectors,
// combining marks), a space when it is one, and foldOther otherwise;
// white space collapsed.
func appendFolded(dst, text []byte) []byte {
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			dst = appendLowerASCII(dst, text[i:i+1])
			i++
			continue
		}
		r, size := utf8.DecodeRune(text[i:])
		i += size
		if s := foldRune(r); s != "" {
			dst = appendLowerASCII(dst, []byte(s))
			continue
		}
		switch {
		case unicode.IsSpace(r):
			dst = appendLowerASCII(dst, []byte{' '})
		case unicode.In(r, unicode.Cf, unicode.Mn, unicode.Me, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector),
			r >= 0xE0000 && r <= 0xE0FFF:
		default:
			dst = append(dst, foldOther)
		}
	}
	return dst
}

// foldEntry is a row of foldTable.
type foldEntry struct {
	r rune
	s string
}

// foldRune returns the ASCII r passes for, or "".
func foldRune(r rune) string {
	i := sort.Search(len(foldTable), func(i int) bool { return foldTable[i].r >= r })
	if i < len(foldTable) && foldTable[i].r == r {
		return foldTable[i].s
	}
	return ""
}

// foldWordByte tells the bytes of words in folded text.
var foldWordByte = func() (t [256]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
	}
	t[foldOther] = true
	return t
}()

// matchPatterns matches the pattern set against the folded texts of one
// object (walker.fold) and reports each kind of pattern once, at the
// member where its first match starts.
func (w *walker) matchPatterns() {
	text := w.fold
	w.words = w.words[:0]
	for i := 0; i < len(text); {
		if !foldWordByte[text[i]] {
			i++
			continue
		}
		j := i + 1
		for j < len(text) && foldWordByte[text[j]] {
			j++
		}
		w.words = append(w.words, span{uint32(i), uint32(j)})
		i = j
	}
	var reported uint8
	for i, s := range w.words {
		word := text[s.start:s.end]
		if k := firstKey(word); patterns.firstWords[k/64]&(1<<(k%64)) == 0 {
			continue
		}
		for _, pi := range patterns.byFirst[string(word)] {
			p := &patterns.words[pi]
			if end, ok := w.matchWords(p.tokens[1:], i+1); ok {
				bit := patternKindBit(p.kind)
				if reported&bit == 0 {
					reported |= bit
					w.reportPattern(p.kind, p.id, text[s.start:w.words[end-1].end], s.start)
				}
			}
		}
	}
	for at, c := range text {
		if !patterns.anchors[c] {
			continue
		}
		for _, li := range patterns.byAnchor[c] {
			l := &patterns.literals[li]
			start := at - l.anchor
			if start < 0 || start+len(l.text) > len(text) || string(text[start:start+len(l.text)]) != l.text {
				continue
			}
			if bit := patternKindBit(l.kind); reported&bit == 0 {
				reported |= bit
				w.reportPattern(l.kind, l.id, text[start:start+len(l.text)], uint32(start))
			}
		}
	}
}

// firstKey hashes a word by its length and its first, second and last
// bytes into 16 bits, for patternSet.firstWords.
func firstKey(word []byte) uint32 {
	n := len(word)
	h := uint32(word[0])*0x9E37 ^ uint32(word[n-1])*0x85EB ^ uint32(n)*0xC2B3
	if n > 1 {
		h ^= uint32(word[1]) * 0x27D5
	}
	return (h ^ h>>16) & 0xFFFF
}

// matchWords matches tokens against the words from i on and returns the
// index past the last word matched.
func (w *walker) matchWords(tokens []patternToken, i int) (int, bool) {
	if len(tokens) == 0 {
		return i, true
	}
	t := &tokens[0]
	if t.gap > 0 {
		for skip := 0; skip <= t.gap && i+skip <= len(w.words); skip++ {
			if end, ok := w.matchWords(tokens[1:], i+skip); ok {
				return end, true
			}
		}
		return 0, false
	}
	if i >= len(w.words) {
		return 0, false
	}
	s := w.words[i]
	word := w.fold[s.start:s.end]
	for _, alt := range t.words {
		if string(word) == alt {
			return w.matchWords(tokens[1:], i+1)
		}
	}
	return 0, false
}

func patternKindBit(kind string) uint8 {
	switch kind {
	case "override":
		return 1
	case "roleplay":
		return 2
	case "exfiltration":
		return 4
	case "marker":
		return 8
	case "tool-call":
		return 16
	}
	return 32
}

// reportPattern reports a match of pattern id of kind, the folded text
// matched, which starts at byte at of walker.fold.
func (w *walker) reportPattern(kind, id string, matched []byte, at uint32) {
	n := w.foldAt[0].node
	for _, m := range w.foldAt {
		if m.at > at {
			break
		}
		n = m.node
	}
	code := CodeContentInjection
	if kind == "hidden-markup" {
		code = CodeContentHiddenMarkup
	}
	var detail [160]byte
	d := append(detail[:0], kind...)
	d = append(d, " pattern "...)
	d = append(d, id...)
	d = append(d, " (set v"...)
	d = append(d, patterns.version...)
	d = append(d, ") matched \""...)
	if len(matched) > 64 {
		matched = matched[:64]
	}
	for _, c := range matched {
		if c == foldOther || c == '"' || c == '\\' {
			c = '?'
		}
		d = append(d, c)
	}
	d = append(d, '"')
	w.addContent(code, n, "%s, after folding case, look-alike and invisible characters", d)
}
