package tape

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// TestScan_NameFilterQuietOnCards holds nameFilterMul to what it was chosen
// for: the member names of the objects cards are made of do not look like
// duplicates to the scanner's name filter, so objects of valid cards do not
// pay for the exact search. Correctness does not depend on it; speed does.
// The filter sees a name's first eight bytes and its length only, so an
// A2A 1.0 interface, with protocolBinding beside protocolVersion, is the
// one object that is always searched.
func TestScan_NameFilterQuietOnCards(t *testing.T) {
	var sc Scanner
	sc.MaxDepth = 512
	for _, dialect := range []string{"a2a/0.1", "a2a/0.2", "a2a/0.3", "a2a/1.0", "ma2d", "agentcard", "agentcard-schema"} {
		objects, searched := 0, 0
		for _, card := range generatedCards(t, 1000, dialect) {
			if !sc.Scan(card) {
				t.Fatalf("%s: generated card does not scan: %s", dialect, card)
			}
			for n := range sc.tape {
				obj := &sc.tape[n]
				if obj.kind != KindObject {
					continue
				}
				objects++
				escaped, binding, version := false, false, false
				for k := uint32(n) + 1; k < obj.end; k = sc.next(k + 1) {
					key := &sc.tape[k]
					escaped = escaped || key.flags&FlagEscaped != 0
					binding = binding || string(card[key.start:key.end]) == "protocolBinding"
					version = version || string(card[key.start:key.end]) == "protocolVersion"
				}
				if obj.flags&FlagNameClash != 0 && !escaped && !(binding && version) {
					searched++
				}
			}
		}
		if searched != 0 {
			t.Errorf("%s: %d of %d objects sent to the duplicate search", dialect, searched, objects)
		}
	}
}

// The tape grows only where a value starts, with room for that value and
// the member name after it. Documents of every size around the growth
// points, scanned by a fresh scanner and by one reused, must come out with
// every node in place.
func TestScan_TapeGrowsAtEveryBoundary(t *testing.T) {
	reused := Scanner{MaxDepth: 512}
	for n := range 300 {
		for _, shape := range []struct {
			name   string
			member func(i int) string
			open   string
			close  string
			nodes  int // per member
		}{
			{"names and strings", func(i int) string { return fmt.Sprintf(`"k%d":"v"`, i) }, "{", "}", 2},
			{"names and empty objects", func(i int) string { return fmt.Sprintf(`"k%d":{}`, i) }, "{", "}", 2},
			{"names and one-member objects", func(i int) string { return fmt.Sprintf(`"k%d":{"a":1}`, i) }, "{", "}", 4},
			{"numbers", func(i int) string { return strconv.Itoa(i) }, "[", "]", 1},
			{"empty arrays", func(int) string { return "[]" }, "[", "]", 1},
		} {
			members := make([]string, n)
			for i := range members {
				members[i] = shape.member(i)
			}
			doc := shape.open + strings.Join(members, ",") + shape.close
			// Wrapped in an array, the values fall on the other parity
			// of tape index.
			for wrap, doc := range []string{doc, "[" + doc + "]"} {
				for _, sc := range []*Scanner{{MaxDepth: 512}, &reused} {
					if !sc.Scan([]byte(doc)) {
						t.Fatalf("%s: %v at %d", doc, sc.err, sc.errOff)
					}
					if want := 1 + wrap + n*shape.nodes; len(sc.tape) != want || int(sc.tape[0].end) != want {
						t.Fatalf("%s: %d nodes, root ends at %d; want %d", doc, len(sc.tape), sc.tape[0].end, want)
					}
					for i, nd := range sc.tape[1:] {
						if nd.kind == KindNone || nd.parent == NoParent {
							t.Fatalf("%s: node %d is %+v", doc, i+1, nd)
						}
					}
				}
			}
		}
	}
}
