package migrate

import (
	"bytes"
	"encoding/json"
	"strings"
)

// The values a migration writes: obj and arr are new containers, raw is
// a value taken from the card (possibly itself edited), with the
// indentation of the line it stood on so that it can be moved; Go strings
// and booleans are written as JSON.
type (
	obj []kv
	arr []any
	kv  struct {
		k string
		v any
	}
	raw struct {
		text []byte
		base string
	}
	// oneLine writes its value on one line whatever its container does:
	// a wrapper around a value the author wrote on one line.
	oneLine struct{ v any }
)

// writer renders edited containers of one card in the card's style.
type writer struct {
	src []byte
	st  style
	// flat is set for a card on one line (an NDJSON record): nothing in
	// it is indented, and looking back through it for a line break at
	// every value moved would cost time in the card's size each.
	flat bool
}

func newWriter(src []byte, st style) *writer {
	return &writer{src: src, st: st, flat: bytes.IndexByte(src, '\n') < 0}
}

// indentAt returns the white space that opens the line holding byte at.
func (w *writer) indentAt(at int) string {
	if w.flat {
		return ""
	}
	return lineIndent(w.src, at)
}

// multiline reports whether a value of the card spans lines.
func (w *writer) multiline(n *node) bool {
	return !w.flat && multiline(w.src, n)
}

// rawOf takes a value of the card as it is.
func (w *writer) rawOf(n *node) raw {
	return raw{text: w.src[n.start:n.end], base: w.indentAt(n.start)}
}

// unwrapped takes text, the edited bytes of inner, out of the wrapper
// member holding it, to be written at place. Wrapping put inner one unit
// deeper than its scheme's line, so unwrapping takes that unit off
// again rather than moving inner to place: in a card laid out irregularly
// (a member after a closing brace on the brace's line) place can sit at
// another depth than the line inner was taken from, and moving there
// would shift the value on every round trip.
func (w *writer) unwrapped(text []byte, inner *node, place string) raw {
	from := w.indentAt(inner.start)
	if to, ok := strings.CutSuffix(from, w.st.unit); ok && w.st.unit != "" {
		return raw{text: reindent(text, from, to), base: place}
	}
	return raw{text: text, base: from}
}

