//go:build !purego

#include "textflag.h"

// Each constant byte sixteen times, for PCMPEQB and POR.
DATA blockQuote<>+0(SB)/8, $0x2222222222222222
DATA blockQuote<>+8(SB)/8, $0x2222222222222222
GLOBL blockQuote<>(SB), RODATA|NOPTR, $16
DATA blockBackslash<>+0(SB)/8, $0x5c5c5c5c5c5c5c5c
DATA blockBackslash<>+8(SB)/8, $0x5c5c5c5c5c5c5c5c
GLOBL blockBackslash<>(SB), RODATA|NOPTR, $16
DATA blockNewline<>+0(SB)/8, $0x0a0a0a0a0a0a0a0a
DATA blockNewline<>+8(SB)/8, $0x0a0a0a0a0a0a0a0a
GLOBL blockNewline<>(SB), RODATA|NOPTR, $16
DATA block20<>+0(SB)/8, $0x2020202020202020
DATA block20<>+8(SB)/8, $0x2020202020202020
GLOBL block20<>(SB), RODATA|NOPTR, $16
DATA blockOpen<>+0(SB)/8, $0x7b7b7b7b7b7b7b7b
DATA blockOpen<>+8(SB)/8, $0x7b7b7b7b7b7b7b7b
GLOBL blockOpen<>(SB), RODATA|NOPTR, $16
DATA blockClose<>+0(SB)/8, $0x7d7d7d7d7d7d7d7d
DATA blockClose<>+8(SB)/8, $0x7d7d7d7d7d7d7d7d
GLOBL blockClose<>(SB), RODATA|NOPTR, $16

// func classifyBlocks(b []byte, blocks []blockBits)
//
// For each whole 64-byte block of b, sets the
// block's quotes, brackets ('{' and '[' are '{' once 0x20 is set, '}' and
// ']' likewise '}') and rare bits (backslashes and newlines). SSE2 only.
TEXT ·classifyBlocks(SB), NOSPLIT, $0-48
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), CX
	MOVQ blocks_base+24(FP), DI
	SHRQ $6, CX
	JZ   done
	MOVOU blockQuote<>(SB), X8
	MOVOU blockBackslash<>(SB), X9
	MOVOU blockNewline<>(SB), X10
	MOVOU block20<>(SB), X11
	MOVOU blockOpen<>(SB), X12
	MOVOU blockClose<>(SB), X13

	// One 16-byte chunk at offset off: its bits, shifted to the chunk's
	// place in the block, ORed into R8 (quotes), R9 (brackets) and R10
	// (rare).
#define CHUNK(off, shift) \
	MOVOU    off(SI), X0 \
	MOVOU    X0, X1 \
	PCMPEQB  X8, X1 \
	PMOVMSKB X1, AX \
	SHLQ     $shift, AX \
	ORQ      AX, R8 \
	MOVOU    X0, X2 \
	PCMPEQB  X9, X2 \
	MOVOU    X0, X3 \
	PCMPEQB  X10, X3 \
	POR      X3, X2 \
	PMOVMSKB X2, AX \
	SHLQ     $shift, AX \
	ORQ      AX, R10 \
	POR      X11, X0 \
	MOVOU    X0, X4 \
	PCMPEQB  X12, X4 \
	PCMPEQB  X13, X0 \
	POR      X4, X0 \
	PMOVMSKB X0, AX \
	SHLQ     $shift, AX \
	ORQ      AX, R9

loop:
	XORQ R8, R8
	XORQ R9, R9
	XORQ R10, R10
	CHUNK(0, 0)
	CHUNK(16, 16)
	CHUNK(32, 32)
	CHUNK(48, 48)
	MOVQ R8, 0(DI)
	MOVQ R9, 8(DI)
	MOVQ R10, 16(DI)
	ADDQ $64, SI
	ADDQ $24, DI
	DECQ CX
	JNZ  loop

done:
	RET
