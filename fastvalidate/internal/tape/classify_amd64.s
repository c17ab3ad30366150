//go:build !purego

#include "textflag.h"

// func classifyBlocksSSE2(b []byte, blocks []charBlock)
//
// For each 64-byte block of b, sets one bit per byte in the block's quotes
// (the byte is '"') and care (a backslash, a control character or a byte
// of 0x80 or more). len(b) is a multiple of 64, and blocks has room for
// each block. SSE2 only, which every amd64 machine has.
TEXT ·classifyBlocksSSE2(SB), NOSPLIT, $0-48
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), CX
	MOVQ blocks_base+24(FP), DI
	SHRQ $6, CX
	JZ   done
	MOVQ $0x2222222222222222, AX
	MOVQ AX, X0
	PUNPCKLQDQ X0, X0
	MOVQ $0x5c5c5c5c5c5c5c5c, AX
	MOVQ AX, X1
	PUNPCKLQDQ X1, X1
	MOVQ $0x2020202020202020, AX
	MOVQ AX, X2
	PUNPCKLQDQ X2, X2

loop:
	// One 16-byte chunk at offset off: its quote bits into R8 and care
	// bits into R9, shifted to the chunk's place in the block. A byte
	// needs care if it is a backslash or if, read as a signed byte, it is
	// below 0x20: a control character, or 0x80 and up.
#define CHUNK(off, shift) \
	MOVOU    off(SI), X3 \
	MOVOU    X3, X4 \
	PCMPEQB  X0, X4 \
	PMOVMSKB X4, R10 \
	SHLQ     $shift, R10 \
	ORQ      R10, R8 \
	MOVOU    X2, X5 \
	PCMPGTB  X3, X5 \
	PCMPEQB  X1, X3 \
	POR      X3, X5 \
	PMOVMSKB X5, R10 \
	SHLQ     $shift, R10 \
	ORQ      R10, R9

	XORQ R8, R8
	XORQ R9, R9
	CHUNK(0, 0)
	CHUNK(16, 16)
	CHUNK(32, 32)
	CHUNK(48, 48)
	MOVQ R8, (DI)
	MOVQ R9, 8(DI)

	ADDQ $64, SI
	ADDQ $16, DI
	DECQ CX
	JNZ  loop

done:
	RET
