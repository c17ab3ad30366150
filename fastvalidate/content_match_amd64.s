//go:build !purego

#include "textflag.h"
#include "go_asm.h"

// HASH_WORDS is both gate passes' hashing of a block's words: the
// block's CX bytes kept of the word bits (R10) and anchor bytes (R11),
// the words that start in it and may be an anchor's (R12) hashed into
// the gate's bits (R9); a word that runs to the block's end goes to
// across, which comes back to key with its whole length in R14. The
// carry of a word into the next block is kept in base+8(FP), the second
// argument of both functions.
#define HASH_WORDS \
	MOVQ  $-1, R13 \
	BZHIQ CX, R13, R13 /* the block's bytes */ \
	ANDQ  R13, R10 \
	ANDQ  R13, R11 \
	LEAQ  (R10)(R10*1), R14 \
	ORQ   base+8(FP), R14 \
	ANDNQ R10, R14, R15 /* word starts */ \
	ANDQ  R12, R15 /* those that may be an anchor's */ \
	MOVQ  R10, R14 \
	SHRQ  $63, R14 \
	MOVQ  R14, base+8(FP) /* the carry into the next block */ \
hash: \
	TESTQ  R15, R15 \
	JZ     hashed \
	TZCNTQ R15, AX /* a word's start */ \
	BLSRQ  R15, R15 \
	SHRXQ  AX, R10, R14 \
	NOTQ   R14 \
	TZCNTQ R14, R14 /* its length in the block */ \
	LEAQ   (AX)(R14*1), R12 \
	CMPQ   R12, $64 \
	JEQ    across \
key: \
	MOVQ   (DI)(AX*1), R12 \
	MOVQ   $0x2020202020202020, AX \
	ORQ    AX, R12 \
	MOVQ   $8, AX \
	CMPQ   R14, AX \
	CMOVQLT R14, AX \
	SHLQ   $3, AX \
	BZHIQ  AX, R12, R12 /* its first eight bytes, lower-cased, no more */ \
	SHLQ   $59, R14 \
	XORQ   R14, R12 /* gateKey */ \
	MOVQ   $0x9E3779B97F4A7C15, AX \
	IMULQ  AX, R12 \
	SHRQ   $52, R12 /* gateSlot: 64-gateSlotBits */ \
	ORQ    (R8)(R12*8), R9 \
	JMP    hash

// WORD_ENDS is both passes' end of a word that ran on past its block
// (rest: its length in R12's bits), and of a block (hashed: on to the
// next block, or back to the caller where it holds an anchor byte).
#define WORD_ENDS \
rest: \
	NOTQ   R12 \
	TZCNTQ R12, R12 \
	CMPQ   R12, $64 \
	JEQ    long \
	ADDQ   R12, R14 /* its whole length */ \
	JMP    key \
hashed: \
	TESTQ R11, R11 \
	JNZ   anchors \
	ADDQ  CX, BX \
	JMP   block

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

// VZEROUPPER clears the upper halves of Z0 to Z15 only. Z16 to Z31 left
// with bits beyond 256 may keep an Intel core in its AVX-512 state (its
// port 1 vector unit off) for the code after the call, as others have
// measured; the scanner's own pass uses Z0 to Z15 only. Zeroing them by
// an EVEX instruction, with VZEROUPPER for the rest, leaves it clean,
// for some twelve instructions a text.
#define CLEANUP_HIGH \
	VPXORD X16, X16, X16 \
	VPXORD X17, X17, X17 \
	VPXORD X18, X18, X18 \
	VPXORD X19, X19, X19 \
	VPXORD X20, X20, X20 \
	VPXORD X21, X21, X21 \
	VPXORD X22, X22, X22 \
	VPXORD X23, X23, X23 \
	VPXORD X24, X24, X24 \
	VPXORD X25, X25, X25 \
	VPXORD X26, X26, X26 \
	VPXORD X27, X27, X27 \
	VZEROUPPER

