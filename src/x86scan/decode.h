/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the careful decoder (decode.c) and its fast path (decode_fast.c)
 * share: the opcode shape table and objdump's legacy-map validity tables,
 * both defined in decode.c. Private to the decoder.
 */
#ifndef SLD_X86_DECODE_H
#define SLD_X86_DECODE_H

#include "x86scan/x86scan.h"

#define X86_MAX_LEN	15

/* What follows an opcode byte. */
#define S_M	0x01	/* ModRM (+ SIB + displacement) */
#define S_I8	0x02	/* imm8 */
#define S_IZ	0x04	/* imm16 with 66 (and no REX.W), else imm32 */
#define S_I16	0x08	/* imm16 */
#define S_IV	0x10	/* imm64 with REX.W, imm16 with 66, else imm32 */
#define S_MO	0x20	/* moffs: 8 bytes, 4 with 67 */
#define S_REL	0x40	/* rel16 with 66 and no REX.W, else rel32 */
#define S_BAD	0x80	/* no such opcode in 64-bit mode */

/*
 * Immediate bytes of the immediate bits of a shape, S_I8 .. S_REL shifted
 * right by one, in context c (bit 0: 66, bit 1: REX.W, bit 2: 67): what
 * imm_len() counts, as a constant expression for the tables of
 * decode.c and decode_fast.c.
 */
#define IZ(c)	(((c) & 1) && !((c) & 2) ? 2 : 4)
#define IV(c)	((c) & 2 ? 8 : (c) & 1 ? 2 : 4)
#define MO(c)	((c) & 4 ? 4 : 8)
#define IMM(c, i)	(((i) & (S_I8 >> 1) ? 1 : 0) +			\
			 ((i) & (S_I16 >> 1) ? 2 : 0) +			\
			 ((i) & (S_IZ >> 1) ? IZ(c) : 0) +		\
			 ((i) & (S_IV >> 1) ? IV(c) : 0) +		\
			 ((i) & (S_MO >> 1) ? MO(c) : 0) +		\
			 ((i) & (S_REL >> 1) ? IZ(c) : 0))

/*
 * A shape table entry: the S_* bits (bits 0-7, all x86_decode uses), the
 * X_* bits that steer the fast path (x86_decode_fast), and fields that
 * E() precomputes so the fast path finds all it needs in one load (an
 * opcode without entry is 0, which fits: no ModRM, no immediate): bits
 * 16-19 the immediate bytes without 66, 67 and REX.W, bits 20-23 the
 * same with REX.W; bits 24-30 how many ModRM values
 * from the top (ff down) are left to x86_decode; bit 31 S_M again, where
 * an arithmetic shift makes a mask of it.
 */
#define X_ESC	0x100	/* 0f: the opcode continues in the 0f map */
/*
 * Always left to x86_decode: other maps, VEX, EVEX, XOP, 3DNow!, finder
 * opcodes, MOV CR/DR, opcodes objdump names by ModRM.rm.
 */
#define X_SLOW	0x200
#define X_GRP3	0x400	/* f6/f7: /0 and /1 (test) take an immediate */
#define X_F8	0x800	/* c6/c7: ModRM f8..ff (xabort, xbegin, bad) */
#define X_M3	0x1000	/* 0f ae: register forms named by ModRM.rm */
#define E(s)	((s) | (uint32_t)IMM(0, ((s) >> 1) & 0x3f) << 16 |	\
		 (uint32_t)IMM(2, ((s) >> 1) & 0x3f) << 20 |		\
		 (uint32_t)((s) & X_F8 ? 0x08 : (s) & X_M3 ? 0x40 : 0) << 24 | \
		 ((s) & S_M ? 0x80000000u : 0))
#define E_IMM(t, w)	(((t) >> (16 + 4 * (w))) & 0xf)	/* w: REX.W */
#define E_TOPM(t)	(((t) >> 24) & 0x7f)
#define E_MMASK(t)	((unsigned int)((int32_t)(t) >> 31))

/* The legacy-decoder part of a shape entry. */
#define SHAPE(t)	((uint8_t)((t) & 0xff))

/* Shapes of the one-byte map and of the 0f map, by opcode. */
extern const uint32_t x86_shape[2][256];

/* objdump's verdict on a legacy-map opcode, see leg_class(). */
enum { K_OK, K_BAD_OPC, K_BAD_OP };

/* Generated from objdump (decode.c, tests/objdump/gen-legacy-tables.py). */
extern const uint32_t x86_leg_pat[][4];
extern const uint8_t x86_leg_idx[4][256];
extern const uint16_t x86_leg_bad0[2][256];

#endif /* SLD_X86_DECODE_H */
