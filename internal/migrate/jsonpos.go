package migrate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
)

// node is a JSON value located in the card's bytes, so that a migration
// can splice the card rather than re-encode it: every byte outside the
// members it changes stays as the author wrote it.
type node struct {
	kind       byte // '{', '[', '"', or 'v' for a number, true, false, null
	start, end int  // the value's bytes are src[start:end]
	members    []member
	elems      []*node
}

// member is one name/value pair of an object; keyStart and keyEnd span
// the name with its quotes.
type member struct {
	keyStart, keyEnd int
	name             string
	val              *node
}

// nameCompares counts the member names get and index look through (all
// of the object's, each call), so that tests can hold a rewrite's work to
// the size of the card.
var nameCompares atomic.Int64

// get returns the value of the member named name, or nil.
func (n *node) get(name string) *node {
	if n == nil || n.kind != '{' {
		return nil
	}
	nameCompares.Add(int64(len(n.members)))
	for i := range n.members {
		if n.members[i].name == name {
			return n.members[i].val
		}
	}
	return nil
}

// elemsOf returns the elements of an array, or none.
func (n *node) elemsOf() []*node {
	if n == nil || n.kind != '[' {
		return nil
	}
	return n.elems
}

// index returns the position of the member named name, or -1.
func (n *node) index(name string) int {
	if n == nil {
		return -1
	}
	nameCompares.Add(int64(len(n.members)))
	for i := range n.members {
		if n.members[i].name == name {
			return i
		}
	}
	return -1
}

var errNotJSON = errors.New("not a JSON value")

// parser locates the values of a card that fastvalidate has already held
// to strict JSON; it still fails cleanly, never panics, on anything else.
type parser struct {
	src   []byte
	i     int
	depth int
}

const maxDepth = 512

func locate(src []byte) (*node, error) {
	p := parser{src: src}
	p.ws()
	n, err := p.value()
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.i != len(src) {
		return nil, fmt.Errorf("%w: data after the value at byte %d", errNotJSON, p.i)
	}
	return n, nil
}

func (p *parser) ws() {
	for p.i < len(p.src) {
		switch p.src[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) fail() error { return fmt.Errorf("%w: unexpected byte at %d", errNotJSON, p.i) }

func (p *parser) value() (*node, error) {
	if p.i >= len(p.src) {
		return nil, p.fail()
	}
	switch c := p.src[p.i]; c {
	case '{':
		return p.object()
	case '[':
		return p.array()
	case '"':
		start := p.i
		if err := p.str(); err != nil {
			return nil, err
		}
		return &node{kind: '"', start: start, end: p.i}, nil
	default:
		start := p.i
		for p.i < len(p.src) {
			c := p.src[p.i]
			if c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r' {
				break
			}
			p.i++
		}
		if p.i == start {
			return nil, p.fail()
		}
		return &node{kind: 'v', start: start, end: p.i}, nil
	}
}

func (p *parser) str() error {
	p.i++ // opening quote
	for p.i < len(p.src) {
		switch p.src[p.i] {
		case '\\':
			p.i += 2
		case '"':
			p.i++
			return nil
		default:
			p.i++
		}
	}
	return fmt.Errorf("%w: unterminated string", errNotJSON)
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return fmt.Errorf("%w: nested deeper than %d", errNotJSON, maxDepth)
	}
	return nil
}

func (p *parser) object() (*node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	n := &node{kind: '{', start: p.i}
	p.i++
	p.ws()
	if p.i < len(p.src) && p.src[p.i] == '}' {
		p.i++
		n.end = p.i
		return n, nil
	}
	for {
		if p.i >= len(p.src) || p.src[p.i] != '"' {
			return nil, p.fail()
		}
		ks := p.i
		if err := p.str(); err != nil {
			return nil, err
		}
		name, err := unquote(p.src[ks:p.i])
		if err != nil {
			return nil, err
		}
		ke := p.i
		p.ws()
		if p.i >= len(p.src) || p.src[p.i] != ':' {
			return nil, p.fail()
		}
		p.i++
		p.ws()
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.members = append(n.members, member{keyStart: ks, keyEnd: ke, name: name, val: v})
		p.ws()
		if p.i < len(p.src) && p.src[p.i] == ',' {
			p.i++
			p.ws()
			continue
		}
		if p.i < len(p.src) && p.src[p.i] == '}' {
			p.i++
			n.end = p.i
			return n, nil
		}
		return nil, p.fail()
	}
}

