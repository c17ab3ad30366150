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

DATA teddyConsts<>+0x00(SB)/8, $0x1f1f1f1f1f1f1f1f // 0x80-'a'
DATA teddyConsts<>+0x08(SB)/8, $0x1f1f1f1f1f1f1f1f
DATA teddyConsts<>+0x10(SB)/8, $0x1f1f1f1f1f1f1f1f
DATA teddyConsts<>+0x18(SB)/8, $0x1f1f1f1f1f1f1f1f
DATA teddyConsts<>+0x20(SB)/8, $0x9a9a9a9a9a9a9a9a // -102
DATA teddyConsts<>+0x28(SB)/8, $0x9a9a9a9a9a9a9a9a
DATA teddyConsts<>+0x30(SB)/8, $0x9a9a9a9a9a9a9a9a
DATA teddyConsts<>+0x38(SB)/8, $0x9a9a9a9a9a9a9a9a
DATA teddyConsts<>+0x40(SB)/8, $0x5050505050505050 // 0x80-'0'
DATA teddyConsts<>+0x48(SB)/8, $0x5050505050505050
DATA teddyConsts<>+0x50(SB)/8, $0x5050505050505050
DATA teddyConsts<>+0x58(SB)/8, $0x5050505050505050
DATA teddyConsts<>+0x60(SB)/8, $0x8a8a8a8a8a8a8a8a // -118
DATA teddyConsts<>+0x68(SB)/8, $0x8a8a8a8a8a8a8a8a
DATA teddyConsts<>+0x70(SB)/8, $0x8a8a8a8a8a8a8a8a
DATA teddyConsts<>+0x78(SB)/8, $0x8a8a8a8a8a8a8a8a
DATA teddyConsts<>+0x80(SB)/8, $0x2020202020202020 // the case bit, a space
DATA teddyConsts<>+0x88(SB)/8, $0x2020202020202020
DATA teddyConsts<>+0x90(SB)/8, $0x2020202020202020
DATA teddyConsts<>+0x98(SB)/8, $0x2020202020202020
DATA teddyConsts<>+0xa0(SB)/8, $0x0f0f0f0f0f0f0f0f // a nibble
DATA teddyConsts<>+0xa8(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA teddyConsts<>+0xb0(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA teddyConsts<>+0xb8(SB)/8, $0x0f0f0f0f0f0f0f0f
GLOBL teddyConsts<>(SB), RODATA|NOPTR, $0xc0

// func textBlockTeddyAVX2(p *byte, t *teddyTables, n int) (word, other, cand uint64)
//
// For the 64 bytes at p, or the first 32 when n <= 32 (most texts are
// names and tags, shorter), the bits of textBlockMasksSSE2 (word, and in
// other the complement of its notOther),
// 32 bytes at a time, and in cand a bit per byte i where bytes i to i+3
// (read up to p+66) may start a word of an anchor by the nibble tables t
// (teddyTables): each byte ORed with 0x20, its low and high nibbles looked
// up in the tables of its place with VPSHUFB, which looks up within each
// 128-bit lane, hence each table twice; the four places' bucket bits
// ANDed, and a byte whose AND is not zero set in cand.
TEXT ·textBlockTeddyAVX2(SB), NOSPLIT, $0-48
	MOVQ    p+0(FP), SI
	MOVQ    t+8(FP), DI
	MOVQ    n+16(FP), DX
	VMOVDQU 0(DI), Y8
	VMOVDQU 32(DI), Y9
	VMOVDQU 64(DI), Y10
	VMOVDQU 96(DI), Y11
	VMOVDQU 128(DI), Y12
	VMOVDQU 160(DI), Y13
	VMOVDQU 192(DI), Y14
	VMOVDQU 224(DI), Y15
	VMOVDQU teddyConsts<>+0x80(SB), Y6
	VMOVDQU teddyConsts<>+0xa0(SB), Y7
	VPXOR   Y5, Y5, Y5
	XORQ    R8, R8
	XORQ    R9, R9
	XORQ    R10, R10

	// The bucket bits of the byte at off+k, its table pair lo and hi,
	// into Y2.
#define PLACE(off, lo, hi) \
	VMOVDQU off(SI), Y1 \
	VPOR    Y6, Y1, Y1 \
	VPAND   Y7, Y1, Y2 \
	VPSRLW  $4, Y1, Y1 \
	VPAND   Y7, Y1, Y1 \
	VPSHUFB Y2, lo, Y2 \
	VPSHUFB Y1, hi, Y1 \
	VPAND   Y1, Y2, Y2

	// One 32-byte chunk at off: word bits into R8, word-or-space bits
	// into R9, candidates into R10, each shifted to the chunk's place.
#define TCHUNK(off, shift) \
	VMOVDQU   off(SI), Y0 \
	VPOR      Y6, Y0, Y1 \
	VPADDB    teddyConsts<>+0x00(SB), Y1, Y1 \
	VMOVDQU   teddyConsts<>+0x20(SB), Y3 \
	VPCMPGTB  Y1, Y3, Y3 \
	VPADDB    teddyConsts<>+0x40(SB), Y0, Y1 \
	VMOVDQU   teddyConsts<>+0x60(SB), Y4 \
	VPCMPGTB  Y1, Y4, Y4 \
	VPOR      Y4, Y3, Y3 \
	VPCMPEQB  Y6, Y0, Y0 \
	VPOR      Y3, Y0, Y0 \
	VPMOVMSKB Y3, AX \
	VPMOVMSKB Y0, BX \
	SHLQ      $shift, AX \
	SHLQ      $shift, BX \
	ORQ       AX, R8 \
	ORQ       BX, R9 \
	PLACE(off, Y8, Y9) \
	VMOVDQU   Y2, Y4 \
	PLACE(off+1, Y10, Y11) \
	VPAND     Y2, Y4, Y4 \
	PLACE(off+2, Y12, Y13) \
	VPAND     Y2, Y4, Y4 \
	PLACE(off+3, Y14, Y15) \
	VPAND     Y2, Y4, Y4 \
	VPCMPEQB  Y5, Y4, Y4 \
	VPMOVMSKB Y4, AX \
	NOTL      AX \
	SHLQ      $shift, AX \
	ORQ       AX, R10

	TCHUNK(0, 0)
	CMPQ DX, $32
	JLE  done
	TCHUNK(32, 32)

done:
	VZEROUPPER
	NOTQ R9 // the bytes that are neither: what the literals look at
	MOVQ R8, word+24(FP)
	MOVQ R9, other+32(FP)
	MOVQ R10, cand+40(FP)
	RET
