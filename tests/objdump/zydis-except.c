// SPDX-License-Identifier: GPL-2.0
/*
 * The known differences between x86scan and Zydis 4.0 (zydis-agree.c):
 * where each decodes as its reference says, x86scan as objdump 2.40
 * (decode.c), Zydis as Intel's and AMD's manuals, or where one knows an
 * instruction the other does not. One entry per difference in
 * exceptions[] (at the end), each as narrow as the difference: the
 * bytes it applies to, both verdicts, and mostly a check that Zydis gives
 * x86scan's length for the nearest encoding it takes (the same bytes
 * without a lock prefix, with register 0, ...), so that a wrong length
 * is still caught there. Where both decode an instruction, length and
 * finding must agree but for two entries: fwait, vmgexit.
 * All came from undefined or exotic encodings (random bytes, the fuzz
 * corpus, a sweep of the opcode space); module text needs none of them.
 */
#include <string.h>

#include "zydis-agree.h"

/* ---- helpers ---------------------------------------------------------- */

static bool is_legacy_prefix(uint8_t c)
{
	switch (c) {
	case 0x26: case 0x2e: case 0x36: case 0x3e: case 0x64: case 0x65:
	case 0x66: case 0x67: case 0xf0: case 0xf2: case 0xf3:
		return true;
	}
	return false;
}

static bool is_rex(uint8_t c)
{
	return (c & 0xf0) == 0x40;
}

static bool all_legacy(const uint8_t *b, size_t k)
{
	size_t i;

	for (i = 0; i < k; i++)
		if (!is_legacy_prefix(b[i]))
			return false;
	return true;
}

/* Where the opcode is: after the legacy prefixes and a REX right before it. */
static size_t opcode_at(const uint8_t *b, size_t n)
{
	size_t i = 0;

	while (i < n && i < 15 && is_legacy_prefix(b[i]))
		i++;
	if (i < n && is_rex(b[i]))
		i++;
	return i;
}

/* A copy of an instruction's bytes to change and give Zydis again. */
struct fix {
	uint8_t b[32];
	size_t n;
};

static void fix_init(struct fix *f, const uint8_t *b, size_t n)
{
	f->n = n < sizeof(f->b) ? n : sizeof(f->b);
	memcpy(f->b, b, f->n);
}

static void fix_drop(struct fix *f, size_t at)
{
	memmove(f->b + at, f->b + at + 1, f->n - at - 1);
	f->n--;
}

/* f: b with its olen bytes at at replaced by the w bytes of op. */
static void fix_splice(struct fix *f, const uint8_t *b, size_t n, size_t at,
		       size_t olen, const uint8_t *op, size_t w)
{
	size_t rest = n - at - olen;

	if (rest > sizeof(f->b) - at - w)
		rest = sizeof(f->b) - at - w;
	memcpy(f->b, b, at);
	memcpy(f->b + at, op, w);
	memcpy(f->b + at + w, b + at + olen, rest);
	f->n = at + w + rest;
}

/* f: the bytes without their legacy prefixes c; how many there were. */
static int drop_prefix(const uint8_t *b, size_t n, uint8_t c, struct fix *f)
{
	size_t i = opcode_at(b, n);
	int k = 0;

	fix_init(f, b, n);
	while (i-- > 0) {
		if (f->b[i] == c) {
			fix_drop(f, i);
			k++;
		}
	}
	return k;
}

/* f: b without its 66, f2 and f3 prefixes; how many there were. */
static int drop_sse_prefixes(const uint8_t *b, size_t n, struct fix *f)
{
	struct fix g;
	int k = drop_prefix(b, n, 0x66, f);

	k += drop_prefix(f->b, f->n, 0xf2, &g);
	return k + drop_prefix(g.b, g.n, 0xf3, f);
}

/*
 * Bytes of the ModRM operand at b (ModRM, SIB, displacement): Zydis's
 * length of mov (8b) with it, less one; 0 if Zydis takes none.
 */
static int operand_len(const uint8_t *b, size_t n)
{
	struct verdict z;
	struct fix f;

	f.b[0] = 0x8b;
	f.n = 1 + (n < sizeof(f.b) - 1 ? n : sizeof(f.b) - 1);
	memcpy(f.b + 1, b, f.n - 1);
	z = zydis_decode(f.b, f.n);
	return z.st == ST_INSN ? z.len - 1 : 0;
}

