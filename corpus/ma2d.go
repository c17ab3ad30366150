package corpus

import (
	"strconv"
	"strings"
)

// The ma2d dialect: valid cards of the MA2D Agent Card specification
// (ma2d-agent-card-spec.md), with its lowercase-hyphen names, 200-character
// descriptions, snake_case skills and invocation block.

func init() {
	registerDialect("ma2d", "ma2d", buildMA2D)
}

func buildMA2D(b *builder) {
	r := b.r
	root := b.object()
	b.put(root, "name", b.slug())
	start := b.mark()
	b.text = strconv.AppendInt(b.text, int64(r.intn(4)), 10)
	b.text = append(b.text, '.')
	b.text = strconv.AppendInt(b.text, int64(r.intn(10)), 10)
	b.text = append(b.text, '.')
	b.text = strconv.AppendInt(b.text, int64(r.intn(10)), 10)
	if r.intn(6) == 0 {
		b.text = append(b.text, "-beta"...)
	}
	b.put(root, "version", b.strFrom(start))
	b.put(root, "description", b.ma2dDescription(200))
	if r.intn(4) != 0 {
		b.put(root, "author", b.str(r.pick(providerOrgs)))
		b.put(root, "license", b.str(r.pick(licenses)))
	}
	if r.intn(2) == 0 {
		b.put(root, "homepage", b.url("https", false))
	}
	if r.intn(2) == 0 {
		b.put(root, "repository", b.str("https://github.com/example/", b.textOf(b.at("/name"))))
	}

	skills := b.put(root, "skills", b.array())
	names := b.r.pickDistinct(nil, capVerbs, r.between(1, 4))
	for _, name := range names {
		s := b.push(skills, b.object())
		b.put(s, "name", b.str(name))
		b.put(s, "description", b.ma2dDescription(50))
		if r.intn(2) == 0 {
			p := b.put(s, "parameters", b.object())
			for _, param := range r.pickDistinct(nil, paramNames, r.between(1, 3)) {
				b.put(p, param, b.str(r.pickS("string", "number", "boolean"), " - ", strings.ReplaceAll(param, "_", " ")))
			}
			ret := r.pick(capResults)
			b.put(s, "returns", b.str(strings.ToUpper(ret[:1]), ret[1:]))
		}
		if r.intn(3) == 0 {
			b.put(s, "mcp_server", b.str(r.pick(hostPrefixes), "-api"))
			b.put(s, "mcp_tool", b.str(name))
		}
	}

	c := b.put(root, "capabilities", b.object())
	b.scratch = r.pickDistinct(b.scratch[:0], isoLanguages, r.between(1, 4))
	b.put(c, "languages", b.strings(b.scratch...))
	b.scratch = r.pickDistinct(b.scratch[:0], tagWords, r.between(1, 3))
	b.put(c, "domains", b.strings(b.scratch...))
	b.scratch = r.pickDistinct(b.scratch[:0], ma2dInputs, r.between(1, 2))
	b.put(c, "input_modes", b.strings(b.scratch...))
	b.scratch = r.pickDistinct(b.scratch[:0], ma2dOutputs, r.between(1, 3))
	b.put(c, "output_modes", b.strings(b.scratch...))
	b.put(c, "streaming", b.boolean(r.intn(2) == 0))
	b.put(c, "async", b.boolean(r.intn(2) == 0))
	b.put(c, "state_management", b.boolean(r.intn(2) == 0))
	if r.intn(2) == 0 {
		b.put(c, "rate_limit", b.str(strconv.Itoa(r.between(1, 50)*10), " requests per minute"))
	}

	inv := b.put(root, "invocation", b.object())
	b.put(inv, "protocol", b.str(r.pick(ma2dProtocols)))
	b.put(inv, "endpoint", b.url("https", false))
	if r.intn(4) != 0 {
		a := b.put(inv, "authentication", b.object())
		b.put(a, "type", b.str(r.pick(ma2dAuthTypes)))
		b.put(a, "required", b.boolean(r.intn(2) == 0))
	}
	b.put(inv, "method", b.str("POST"))
	b.put(inv, "format", b.str(r.pick(ma2dFormats)))

	if r.intn(2) == 0 {
		ex := b.put(root, "examples", b.array())
		e := b.push(ex, b.object())
		b.put(e, "skill", b.str(names[r.intn(len(names))]))
		b.put(e, "description", b.str("Example call for ", r.pick(capObjects)))
		in := b.put(e, "input", b.object())
		b.put(in, "city", b.str("San Francisco"))
		b.put(in, "units", b.str(r.pickS("celsius", "fahrenheit")))
		out := b.put(e, "output", b.object())
		b.put(out, "status", b.str("ok"))
		b.put(out, "temperature", b.num(r.between(-10, 40)))
	}

	m := b.put(root, "metadata", b.object())
	b.put(m, "created_at", b.timestamp())
	b.put(m, "updated_at", b.timestamp())
	b.scratch = r.pickDistinct(b.scratch[:0], tagWords, r.between(1, 4))
	b.put(m, "tags", b.strings(b.scratch...))
	b.scratch = r.pickDistinct(b.scratch[:0], ma2dCategories, r.between(1, 3))
	b.put(m, "categories", b.strings(b.scratch...))
}

// ma2dDescription returns sentences totalling at least minLen ASCII
// characters (the spec counts characters; ASCII keeps every count equal).
func (b *builder) ma2dDescription(minLen int) int32 {
	r := b.r
	start := b.mark()
	for len(b.text)-start < minLen {
		if len(b.text) > start {
			b.text = append(b.text, ' ')
		}
		b.text = append(b.text, r.pick(descVerbs)...)
		b.text = append(b.text, ' ')
		b.text = append(b.text, r.pick(capObjects)...)
		b.text = append(b.text, " and return "...)
		b.text = append(b.text, r.pick(capResults)...)
		b.text = append(b.text, ' ')
		b.text = append(b.text, r.pick(capQualifiers)...)
		b.text = append(b.text, '.')
	}
	return b.strFrom(start)
}