func (p *parser) array() (*node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	n := &node{kind: '[', start: p.i}
	p.i++
	p.ws()
	if p.i < len(p.src) && p.src[p.i] == ']' {
		p.i++
		n.end = p.i
		return n, nil
	}
	for {
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.elems = append(n.elems, v)
		p.ws()
		if p.i < len(p.src) && p.src[p.i] == ',' {
			p.i++
			p.ws()
			continue
		}
		if p.i < len(p.src) && p.src[p.i] == ']' {
			p.i++
			n.end = p.i
			return n, nil
		}
		return nil, p.fail()
	}
}

// unquote decodes a JSON string token; names without escapes, nearly all,
// are copied as they are.
func unquote(tok []byte) (string, error) {
	if bytes.IndexByte(tok, '\\') < 0 {
		return string(tok[1 : len(tok)-1]), nil
	}
	var s string
	if err := json.Unmarshal(tok, &s); err != nil {
		return "", fmt.Errorf("%w: %v", errNotJSON, err)
	}
	return s, nil
}

// isNull reports whether the node is the literal null.
func (n *node) isNull(src []byte) bool {
	return n != nil && n.kind == 'v' && string(src[n.start:n.end]) == "null"
}

// str returns the decoded string a node holds, and whether it is one.
func (n *node) str(src []byte) (string, bool) {
	if n == nil || n.kind != '"' {
		return "", false
	}
	s, err := unquote(src[n.start:n.end])
	return s, err == nil
}

// style is the author's layout, read from the card's top-level object,
// which new members and values are written in.
type style struct {
	newline string // "\n" or "\r\n"
	unit    string // one level of indentation: "  ", "    ", "\t"
	colon   string // between a name and its value: ":" or ": "
	comma   string // between members on one line: "," or ", "
}

func detectStyle(src []byte, root *node) style {
	st := style{newline: "\n", unit: "  ", colon: ":", comma: ","}
	if root == nil || root.kind != '{' || len(root.members) == 0 {
		return st
	}
	m0 := root.members[0]
	if gap := src[m0.keyEnd:m0.val.start]; !bytes.ContainsAny(gap, "\r\n") {
		st.colon = string(gap)
	}
	lead := src[root.start+1 : m0.keyStart]
	if nl := bytes.LastIndexByte(lead, '\n'); nl >= 0 {
		if nl > 0 && lead[nl-1] == '\r' {
			st.newline = "\r\n"
		}
		if u := lead[nl+1:]; len(u) > 0 {
			st.unit = string(u)
		}
	} else if len(root.members) > 1 {
		gap := src[m0.val.end:root.members[1].keyStart]
		if !bytes.ContainsAny(gap, "\r\n") {
			st.comma = string(bytes.TrimLeft(gap, " \t"))
		}
	}
	return st
}

// multiline reports whether a value spans lines: its replacement is then
// written over lines too.
func multiline(src []byte, n *node) bool {
	return bytes.IndexByte(src[n.start:n.end], '\n') >= 0
}

// lineIndent returns the white space that opens the line holding byte at.
func lineIndent(src []byte, at int) string {
	s := bytes.LastIndexByte(src[:at], '\n') + 1
	e := s
	for e < len(src) && (src[e] == ' ' || src[e] == '\t') {
		e++
	}
	return string(src[s:e])
}

// reindent moves a value written on lines indented from oldBase to
// newBase. A JSON string holds no raw line break, so every line break in
// text is layout.
func reindent(text []byte, oldBase, newBase string) []byte {
	if oldBase == newBase || bytes.IndexByte(text, '\n') < 0 {
		return text
	}
	out := make([]byte, 0, len(text)+16)
	for {
		nl := bytes.IndexByte(text, '\n')
		if nl < 0 {
			return append(out, text...)
		}
		out = append(out, text[:nl+1]...)
		text = text[nl+1:]
		if bytes.HasPrefix(text, []byte(oldBase)) {
			text = text[len(oldBase):]
			out = append(out, newBase...)
		} else if len(newBase) > len(oldBase) {
			out = append(out, newBase[len(oldBase):]...)
		} else if cut, ok := bytes.CutPrefix(text, []byte(oldBase[len(newBase):])); ok {
			// The inverse of the line above: a line indented less than
			// oldBase loses what moving it deeper gave it, so a value
			// moved in and back out keeps its bytes.
			text = cut
		}
	}
}
