package tape

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/corpus"
	"github.com/cardscan/cardscan/internal/realcards"
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

// Every way of computing the bits, each vector pass the machine has and
// the word-at-a-time one, must agree with the byte loop.
func TestClassify_AgreesWithByteLoop(t *testing.T) {
	forEachPass(t, testClassify)
}

func testClassify(t *testing.T, p classifyPass, sc *Scanner) {
	rng := rand.New(rand.NewPCG(1, 2))
	// Every byte value at every position of a block, then random text of
	// every length around the block sizes, heavy in the bytes that matter.
	for c := range 256 {
		for at := range 64 {
			b := bytes.Repeat([]byte("a"), 64)
			b[at] = byte(c)
			checkClassify(t, p, sc, b)
		}
	}
	alphabet := []byte("a\"\\\x00\x1f\x20\x7f\x80\xbf\xc3\xff{}:, ")
	for n := 0; n <= 300; n++ {
		for range 20 {
			b := make([]byte, n)
			for i := range b {
				b[i] = alphabet[rng.IntN(len(alphabet))]
			}
			checkClassify(t, p, sc, b)
		}
	}
}

// checkClassify holds the pass to the byte loop twice: called directly on
// b's whole blocks, and through the Scanner, whose classify reaches it by
// vectorPass and adds the tail.
func checkClassify(t *testing.T, p classifyPass, sc *Scanner, b []byte) {
	t.Helper()
	want := classifyByBytes(b)
	full := len(b) / 64
	direct := make([]charBlock, full)
	p.blocks(b[:full*64], direct)
	if !slices.Equal(direct, want[:full]) {
		t.Fatalf("%s pass on %q:\n%x\nthe byte loop says\n%x", p.name, b, direct, want[:full])
	}
	sc.classify(b)
	if !slices.Equal(sc.blocks, want) {
		t.Fatalf("%s pass: classify(%q):\n%x\nthe byte loop says\n%x", p.name, b, sc.blocks, want)
	}
}

// Every way must also agree with the byte loop on whole documents:
// generated cards of every dialect with and without defects, their
// prefixes, and the real cards.
func TestClassify_CardsAgreeWithByteLoop(t *testing.T) {
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
	if dir, err := realcards.Dir(); err == nil {
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			docs = append(docs, b)
		}
	}
	forEachPass(t, func(t *testing.T, p classifyPass, sc *Scanner) {
		for _, d := range docs {
			checkClassify(t, p, sc, d)
		}
	})
}

// FuzzClassify_AgreesWithByteLoop holds every way of computing the quote
// and care bits this machine can run to the byte loop on any input.
func FuzzClassify_AgreesWithByteLoop(f *testing.F) {
	for _, c := range generatedCards(f, 8, "a2a/1.0", "ma2d", "agentcard") {
		f.Add(c)
	}
	for _, s := range []string{`""`, `"\u00e9\""`, "\"a\x01\"", `{"a":"b","a":1}`, `["` + strings.Repeat("x", 70) + `"]`, "\"\xff\"", `{"k":` + strings.Repeat(" ", 63) + `"v"}`} {
		f.Add([]byte(s))
	}
	passes := runnablePasses(f)
	var sc Scanner
	f.Fuzz(func(t *testing.T, doc []byte) {
		for _, p := range passes {
			p.use(t, &sc)
			checkClassify(t, p, &sc, doc)
		}
	})
}
