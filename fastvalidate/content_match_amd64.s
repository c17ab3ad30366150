//go:build !purego

#include "textflag.h"

// func textBlockMasksSSE2(p *byte) (word, notOther uint64)
//
// For the 64 bytes at p, a bit per byte: in word, set for an ASCII letter
// or digit; in notOther, set for those and for a space. A byte is a
// letter if, with 0x20 set (upper case to lower), it lies in 'a'..'z',
// and a digit if it lies in '0'..'9': each range is moved to start at
// -128 by a wrapping add, so that one signed compare (PCMPGTB) tells it.
// The bits are byte by byte, the same as chunkMasks', for any bytes.
TEXT ·textBlockMasksSSE2(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), SI
	MOVQ $0x2020202020202020, AX
	MOVQ AX, X8
	PUNPCKLQDQ X8, X8 // 0x20: the case bit, and a space
	MOVQ $0x1f1f1f1f1f1f1f1f, AX
	MOVQ AX, X9
	PUNPCKLQDQ X9, X9 // 0x80-'a': 'a'..'z' to -128..-103
	MOVQ $0x9a9a9a9a9a9a9a9a, AX
	MOVQ AX, X10
	PUNPCKLQDQ X10, X10 // -102: above the last letter moved
	MOVQ $0x5050505050505050, AX
	MOVQ AX, X11
	PUNPCKLQDQ X11, X11 // 0x80-'0': '0'..'9' to -128..-119
	MOVQ $0x8a8a8a8a8a8a8a8a, AX
	MOVQ AX, X12
	PUNPCKLQDQ X12, X12 // -118: above the last digit moved
	XORQ R8, R8
	XORQ R9, R9

	// One 16-byte chunk at offset off: its word bits into R8 and its
	// word-or-space bits into R9, shifted to the chunk's place.
#define CHUNK(off, shift) \
	MOVOU    off(SI), X0 \
	MOVOU    X0, X1 \
	POR      X8, X1 \
	PADDB    X9, X1 \
	MOVOU    X10, X2 \
	PCMPGTB  X1, X2 \
	MOVOU    X0, X3 \
	PADDB    X11, X3 \
	MOVOU    X12, X4 \
	PCMPGTB  X3, X4 \
	POR      X4, X2 \
	PCMPEQB  X8, X0 \
	POR      X2, X0 \
	PMOVMSKB X2, R10 \
	PMOVMSKB X0, R11 \
	SHLQ     $shift, R10 \
	SHLQ     $shift, R11 \
	ORQ      R10, R8 \
	ORQ      R11, R9

	CHUNK(0, 0)
	CHUNK(16, 16)
	CHUNK(32, 32)
	CHUNK(48, 48)
	MOVQ R8, word+8(FP)
	MOVQ R9, notOther+16(FP)
	RET