/* Bytes of the VEX (c5: 2, c4, XOP: 3) or EVEX (4) prefix at b, else 0. */
static size_t vex_len(const uint8_t *b, size_t n)
{
	if (n >= 2 && b[0] == 0xc5)
		return 2;
	/* XOP: 8f whose map field is 8 or more (else it is pop /0) */
	if (n >= 3 && (b[0] == 0xc4 || (b[0] == 0x8f && (b[1] & 0x1f) >= 8)))
		return 3;
	if (n >= 4 && b[0] == 0x62)
		return 4;
	return 0;
}

/*
 * x86scan's verdict on bytes k longer (k < 0: shorter) than the ones
 * Zydis decoded: the same status, and for an instruction the same length
 * less k and the same finding.
 */
static bool same_but(const struct verdict *s, const struct verdict *z, int k)
{
	if (s->st != z->st)
		return false;
	return s->st != ST_INSN || (s->len - k == z->len && s->find == z->find);
}

/*
 * x86scan's verdict s, on bytes k longer than the changed ones of f (k <
 * 0: shorter), against Zydis on f: the same, or a difference the table
 * excuses (a lock prefix on a reserved x87 encoding: both entries).
 */
static bool agree_fixed(const struct fix *f, const struct verdict *s, int k)
{
	static int depth;
	struct verdict s2 = *s, z2 = zydis_decode(f->b, f->n);
	bool ok;

	if (s2.st == ST_INSN)
		s2.len -= k;
	if (depth >= 3)
		return same(&s2, &z2);
	depth++;
	ok = agree(f->b, f->n, &s2, &z2);
	depth--;
	return ok;
}

/* ---- prefixes --------------------------------------------------------- */

/*
 * x86scan follows objdump: prefixes up to a REX that another prefix
 * (or 9b, a prefix to objdump) follows are shown alone, "(bad)". The CPU
 * and Zydis ignore that REX. What follows is the walk's next start,
 * compared on its own.
 */
static bool ex_rex_prefix(const uint8_t *b, size_t n, const struct verdict *s,
			  const struct verdict *z)
{
	size_t k = s->len;

	(void)z;
	return s->st == ST_BAD && k < n && is_rex(b[k - 1]) &&
	       (is_legacy_prefix(b[k]) || is_rex(b[k]) || b[k] == 0x9b) &&
	       all_legacy(b, k - 1);
}

/*
 * x86scan follows objdump: a 14th prefix byte ends the "instruction",
 * the prefixes shown alone, "(bad)" (objdump 2.40 prints 65 x13 5a as
 * one pop, 65 x14 5a as the prefixes and then a pop). The CPU and Zydis
 * take up to 14 prefixes before a one-byte opcode: a 15-byte
 * instruction. What follows the prefixes is the walk's next start,
 * compared on its own.
 */
static bool ex_many_prefixes(const uint8_t *b, size_t n,
			     const struct verdict *s, const struct verdict *z)
{
	return s->st == ST_BAD && s->len == 14 && n > 14 && all_legacy(b, 14) &&
	       z->st == ST_INSN && z->len == 15;
}

/*
 * 9b (fwait) and what follows it: objdump makes one instruction of 9b
 * and an x87 opcode ("fstsw" for 9b df e0) or of 9b and the next 9b
 * and its x87 opcode, and of 9b and the prefixes between it and another
 * 9b or a REX; Zydis decodes fwait alone. x86scan's length must be
 * fwait's and that of the rest, on which the two must agree (or of the
 * prefixes); at the end of the buffer, both must want more.
 */
static bool ex_fwait(const uint8_t *b, size_t n, const struct verdict *s,
		     const struct verdict *z)
{
	const uint8_t *r = b + z->len;
	size_t rn = n - z->len, op;
	struct verdict s2, z2;

	if (z->st != ST_INSN || z->mn != ZYDIS_MNEMONIC_FWAIT)
		return false;
	if (s->st == ST_BAD)	/* shown with the prefixes after it */
		return s->len >= z->len &&
		       all_legacy(b + z->len, s->len - z->len);
	if (!rn)
		return s->st == ST_TRUNC;
	s2 = scan_decode(r, rn);
	z2 = zydis_decode(r, rn);
	if (s->st == ST_TRUNC)
		return s2.st == ST_TRUNC && agree(r, rn, &s2, &z2);
	op = opcode_at(r, rn);
	if (s->st != ST_INSN || op >= rn)
		return false;
	if (op && r[op] == 0x9b && all_legacy(r, op) &&
	    s->len == z->len + (int)op)
		return true;
	if (r[op] != 0x9b && (r[op] < 0xd8 || r[op] > 0xdf))
		return false;
	return s2.st == ST_INSN && s->len == z->len + s2.len &&
	       s->find == s2.find && agree(r, rn, &s2, &z2);
}

