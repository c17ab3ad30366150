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

// The bits of the 16 bytes at off(SI), ORed into R13 (quotes), R14
// (brackets: '{' and '[' are '{' once 0x20 is set, '}' and ']' likewise
// '}') and BX (backslashes and newlines), each shifted by the chunk's
// place in the block (the first chunk's need no shift).
#define CHUNKBITS(off) \
	MOVOU    off(SI), X0 \
	MOVOU    X0, X1 \
	PCMPEQB  X8, X1 \
	MOVOU    X0, X2 \
	PCMPEQB  X9, X2 \
	MOVOU    X0, X3 \
	PCMPEQB  X10, X3 \
	POR      X3, X2 \
	POR      X11, X0 \
	MOVOU    X0, X4 \
	PCMPEQB  X12, X4 \
	PCMPEQB  X13, X0 \
	POR      X4, X0

#define CHUNK0 \
	CHUNKBITS(0) \
	PMOVMSKB X1, R13 \
	PMOVMSKB X2, BX \
	PMOVMSKB X0, R14

#define CHUNK(off, shift) \
	CHUNKBITS(off) \
	PMOVMSKB X1, AX \
	SHLQ     $shift, AX \
	ORQ      AX, R13 \
	PMOVMSKB X2, AX \
	SHLQ     $shift, AX \
	ORQ      AX, BX \
	PMOVMSKB X0, AX \
	SHLQ     $shift, AX \
	ORQ      AX, R14

// func walkBlocks(b []byte, st *walkState) (k, p, stop int)
//
// walkBlocksGo, with the same results; see it for what each step means.
// Registers: SI the block, CX the blocks left, R8 kinds, R9 depth, R10
// in, R11 esc, R12 line, DX the block's newlines, BX its backslashes
// (then the escaping ones, then the bytes near a line start), R13 its
// quotes (then the bytes in strings, then a bracket), AX, DI and R14
// scratch. The frame holds esc as the block started (0(SP)), the block's
// brackets (8(SP)), the escaped bits' neighbours (16(SP)), indent
// (24(SP)) and CX while CL counts shifts (32(SP)).
TEXT ·walkBlocks(SB), NOSPLIT, $40-56
	MOVQ  b_base+0(FP), SI
	MOVQ  b_len+8(FP), CX
	SHRQ  $6, CX
	MOVQ  st+24(FP), AX
	MOVQ  0(AX), R8
	MOVQ  8(AX), R9
	MOVQ  16(AX), R10
	MOVQ  24(AX), R11
	MOVQ  32(AX), R12
	MOVQ  64(AX), DX
	MOVQ  DX, 24(SP)
	XORQ  DX, DX
	TESTQ CX, CX
	JZ    end
	MOVOU blockQuote<>(SB), X8
	MOVOU blockBackslash<>(SB), X9
	MOVOU blockNewline<>(SB), X10
	MOVOU block20<>(SB), X11
	MOVOU blockOpen<>(SB), X12
	MOVOU blockClose<>(SB), X13

block:
	MOVQ R11, 0(SP)
	CHUNK0
	CHUNK(16, 16)
	CHUNK(32, 32)
	CHUNK(48, 48)
	MOVQ R14, 8(SP)

	// Backslashes and newlines, told apart by their bytes.
	MOVQ  BX, AX
	XORQ  DX, DX
	XORQ  BX, BX
	TESTQ AX, AX
	JZ    quotes

rare:
	BSFQ AX, R14
	BTRQ R14, AX
	CMPB (SI)(R14*1), $0x0a
	JNE  backslash
	BTSQ R14, DX
	JMP  rarenext

backslash:
	BTSQ R14, BX

rarenext:
	TESTQ AX, AX
	JNZ   rare

quotes:
	MOVQ BX, AX
	ORQ  R11, AX
	JZ   prefix

	// Escapes: bs &^= esc; follows = bs<<1 | esc; the odd runs' starts
	// added to bs; escaped = (even ^ sum<<1) & follows; the sum's carry
	// is the next block's esc; BX becomes the backslashes that escape.
	MOVQ R11, AX
	NOTQ AX
	ANDQ AX, BX
	MOVQ BX, AX
	SHLQ $1, AX
	ORQ  R11, AX
	MOVQ AX, 16(SP)
	NOTQ AX
	ANDQ BX, AX
	MOVQ $0xaaaaaaaaaaaaaaaa, R14
	ANDQ R14, AX
	ADDQ BX, AX
	SBBQ R11, R11
	NEGQ R11
	SHLQ $1, AX
	MOVQ $0x5555555555555555, R14
	XORQ R14, AX
	ANDQ 16(SP), AX
	NOTQ AX
	ANDQ AX, R13
	ANDQ AX, BX