// func gateTextVec(p *byte, base, n int, ps *patternSet) (seen uint64, from, next int, anchors uint64)
//
// gateTextPortable in one call, 64 bytes an instruction: for the text of
// n bytes at p (readable to p+n+blockRead), from byte base on, each block
// of up to 64 bytes classed by t.class and looked up, at each of its
// bytes and the three after, in the anchors' tables t.places, all by
// VPERMI2B on the byte's low seven bits (a byte beyond ASCII, cleared by
// its sign bit where it could pass for a letter, is no word and no
// anchor byte); each word that starts where the four look-ups share a
// bucket hashed into the gate as gateWord would (gateKey, gateSlot), its
// bits ORed into seen, one that runs on into the next block measured
// there. The blocks are 64 bytes apart whatever their words, so that
// where the next one starts waits on none of the vector work. It
// returns at the text's end (next == n), at a word to hash that runs
// from its block through all of the next (next == -1), or after a block
// with a literal's anchor byte (its bits in anchors, by byte from from),
// for the caller to match the literals there and call again from next.
// t is ps.vec, the gate ps.gate.
//
// Registers: SI the text, BX the block's start, DX n, DI the block,
// R8 the gate, R9 seen, CX the block's length, R10 its word bits, R11 its
// anchor bytes, R13 the bits of its bytes, R15 the word starts to hash.
TEXT ·gateTextVec(SB), NOSPLIT, $0-64
	MOVQ p+0(FP), SI
	MOVQ base+8(FP), BX
	MOVQ n+16(FP), DX
	MOVQ ps+24(FP), DI
	LEAQ patternSet_gate(DI), R8
	ADDQ $patternSet_vec, DI
	VMOVDQU64 0(DI), Z8 // class, bytes 0 to 63
	VMOVDQU64 64(DI), Z9 // and 64 to 127
	VMOVDQU64 128(DI), Z10
	VMOVDQU64 192(DI), Z11
	VMOVDQU64 256(DI), Z12
	VMOVDQU64 320(DI), Z13
	VMOVDQU64 384(DI), Z14
	VMOVDQU64 448(DI), Z15
	VMOVDQU64 512(DI), Z16
	VMOVDQU64 576(DI), Z17
	VMOVDQU64 640(DI), Z20 // the places of buckets 8 to 15
	VMOVDQU64 704(DI), Z21
	VMOVDQU64 768(DI), Z22
	VMOVDQU64 832(DI), Z23
	VMOVDQU64 896(DI), Z24
	VMOVDQU64 960(DI), Z25
	VMOVDQU64 1024(DI), Z26
	VMOVDQU64 1088(DI), Z27
	MOVL $1, AX // vecWordByte
	VPBROADCASTB AX, Z18
	MOVL $2, AX // vecAnchorByte
	VPBROADCASTB AX, Z19
	XORQ R9, R9
	// The carry into the first block, kept in the base slot from here
	// on: 1 when the byte before it is a word's, whose word then runs on
	// into the block rather than starting in it.
	XORQ AX, AX
	TESTQ BX, BX
	JZ   carried
	MOVBLZX -1(SI)(BX*1), R10
	CMPQ R10, $0x80
	JAE  carried
	MOVBLZX (DI)(R10*1), AX // its class
	ANDQ $1, AX // vecWordByte

carried:
	MOVQ AX, base+8(FP)

block:
	CMPQ BX, DX
	JGE  end
	MOVQ DX, CX
	SUBQ BX, CX
	MOVQ $64, AX
	CMPQ CX, AX
	CMOVQGT AX, CX
	LEAQ (SI)(BX*1), DI
	VMOVDQU8   (DI), Z0
	VPMOVB2M   Z0, K4 // bytes beyond ASCII
	VMOVDQA64  Z0, Z1
	VPERMI2B   Z9, Z8, Z1
	VPTESTMB   Z18, Z1, K1
	VPTESTMB   Z19, Z1, K2
	VMOVDQA64  Z0, Z5
	VPERMI2B   Z11, Z10, Z0 // place 0, buckets 0 to 7
	VPERMI2B   Z21, Z20, Z5 // and 8 to 15
	VMOVDQU8   1(DI), Z2
	VMOVDQA64  Z2, Z6
	VPERMI2B   Z13, Z12, Z2
	VPERMI2B   Z23, Z22, Z6
	VMOVDQU8   2(DI), Z3
	VMOVDQA64  Z3, Z7
	VPERMI2B   Z15, Z14, Z3
	VPERMI2B   Z25, Z24, Z7
	VPTERNLOGD $0x80, Z3, Z2, Z0 // the buckets of places 0 to 2, ANDed
	VPTERNLOGD $0x80, Z7, Z6, Z5
	VMOVDQU8   3(DI), Z4
	VMOVDQA64  Z4, Z1
	VPERMI2B   Z17, Z16, Z4
	VPERMI2B   Z27, Z26, Z1
	VPTESTMB   Z4, Z0, K3 // and of place 3: a word of an anchor may start
	VPTESTMB   Z1, Z5, K5
	KORQ       K5, K3, K3
	KANDNQ     K1, K4, K1
	KANDNQ     K2, K4, K2
	KMOVQ      K1, R10
	KMOVQ      K2, R11
	KMOVQ      K3, R12
	HASH_WORDS

