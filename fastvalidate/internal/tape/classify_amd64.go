//go:build !purego

package tape

import "golang.org/x/sys/cpu"

// HaveClassify says whether this machine has classifyBlocks.
const HaveClassify = true

// The widths of the vector pass: SSE2, which every amd64 machine has, reads
// 16 bytes an instruction, AVX2 32 and AVX-512BW 64. All three compute the
// same bits.
const (
	passSSE2 uint8 = iota + 1
	passAVX2
	passAVX512
)

// vectorPass is the widest pass the CPU and the operating system support,
// chosen once. Tests and fuzz targets set it to hold every supported pass
// to the byte loop (see classifyPasses).
var vectorPass = widestPass()

// widestPass takes AVX-512 only on CPUs that also have VBMI2: Ice Lake and
// later, and AMD's Zen 4. The first Xeons with AVX-512 (Skylake-SP, Cascade
// Lake) lower the core's clock for a while after any 512-bit instruction,
// and the scan that follows the pass, scalar code that is most of a card's
// time, would run at that clock; simdjson draws the same line.
func widestPass() uint8 {
	switch {
	case cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VBMI2:
		return passAVX512
	case cpu.X86.HasAVX2:
		return passAVX2
	}
	return passSSE2
}

// classifyBlocks sets the quote and care bits of each 64-byte block of b
// (len(b) a multiple of 64) in blocks, with the pass vectorPass names. It
// is a jump in assembly (classify_wide_amd64.s) rather than a switch in Go
// or a func variable: the Go switch cannot be inlined, and its extra call
// cost 24 instructions a call against the jump's 6 (callgrind's self cost
// of each over -test.bench='Classify/^(sse2|avx2)$/^cards$'
// -test.benchtime=60000x, two calls a card); a call through a variable
// would also hide //go:noescape, and classify's 64-byte block for a
// document's tail would move to the heap.
//
//go:noescape
func classifyBlocks(b []byte, blocks []charBlock)

//go:noescape
func classifyBlocksSSE2(b []byte, blocks []charBlock)

//go:noescape
func classifyBlocksAVX2(b []byte, blocks []charBlock)

//go:noescape
func classifyBlocksAVX512(b []byte, blocks []charBlock)
