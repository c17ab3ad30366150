package pipeline

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

// byteLoopBits is the plain definition of a block's bits.
func byteLoopBits(b []byte) (m blockBits) {
	for i, c := range b[:64] {
		switch c {
		case '"':
			m.quotes |= 1 << i
		case '{', '[', '}', ']':
			m.brackets |= 1 << i
		case '\\', '\n':
			m.rare |= 1 << i
		}
	}
	return m
}

// TestClassifyWords holds classifyWords to the byte loop on random
// blocks, most of their bytes from those marked and their neighbours
// (0x20 apart, one apart). walkBlocks' own bits are held to these by
// TestWalkBlocks.
func TestClassifyWords(t *testing.T) {
	alphabet := []byte("\"\\\n{}[]\x02;=|\x7b\x7d\x5b\x5d\x3b\x3d[\"\x22\x5c\x0a\x0b\x09 a")
	rng := rand.New(rand.NewPCG(1, 2))
	var b [64]byte
	for round := range 20000 {
		for i := range b {
			if rng.IntN(4) == 0 {
				b[i] = byte(rng.Uint32())
			} else {
				b[i] = alphabet[rng.IntN(len(alphabet))]
			}
		}
		if got, want := classifyWords(&b), byteLoopBits(b[:]); got != want {
			t.Fatalf("round %d, %q: %+v, want %+v", round, b, got, want)
		}
	}
}

// splitWith runs a splitter, with the block path or without, over input
// in pieces of n bytes, as splitAll does.
func splitWith(input []byte, n int, exact bool) []span {
	var sp splitter
	sp.exact = exact
	sp.reset(0, false)
	var spans []span
	for off := 0; off < len(input); off += n {
		end := min(off+n, len(input))
		from := int(sp.pos)
		if p := sp.pending(); p >= 0 {
			from = int(p)
		}
		spans = sp.scan(input[from:end], int64(from), spans)
	}
	return sp.finish(spans)
}

