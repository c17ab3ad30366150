package corpus

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Pieces of cards that several dialects share.

// float returns a number in [0, 1).
func (r *rng) float() float64 { return float64(r.uint64()>>11) * (1.0 / (1 << 53)) }

// variant is a valid but unusual shape a dialect's builder may choose.
type variant struct {
	name   string
	weight float64 // probability among valid cards
}

// pickVariant returns the variant of a valid card, "" for the ordinary shape.
func (b *builder) pickVariant(vs []variant) string {
	if b.defective {
		return ""
	}
	x := b.r.float()
	for _, v := range vs {
		if x < v.weight {
			b.variant = v.name
			return v.name
		}
		x -= v.weight
	}
	return ""
}

// agentName returns a display name: CamelCase, spaced, or now and then
// with non-ASCII letters.
func (b *builder) agentName() int32 {
	r := b.r
	head, tail := r.pick(nameHeads), r.pick(nameTails)
	switch r.intn(10) {
	case 0:
		return b.str(r.pick(nameUnicode))
	case 1, 2, 3:
		return b.str(head, " ", tail)
	case 4:
		return b.str(head, "-", tail, " ", strconv.Itoa(r.between(2, 9)))
	}
	return b.str(head, tail)
}

// longName returns a name of exactly n code points, most of them
// multi-byte, so that byte and code point counts differ: whole words of
// the pattern, from a place in it the seed picks, each word in one script
// as real multilingual names are (a word mixing Latin with Greek or Han
// is the shape of a homoglyph spoof, which content.mixed-script reports).
func (b *builder) longName(n int) int32 {
	start := b.mark()
	const pattern = "Agënt 研究助手 Ωμέγα Smørrebrød データ分析 Éclair-" // 41 code points
	runes := []rune(pattern)
	from := 0
	for i := 0; i < n; i++ {
		// One draw per code point, as before the words were kept whole,
		// so that the rest of a generated corpus stays as it was.
		if d := b.r.intn(3); i == 0 {
			from = d * 13
		}
		b.text = utf8.AppendRune(b.text, runes[(from+i)%len(runes)])
	}
	return b.strFrom(start)
}

// semver returns a Semantic Versioning 2.0.0 version, sometimes with a
// pre-release or build part.
func (b *builder) semver() int32 {
	r := b.r
	start := b.mark()
	b.text = strconv.AppendInt(b.text, int64(r.intn(4)), 10)
	b.text = append(b.text, '.')
	b.text = strconv.AppendInt(b.text, int64(r.intn(13)), 10)
	b.text = append(b.text, '.')
	b.text = strconv.AppendInt(b.text, int64(r.intn(21)), 10)
	switch r.intn(8) {
	case 0:
		b.text = append(b.text, "-beta."...)
		b.text = strconv.AppendInt(b.text, int64(r.between(1, 9)), 10)
	case 1:
		b.text = append(b.text, "-rc.1+build."...)
		b.text = strconv.AppendInt(b.text, int64(r.between(100, 999)), 10)
	case 2:
		b.text = append(b.text, "+sha.5114f85"...)
	}
	return b.strFrom(start)
}

// sentence returns a one- or two-sentence capability description.
func (b *builder) sentence() int32 {
	r := b.r
	start := b.mark()
	b.text = append(b.text, r.pick(descVerbs)...)
	b.text = append(b.text, ' ')
	b.text = append(b.text, r.pick(capObjects)...)
	b.text = append(b.text, " and return "...)
	b.text = append(b.text, r.pick(capResults)...)
	b.text = append(b.text, ' ')
	b.text = append(b.text, r.pick(capQualifiers)...)
	b.text = append(b.text, '.')
	if r.intn(5) == 0 {
		b.text = append(b.text, " Accepts "...)
		b.text = append(b.text, r.pick(capObjects)...)
		b.text = append(b.text, " as well."...)
	}
	return b.strFrom(start)
}

// appendHost appends a host name under the example domains.
func (b *builder) appendHost(dst []byte) []byte {
	dst = append(dst, b.r.pick(hostPrefixes)...)
	dst = append(dst, '-')
	dst = append(dst, strings.ToLower(b.r.pick(nameHeads))...)
	dst = append(dst, '.')
	return append(dst, b.r.pick(domains)...)
}

