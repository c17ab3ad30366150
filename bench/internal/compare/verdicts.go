package compare

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/valyala/fastjson"
)

// Verdict is one tool's judgement of one card, with its first reason for
// rejecting it as "path: rule-or-keyword: message".
type Verdict struct {
	OK  bool
	Why string
}

// readVerdicts reads a driver's verdict listing, keeping the first n cards.
func readVerdicts(path string, n int) ([]Verdict, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var vs []Verdict
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() && len(vs) < n {
		fields := strings.SplitN(sc.Text(), "\t", 3)
		if len(fields) < 2 || fields[0] != strconv.Itoa(len(vs)) {
			return nil, fmt.Errorf("%s: line %d: not a verdict line", path, len(vs)+1)
		}
		v := Verdict{OK: fields[1] == "1"}
		if len(fields) == 3 {
			v.Why = fields[2]
		}
		vs = append(vs, v)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(vs) != n {
		return nil, fmt.Errorf("%s: %d verdicts for %d cards", path, len(vs), n)
	}
	return vs, nil
}

// Side is one tool's part in a comparison of verdicts.
type Side struct {
	Key, Name string
	Verdicts  []Verdict
}

// Comparison is where two tools' verdicts on the same cards differ,
// grouped by why.
type Comparison struct {
	A, B      Side
	MustAgree bool
	Differ    int
	// StrictJSON counts the cards A rejects for a json.* rule (duplicate
	// members, bad UTF-8, lone surrogates, depth) while B passes them.
	StrictJSON int
	Groups     []*Group
}

// Group gathers the cards that differ for the same pair of reasons.
type Group struct {
	// Key is "A's reason | B's reason" with array indices and values
	// taken out, so that one cause makes one group.
	Key      string
	Count    int
	Examples []Example
}

// Example is one card of a group.
type Example struct {
	Index   int // 0-based record number
	WhyA    string
	WhyB    string
	Excerpt string // the value at the first path named, or the card's start
}

const examplesPerGroup = 3

// compareSides lists the cards judged differently by a and b.
func compareSides(a, b Side) *Comparison {
	cmp := &Comparison{A: a, B: b}
	byKey := map[string]*Group{}
	for i := range min(len(a.Verdicts), len(b.Verdicts)) {
		va, vb := a.Verdicts[i], b.Verdicts[i]
		if va.OK == vb.OK {
			continue
		}
		cmp.Differ++
		if !va.OK && strings.HasPrefix(ruleOf(va.Why), "json.") {
			cmp.StrictJSON++
		}
		key := reasonKey(va) + " | " + reasonKey(vb)
		g := byKey[key]
		if g == nil {
			g = &Group{Key: key}
			byKey[key] = g
			cmp.Groups = append(cmp.Groups, g)
		}
		g.Count++
		if len(g.Examples) < examplesPerGroup {
			g.Examples = append(g.Examples, Example{Index: i, WhyA: va.Why, WhyB: vb.Why})
		}
	}
	sort.SliceStable(cmp.Groups, func(i, j int) bool { return cmp.Groups[i].Count > cmp.Groups[j].Count })
	return cmp
}

// reasonKey reduces a reason to its path, with indices as "*", and its
// rule or keyword: the cause without the card-specific values.
func reasonKey(v Verdict) string {
	if v.OK {
		return "valid"
	}
	path, rest, ok := strings.Cut(v.Why, ": ")
	if !ok {
		return normalizeDigits(v.Why)
	}
	rule, _, _ := strings.Cut(rest, ": ")
	if path == "json" {
		// The JSON parsers' own words, without offsets and characters.
		return "json: " + normalizeDigits(firstWords(rest, 4))
	}
	return normalizePath(path) + " " + rule
}

// ruleOf returns the rule or keyword of a reason.
func ruleOf(why string) string {
	_, rest, _ := strings.Cut(why, ": ")
	rule, _, _ := strings.Cut(rest, ": ")
	return rule
}

// maxKeyPath bounds a path in a group key: a card nested 500 deep must not
// make a 2 KB key.
const maxKeyPath = 60

func normalizePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if _, err := strconv.Atoi(s); err == nil {
			segs[i] = "*"
		}
	}
	if p == "" {
		return "/"
	}
	if p = strings.Join(segs, "/"); len(p) > maxKeyPath {
		return p[:maxKeyPath-20] + "…" + p[len(p)-19:]
	}
	return p
}

func normalizeDigits(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			if i == 0 || s[i-1] < '0' || s[i-1] > '9' {
				b.WriteByte('N')
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func firstWords(s string, n int) string {
	f := strings.Fields(s)
	return strings.Join(f[:min(n, len(f))], " ")
}

// fillExcerpts sets each example's excerpt from the card it names.
func fillExcerpts(cmp *Comparison, cards [][]byte) {
	var p fastjson.Parser
	for _, g := range cmp.Groups {
		for i := range g.Examples {
			ex := &g.Examples[i]
			if ex.Index < len(cards) {
				ex.Excerpt = excerpt(&p, cards[ex.Index], ex.WhyA, ex.WhyB)
			}
		}
	}
}

const excerptMax = 160

// excerpt returns the JSON value at the first path that either reason
// names and the card has, or else the card's first bytes.
func excerpt(p *fastjson.Parser, card []byte, whys ...string) string {
	if v, err := p.ParseBytes(card); err == nil {
		for _, why := range whys {
			path, _, ok := strings.Cut(why, ": ")
			if !ok || !strings.HasPrefix(path, "/") {
				continue
			}
			var keys []string
			for _, s := range strings.Split(path[1:], "/") {
				if s != "" {
					keys = append(keys, strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~"))
				}
			}
			if at := v.Get(keys...); at != nil {
				return truncate(path+" = "+string(at.MarshalTo(nil)), excerptMax)
			}
		}
	}
	return truncate(string(card), excerptMax)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return string(bytes.ToValidUTF8([]byte(s[:n]), nil)) + "…"
}