// differentialInputs returns inputs for the block path and the byte loop
// to agree on: random text from the bytes that matter inside a record,
// and mutations (a byte changed, dropped or doubled, a newline put in) of
// real cards written compact and indented.
func differentialInputs(t *testing.T) [][]byte {
	rng := rand.New(rand.NewPCG(3, 4))
	var inputs [][]byte
	alphabet := []byte("{}[]\"\\\n ,:a1")
	for range 3000 {
		b := make([]byte, rng.IntN(400))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		// Most start a record, so that the block path has work.
		if len(b) > 0 && rng.IntN(4) != 0 {
			b[0] = "{[{["[rng.IntN(4)]
		}
		inputs = append(inputs, b)
	}
	cards, err := os.ReadFile("../cli/testdata/cards.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(cards), []byte("\n"))
	var indented bytes.Buffer
	indented.WriteString("[\n")
	for i, line := range lines {
		if i > 0 {
			indented.WriteString(",\n")
		}
		indented.WriteString("  ")
		indentJSON(&indented, line)
	}
	indented.WriteString("\n]\n")
	whole := [][]byte{append([]byte("[\n"), append(bytes.Join(lines, []byte(",\n")), "\n]\n"...)...), cards, indented.Bytes()}
	inputs = append(inputs, whole...)
	// Runs of backslashes ending at every offset around the blocks, then
	// a quote that ends the record's string, and so the record, unless the
	// run is odd.
	for pad := range 140 {
		for run := 1; run <= 4; run++ {
			inputs = append(inputs, []byte(`[{"k":"`+strings.Repeat("x", pad)+strings.Repeat(`\`, run)+`"},{"m":"`+strings.Repeat("y", 200)+`"}]`))
		}
	}
	// A record cut by a line starting with '{' (a fault inside it), the
	// newline at every offset around the blocks.
	for pad := range 140 {
		inputs = append(inputs, []byte(`{"a":[`+strings.Repeat(" ", pad)+"\n"+`{"b":"`+strings.Repeat("y", 200)+`"}`+"\n"))
	}
	// A record a little past the splitter's depth limit, closed: broken,
	// whichever path reaches the limit.
	for _, d := range []int{1, 17, 33} {
		inputs = append(inputs, []byte(strings.Repeat("[", maxSplitDepth+d)+strings.Repeat("]", maxSplitDepth+d)+"\n{}\n"))
	}
	// Deeper than fastDepth, within a record and from the array of cards.
	for _, d := range []int{fastDepth - 1, fastDepth, fastDepth + 1, 3 * fastDepth} {
		deep := strings.Repeat(`{"a":[`, d) + strings.Repeat(`]}`, d)
		inputs = append(inputs, []byte(deep+"\n"+deep), []byte("[\n"+deep+",\n"+deep+"]"), []byte(deep[:len(deep)-1]+"]"))
	}
	// Arrays of cards with one element broken, in each layout.
	for _, l := range arrayLayouts {
		for _, d := range arrayDefects {
			for bad := range 4 {
				input, _, _ := buildArray(l, d, bad)
				inputs = append(inputs, []byte(input))
			}
		}
	}
	for range 3000 {
		b := slices.Clone(whole[rng.IntN(len(whole))])
		for range 1 + rng.IntN(3) {
			i := rng.IntN(len(b))
			switch rng.IntN(4) {
			case 0:
				b[i] = alphabet[rng.IntN(len(alphabet))]
			case 1:
				b = slices.Delete(b, i, i+1)
			case 2:
				b = slices.Insert(b, i, b[i])
			default:
				b = slices.Insert(b, i, '\n')
			}
		}
		inputs = append(inputs, b)
	}
	return inputs
}

// indentJSON indents a card, or copies it as it is if it is no JSON.
func indentJSON(w *bytes.Buffer, line []byte) {
	var b bytes.Buffer
	if err := json.Indent(&b, line, "  ", "  "); err != nil {
		w.Write(line)
		return
	}
	w.Write(b.Bytes())
}

// TestSplitterBlockPathAgreesWithByteLoop checks that the block path gives
// the spans of the byte loop alone, on every input, in pieces of every
// size the reader may give.
func TestSplitterBlockPathAgreesWithByteLoop(t *testing.T) {
	for k, input := range differentialInputs(t) {
		for _, n := range []int{1 << 20, 997, 64, 65, 13} {
			if n < 64 && len(input) > 2000 {
				continue // slow, and the short inputs cover it
			}
			fast, exact := splitWith(input, n, false), splitWith(input, n, true)
			if !slices.Equal(fast, exact) {
				t.Fatalf("input %d, pieces of %d: block path %+v, byte loop %+v, in %q", k, n, fast, exact, input)
			}
		}
	}
}

// FuzzSplitterBlockPath is the test above on fuzzed input.
func FuzzSplitterBlockPath(f *testing.F) {
	f.Add([]byte(`{"a":"b\\"c","d":[1,{"e":"\n"}]}`+"\n[\n{\"x\":1}\n]"), uint16(64))
	f.Add([]byte(`[{"a":1 "b":2},{"c" 3}]`), uint16(5))
	f.Add([]byte("[\n  {\n    \"a\": \"b,\n    \"c\": [1, {\"d\": 2}]\n  },\n  {\n    \"e\": [[3]\n  },\n  {}}\n]\n"), uint16(64))
	f.Fuzz(func(t *testing.T, input []byte, n uint16) {
		size := 1 + int(n)%2048
		fast, exact := splitWith(input, size, false), splitWith(input, size, true)
		if !slices.Equal(fast, exact) {
			t.Fatalf("pieces of %d: block path %+v, byte loop %+v", size, fast, exact)
		}
	})
}

// TestWalkBlocks holds walkBlocks (assembly on amd64) to walkBlocksGo on
// random blocks from the bytes that matter and random starting states:
// the same stop, the same state.
func TestWalkBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var stops [4]int
	// The second alphabet, with few brackets, walks past the last block;
	// the third (no quotes, newlines or backslashes) and a shallow start
	// close records.
	// The fourth has the neighbours of the bytes that matter (0x20 apart,
	// one apart) and bytes of 0x80 and up, for walkBlocks' own bits.
	alphabets := [][]byte{[]byte("{}[]\"\\\n a"), []byte("aaaaaaaaaaaaaaaaaaaa\"\"\\\n{["), []byte("aaaaaaaa}]{["), []byte("{}[]\"a\x02\x0b\x09;=|\\\x5a\x5c\x5e\x7a\x7c\x7e\x3b\x3d\x21\x23\x7f\x80\xdb\xdd\xfb\xfd\xa2\xff")}
	for round := range 20000 {
		alphabet := alphabets[round%len(alphabets)]
		n := 1 + rng.IntN(4)
		b := make([]byte, 64*n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		var st walkState
		st.depth = 1 + uint64(rng.IntN(fastDepth))
		if round%2 == 0 {
			st.depth = 1 + uint64(rng.IntN(3))
		}
		st.kinds = rng.Uint64() & (1<<st.depth - 1)
		if rng.IntN(2) == 0 {
			st.in = ^uint64(0)
		}
		st.esc, st.line = uint64(rng.IntN(2)), rng.Uint64()&rng.Uint64()&rng.Uint64()
		if round%3 == 0 {
			st.indent = uint64(rng.IntN(maxIndent + 1))
		}
		st.lastNL, st.lastNLLeft = rng.Uint64(), rng.IntN(3)
		asm, port := st, st
		k1, p1, stop1 := walkBlocks(b, &asm)
		k2, p2, stop2 := walkBlocksGo(b, &port)
		stops[stop2]++
		if k1 != k2 || p1 != p2 || stop1 != stop2 || asm != port {
			t.Fatalf("round %d, from %+v in %q:\nwalkBlocks   %d %d %d %+v\nwalkBlocksGo %d %d %d %+v", round, st, b, k1, p1, stop1, asm, k2, p2, stop2, port)
		}
	}
	for stop, n := range stops {
		if n < 100 {
			t.Errorf("only %d of the walks stopped with %d: %v", n, stop, stops)
		}
	}
}