prefix:
	// The bytes in strings: a prefix XOR of the quotes, and in.
	MOVQ R13, AX
	SHLQ $1, AX
	XORQ AX, R13
	MOVQ R13, AX
	SHLQ $2, AX
	XORQ AX, R13
	MOVQ R13, AX
	SHLQ $4, AX
	XORQ AX, R13
	MOVQ R13, AX
	SHLQ $8, AX
	XORQ AX, R13
	MOVQ R13, AX
	SHLQ $16, AX
	XORQ AX, R13
	MOVQ R13, AX
	SHLQ $32, AX
	XORQ AX, R13
	XORQ R10, R13

	// A newline in a string, or an escaping backslash outside one: the
	// byte loop follows this block.
	TESTQ DX, R13
	JNZ   leaveblock
	MOVQ  R13, AX
	NOTQ  AX
	TESTQ BX, AX
	JNZ   leaveblock

	// From here on the block is followed to its end or to a bracket
	// that stops the walk: in and line can be those of the next block.
	MOVQ R13, R10
	SARQ $63, R10

	// The bytes near a line start (nearLineStart): BX gets the line
	// starts, each smeared over the indent bytes after it, those of the
	// block before (R12, its newlines) included; R14 the block's own.
	MOVQ  DX, R14
	SHLQ  $1, R14
	MOVQ  R12, BX
	SHRQ  $63, BX
	ORQ   R14, BX
	MOVQ  24(SP), DI
	TESTQ DI, DI
	JZ    neardone
	MOVQ  CX, 32(SP)
	MOVQ  $1, DI

near:
	MOVQ DI, CX
	MOVQ R14, AX
	SHLQ CL, AX
	ORQ  AX, BX
	MOVQ $63, CX
	SUBQ DI, CX
	MOVQ R12, AX
	SHRQ CL, AX
	ORQ  AX, BX
	INCQ DI
	MOVQ 24(SP), AX
	CMPQ DI, AX
	JLS  near
	MOVQ 32(SP), CX

neardone:
	MOVQ DX, R12

	// The brackets outside strings.
	MOVQ 8(SP), AX
	NOTQ R13
	ANDQ R13, AX

bracket:
	TESTQ   AX, AX
	JZ      blockend
	BSFQ    AX, R14
	BTRQ    R14, AX
	MOVBLZX (SI)(R14*1), R13
	TESTB   $2, R13
	JZ      close

	// '{' or '[': near a line start (for the byte loop to judge), and
	// too deep at fastDepth.
	BTQ  R14, BX
	JCS  leavebracket
	CMPQ R9, $64
	JEQ  leavebracket
	SHRQ $5, R13
	ANDQ $1, R13
	SHLQ $1, R8
	ORQ  R13, R8
	INCQ R9
	JMP  bracket

close:
	SHRQ  $5, R13
	XORQ  R8, R13
	TESTB $1, R13
	JNZ   leavebracket
	SHRQ  $1, R8
	DECQ  R9
	JZ    closed
	JMP   bracket

blockend:
	TESTQ DX, DX
	JZ    next
	MOVQ  st+24(FP), AX
	MOVQ  DX, 48(AX)
	MOVQ  CX, 56(AX)

next:
	ADDQ $64, SI
	DECQ CX
	JNZ  block

end:
	MOVQ st+24(FP), AX
	MOVQ R8, 0(AX)
	MOVQ R9, 8(AX)
	MOVQ R10, 16(AX)
	MOVQ R11, 24(AX)
	MOVQ R12, 32(AX)
	MOVQ DX, 40(AX)
	MOVQ b_len+8(FP), AX
	SHRQ $6, AX
	MOVQ AX, k+32(FP)
	MOVQ $0, p+40(FP)
	MOVQ $0, stop+48(FP)
	RET

leaveblock:
	// The state as the block started: in and line are not yet changed.
	MOVQ st+24(FP), AX
	MOVQ R8, 0(AX)
	MOVQ R9, 8(AX)
	MOVQ R10, 16(AX)
	MOVQ 0(SP), R11
	MOVQ R11, 24(AX)
	MOVQ R12, 32(AX)
	MOVQ DX, 40(AX)
	MOVQ b_len+8(FP), AX
	SHRQ $6, AX
	SUBQ CX, AX
	MOVQ AX, k+32(FP)
	MOVQ $0, p+40(FP)
	MOVQ $1, stop+48(FP)
	RET

leavebracket:
	MOVQ $2, AX
	JMP  leaveat

closed:
	MOVQ $3, AX

leaveat:
	MOVQ AX, stop+48(FP)
	MOVQ R14, p+40(FP)
	MOVQ st+24(FP), AX
	MOVQ R8, 0(AX)
	MOVQ R9, 8(AX)
	MOVQ DX, 40(AX)
	MOVQ b_len+8(FP), AX
	SHRQ $6, AX
	SUBQ CX, AX
	MOVQ AX, k+32(FP)
	RET
