//go:build !purego

#include "go_asm.h"
#include "textflag.h"

// The wide passes compute what classifyBlocksSSE2 computes (see
// classify_amd64.s), 32 or 64 bytes an instruction. The CPU is asked once
// which one it has (vectorPass). Each ends with VZEROUPPER: the upper
// halves of the vector registers left dirty would slow the SSE code that
// runs after it, the runtime's memmove among it. No SSE instruction
// without a VEX prefix may appear among them either: with MOVQ AX, X0
// instead of VMOVQ below, the AVX2 pass took 0.7-1.2 us a card instead of
// 63 ns on the Xeon measured (BenchmarkClassify/avx2/cards).

// func classifyBlocksAVX2(b []byte, blocks []charBlock)
TEXT ·classifyBlocksAVX2(SB), NOSPLIT, $0-48
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), CX
	MOVQ blocks_base+24(FP), DI
	SHRQ $6, CX
	JZ   done
	MOVL $0x22, AX
	VMOVQ AX, X0
	VPBROADCASTB X0, Y0
	MOVL $0x5c, AX
	VMOVQ AX, X1
	VPBROADCASTB X1, Y1
	MOVL $0x20, AX
	VMOVQ AX, X2
	VPBROADCASTB X2, Y2

loop:
	// The block's two halves: quote bits into R8, care bits into R9. A
	// byte needs care if it is a backslash or if, read as a signed byte,
	// it is below 0x20: a control character, or 0x80 and up.
	VMOVDQU   (SI), Y3
	VMOVDQU   32(SI), Y4
	VPCMPEQB  Y0, Y3, Y5
	VPCMPEQB  Y0, Y4, Y6
	VPMOVMSKB Y5, R8
	VPMOVMSKB Y6, R10
	SHLQ      $32, R10
	ORQ       R10, R8
	VPCMPGTB  Y3, Y2, Y5
	VPCMPEQB  Y1, Y3, Y3
	VPOR      Y3, Y5, Y5
	VPCMPGTB  Y4, Y2, Y6
	VPCMPEQB  Y1, Y4, Y4
	VPOR      Y4, Y6, Y6
	VPMOVMSKB Y5, R9
	VPMOVMSKB Y6, R10
	SHLQ      $32, R10
	ORQ       R10, R9
	MOVQ      R8, (DI)
	MOVQ      R9, 8(DI)

	ADDQ $64, SI
	ADDQ $16, DI
	DECQ CX
	JNZ  loop
	VZEROUPPER

done:
	RET

// func classifyBlocksAVX512(b []byte, blocks []charBlock)
//
// A block is one register, and a compare leaves its 64 bits in a mask
// register: no shifting halves together.
TEXT ·classifyBlocksAVX512(SB), NOSPLIT, $0-48
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), CX
	MOVQ blocks_base+24(FP), DI
	SHRQ $6, CX
	JZ   done
	MOVL $0x22, AX
	VPBROADCASTB AX, Z0
	MOVL $0x5c, AX
	VPBROADCASTB AX, Z1
	MOVL $0x20, AX
	VPBROADCASTB AX, Z2

loop:
	VMOVDQU64 (SI), Z3
	VPCMPEQB  Z0, Z3, K1
	VPCMPEQB  Z1, Z3, K2
	VPCMPGTB  Z3, Z2, K3
	KORQ      K2, K3, K2
	KMOVQ     K1, (DI)
	KMOVQ     K2, 8(DI)

	ADDQ $64, SI
	ADDQ $16, DI
	DECQ CX
	JNZ  loop
	VZEROUPPER

done:
	RET

// func classifyBlocks(b []byte, blocks []charBlock)
//
// Jumps to the pass vectorPass names, its arguments where they are.
TEXT ·classifyBlocks(SB), NOSPLIT, $0-48
	MOVBLZX ·vectorPass(SB), AX
	CMPL    AX, $const_passAVX512
	JEQ     avx512
	CMPL    AX, $const_passAVX2
	JEQ     avx2
	JMP     ·classifyBlocksSSE2(SB)

avx512:
	JMP ·classifyBlocksAVX512(SB)

avx2:
	JMP ·classifyBlocksAVX2(SB)