/*
 * lock mov to CR0 is AMD's mov to CR8 (CPUID AltMovCr8), which find.c
 * reports as mov-cr8 and Zydis 4.0 rejects: without the lock it is mov
 * to CR0 of the same length.
 */
static bool ex_lock_cr8(const uint8_t *b, size_t n, const struct verdict *s,
			const struct verdict *z)
{
	struct verdict z2;
	struct fix f;
	int k;

	if (z->zst != ZYDIS_STATUS_ILLEGAL_LOCK || s->st != ST_INSN ||
	    s->find != X86_F_MOV_CR8)
		return false;
	k = drop_prefix(b, n, 0xf0, &f);
	z2 = zydis_decode(f.b, f.n);
	return k && z2.st == ST_INSN && z2.find == X86_F_MOV_CR0 &&
	       s->len - k == z2.len;
}

/*
 * A lock prefix on an instruction that cannot take one: objdump prints
 * "lock" and the instruction, Zydis rejects it (#UD on the CPU). Without
 * the lock prefix Zydis must give x86scan's length and finding.
 */
static bool ex_lock(const uint8_t *b, size_t n, const struct verdict *s,
		    const struct verdict *z)
{
	struct fix f;
	int k;

	if (z->zst != ZYDIS_STATUS_ILLEGAL_LOCK)
		return false;
	k = drop_prefix(b, n, 0xf0, &f);
	return k && agree_fixed(&f, s, k);
}

/*
 * 0f-map opcodes where objdump prints a 66, f2 or f3 the instruction has
 * no form with as "data16", "repz", "repnz" before it and Zydis rejects
 * the whole: 0f 01 (f3 0f 01 c8), getsec, PadLock (a6, a7), 0f ae, 0f c7
 * (66 vmptrst, 66 xsavec), pmovmskb (d7).
 */
static const uint8_t objdump_ignores[] = {
	0x01, 0x37, 0xa6, 0xa7, 0xae, 0xc7, 0xd7,
};

/*
 * And where objdump says "(bad)" for the opcode with one of them while
 * Zydis decodes it as the instruction without: 0f 01, wbinvd (09),
 * prefetch (0d), bsf (bc), bsr (bd).
 */
static const uint8_t zydis_ignores[] = { 0x01, 0x09, 0x0d, 0xbc, 0xbd };

/* Is the opcode at b 0f followed by one of ops? */
static bool is_0f(const uint8_t *b, size_t n, const uint8_t *ops, size_t k)
{
	size_t op = opcode_at(b, n);

	return op + 1 < n && b[op] == 0x0f && memchr(ops, b[op + 1], k);
}

/*
 * objdump_ignores[]: without the 66, f2 and f3 Zydis must give x86scan's
 * length less them, and its finding.
 */
static bool ex_prefix_ignored(const uint8_t *b, size_t n,
			      const struct verdict *s, const struct verdict *z)
{
	struct fix f;
	int k;

	if (z->zst != ZYDIS_STATUS_DECODING_ERROR ||
	    !is_0f(b, n, objdump_ignores, sizeof(objdump_ignores)))
		return false;
	k = drop_sse_prefixes(b, n, &f);
	return k && agree_fixed(&f, s, k);
}

/* zydis_ignores[]: without them Zydis must decode the same instruction. */
static bool ex_prefix_zydis(const uint8_t *b, size_t n,
			    const struct verdict *s, const struct verdict *z)
{
	struct verdict z2;
	struct fix f;
	int k;

	if (s->st != ST_BAD || z->st != ST_INSN ||
	    !is_0f(b, n, zydis_ignores, sizeof(zydis_ignores)))
		return false;
	k = drop_sse_prefixes(b, n, &f);
	z2 = zydis_decode(f.b, f.n);
	return k && z2.st == ST_INSN && z2.mn == z->mn &&
	       z2.len == z->len - k;
}

/*
 * f2/f3 0f 01 d9 is AMD's vmgexit (an SEV-ES guest's call to its
 * hypervisor: objdump 2.40, find.c, no finding); Zydis 4.0 decodes it
 * as vmmcall with an ignored prefix.
 */
static bool ex_vmgexit(const uint8_t *b, size_t n, const struct verdict *s,
		       const struct verdict *z)
{
	size_t op = opcode_at(b, n), i;
	bool rep = false;

	for (i = 0; i < op; i++)
		rep |= b[i] == 0xf2 || b[i] == 0xf3;
	return rep && op + 2 < n && b[op] == 0x0f && b[op + 1] == 0x01 &&
	       b[op + 2] == 0xd9 && s->st == ST_INSN &&
	       s->find == X86_F_NONE && z->st == ST_INSN &&
	       z->find == X86_F_VMMCALL && s->len == z->len;
}