// emit appends v written at a line indented by base.
func (w *writer) emit(dst []byte, v any, base string, pretty bool) []byte {
	switch v := v.(type) {
	case raw:
		return append(dst, reindent(v.text, v.base, base)...)
	case oneLine:
		return w.emit(dst, v.v, base, false)
	case string:
		return appendString(dst, v)
	case bool:
		if v {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case obj:
		if len(v) == 0 {
			return append(dst, "{}"...)
		}
		dst = append(dst, '{')
		for i, m := range v {
			dst = w.sep(dst, i, base, pretty)
			dst = appendString(dst, m.k)
			dst = append(dst, w.st.colon...)
			dst = w.emit(dst, m.v, base+w.st.unit, pretty)
		}
		return w.close(dst, '}', base, pretty)
	case arr:
		if len(v) == 0 {
			return append(dst, "[]"...)
		}
		dst = append(dst, '[')
		for i, e := range v {
			dst = w.sep(dst, i, base, pretty)
			dst = w.emit(dst, e, base+w.st.unit, pretty)
		}
		return w.close(dst, ']', base, pretty)
	}
	panic("migrate: cannot write a value of this type")
}

func (w *writer) sep(dst []byte, i int, base string, pretty bool) []byte {
	if i > 0 {
		if !pretty {
			return append(dst, w.st.comma...)
		}
		dst = append(dst, ',')
	}
	if pretty {
		dst = append(dst, w.st.newline...)
		dst = append(dst, base...)
		dst = append(dst, w.st.unit...)
	}
	return dst
}

func (w *writer) close(dst []byte, c byte, base string, pretty bool) []byte {
	if pretty {
		dst = append(dst, w.st.newline...)
		dst = append(dst, base...)
	}
	return append(dst, c)
}

func appendString(dst []byte, s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a Go string always encodes
	return append(dst, bytes.TrimSuffix(b.Bytes(), []byte("\n"))...)
}

// item is one member or element of an edited container: an original one
// (orig >= 0, its bytes possibly changed) or a new one (orig < 0).
type item struct {
	orig int
	text []byte
}

// edit collects the changes to one object or array of the card; text
// renders it. Members and elements no change names keep their bytes, and
// the white space between two original items that stood together keeps
// its bytes too, so only what changed differs.
type edit struct {
	w      *writer
	n      *node
	drop   []bool
	rename []string
	value  []any    // a new value for an original item, or nil
	before [][]any  // new items before original item i; [len] at the end
	pretty bool     // new items go on lines of their own
	indent string   // the indentation of the container's items
	spans  [][2]int // each original item's bytes, name included
}

func (w *writer) edit(n *node) *edit {
	count := len(n.members)
	if n.kind == '[' {
		count = len(n.elems)
	}
	e := &edit{w: w, n: n, drop: make([]bool, count), rename: make([]string, count),
		value: make([]any, count), before: make([][]any, count+1), spans: make([][2]int, count)}
	for i := range count {
		if n.kind == '{' {
			e.spans[i] = [2]int{n.members[i].keyStart, n.members[i].val.end}
		} else {
			e.spans[i] = [2]int{n.elems[i].start, n.elems[i].end}
		}
	}
	e.pretty = w.multiline(n)
	if count > 0 {
		e.indent = w.indentAt(e.spans[0][0])
	} else {
		e.indent = w.indentAt(n.start) + w.st.unit
	}
	return e
}

// Drop removes the member named name; it reports whether there was one.
func (e *edit) Drop(name string) bool {
	i := e.n.index(name)
	if i >= 0 {
		e.drop[i] = true
	}
	return i >= 0
}

func (e *edit) Rename(name, to string) bool {
	i := e.n.index(name)
	if i >= 0 {
		e.rename[i] = to
	}
	return i >= 0
}

func (e *edit) Set(name string, v any) bool {
	i := e.n.index(name)
	if i >= 0 {
		e.value[i] = v
	}
	return i >= 0
}

// InsertBefore adds a member before the member named at, or at the end
// when at names none.
func (e *edit) InsertBefore(at string, k string, v any) {
	i := e.n.index(at)
	if i < 0 {
		i = len(e.spans)
	}
	e.before[i] = append(e.before[i], kv{k, v})
}

// InsertAfter adds a member after the member named at, or at the end.
func (e *edit) InsertAfter(at string, k string, v any) {
	i := e.n.index(at)
	if i < 0 {
		i = len(e.spans) - 1
	}
	e.before[i+1] = append(e.before[i+1], kv{k, v})
}

// SetAt replaces element i of an array, or the value of member i of an
// object: a loop over an object's members sets each by its position, as
// Set would look each name up among all the members, n² for the loop.
func (e *edit) SetAt(i int, v any) { e.value[i] = v }

// DropAt removes member i of an object (see SetAt).
func (e *edit) DropAt(i int) { e.drop[i] = true }

// Append adds an element at the end of an array, or a member at the end
// of an object (given as kv).
func (e *edit) Append(v any) { e.before[len(e.spans)] = append(e.before[len(e.spans)], v) }

// changed reports whether the container differs from the card's bytes.
func (e *edit) changed() bool {
	for i := range e.spans {
		if e.drop[i] || e.rename[i] != "" || e.value[i] != nil || len(e.before[i]) > 0 {
			return true
		}
	}
	return len(e.before[len(e.spans)]) > 0
}

// wrap returns v on one line when n, the value it wraps, is on one.
func (w *writer) wrap(n *node, v any) any {
	if w.multiline(n) {
		return v
	}
	return oneLine{v}
}

// Raw renders the container as a value to place where it stood.
func (e *edit) Raw() raw {
	return raw{text: e.Text(), base: e.w.indentAt(e.n.start)}
}

func (e *edit) Text() []byte {
	w, src, n := e.w, e.w.src, e.n
	if !e.changed() {
		return src[n.start:n.end]
	}
	var items []item
	for i := 0; i <= len(e.spans); i++ {
		for _, v := range e.before[i] {
			items = append(items, item{orig: -1, text: e.newItem(v)})
		}
		if i < len(e.spans) && !e.drop[i] {
			items = append(items, item{orig: i, text: e.origItem(i)})
		}
	}
	open, closing := src[n.start], src[n.end-1]
	if len(items) == 0 {
		return []byte{open, closing}
	}
	var lead, trail, typical []byte
	switch {
	case len(e.spans) > 0:
		lead = src[n.start+1 : e.spans[0][0]]
		trail = src[e.spans[len(e.spans)-1][1] : n.end-1]
	case e.pretty:
		lead = []byte(w.st.newline + e.indent)
		trail = []byte(w.st.newline + w.indentAt(n.start))
	}
	switch {
	case len(e.spans) > 1:
		typical = src[e.spans[0][1]:e.spans[1][0]]
	case bytes.IndexByte(lead, '\n') >= 0:
		typical = append([]byte{','}, lead...)
	default:
		typical = []byte(w.st.comma)
	}
	out := append(make([]byte, 0, n.end-n.start+64), open)
	out = append(out, lead...)
	for k, it := range items {
		if k > 0 {
			if it.orig > 0 {
				out = append(out, src[e.spans[it.orig-1][1]:e.spans[it.orig][0]]...)
			} else {
				out = append(out, typical...)
			}
		}
		out = append(out, it.text...)
	}
	out = append(out, trail...)
	return append(out, closing)
}

func (e *edit) origItem(i int) []byte {
	src, n := e.w.src, e.n
	if e.rename[i] == "" && e.value[i] == nil {
		return src[e.spans[i][0]:e.spans[i][1]]
	}
	var out []byte
	if n.kind == '{' {
		m := n.members[i]
		if e.rename[i] != "" {
			out = appendString(out, e.rename[i])
		} else {
			out = append(out, src[m.keyStart:m.keyEnd]...)
		}
		out = append(out, src[m.keyEnd:m.val.start]...)
		if e.value[i] == nil {
			return append(out, src[m.val.start:m.val.end]...)
		}
		return e.w.emit(out, e.value[i], e.w.indentAt(m.keyStart), e.pretty)
	}
	return e.w.emit(out, e.value[i], e.w.indentAt(n.elems[i].start), e.pretty)
}

func (e *edit) newItem(v any) []byte {
	if m, ok := v.(kv); ok {
		out := appendString(nil, m.k)
		out = append(out, e.w.st.colon...)
		return e.w.emit(out, m.v, e.indent, e.pretty)
	}
	return e.w.emit(nil, v, e.indent, e.pretty)
}
