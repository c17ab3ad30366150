package tape

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// refNode is a node as refTape builds it, with the fields a reader sees.
type refNode struct {
	kind               Kind
	start, end, parent uint32
	flags              uint8
}

// refTape builds the tape of a valid JSON document the slow way, byte by
// byte, without the quote and care bits, so that the scan loop's paths
// can be held to it wherever a token falls in its 64-byte block. Object
// flags are left out: the name filter's verdict is the loop's own.
func refTape(t *testing.T, doc []byte) []refNode {
	t.Helper()
	var nodes []refNode
	i := 0
	ws := func() {
		for i < len(doc) && WSTable[doc[i]] {
			i++
		}
	}
	var value func(parent uint32)
	str := func(parent uint32) {
		n := refNode{kind: KindString, start: uint32(i + 1), parent: parent}
		for i++; doc[i] != '"'; i++ {
			switch {
			case doc[i] == '\\':
				n.flags |= FlagEscaped
				i++
			case doc[i] >= 0x80:
				n.flags |= FlagNonASCII
			}
		}
		n.end = uint32(i)
		i++
		nodes = append(nodes, n)
	}
	value = func(parent uint32) {
		ws()
		switch c := doc[i]; {
		case c == '"':
			str(parent)
		case c == '{' || c == '[':
			me := uint32(len(nodes))
			kind := KindObject
			if c == '[' {
				kind = KindArray
			}
			nodes = append(nodes, refNode{kind: kind, start: uint32(i), parent: parent})
			i++
			ws()
			for doc[i] != '}' && doc[i] != ']' {
				if kind == KindObject {
					ws()
					str(me)
					ws()
					i++ // the colon
				}
				value(me)
				ws()
				if doc[i] == ',' {
					i++
				}
			}
			i++
			nodes[me].end = uint32(len(nodes))
		case c == 't', c == 'n':
			nodes = append(nodes, refNode{kind: map[byte]Kind{'t': KindTrue, 'n': KindNull}[c], start: uint32(i), end: uint32(i + 4), parent: parent})
			i += 4
		case c == 'f':
			nodes = append(nodes, refNode{kind: KindFalse, start: uint32(i), end: uint32(i + 5), parent: parent})
			i += 5
		default:
			n := refNode{kind: KindNumber, start: uint32(i), parent: parent}
			for ; i < len(doc) && strings.IndexByte("-+.eE0123456789", doc[i]) >= 0; i++ {
				switch doc[i] {
				case '-':
					if uint32(i) == n.start {
						n.flags |= FlagNeg
					}
				case '.':
					n.flags |= FlagFrac
				case 'e', 'E':
					n.flags |= FlagExp
				}
			}
			n.end = uint32(i)
			nodes = append(nodes, n)
		}
	}
	value(NoParent)
	return nodes
}

// The scan loop reads a member's value right after its colon by a path of
// its own when it is a plain string, and falls back to the value state
// otherwise: at a string with escapes or non-ASCII bytes, one running past
// its block, a value of another kind, white space, or the end of the
// document. Each member shape, shifted across two block boundaries, must
// give the tape the byte-by-byte reference gives, and each broken one the
// error at the byte that breaks it.
func TestScan_MemberValueShapesAtEveryOffset(t *testing.T) {
	long := strings.Repeat("x", 70)
	members := []string{
		`"k":"v"`, `"k":""`, `"k":"` + long + `"`, `"k":"a\"b"`, `"k":"\u00e9t\u00e9"`,
		`"k":"été"`, `"k": "v"`, `"k":"v" `, `"k":1`, `"k":-2.5e3`, `"k":[]`, `"k":{}`,
		`"k":["v"]`, `"k":{"j":"v"}`, `"k":true`, `"k":false`, `"k":null`, `"longer name":"v"`,
	}
	sc := Scanner{MaxDepth: 512}
	for pad := range 140 {
		for _, m := range members {
			for _, doc := range []string{
				fmt.Sprintf(`{"p":"%s",%s,"z":0}`, strings.Repeat("p", pad), m),
				fmt.Sprintf(`{"p":"%s",%s}`, strings.Repeat("p", pad), m),
				fmt.Sprintf(`[{"p":"%s",%s},{%s}]`, strings.Repeat("p", pad), m, m),
			} {
				if !sc.Scan([]byte(doc)) {
					t.Fatalf("%s: %v at %d", doc, sc.err, sc.errOff)
				}
				want := refTape(t, []byte(doc))
				if len(sc.tape) != len(want) {
					t.Fatalf("%s: %d nodes, want %d", doc, len(sc.tape), len(want))
				}
				for n, w := range want {
					got := sc.tape[n]
					flags := got.flags
					if got.kind == KindObject {
						flags = 0
					}
					if g := (refNode{got.kind, got.start, got.end, got.parent, flags}); g != w {
						t.Fatalf("%s: node %d is %+v, want %+v", doc, n, g, w)
					}
				}
			}
		}
		// Broken after a member's string value: the error is at the byte
		// that breaks the document, and the value is on the tape.
		prefix := fmt.Sprintf(`{"p":"%s","k":"v"`, strings.Repeat("p", pad))
		for _, tail := range []string{"", ",", ",}", "]", " ]", ":", `"`, ",,"} {
			doc := []byte(prefix + tail)
			if sc.Scan(doc) {
				t.Fatalf("%s: scanned", doc)
			}
			at := len(prefix) + strings.IndexAny(tail, "]:\"}")
			switch tail {
			case "", ",":
				at = len(doc)
			case ",,":
				at = len(prefix) + 1
			}
			if sc.err != ErrSyntax || sc.errOff != at {
				t.Errorf("%s: %v at %d, want %v at %d", doc, sc.err, sc.errOff, ErrSyntax, at)
			}
			if v := bytes.LastIndex(doc[:len(prefix)], []byte(`"v"`)) + 1; len(sc.tape) < 5 || sc.tape[4].start != uint32(v) {
				t.Errorf("%s: the member's value is not on the tape: %+v", doc, sc.tape)
			}
		}
	}
}