/* ---- ModRM ------------------------------------------------------------ */

/*
 * The reserved x87 encodings (dd /5 with memory, da e8 and more): objdump
 * shows "(bad)" over the whole ModRM operand, Zydis rejects them. The
 * defined /0 (or c0+i) form with the same operand must have x86scan's
 * length, and there is no finding.
 */
static bool ex_x87(const uint8_t *b, size_t n, const struct verdict *s,
		   const struct verdict *z)
{
	size_t op = opcode_at(b, n);
	struct fix f;

	if (z->zst != ZYDIS_STATUS_DECODING_ERROR || op + 1 >= n ||
	    b[op] < 0xd8 || b[op] > 0xdf || s->find != X86_F_NONE)
		return false;
	fix_init(&f, b, n);
	if ((f.b[op + 1] >> 6) == 3)
		f.b[op + 1] = 0xc0 | (f.b[op + 1] & 7);
	else
		f.b[op + 1] &= ~0x38;
	return agree_fixed(&f, s, 0);
}

/*
 * Registers that do not exist, in the ModRM of mov to/from a segment
 * register (8c, 8e: 6, 7), CRn (0f 20, 22: CR1, 5-7, 9-15), DRn (0f 21,
 * 23: DR8-15) or a bound register (0f 1a, 1b: BND4-7), and MPX's
 * RIP-relative operand: objdump names them, Zydis rejects them (#UD on
 * the CPU). x86scan has no finding there; with register 0 (a move to
 * CRn/DRn made a move from it, no finding either) and (%rbp) for
 * (%rip), Zydis must give x86scan's length.
 */
static bool ex_bad_reg(const uint8_t *b, size_t n, const struct verdict *s,
		       const struct verdict *z)
{
	size_t op = opcode_at(b, n), m;
	struct fix f;

	if (z->zst != ZYDIS_STATUS_BAD_REGISTER || s->find != X86_F_NONE ||
	    op + 1 >= n)
		return false;
	if (b[op] == 0x8c || b[op] == 0x8e)
		m = op + 1;
	else if (b[op] == 0x0f && op + 2 < n &&
		 ((b[op + 1] | 1) == 0x1b || (b[op + 1] & 0xfc) == 0x20))
		m = op + 2;
	else
		return false;
	fix_init(&f, b, n);
	if (m == op + 2 && (f.b[op + 1] & 0xfc) == 0x20)
		f.b[op + 1] &= ~2;		/* mov to CRn/DRn: from */
	f.b[m] &= ~0x38;
	if (m == op + 2 && (f.b[op + 1] | 1) == 0x1b && (f.b[m] >> 6) == 3)
		f.b[m] &= ~0x07;		/* bndmov bnd, bnd */
	if (m == op + 2 && (f.b[op + 1] | 1) == 0x1b && (f.b[m] & 0xc7) == 5)
		f.b[m] |= 0x80;		/* MPX: (%rbp) for (%rip), disp32 */
	if (op && is_rex(f.b[op - 1]))
		f.b[op - 1] &= ~0x05;		/* REX.R, REX.B */
	return agree_fixed(&f, s, 0);
}

/*
 * lfence, mfence, sfence (0f ae e8, f0, f8) with ModRM.rm other than 0:
 * objdump "(bad)", Zydis (as Intel's manual) the fence.
 */
static bool ex_fence(const uint8_t *b, size_t n, const struct verdict *s,
		     const struct verdict *z)
{
	size_t op = opcode_at(b, n);

	return s->st == ST_BAD && z->st == ST_INSN && op + 2 < n &&
	       b[op] == 0x0f && b[op + 1] == 0xae && b[op + 2] >= 0xe8 &&
	       (z->mn == ZYDIS_MNEMONIC_LFENCE ||
		z->mn == ZYDIS_MNEMONIC_MFENCE ||
		z->mn == ZYDIS_MNEMONIC_SFENCE);
}

/*
 * extrq (66 0f 78) with ModRM.reg other than 0, or with memory: objdump
 * decodes it, Zydis needs /0 with a register. With ModRM c0 + rm Zydis
 * must give x86scan's length, the operand's bytes less one fewer.
 */
