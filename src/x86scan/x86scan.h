/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86scan: an x86-64 instruction-length decoder and a finder for the
 * instructions that mark a hypervisor (VMX, SVM) or a module that
 * reprograms the CPU (MOV to CR/DR). Plain C with no kernel headers: the
 * same files build into sld_compat.ko and into sldctl, so both cut module
 * text alike (what the findings make of a module: src/modlib/).
 *
 * Rules: never allocate, never read outside [buf, buf + len).
 */
#ifndef SLD_X86SCAN_H
#define SLD_X86SCAN_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/string.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#endif

/* ---- decoder ---------------------------------------------------------- */

/* What the finder looks for. Order is ABI for status output: append only. */
enum x86_find {
	X86_F_NONE = -1,
	/* VMX */
	X86_F_VMXON = 0, X86_F_VMXOFF, X86_F_VMLAUNCH, X86_F_VMRESUME,
	X86_F_VMPTRLD, X86_F_VMPTRST, X86_F_VMCLEAR, X86_F_VMREAD,
	X86_F_VMWRITE, X86_F_VMCALL, X86_F_VMFUNC, X86_F_INVEPT,
	X86_F_INVVPID,
	/* SVM */
	X86_F_VMRUN, X86_F_VMLOAD, X86_F_VMSAVE, X86_F_VMMCALL, X86_F_STGI,
	X86_F_CLGI, X86_F_SKINIT, X86_F_INVLPGA,
	/* MOV to control / debug registers (writes only) */
	X86_F_MOV_CR0, X86_F_MOV_CR2, X86_F_MOV_CR3, X86_F_MOV_CR4,
	X86_F_MOV_CR8,
	X86_F_MOV_DR0, X86_F_MOV_DR1, X86_F_MOV_DR2, X86_F_MOV_DR3,
	X86_F_MOV_DR4, X86_F_MOV_DR5, X86_F_MOV_DR6, X86_F_MOV_DR7,
	X86_F_COUNT
};

enum x86_find_class { X86_C_NONE, X86_C_VMX, X86_C_SVM, X86_C_CR, X86_C_DR };

/* objdump's lower-case mnemonic ("vmxon", "vmrun") or "mov-cr4"/"mov-dr7". */
const char *x86_find_name(enum x86_find f);
enum x86_find_class x86_find_class(enum x86_find f);

/* Legacy prefixes seen, for struct x86_insn.prefixes. */
#define X86_P_66	0x01
#define X86_P_67	0x02
#define X86_P_F2	0x04
#define X86_P_F3	0x08
#define X86_P_F0	0x10	/* lock */
#define X86_P_SEG	0x20	/* any segment override */

struct x86_insn {
	/*
	 * Total length in bytes, 1..15; on X86_INVALID: the bytes objdump
	 * shows as "(bad)" (or as lone prefixes), 1..15.
	 */
	uint8_t len;
	uint8_t map;		/* X86_MAP_* */
	uint8_t opcode;		/* last opcode byte */
	uint8_t modrm;		/* valid if has_modrm */
	bool has_modrm;
	enum x86_find find;	/* X86_F_NONE unless a finder instruction */
	uint8_t prefixes;	/* X86_P_* */
	uint8_t rex;		/* REX byte, 0 if none */
	/*
	 * 0, 0x66, 0xf3 or 0xf2: the prefix that selects the opcode (last
	 * of f2/f3 wins, then 66), as objdump picks it.
	 */
	uint8_t mandatory;
};

enum x86_map {
	X86_MAP_1BYTE, X86_MAP_0F, X86_MAP_0F38, X86_MAP_0F3A,
	X86_MAP_3DNOW, X86_MAP_VEX, X86_MAP_EVEX, X86_MAP_XOP,
};

enum x86_status {
	X86_TRUNCATED = -1,	/* the buffer ends inside the instruction */
	X86_INVALID = -2,	/* not a valid instruction in 64-bit mode */
};

/*
 * Decode one 64-bit-mode instruction at buf. Returns its length (> 0) and
 * fills *insn, or a negative enum x86_status. Reads at most len bytes.
 */
int x86_decode(const uint8_t *buf, size_t len, struct x86_insn *insn);

/*
 * The scanner's fast path. x86_decode_fast returns the length of the
 * instruction at buf when a few table lookups show that it is a plain one
 * (valid, no finding), which x86_decode would then return too; else 0, and
 * only x86_decode can tell. It decides nothing with fewer than
 * X86_FAST_MIN bytes left. x86_decode_run walks up to max such
 * instructions from buf, stops at the first it cannot decide, sets *count
 * to the instructions walked and returns the bytes walked.
 */
#define X86_FAST_MIN	16
int x86_decode_fast(const uint8_t *buf, size_t len);
size_t x86_decode_run(const uint8_t *buf, size_t len, size_t max,
		      size_t *count);

/* The finder instruction a decoded insn is, or X86_F_NONE (find.c). */
enum x86_find x86_find_of(const struct x86_insn *insn);

/* ---- finder ----------------------------------------------------------- */

struct x86scan_stats {
	uint64_t insns;			/* instructions decoded */
	uint64_t invalid;		/* resyncs after invalid bytes */
	uint64_t truncated;		/* 1 if the buffer ended mid-instruction */
	uint32_t count[X86_F_COUNT];
	uint64_t first[X86_F_COUNT];	/* offset of first hit, if count */
};

/* Return nonzero to stop the scan. off is from the start of the buffer. */
typedef int (*x86scan_cb)(void *ctx, enum x86_find f, size_t off);

struct x86scan {
	const uint8_t *buf;
	size_t len;
	size_t pos;
	bool stopped;
	struct x86scan_stats st;
};

void x86scan_init(struct x86scan *s, const uint8_t *buf, size_t len);
/*
 * Walk at most max_insns instructions from s->pos (0 = no limit), so the
 * kernel can cond_resched() between calls. Invalid bytes are skipped as
 * objdump does: the insn.len bytes it shows as "(bad)" (usually 1, at most
 * 15), and a cut-off instruction at the end one byte at a time (truncated
 * is set). Returns true while bytes remain.
 */
bool x86scan_run(struct x86scan *s, size_t max_insns, x86scan_cb cb, void *ctx);

/*
 * Count the rel32 CALL (e8), JMP (e9) and Jcc (0f 80..8f) whose target lies
 * in [lo, hi], for code that runs at address base: how a module calls a
 * kernel function once the loader resolved it (a direct call to the
 * function's address). Every byte offset is tried, not only instruction
 * starts: the displacement must hit the range exactly (a 2^-32 chance for
 * bytes that are no such instruction), and the decoder's fast path does
 * not report instruction starts.
 */
size_t x86_rel32_to(const uint8_t *buf, size_t len, uint64_t base,
		    uint64_t lo, uint64_t hi);

#endif /* SLD_X86SCAN_H */
