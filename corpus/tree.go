package corpus

import (
	"strconv"
	"strings"
)

// tree is a JSON document under construction: an ordered tree of nodes that
// live in one slice, with their text in one byte arena. A valid card is built
// as a tree, a defect edits the tree, and then it is written out once. Both
// slices are reused from card to card, so building a card allocates nothing
// once they have grown.
type tree struct {
	nodes []node
	text  []byte
}

type nodeKind uint8

const (
	objectNode nodeKind = iota + 1
	arrayNode
	stringNode // text is the decoded content; write escapes it
	rawNode    // text is written as is: numbers, literals, hand-escaped or malformed values
)

// node is one value. Object members carry their name in key, written
// between quotes exactly as given, so that a defect can spell a name with
// escapes; every name the builders use needs no escaping.
type node struct {
	key         string
	off, end    int32 // text[off:end]
	first, last int32 // children, -1 when none
	next        int32 // next sibling, -1 when none
	kind        nodeKind
}

const none = -1

func (t *tree) reset() {
	t.nodes = t.nodes[:0]
	t.text = t.text[:0]
}

func (t *tree) add(k nodeKind, off, end int) int32 {
	t.nodes = append(t.nodes, node{kind: k, off: int32(off), end: int32(end), first: none, last: none, next: none})
	return int32(len(t.nodes) - 1)
}

func (t *tree) object() int32 { return t.add(objectNode, 0, 0) }
func (t *tree) array() int32  { return t.add(arrayNode, 0, 0) }

// str returns a string node whose content is the concatenated parts.
func (t *tree) str(parts ...string) int32 {
	start := len(t.text)
	for _, p := range parts {
		t.text = append(t.text, p...)
	}
	return t.add(stringNode, start, len(t.text))
}

// raw returns a node written verbatim as the concatenated parts.
func (t *tree) raw(parts ...string) int32 {
	start := len(t.text)
	for _, p := range parts {
		t.text = append(t.text, p...)
	}
	return t.add(rawNode, start, len(t.text))
}

// mark and strFrom build a string node from text appended to t.text
// between the two calls.
func (t *tree) mark() int { return len(t.text) }

func (t *tree) strFrom(start int) int32 { return t.add(stringNode, start, len(t.text)) }

func (t *tree) rawFrom(start int) int32 { return t.add(rawNode, start, len(t.text)) }

func (t *tree) num(v int) int32 {
	start := len(t.text)
	t.text = strconv.AppendInt(t.text, int64(v), 10)
	return t.add(rawNode, start, len(t.text))
}

func (t *tree) boolean(v bool) int32 {
	if v {
		return t.raw("true")
	}
	return t.raw("false")
}

// put appends member key: v to object obj and returns v.
func (t *tree) put(obj int32, key string, v int32) int32 {
	t.nodes[v].key = key
	t.link(obj, v)
	return v
}

// push appends element v to array arr and returns v.
func (t *tree) push(arr int32, v int32) int32 {
	t.link(arr, v)
	return v
}

// strings returns an array of string nodes.
func (t *tree) strings(list ...string) int32 {
	a := t.array()
	for _, s := range list {
		t.push(a, t.str(s))
	}
	return a
}

func (t *tree) link(parent, v int32) {
	p := &t.nodes[parent]
	if p.last == none {
		p.first = v
	} else {
		t.nodes[p.last].next = v
	}
	p.last = v
}

func (t *tree) count(n int32) int {
	c := 0
	for e := t.nodes[n].first; e != none; e = t.nodes[e].next {
		c++
	}
	return c
}

// child returns n's member named key, or its element at index key, and the
// sibling before it; none when absent.
func (t *tree) child(n int32, key string) (c, prev int32) {
	prev = none
	switch t.nodes[n].kind {
	case objectNode:
		for c = t.nodes[n].first; c != none; prev, c = c, t.nodes[c].next {
			if t.nodes[c].key == key {
				return c, prev
			}
		}
	case arrayNode:
		i, err := strconv.Atoi(key)
		if err != nil {
			return none, none
		}
		for c = t.nodes[n].first; c != none && i > 0; prev, c = c, t.nodes[c].next {
			i--
		}
		return c, prev
	}
	return none, none
}