static bool ex_extrq(const uint8_t *b, size_t n, const struct verdict *s,
		     const struct verdict *z)
{
	size_t op = opcode_at(b, n), m = op + 2;
	struct fix f;
	uint8_t reg;
	int olen;

	if (z->zst != ZYDIS_STATUS_DECODING_ERROR || m >= n ||
	    b[op] != 0x0f || b[op + 1] != 0x78 || !memchr(b, 0x66, op))
		return false;
	olen = s->st == ST_INSN ? operand_len(b + m, n - m) : 1;
	if (!olen || m + olen > n)
		return false;
	reg = 0xc0 | (b[m] & 7);
	fix_splice(&f, b, n, m, olen, &reg, 1);
	return agree_fixed(&f, s, olen - 1);
}

/*
 * 0f 0d with a register operand: objdump "(bad)" (AMD's prefetch group
 * takes memory only) and resumes after the prefixes, Zydis a NOP (Intel
 * reserves 0f 0d as a NOP with any ModRM).
 */
static bool ex_prefetch_reg(const uint8_t *b, size_t n,
			    const struct verdict *s, const struct verdict *z)
{
	size_t op = opcode_at(b, n);

	return s->st == ST_BAD && z->st == ST_INSN &&
	       z->mn == ZYDIS_MNEMONIC_NOP && op + 2 < n && b[op] == 0x0f &&
	       b[op + 1] == 0x0d && (b[op + 2] >> 6) == 3 &&
	       (size_t)z->len == op + 3;
}

/*
 * VIA PadLock's 0f a6 / 0f a7 (xsha*, xstore, xcrypt*) without the f3
 * VIA's manual writes: objdump decodes them, Zydis only with the f3. With
 * it Zydis must give x86scan's length, one byte more.
 */
static bool ex_padlock(const uint8_t *b, size_t n, const struct verdict *s,
		       const struct verdict *z)
{
	size_t op = opcode_at(b, n);
	struct fix f;

	if (z->zst != ZYDIS_STATUS_DECODING_ERROR || op + 1 >= n ||
	    b[op] != 0x0f || (b[op + 1] | 1) != 0xa7)
		return false;
	f.b[0] = 0xf3;
	f.n = 1 + (n < sizeof(f.b) - 1 ? n : sizeof(f.b) - 1);
	memcpy(f.b + 1, b, f.n - 1);
	return agree_fixed(&f, s, -1);
}

/* ---- newer than Zydis 4.0 (2022), in objdump 2.40 (2023) ------------- */

/*
 * newer_like: an instruction newer than Zydis 4.0 at b, opcode 0f MAP OPC
 * (with a memory operand where MEM), stands as STANDIN does: the same
 * bytes with 0f MAP STANDIN, less the 66/f2/f3, must give Zydis
 * x86scan's length.
 */
static bool newer_like(const uint8_t *b, size_t n, const struct verdict *s,
		       const struct verdict *z, uint8_t map, uint8_t opc,
		       uint8_t standin, bool mem)
{
	size_t op;
	struct fix f;
	int k;

	if (z->zst != ZYDIS_STATUS_DECODING_ERROR || s->find != X86_F_NONE)
		return false;
	k = drop_sse_prefixes(b, n, &f);
	op = opcode_at(f.b, f.n);
	if (op + 2 + mem >= f.n || f.b[op] != 0x0f || f.b[op + 1] != map ||
	    f.b[op + 2] != opc || (mem && (f.b[op + 3] >> 6) == 3))
		return false;
	f.b[op + 2] = standin;
	return agree_fixed(&f, s, k);
}

/*
 * RAO-INT's aadd, aand, aor, axor (0f 38 fc, memory only), newer than
 * Zydis 4.0: legacy map 0f38 has no immediates, so x86scan's length must
 * be movbe's (0f 38 f0) with the same operand, less the 66/f2/f3.
 */
static bool ex_rao(const uint8_t *b, size_t n, const struct verdict *s,
		   const struct verdict *z)
{
	return newer_like(b, n, s, z, 0x38, 0xfc, 0xf0, true);
}

/*
 * hreset (f3 0f 3a f0 ib) with ModRM.rm other than 0: objdump and Zydis
 * "(bad)", x86scan the 6-byte instruction. x86scan's own difference
 * (from objdump too), tabled until decode.c and tests/x86ref change
 * together: module code has none, but the fuzzer may keep one.
 */
static bool ex_hreset(const uint8_t *b, size_t n, const struct verdict *s,
		      const struct verdict *z)
{
	size_t op = opcode_at(b, n);

	return z->zst == ZYDIS_STATUS_DECODING_ERROR && s->st == ST_INSN &&
	       s->find == X86_F_NONE && op + 4 < n && memchr(b, 0xf3, op) &&
	       b[op] == 0x0f && b[op + 1] == 0x3a && b[op + 2] == 0xf0 &&
	       (b[op + 3] >> 6) == 3 && (b[op + 3] & 7) &&
	       s->len == (int)op + 5;
}

