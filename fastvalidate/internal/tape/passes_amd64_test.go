//go:build !purego

package tape

import (
	"testing"

	"golang.org/x/sys/cpu"
)

// classifyPasses lists every way of computing the quote and care bits in
// this build: the word-at-a-time one and each vector pass, with why this
// machine cannot run a pass where it cannot.
func classifyPasses() []classifyPass {
	return []classifyPass{
		{name: "words", portable: true, blocks: classifyWords},
		{name: "sse2", vector: passSSE2, blocks: classifyBlocksSSE2},
		{name: "avx2", vector: passAVX2, blocks: classifyBlocksAVX2, missing: missingUnless(cpu.X86.HasAVX2, "AVX2")},
		{name: "avx512", vector: passAVX512, blocks: classifyBlocksAVX512, missing: missingUnless(cpu.X86.HasAVX512BW, "AVX-512BW")},
	}
}

func missingUnless(has bool, feature string) string {
	if has {
		return ""
	}
	return "this CPU, or its operating system, has no " + feature
}

// setVectorPass makes classify use the vector pass v until the test ends.
func setVectorPass(tb testing.TB, v uint8) {
	was := vectorPass
	vectorPass = v
	tb.Cleanup(func() { vectorPass = was })
}
