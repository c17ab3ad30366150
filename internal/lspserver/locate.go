package lspserver

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/cardscan/cardscan/fastvalidate"
)

// place is what lies at a byte offset of a card being written: the
// object or array around it, and the member name or value under or
// before the cursor. It is found by a tolerant pass over the text, since a
// card being typed is seldom valid JSON.
type place struct {
	// container is the JSON Pointer of the innermost object or array.
	container string
	inObject  bool
	// key is the member the offset belongs to: the name under the cursor
	// (atKey), or the member whose value it is.
	key   string
	atKey bool
	// tokStart and tokEnd bound the string, number or literal under the
	// cursor; both are -1 between tokens.
	tokStart, tokEnd int
}

type frame struct {
	segment   string // this container's name or index in its parent
	object    bool
	expectKey bool
	key       string
	index     int
}

// locate finds the place of offset off in text.
func locate(text []byte, off int) place {
	var stack []frame
	pl := func(tokStart, tokEnd int, atKey bool) place {
		p := place{tokStart: tokStart, tokEnd: tokEnd, atKey: atKey}
		if len(stack) > 0 {
			top := stack[len(stack)-1]
			p.inObject, p.key = top.object, top.key
			p.container = containerPointer(stack)
		}
		return p
	}
	i := 0
	for i < len(text) && i <= off {
		c := text[i]
		switch c {
		case ' ', '\t', '\r', '\n':
			i++
			continue
		case '{', '[':
			if len(stack) == fastvalidate.DefaultMaxDepth {
				// Deeper than any card the validator takes or any
				// member table reaches: the place is unknown, and
				// what is held stays bounded by the limit.
				return place{tokStart: -1, tokEnd: -1}
			}
			seg := ""
			if n := len(stack); n > 0 {
				seg = stack[n-1].segmentOfChild()
			}
			stack = append(stack, frame{segment: seg, object: c == '{', expectKey: c == '{'})
			i++
			continue
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			i++
			continue
		case ',':
			if n := len(stack); n > 0 {
				if stack[n-1].object {
					stack[n-1].expectKey, stack[n-1].key = true, ""
				} else {
					stack[n-1].index++
				}
			}
			i++
			continue
		case ':':
			if n := len(stack); n > 0 {
				stack[n-1].expectKey = false
			}
			i++
			continue
		}
		start, end := i, scanToken(text, i)
		atKey := len(stack) > 0 && stack[len(stack)-1].object && stack[len(stack)-1].expectKey
		if atKey {
			stack[len(stack)-1].key = unquote(text[start:end])
		}
		if off >= start && off <= end {
			return pl(start, end, atKey)
		}
		i = end
	}
	return pl(-1, -1, len(stack) > 0 && stack[len(stack)-1].object && stack[len(stack)-1].expectKey)
}

func (f *frame) segmentOfChild() string {
	if f.object {
		return f.key
	}
	return strconv.Itoa(f.index)
}

// containerPointer joins the segments of the containers below the root,
// whose own segment is empty.
func containerPointer(stack []frame) string {
	var b strings.Builder
	for _, f := range stack[1:] {
		b.WriteString("/" + escapePointer(f.segment))
	}
	return b.String()
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// scanToken returns the end of the token starting at i: a string to its
// closing quote (or, unterminated, the end of its line, which "\n",
// "\r\n" or "\r" ends), anything else to the next delimiter.
func scanToken(text []byte, i int) int {
	if text[i] == '"' {
		for j := i + 1; j < len(text); j++ {
			switch text[j] {
			case '\\':
				j++
			case '"':
				return j + 1
			case '\n', '\r':
				return j
			}
		}
		return len(text)
	}
	j := i
	for j < len(text) && !strings.ContainsRune(",:{}[] \t\r\n\"", rune(text[j])) {
		j++
	}
	return max(j, i+1)
}

// unquote returns a JSON string token's text, or the token itself when it
// is not a whole string.
func unquote(tok []byte) string {
	var s string
	if json.Unmarshal(tok, &s) == nil {
		return s
	}
	return strings.Trim(string(tok), `"`)
}