/*
 * wrmsrns, rdmsrlist, wrmsrlist (0f 01 c6, f2/f3 0f 01 c6), newer than
 * Zydis 4.0: no operands, so x86scan's length must be that of xgetbv
 * (0f 01 d0) with the same prefixes less 66, f2, f3.
 */
static bool ex_msrlist(const uint8_t *b, size_t n, const struct verdict *s,
		       const struct verdict *z)
{
	return newer_like(b, n, s, z, 0x01, 0xc6, 0xd0, false);
}

/* ---- VEX, EVEX, XOP ---------------------------------------------------- */

/*
 * One setting of the fields, k from 0 to T_END: pp, W, the vector length
 * (L'L), whether the registers' extension bits (R X B R') stay or are
 * 0, whether vvvv (and V') stays or is unused, EVEX's mask register (as
 * it is, none or k1: gathers need one, others none) and whether EVEX's
 * b stays or is 0. The map, the opcode and the ModRM stay as they are.
 */
#define T_PP(k)		((k) & 3)
#define T_W(k)		(((k) >> 2) & 1)
#define T_L(k)		(((k) >> 3) & 3)
#define T_REGS(k)	(((k) >> 5) & 1)
#define T_VVVV(k)	(((k) >> 6) & 1)
#define T_MASK(k)	(((k) >> 7) & 3)
#define T_B(k)		(((k) >> 9) & 1)
#define T_END		0x400

static bool vex_setting(uint8_t *v, unsigned int k)
{
	uint8_t *vb = &v[v[0] == 0xc5 ? 1 : 2];	/* ~vvvv's byte */
	uint8_t vvvv = T_VVVV(k) ? *vb & 0x78 : 0x78;

	if (T_L(k) == 3 || T_MASK(k) == 3)
		return false;
	if (v[0] != 0x62 && (T_L(k) > 1 || T_MASK(k) || T_B(k)))
		return false;	/* only EVEX has these */
	switch (v[0]) {
	case 0xc5:	/* ~R ~vvvv L pp */
		v[1] = (T_REGS(k) ? v[1] & 0x80 : 0x80) | vvvv | T_L(k) << 2 |
		       T_PP(k);
		break;
	case 0x62:	/* ~R ~X ~B ~R' 0 mmm; W ~vvvv 1 pp; z L'L b ~V' aaa */
		v[1] = (T_REGS(k) ? v[1] : v[1] | 0xf0) & ~0x08;
		v[2] = T_W(k) << 7 | vvvv | 4 | T_PP(k);
		v[3] = T_L(k) << 5 | (T_B(k) ? v[3] & 0x10 : 0) |
		       (T_VVVV(k) ? v[3] & 8 : 8) |
		       (T_MASK(k) == 0 ? v[3] & 7 : T_MASK(k) - 1);
		break;
	default:	/* c4, XOP 8f: ~R ~X ~B mmmmm; W ~vvvv L pp */
		if (!T_REGS(k))
			v[1] |= 0xe0;
		v[2] = T_W(k) << 7 | vvvv | T_L(k) << 2 | T_PP(k);
		break;
	}
	return true;
}

/* Some setting of v's fields makes Zydis give s, k bytes shorter. */
static bool vex_settings(const uint8_t *v, size_t vn, const struct verdict *s,
			 int k)
{
	unsigned int t;

	for (t = 0; t < T_END; t++) {
		struct verdict z2;
		struct fix f;

		fix_init(&f, v, vn);
		if (!vex_setting(f.b, t))
			continue;
		z2 = zydis_decode(f.b, f.n);
		if (same_but(s, &z2, k))
			return true;
	}
	return false;
}

/*
 * vex_settings with ModRM.reg as it is or 0-7 (an opcode extension
 * without an instruction: decode.c's length is the group's), and with the
 * ModRM operand as it is or replaced by one the opcode may have instead:
 * a register (ModRM c1) or memory with a SIB (04 20 or 04 28: (%rax,%riz)
 * or (%rax,%rbp), a VSIB's (%rax,%xmm4) or (%rax,%xmm5)), x86scan's
 * length changed by the bytes the operand had less those it has now.
 */