across:
	// The word runs to the block's end: unless the text ends there, on
	// into the next block, whose word bits give the rest of its length;
	// a word that fills that block too is left to the caller.
	LEAQ 64(BX), R12
	CMPQ R12, DX
	JGE  key
	VMOVDQU8 64(DI), Z0
	VPMOVB2M Z0, K4
	VPERMI2B Z9, Z8, Z0
	VPTESTMB Z18, Z0, K1
	KANDNQ   K1, K4, K1
	KMOVQ    K1, R12
	MOVQ DX, R13
	SUBQ BX, R13
	SUBQ $64, R13 // the text's bytes after this block
	CMPQ R13, $64
	JAE  rest
	BZHIQ R13, R12, R12

	WORD_ENDS

anchors:
	MOVQ R9, seen+32(FP)
	MOVQ BX, from+40(FP)
	ADDQ CX, BX
	MOVQ BX, next+48(FP)
	MOVQ R11, anchors+56(FP)
	CLEANUP_HIGH
	RET

long:
	MOVQ R9, seen+32(FP)
	MOVQ BX, from+40(FP)
	MOVQ $-1, next+48(FP)
	MOVQ $0, anchors+56(FP)
	CLEANUP_HIGH
	RET

end:
	MOVQ R9, seen+32(FP)
	MOVQ BX, from+40(FP)
	MOVQ BX, next+48(FP)
	MOVQ $0, anchors+56(FP)
	CLEANUP_HIGH
	RET

// The bit of a byte's high nibble in the anchors' table (teddyAnchorTable)
// for nibbles 0 to 7, none for 8 to 15, whose bytes are beyond ASCII; in
// each 128-bit lane.
DATA anchorHighBits<>+0x00(SB)/8, $0x8040201008040201
DATA anchorHighBits<>+0x08(SB)/8, $0
DATA anchorHighBits<>+0x10(SB)/8, $0x8040201008040201
DATA anchorHighBits<>+0x18(SB)/8, $0
GLOBL anchorHighBits<>(SB), RODATA|NOPTR, $0x20

// The word bits (textBlockMasksSSE2's) of the 32 bytes at off(DI) into
// the low 32 bits of reg, the bytes left in Y0.
#define WORD32(off, reg) \
	VMOVDQU   off(DI), Y0 \
	VPOR      Y6, Y0, Y1 \
	VPADDB    teddyConsts<>+0x00(SB), Y1, Y1 \
	VMOVDQU   teddyConsts<>+0x20(SB), Y3 \
	VPCMPGTB  Y1, Y3, Y3 \
	VPADDB    teddyConsts<>+0x40(SB), Y0, Y1 \
	VMOVDQU   teddyConsts<>+0x60(SB), Y4 \
	VPCMPGTB  Y1, Y4, Y4 \
	VPOR      Y4, Y3, Y3 \
	VPMOVMSKB Y3, reg

// The literals' anchor bytes among the 32 in Y0 into reg: the table of
// the byte's low nibble (Y5) ANDed with the bit of its high nibble.
#define ANCHORS32(reg) \
	VPAND     Y7, Y0, Y1 \
	VPSRLW    $4, Y0, Y2 \
	VPAND     Y7, Y2, Y2 \
	VPSHUFB   Y1, Y5, Y1 \
	VMOVDQU   anchorHighBits<>(SB), Y3 \
	VPSHUFB   Y2, Y3, Y3 \
	VPAND     Y1, Y3, Y3 \
	VPXOR     Y4, Y4, Y4 \
	VPCMPEQB  Y4, Y3, Y3 \
	VPMOVMSKB Y3, reg \
	NOTL      reg

// The bucket bits of the byte at off(DI), its table pair lo and hi, into
// Y2: PLACE on the block.
#define GPLACE(off, lo, hi) \
	VMOVDQU off(DI), Y1 \
	VPOR    Y6, Y1, Y1 \
	VPAND   Y7, Y1, Y2 \
	VPSRLW  $4, Y1, Y1 \
	VPAND   Y7, Y1, Y1 \
	VPSHUFB Y2, lo, Y2 \
	VPSHUFB Y1, hi, Y1 \
	VPAND   Y1, Y2, Y2

// The bytes of the 32 at off(DI) where an anchor's word may start by the
// nibble tables (textBlockTeddyAVX2's cand) into reg.
#define CAND32(off, reg) \
	GPLACE(off, Y8, Y9) \
	VMOVDQU   Y2, Y4 \
	GPLACE(off+1, Y10, Y11) \
	VPAND     Y2, Y4, Y4 \
	GPLACE(off+2, Y12, Y13) \
	VPAND     Y2, Y4, Y4 \
	GPLACE(off+3, Y14, Y15) \
	VPAND     Y2, Y4, Y4 \
	VPXOR     Y3, Y3, Y3 \
	VPCMPEQB  Y3, Y4, Y4 \
	VPMOVMSKB Y4, reg \
	NOTL      reg

