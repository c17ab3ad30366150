package fastvalidate

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// Classify, as other packages see it, agrees with the byte loop through
// Quotes and Care, whichever pass the build has.
func TestClassifyExported_AgreesWithByteLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte("a\"\\\n\x00\x1f\x20\x7f\x80\xc3\xff{}:, ")
	for n := 0; n <= 512; n += 64 {
		for range 20 {
			b := make([]byte, n)
			for i := range b {
				b[i] = alphabet[rng.IntN(len(alphabet))]
			}
			blocks := make([]CharBlock, n/64)
			Classify(b, blocks)
			// classifyByBytes adds a block past the end, all care.
			want := classifyByBytes(b)[:n/64]
			for k := range blocks {
				if blocks[k].Quotes() != want[k].quotes || blocks[k].Care() != want[k].care {
					t.Fatalf("Classify(%q) block %d: quotes %x care %x, want %x %x",
						b, k, blocks[k].Quotes(), blocks[k].Care(), want[k].quotes, want[k].care)
				}
			}
		}
	}
}

func TestClassifyExported_RejectsPartialBlocks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		n, cap int
	}{{"partial block", 65, 2}, {"no room", 128, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("Classify of %d bytes into %d blocks did not panic", tc.n, tc.cap)
				}
			}()
			Classify(bytes.Repeat([]byte("a"), tc.n), make([]CharBlock, tc.cap))
		})
	}
}