static bool vex_search(const uint8_t *v, size_t vn, const struct verdict *s,
		       int k)
{
	static const uint8_t op[4][2] = { { 0 }, { 0xc1 }, { 0x04, 0x20 },
					  { 0x04, 0x28 } };
	size_t m = vex_len(v, vn) + 1, i;
	int olen, reg;

	if (m >= vn)
		return vex_settings(v, vn, s, k);
	olen = s->st == ST_INSN ? operand_len(v + m, vn - m) : 0;
	if (m + olen > vn)
		olen = 0;
	for (i = 0; i < (olen ? 4u : 1u); i++) {
		int w = i == 0 ? olen : i == 1 ? 1 : 2;
		struct fix f;

		if (i)
			fix_splice(&f, v, vn, m, olen, op[i], w);
		else
			fix_init(&f, v, vn);
		for (reg = -1; reg < 8; reg++) {
			f.b[m] = (f.b[m] & ~0x38) |
				 (reg < 0 ? v[m] & 0x38 : reg << 3);
			if (vex_settings(f.b, f.n, s, k + olen - w))
				return true;
		}
	}
	return false;
}

/* The map of the VEX/EVEX/XOP instruction at v (vex_len(v) > 0). */
static unsigned int vex_map(const uint8_t *v)
{
	if (v[0] == 0xc5)
		return 1;
	return v[1] & (v[0] == 0x62 ? 0x07 : 0x1f);
}

/*
 * Map 0f38 (2) opcodes of extensions newer than Zydis 4.0.0 (2022) that
 * objdump 2.40 decodes: AVX-VNNI-INT8 (50, 51 without 66), AVX-IFMA
 * (b4, b5), AVX-NE-CONVERT (72, b0, b1), AMX-FP16 (5c), CMPccXADD
 * (e0-ef). objdump also takes 50 and 51 with EVEX.
 */
static bool newer_than_zydis(const uint8_t *v)
{
	unsigned int pp = v[2] & 3;	/* VEX3, EVEX: the same place */
	uint8_t op = v[vex_len(v, 4)];

	if (v[0] == 0xc5 || v[0] == 0x8f || vex_map(v) != 2)
		return false;
	if ((op | 1) == 0x51)
		return pp != 1;
	return v[0] == 0xc4 && (op == 0x72 || (op | 1) == 0xb1 ||
				(op | 1) == 0xb5 || op == 0x5c ||
				(op & 0xf0) == 0xe0);
}

/*
 * VEX, EVEX and XOP fields objdump ignores where Zydis checks them: vvvv
 * or V' where the instruction has no such operand, L, W or pp values an
 * opcode has no form for, R' on a mask register, EVEX's reserved bits or
 * mask, and a REX or legacy prefix before the VEX byte (#UD on the CPU).
 * decode.c decodes such an opcode at its full length in all its forms,
 * also with a ModRM it has no form for (an opcode extension without an
 * instruction, register-only mask operations with memory, VSIB without
 * a SIB; objdump stops after the opcode there, a simplification for
 * bytes no compiler emits). Some setting of those fields, with another
 * ModRM if need be, must be an instruction of x86scan's length to Zydis.
 */
static bool ex_vex(const uint8_t *b, size_t n, const struct verdict *s,
		   const struct verdict *z)
{
	size_t at = 0;

	if (z->st != ST_BAD || s->st == ST_BAD || s->find != X86_F_NONE)
		return false;
	while (at < n && (is_legacy_prefix(b[at]) || is_rex(b[at])))
		at++;
	if (!vex_len(b + at, n - at))
		return false;
	n = n - at < 32 ? n - at : 32;
	return vex_search(b + at, n, s, at);
}

/*
 * The opcodes of newer_than_zydis(): map 0f38 has no immediates, so
 * x86scan's length must be that of any 0f38 instruction with the same
 * prefix and operand: vpshufb's (00), by the rules of ex_vex.
 */
static bool ex_newer(const uint8_t *b, size_t n, const struct verdict *s,
		     const struct verdict *z)
{
	size_t at = 0;
	struct fix f;

	if (z->st != ST_BAD || s->st == ST_BAD || s->find != X86_F_NONE)
		return false;
	while (at < n && (is_legacy_prefix(b[at]) || is_rex(b[at])))
		at++;
	if (n - at < 5 || !vex_len(b + at, n - at) ||
	    !newer_than_zydis(b + at))
		return false;
	fix_init(&f, b + at, n - at);
	f.b[vex_len(f.b, f.n)] = 0x00;
	return vex_search(f.b, f.n, s, at);
}

/*
 * Knights Corner's instructions (MVEX, the KNC VEX mask operations):
 * Zydis decodes them in 64-bit mode, objdump has no entry for them. No
 * x86-64 CPU this module loads on runs them.
 */