// at returns the node at a JSON Pointer such as "/capabilities/0/id" (names
// hold no "/" or "~" here), or none.
func (t *tree) at(path string) int32 {
	n := int32(0)
	for _, tok := range strings.Split(path, "/")[1:] {
		if n, _ = t.child(n, tok); n == none {
			return none
		}
	}
	return n
}

// split returns the node that holds the last token of path, and that token.
func (t *tree) split(path string) (parent int32, last string) {
	i := strings.LastIndexByte(path, '/')
	if i <= 0 {
		return 0, path[i+1:]
	}
	return t.at(path[:i]), path[i+1:]
}

// set puts v at path, replacing the member or element there, or appending a
// new member when an object has none of that name. Missing objects on the
// way are created. It panics when the path runs through a non-container,
// which is a bug in a defect, not a property of the card.
func (t *tree) set(path string, v int32) int32 {
	i := strings.LastIndexByte(path, '/')
	parent := int32(0)
	if i > 0 {
		parent = t.at(path[:i])
		if parent == none {
			parent = t.set(path[:i], t.object())
		}
	}
	key := path[i+1:]
	k := t.nodes[parent].kind
	if k != objectNode && k != arrayNode {
		panic("corpus: set " + path + " below a scalar")
	}
	old, prev := t.child(parent, key)
	if k == objectNode {
		t.nodes[v].key = key
	}
	if old == none {
		if k == arrayNode {
			panic("corpus: set " + path + " past the end of an array")
		}
		t.link(parent, v)
		return v
	}
	t.splice(parent, prev, old, v)
	return v
}

func (t *tree) splice(parent, prev, old, v int32) {
	t.nodes[v].next = t.nodes[old].next
	if prev == none {
		t.nodes[parent].first = v
	} else {
		t.nodes[prev].next = v
	}
	if t.nodes[parent].last == old {
		t.nodes[parent].last = v
	}
}

// remove deletes the member or element at path and reports whether it was there.
func (t *tree) remove(path string) bool {
	parent, key := t.split(path)
	if parent == none {
		return false
	}
	old, prev := t.child(parent, key)
	if old == none {
		return false
	}
	next := t.nodes[old].next
	if prev == none {
		t.nodes[parent].first = next
	} else {
		t.nodes[prev].next = next
	}
	if t.nodes[parent].last == old {
		t.nodes[parent].last = prev
	}
	return true
}

// textOf returns the text of a string or raw node.
func (t *tree) textOf(n int32) string {
	return string(t.text[t.nodes[n].off:t.nodes[n].end])
}

// write appends node n as compact JSON to dst.
func (t *tree) write(dst []byte, n int32) []byte {
	nd := &t.nodes[n]
	switch nd.kind {
	case objectNode:
		dst = append(dst, '{')
		for c := nd.first; c != none; c = t.nodes[c].next {
			if c != nd.first {
				dst = append(dst, ',')
			}
			dst = append(dst, '"')
			dst = append(dst, t.nodes[c].key...)
			dst = append(dst, '"', ':')
			dst = t.write(dst, c)
		}
		return append(dst, '}')
	case arrayNode:
		dst = append(dst, '[')
		for c := nd.first; c != none; c = t.nodes[c].next {
			if c != nd.first {
				dst = append(dst, ',')
			}
			dst = t.write(dst, c)
		}
		return append(dst, ']')
	case stringNode:
		return appendQuoted(dst, t.text[nd.off:nd.end])
	}
	return append(dst, t.text[nd.off:nd.end]...)
}

// appendQuoted appends s as a JSON string. Non-ASCII text stays as UTF-8;
// only what RFC 8259 requires is escaped, so a card stays on one line.
func appendQuoted(dst, s []byte) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}