// func gateTextAVX2(p *byte, base, n int, ps *patternSet, all bool) (seen uint64, from, next int, anchors uint64)
//
// gateTextTeddyPortable in one call, gateTextVec for CPUs with AVX2 but
// not AVX-512: the same blocks of up to 64 bytes, the same results, each
// block read 32 bytes an instruction (the second half only where the
// block has more than 32 bytes), its word bits by textBlockMasksSSE2's
// compares, the literals' anchor bytes by two byte shuffles on their
// nibbles (teddyAnchorTable), and the bytes where an anchor's word may
// start by the nibble tables ps.teddy, as textBlockTeddyAVX2 finds them.
// With all, it hashes every word and looks for no anchor byte, returning
// only at the text's end or at a long word.
//
// Registers: SI the text, BX the block's start, DX n, DI the block,
// R8 the gate, R9 seen, CX the block's length, R10 its word bits, R11 its
// anchor bytes, R13 the bits of its bytes, R15 the word starts to hash;
// Y5 the anchors' table, Y6 0x20, Y7 0x0f, Y8 to Y15 the nibble tables.
TEXT ·gateTextAVX2(SB), NOSPLIT, $0-72
	MOVQ    p+0(FP), SI
	MOVQ    base+8(FP), BX
	MOVQ    n+16(FP), DX
	MOVQ    ps+24(FP), DI
	LEAQ    patternSet_gate(DI), R8
	VMOVDQU patternSet_teddyAnchors(DI), Y5
	ADDQ    $patternSet_teddy, DI
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
	XORQ    R9, R9
	// The carry into the first block, kept in the base slot from here
	// on: 1 when the byte before it is a letter or a digit, whose word
	// then runs on into the block rather than starting in it.
	XORQ  AX, AX
	TESTQ BX, BX
	JZ    carried
	MOVBLZX -1(SI)(BX*1), R10
	MOVQ  R10, R11
	ORQ   $0x20, R11
	SUBQ  $0x61, R11 // 'a'
	CMPQ  R11, $26
	JB    carryword
	SUBQ  $0x30, R10 // '0'
	CMPQ  R10, $10
	JAE   carried

carryword:
	MOVL $1, AX

carried:
	MOVQ AX, base+8(FP)

block:
	CMPQ BX, DX
	JGE  end
	MOVQ DX, CX
	SUBQ BX, CX
	MOVQ $64, AX
	CMPQ CX, AX
	CMOVQGT AX, CX
	LEAQ (SI)(BX*1), DI
	CMPB all+32(FP), $0
	JNE  everyword
	WORD32(0, R10)
	ANCHORS32(R11)
	CAND32(0, R12)
	CMPQ CX, $32
	JLE  masked
	WORD32(32, AX)
	ANCHORS32(R13)
	CAND32(32, R14)
	SHLQ $32, AX
	ORQ  AX, R10
	SHLQ $32, R13
	ORQ  R13, R11
	SHLQ $32, R14
	ORQ  R14, R12
	JMP  masked

everyword:
	// Every word hashed, and no anchor byte looked for.
	WORD32(0, R10)
	XORQ R11, R11
	MOVQ $-1, R12
	CMPQ CX, $32
	JLE  masked
	WORD32(32, AX)
	SHLQ $32, AX
	ORQ  AX, R10

masked:
	HASH_WORDS

across:
	// The word runs to the block's end: unless the text ends there, on
	// into the next block, whose word bits give the rest of its length;
	// a word that fills that block too is left to the caller.
	LEAQ 64(BX), R12
	CMPQ R12, DX
	JGE  key
	MOVQ AX, R13 // the word's start, which WORD32 leaves be
	WORD32(64, R12)
	WORD32(96, AX)
	SHLQ $32, AX
	ORQ  AX, R12
	MOVQ R13, AX
	MOVQ DX, R13
	SUBQ BX, R13
	SUBQ $64, R13 // the text's bytes after this block
	CMPQ R13, $64
	JAE  rest
	BZHIQ R13, R12, R12

	WORD_ENDS

anchors:
	MOVQ R9, seen+40(FP)
	MOVQ BX, from+48(FP)
	ADDQ CX, BX
	MOVQ BX, next+56(FP)
	MOVQ R11, anchors+64(FP)
	VZEROUPPER
	RET

long:
	MOVQ R9, seen+40(FP)
	MOVQ BX, from+48(FP)
	MOVQ $-1, next+56(FP)
	MOVQ $0, anchors+64(FP)
	VZEROUPPER
	RET

end:
	MOVQ R9, seen+40(FP)
	MOVQ BX, from+48(FP)
	MOVQ BX, next+56(FP)
	MOVQ $0, anchors+64(FP)
	VZEROUPPER
	RET