static bool ex_knc(const uint8_t *b, size_t n, const struct verdict *s,
		   const struct verdict *z)
{
	(void)b;
	(void)n;
	return s->st == ST_BAD && z->st == ST_INSN &&
	       (z->enc == ZYDIS_INSTRUCTION_ENCODING_MVEX ||
		z->isa == ZYDIS_ISA_EXT_KNC || z->isa == ZYDIS_ISA_EXT_KNCE ||
		z->isa == ZYDIS_ISA_EXT_KNCV);
}

/* ---- the end of the buffer --------------------------------------------- */

/*
 * The last bytes of a buffer, cut inside an instruction for one decoder
 * and no instruction for the other: each decides on another byte
 * (x86scan, as objdump, on an opcode or VEX prefix alone where Zydis
 * wants the rest first, or on the ModRM where Zydis needs only the
 * opcode). With zeros after them both must decide, and agree.
 */
static bool ex_end(const uint8_t *b, size_t n, const struct verdict *s,
		   const struct verdict *z)
{
	struct verdict s2, z2;
	struct fix f;

	if (s->st == ST_INSN || z->st == ST_INSN ||
	    (s->st == ST_TRUNC) == (z->st == ST_TRUNC))
		return false;
	/*
	 * From 15 bytes on only x86scan may want more: as objdump, it fetches
	 * up to 20 bytes to tell an over-long instruction ("(bad)", 15 bytes)
	 * from one past the fetch limit (a lone first byte), where Zydis
	 * says "too long" at 15.
	 */
	if (n >= 15 && (s->st != ST_TRUNC || n >= 20))
		return false;
	memset(f.b, 0, sizeof(f.b));
	memcpy(f.b, b, n);
	f.n = 24;
	s2 = scan_decode(f.b, f.n);
	z2 = zydis_decode(f.b, f.n);
	return s2.st != ST_TRUNC && z2.st != ST_TRUNC &&
	       agree(f.b, f.n, &s2, &z2);
}

/* ---- the table -------------------------------------------------------- */

/* In the order tried: the first that matches is counted. */
struct exception exceptions[] = {
	{ .why = "REX then a prefix: objdump's lone prefixes",
	  .match = ex_rex_prefix },
	{ .why = "14 prefixes: objdump shows them alone",
	  .match = ex_many_prefixes },
	{ .why = "fwait and x87: one instruction to objdump",
	  .match = ex_fwait },
	{ .why = "lock mov cr0: AMD's mov cr8", .match = ex_lock_cr8 },
	{ .why = "lock on an instruction without a locked form",
	  .match = ex_lock },
	{ .why = "66/f2/f3 objdump ignores, Zydis rejects",
	  .match = ex_prefix_ignored },
	{ .why = "66/f2/f3 Zydis ignores, objdump rejects",
	  .match = ex_prefix_zydis },
	{ .why = "vmgexit: vmmcall to Zydis", .match = ex_vmgexit },
	{ .why = "reserved x87 encoding", .match = ex_x87 },
	{ .why = "no such segment, control, debug or bound register",
	  .match = ex_bad_reg },
	{ .why = "fence with ModRM.rm not 0", .match = ex_fence },
	{ .why = "extrq with ModRM.reg not 0 or memory", .match = ex_extrq },
	{ .why = "0f 0d with a register: (bad) or nop",
	  .match = ex_prefetch_reg },
	{ .why = "PadLock without f3", .match = ex_padlock },
	{ .why = "RAO-INT, newer than Zydis", .match = ex_rao },
	{ .why = "MSRLIST, WRMSRNS, newer than Zydis", .match = ex_msrlist },
	{ .why = "hreset with ModRM.rm not 0: x86scan's (to be fixed)",
	  .match = ex_hreset },
	{ .why = "VEX/EVEX/XOP field objdump ignores", .match = ex_vex },
	{ .why = "VEX 0f38 opcode newer than Zydis", .match = ex_newer },
	{ .why = "Knights Corner instruction (Zydis only)", .match = ex_knc },
	{ .why = "buffer ends: one decoder wants more bytes",
	  .match = ex_end },
};

const size_t n_exceptions = sizeof(exceptions) / sizeof(exceptions[0]);

struct exception *excepted(const uint8_t *b, size_t n,
			   const struct verdict *s, const struct verdict *z)
{
	size_t i;

	for (i = 0; i < n_exceptions; i++)
		if (exceptions[i].match(b, n, s, z))
			return &exceptions[i];
	return NULL;
}

bool agree(const uint8_t *b, size_t n, const struct verdict *s,
	   const struct verdict *z)
{
	return same(s, z) || excepted(b, n, s, z);
}
