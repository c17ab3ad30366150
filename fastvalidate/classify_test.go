package fastvalidate

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/corpus"
)

// classifyByBytes is what classify computes, a byte at a time: bit i%64 of
// block i/64 for byte i, and every byte past the end needing care.
func classifyByBytes(b []byte) []charBlock {
	blocks := make([]charBlock, len(b)/64+1)
	for i := range len(blocks) * 64 {
		bit := uint64(1) << (i % 64)
		switch {
		case i >= len(b):
			blocks[i/64].care |= bit
		case b[i] == '"':
			blocks[i/64].quotes |= bit
		case b[i] == '\\' || b[i] < 0x20 || b[i] >= 0x80:
			blocks[i/64].care |= bit
		}
	}
	return blocks
}

func TestClassify_AgreesWithByteLoop(t *testing.T) {
	if !haveClassify {
		t.Skip("the scanner does without quote and care bits on this machine")
	}
	var sc scanner
	rng := rand.New(rand.NewPCG(1, 2))
	// Every byte value at every position of a block, then random text of
	// every length around the block sizes, heavy in the bytes that matter.
	for c := range 256 {
		for p := range 64 {
			b := bytes.Repeat([]byte("a"), 64)
			b[p] = byte(c)
			checkClassify(t, &sc, b)
		}
	}
	alphabet := []byte("a\"\\\x00\x1f\x20\x7f\x80\xbf\xc3\xff{}:, ")
	for n := 0; n <= 300; n++ {
		for range 20 {
			b := make([]byte, n)
			for i := range b {
				b[i] = alphabet[rng.IntN(len(alphabet))]
			}
			checkClassify(t, &sc, b)
		}
	}
}

func checkClassify(t *testing.T, sc *scanner, b []byte) {
	t.Helper()
	sc.classify(b)
	if want := classifyByBytes(b); !slices.Equal(sc.blocks, want) {
		t.Fatalf("classify(%q):\n%x\nthe byte loop says\n%x", b, sc.blocks, want)
	}
}

// The scanner with quote and care bits and the one without must read every
// document alike: the same tape or the same error, for generated cards of
// every dialect with and without defects, their prefixes, and the real
// cards.
func TestScan_BitsAndPortableAgree(t *testing.T) {
	if !haveClassify {
		t.Skip("the scanner does without quote and care bits on this machine")
	}
	g, err := corpus.New(corpus.Options{Seed: 9, Dialects: corpus.Dialects(), DefectRate: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	var docs [][]byte
	for range 2000 {
		docs = append(docs, g.Next().JSON)
	}
	for _, d := range docs[:200] {
		for cut := 1; cut < len(d); cut += 7 {
			docs = append(docs, d[:cut])
		}
	}
	if dir, err := findRealCorpus(); err == nil {
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			docs = append(docs, b)
		}
	}
	var bits, portable scanner
	bits.maxDepth, portable.maxDepth, portable.portable = DefaultMaxDepth, DefaultMaxDepth, true
	for _, d := range docs {
		checkBitsAgree(t, &bits, &portable, d)
	}
}

// checkBitsAgree scans doc with and without the quote and care bits.
func checkBitsAgree(t *testing.T, bits, portable *scanner, doc []byte) {
	t.Helper()
	okBits, okPortable := bits.scan(doc), portable.scan(doc)
	if okBits != okPortable || bits.err != portable.err || bits.errOff != portable.errOff || bits.errNode != portable.errNode || bits.errKey != portable.errKey {
		t.Fatalf("%q:\nwith bits %v %v at %d (node %d)\nportable  %v %v at %d (node %d)", doc, okBits, bits.err, bits.errOff, bits.errNode, okPortable, portable.err, portable.errOff, portable.errNode)
	}
	if !slices.Equal(bits.tape, portable.tape) {
		t.Fatalf("%q: the tapes differ", doc)
	}
}

// FuzzScan_BitsAndPortableAgree holds the two ways of finding string ends
// to each other on any input: the same verdict, error and tape.
func FuzzScan_BitsAndPortableAgree(f *testing.F) {
	if !haveClassify {
		f.Skip("the scanner does without quote and care bits on this machine")
	}
	for _, c := range generatedCards(f, 8, "a2a/1.0", "ma2d", "agentcard") {
		f.Add(c)
	}
	for _, s := range []string{`""`, `"\u00e9\""`, "\"a\x01\"", `{"a":"b","a":1}`, `["` + strings.Repeat("x", 70) + `"]`, "\"\xff\"", `{"k":` + strings.Repeat(" ", 63) + `"v"}`} {
		f.Add([]byte(s))
	}
	var bits, portable scanner
	bits.maxDepth, portable.maxDepth, portable.portable = DefaultMaxDepth, DefaultMaxDepth, true
	f.Fuzz(func(t *testing.T, doc []byte) {
		checkBitsAgree(t, &bits, &portable, doc)
	})
}