// url returns an absolute URL that RFC 3986 and Go's net/url agree on:
// ASCII letters, digits, "-", "/", "?", "=" and "&" only.
func (b *builder) url(scheme string, port bool) int32 {
	r := b.r
	start := b.mark()
	b.text = append(b.text, scheme...)
	b.text = append(b.text, "://"...)
	b.text = b.appendHost(b.text)
	if port {
		b.text = append(b.text, ':')
		b.text = strconv.AppendInt(b.text, int64(r.pick2(443, 8443, 8080, 9000)), 10)
	}
	for i, n := 0, r.between(1, 3); i < n; i++ {
		b.text = append(b.text, '/')
		b.text = append(b.text, r.pick(pathWords)...)
	}
	if r.intn(8) == 0 {
		b.text = append(b.text, "?region="...)
		b.text = append(b.text, r.pick(regions)...)
	}
	return b.strFrom(start)
}

func (r *rng) pick2(v ...int) int { return v[r.intn(len(v))] }

// slug returns a lowercase, hyphenated identifier such as "route-planner".
func (b *builder) slug() int32 {
	start := b.mark()
	b.text = append(b.text, strings.ToLower(b.r.pick(nameHeads))...)
	b.text = append(b.text, '-')
	b.text = append(b.text, strings.ToLower(b.r.pick(nameTails))...)
	return b.strFrom(start)
}

// timestamp returns an RFC 3339 UTC time in 2024 or 2025.
func (b *builder) timestamp() int32 {
	r := b.r
	start := b.mark()
	b.text = append(b.text, "202"...)
	b.text = strconv.AppendInt(b.text, int64(r.between(4, 5)), 10)
	b.text = append(b.text, '-')
	b.text = appendTwo(b.text, r.between(1, 12))
	b.text = append(b.text, '-')
	b.text = appendTwo(b.text, r.between(1, 28))
	b.text = append(b.text, 'T')
	b.text = appendTwo(b.text, r.intn(24))
	b.text = append(b.text, ':')
	b.text = appendTwo(b.text, r.intn(60))
	b.text = append(b.text, ":00Z"...)
	return b.strFrom(start)
}

func appendTwo(dst []byte, v int) []byte {
	return append(dst, byte('0'+v/10), byte('0'+v%10))
}

// decimal returns a number node mant×10^exp written in e-notation, e.g. 4.2e-19.
func (b *builder) decimal(mantLo, mantHi, exp int) int32 {
	start := b.mark()
	m := b.r.between(mantLo, mantHi) // tenths
	b.text = strconv.AppendInt(b.text, int64(m/10), 10)
	if m%10 != 0 {
		b.text = append(b.text, '.', byte('0'+m%10))
	}
	b.text = append(b.text, 'e')
	b.text = strconv.AppendInt(b.text, int64(exp), 10)
	return b.rawFrom(start)
}

// fraction returns a number node in [0, 1] with two decimals.
func (b *builder) fraction() int32 {
	v := b.r.intn(101)
	switch v {
	case 0:
		return b.raw("0")
	case 100:
		return b.raw("1")
	}
	start := b.mark()
	b.text = append(b.text, '0', '.')
	b.text = appendTwo(b.text, v)
	return b.rawFrom(start)
}

// inputSchema returns a small JSON Schema object in the OpenAI
// function-calling style.
func (b *builder) inputSchema(names []string) int32 {
	r := b.r
	s := b.object()
	b.put(s, "type", b.str("object"))
	props := b.put(s, "properties", b.object())
	b.scratch = r.pickDistinct(b.scratch[:0], names, r.between(1, 3))
	for _, p := range b.scratch {
		prop := b.put(props, p, b.object())
		t := r.pick(jsonTypes)
		b.put(prop, "type", b.str(t))
		switch {
		case t == "integer" && r.intn(2) == 0:
			b.put(prop, "default", b.num(r.between(1, 500)))
		case t == "string" && r.intn(3) == 0:
			b.put(prop, "description", b.str("The ", strings.ReplaceAll(p, "_", " "), " to use."))
		case t == "array":
			items := b.put(prop, "items", b.object())
			b.put(items, "type", b.str("string"))
		}
	}
	if r.intn(2) == 0 {
		req := b.put(s, "required", b.array())
		b.push(req, b.str(b.scratch[0]))
	}
	return s
}

// rename changes the member name of the node at path, for spellings with
// escapes.
func (t *tree) rename(path, key string) {
	if n := t.at(path); n != none {
		t.nodes[n].key = key
	}
}
