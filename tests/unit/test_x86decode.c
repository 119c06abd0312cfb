// SPDX-License-Identifier: GPL-2.0
/*
 * Decoder and finder cases. Every expectation below was checked against
 * objdump 2.40 (tests/objdump/objdump-oracle.py): "len" is where objdump
 * starts the next instruction, also for "(bad)" (ret X86_INVALID).
 */
#include "test_x86util.h"

#define OK	1	/* valid instruction */
#define BAD	0	/* X86_INVALID, len = objdump's resync distance */

struct dcase {
	const char *hex;
	int ok;
	int len;
	enum x86_find find;
};

static const struct dcase finder[] = {
	/* VMX */
	{ "f3 0f c7 30", OK, 4, X86_F_VMXON },
	{ "0f 01 c4", OK, 3, X86_F_VMXOFF },
	{ "0f 01 c2", OK, 3, X86_F_VMLAUNCH },
	{ "0f 01 c3", OK, 3, X86_F_VMRESUME },
	{ "0f c7 30", OK, 3, X86_F_VMPTRLD },
	{ "0f c7 38", OK, 3, X86_F_VMPTRST },
	{ "66 0f c7 30", OK, 4, X86_F_VMCLEAR },
	{ "0f 78 c0", OK, 3, X86_F_VMREAD },
	{ "0f 79 00", OK, 3, X86_F_VMWRITE },
	{ "0f 01 c1", OK, 3, X86_F_VMCALL },
	{ "0f 01 d4", OK, 3, X86_F_VMFUNC },
	{ "66 0f 38 80 00", OK, 5, X86_F_INVEPT },
	{ "66 0f 38 81 00", OK, 5, X86_F_INVVPID },
	/* SVM */
	{ "0f 01 d8", OK, 3, X86_F_VMRUN },
	{ "0f 01 d9", OK, 3, X86_F_VMMCALL },
	{ "0f 01 da", OK, 3, X86_F_VMLOAD },
	{ "0f 01 db", OK, 3, X86_F_VMSAVE },
	{ "0f 01 dc", OK, 3, X86_F_STGI },
	{ "0f 01 dd", OK, 3, X86_F_CLGI },
	{ "0f 01 de", OK, 3, X86_F_SKINIT },
	{ "0f 01 df", OK, 3, X86_F_INVLPGA },
	/* MOV to CR/DR */
	{ "0f 22 c0", OK, 3, X86_F_MOV_CR0 },
	{ "0f 22 d0", OK, 3, X86_F_MOV_CR2 },
	{ "0f 22 d8", OK, 3, X86_F_MOV_CR3 },
	{ "0f 22 e0", OK, 3, X86_F_MOV_CR4 },
	{ "44 0f 22 c0", OK, 4, X86_F_MOV_CR8 },
	{ "f0 0f 22 c0", OK, 4, X86_F_MOV_CR8 },	/* AMD alt. CR8 */
	{ "0f 23 c0", OK, 3, X86_F_MOV_DR0 },
	{ "0f 23 c8", OK, 3, X86_F_MOV_DR1 },
	{ "0f 23 d0", OK, 3, X86_F_MOV_DR2 },
	{ "0f 23 d8", OK, 3, X86_F_MOV_DR3 },
	{ "0f 23 e0", OK, 3, X86_F_MOV_DR4 },
	{ "0f 23 e8", OK, 3, X86_F_MOV_DR5 },
	{ "0f 23 f0", OK, 3, X86_F_MOV_DR6 },
	{ "0f 23 f8", OK, 3, X86_F_MOV_DR7 },
	/* finder instructions with prefixes objdump ignores */
	{ "66 0f 01 c4", OK, 4, X86_F_VMXOFF },
	{ "f3 0f 01 d8", OK, 4, X86_F_VMRUN },
	{ "66 f3 0f c7 30", OK, 5, X86_F_VMXON },	/* f3 beats 66 */
	{ "f3 66 0f c7 30", OK, 5, X86_F_VMXON },
	{ "66 0f c7 38", OK, 4, X86_F_VMPTRST },
	{ "2e 0f 01 c2", OK, 4, X86_F_VMLAUNCH },
	{ "48 0f 78 c0", OK, 4, X86_F_VMREAD },
	{ "41 0f c7 36", OK, 4, X86_F_VMPTRLD },
	{ "0f 22 40", OK, 3, X86_F_MOV_CR0 },	/* mod ignored: no disp */
	{ "66 0f 22 d8", OK, 4, X86_F_MOV_CR3 },
	{ "0f 23 7f", OK, 3, X86_F_MOV_DR7 },
};

static const struct dcase lookalike[] = {
	{ "66 0f 78 c0 01 02", OK, 6, X86_F_NONE },	/* extrq */
	{ "f2 0f 78 c1 01 02", OK, 6, X86_F_NONE },	/* insertq */
	{ "66 0f 79 c1", OK, 4, X86_F_NONE },		/* extrq */
	{ "f2 0f 79 c1", OK, 4, X86_F_NONE },		/* insertq */
	{ "0f c7 f0", OK, 3, X86_F_NONE },		/* rdrand */
	{ "0f c7 f8", OK, 3, X86_F_NONE },		/* rdseed */
	{ "f3 0f c7 f8", OK, 4, X86_F_NONE },		/* rdpid */
	{ "f3 0f c7 f0", OK, 4, X86_F_NONE },		/* senduipi */
	{ "66 0f c7 f0", OK, 4, X86_F_NONE },		/* rdrand %ax */
	{ "0f c7 08", OK, 3, X86_F_NONE },		/* cmpxchg8b */
	{ "0f 20 c0", OK, 3, X86_F_NONE },		/* mov %cr0,%rax */
	{ "0f 20 e0", OK, 3, X86_F_NONE },		/* mov %cr4,%rax */
	{ "44 0f 20 c0", OK, 4, X86_F_NONE },		/* mov %cr8,%rax */
	{ "0f 21 f8", OK, 3, X86_F_NONE },		/* mov %db7,%rax */
	{ "44 0f 23 c0", OK, 4, X86_F_NONE },		/* %db8: #UD */
	{ "0f 22 c8", OK, 3, X86_F_NONE },		/* %cr1: #UD */
	{ "f3 0f 01 d9", OK, 4, X86_F_NONE },		/* vmgexit */
	{ "f2 0f 01 d9", OK, 4, X86_F_NONE },		/* vmgexit */
	{ "0f 01 d0", OK, 3, X86_F_NONE },		/* xgetbv */
	{ "0f 01 c5", OK, 3, X86_F_NONE },		/* pconfig */
	{ "0f 01 00", OK, 3, X86_F_NONE },		/* sgdt (%rax) */
	{ "66 0f 01 d9", BAD, 3, X86_F_NONE },
	{ "66 0f 38 80 c0", BAD, 2, X86_F_NONE },	/* invept reg: BadOp */
	{ "66 0f 38 81 c0", BAD, 2, X86_F_NONE },
	{ "f2 0f c7 30", BAD, 3, X86_F_NONE },
	{ "f3 0f 78 c0", BAD, 3, X86_F_NONE },
	{ "0f 38 80 00", BAD, 3, X86_F_NONE },		/* invept needs 66 */
	{ "c4 e1 f9 7e c0", OK, 5, X86_F_NONE },	/* VEX vmovq, no VMX */
};

static const struct dcase lengths[] = {
	/* immediates by operand size */
	{ "48 b8 01 02 03 04 05 06 07 08", OK, 10, X86_F_NONE },
	{ "66 b8 01 02", OK, 4, X86_F_NONE },
	{ "b8 01 02 03 04", OK, 5, X86_F_NONE },
	{ "66 48 b8 01 02 03 04 05 06 07 08", OK, 11, X86_F_NONE },
	{ "a0 01 02 03 04 05 06 07 08", OK, 9, X86_F_NONE },	/* moffs64 */
	{ "67 a0 01 02 03 04", OK, 6, X86_F_NONE },			/* moffs32 */
	{ "67 48 a1 01 02 03 04", OK, 7, X86_F_NONE },
	{ "c8 01 02 03", OK, 4, X86_F_NONE },			/* enter */
	{ "66 c8 01 02 03", OK, 5, X86_F_NONE },
	{ "66 c2 01 02", OK, 4, X86_F_NONE },
	{ "66 68 01 02", OK, 4, X86_F_NONE },
	{ "48 68 01 02 03 04", OK, 6, X86_F_NONE },
	{ "e8 01 02 03 04", OK, 5, X86_F_NONE },
	{ "66 e8 01 02", OK, 4, X86_F_NONE },			/* AMD64 rel16 */
	{ "66 48 e8 01 02 03 04", OK, 7, X86_F_NONE },
	{ "66 0f 84 01 02", OK, 5, X86_F_NONE },
	{ "0f 84 01 02 03 04", OK, 6, X86_F_NONE },
	{ "f6 00 01", OK, 3, X86_F_NONE },				/* test imm8 */
	{ "f6 08 01", OK, 3, X86_F_NONE },				/* test alias */
	{ "f6 10", OK, 2, X86_F_NONE },				/* not */
	{ "f7 00 01 02 03 04", OK, 6, X86_F_NONE },
	{ "66 f7 00 01 02", OK, 5, X86_F_NONE },
	{ "48 f7 c0 01 02 03 04", OK, 7, X86_F_NONE },
	{ "c7 f8 01 02 03 04", OK, 6, X86_F_NONE },			/* xbegin */
	{ "66 c7 f8 01 02", OK, 5, X86_F_NONE },
	{ "c6 f8 01", OK, 3, X86_F_NONE },				/* xabort */
	{ "c7 f9", BAD, 1, X86_F_NONE },
	/* ModRM / SIB / displacement */
	{ "8b 04 24", OK, 3, X86_F_NONE },
	{ "8b 04 25 01 02 03 04", OK, 7, X86_F_NONE },
	{ "8b 05 01 02 03 04", OK, 6, X86_F_NONE },			/* rip-relative */
	{ "8b 44 24 08", OK, 4, X86_F_NONE },
	{ "8b 84 24 01 02 03 04", OK, 7, X86_F_NONE },
	{ "8b 80 01 02 03 04", OK, 6, X86_F_NONE },
	{ "67 8b 05 01 02 03 04", OK, 7, X86_F_NONE },
	{ "0f 1f 44 00 00", OK, 5, X86_F_NONE },
	{ "66 0f 1f 84 00 00 00 00 00", OK, 9, X86_F_NONE },
	{ "66 2e 0f 1f 84 00 00 00 00 00", OK, 10, X86_F_NONE },
	/* 3DNow!: ModRM, displacement, then the opcode suffix */
	{ "0f 0f c0 9e", OK, 4, X86_F_NONE },
	{ "0f 0f 40 01 9e", OK, 5, X86_F_NONE },
	{ "0f 0f c0 ff", BAD, 1, X86_F_NONE },
	{ "f3 0f 0f 00 ff", BAD, 2, X86_F_NONE },
	/* VEX */
	{ "c5 f8 77", OK, 3, X86_F_NONE },
	{ "c5 fc 10 00", OK, 4, X86_F_NONE },
	{ "c5 f9 70 c0 01", OK, 5, X86_F_NONE },
	{ "c4 e3 79 14 c0 01", OK, 6, X86_F_NONE },
	{ "c4 e2 79 18 00", OK, 5, X86_F_NONE },
	{ "c4 e2 79 18 44 24 08", OK, 7, X86_F_NONE },
	{ "66 c5 f8 77", OK, 4, X86_F_NONE },
	{ "c4 e0 79 18 00", BAD, 1, X86_F_NONE },			/* map 0 */
	{ "c4 e4 79 18 00", BAD, 1, X86_F_NONE },			/* map 4 */
	/* EVEX */
	{ "62 f1 7c 48 10 00", OK, 6, X86_F_NONE },
	{ "62 f1 7c 48 10 40 01", OK, 7, X86_F_NONE },
	{ "62 f1 7c 48 10 80 01 02 03 04", OK, 10, X86_F_NONE },
	{ "62 f3 fd 48 00 c0 01", OK, 7, X86_F_NONE },
	{ "62 f4 7c 48 10 00", BAD, 1, X86_F_NONE },		/* map 4 */
	{ "62 f1 78 48 10 00", BAD, 2, X86_F_NONE },		/* P1 bit 2 clear */
	/* XOP */
	{ "8f e9 78 81 c0", OK, 5, X86_F_NONE },
	{ "8f ea 78 10 c0 01 02 03 04", OK, 9, X86_F_NONE },
	{ "8f e8 78 c0 c0 01", OK, 6, X86_F_NONE },
	{ "8f eb 78 10 c0", BAD, 1, X86_F_NONE },			/* map 11 */
	{ "8f 00", OK, 2, X86_F_NONE },				/* pop (%rax) */
	{ "41 8f 00", OK, 3, X86_F_NONE },
	/* prefixes */
	{ "f3 90", OK, 2, X86_F_NONE },
	{ "f3 0f 1e fa", OK, 4, X86_F_NONE },
	{ "f2 f3 0f b8 c0", OK, 5, X86_F_NONE },			/* f3 last: popcnt */
	{ "f3 f2 0f b8 c0", BAD, 4, X86_F_NONE },			/* f2 last: none */
	{ "48 66 90", BAD, 1, X86_F_NONE },				/* REX then prefix */
	{ "66 48 66 90", BAD, 2, X86_F_NONE },
	{ "48 49 90", BAD, 1, X86_F_NONE },
	{ "9b 90", OK, 1, X86_F_NONE },				/* lone fwait */
	{ "9b d9 c0", OK, 3, X86_F_NONE },				/* fwait + x87 */
	{ "66 9b d9 c0", OK, 4, X86_F_NONE },
	{ "9b 66 90", OK, 1, X86_F_NONE },
	{ "66 9b 90", OK, 2, X86_F_NONE },
	{ "48 9b 90", BAD, 1, X86_F_NONE },
	{ "66 66 66 66 66 66 66 66 66 66 66 66 66 90", OK, 14, X86_F_NONE },
	{ "66 66 66 66 66 66 66 66 66 66 66 66 66 66 90", BAD, 14, X86_F_NONE },
	{ "66 66 66 66 66 66 66 66 66 66 66 66 66 48 90", BAD, 14, X86_F_NONE },
	/* too long: (bad) 15, or 1 when objdump's 20-byte fetch overflows */
	{ "66 66 66 66 66 66 66 66 66 66 66 66 48 81 c0 01 02 03 04", BAD, 15, X86_F_NONE },
	{ "66 66 66 66 66 66 66 66 66 66 48 b8 01 02 03 04 05 06 07 08", BAD, 15, X86_F_NONE },
	{ "66 66 66 66 66 66 66 66 66 66 66 48 b8 01 02 03 04 05 06 07 08", BAD, 1, X86_F_NONE },
	{ "66 66 66 66 2e 48 81 84 24 11 22 33 44 55 66 77 88", BAD, 15, X86_F_NONE },
	/* bad opcodes */
	{ "0f 04", BAD, 2, X86_F_NONE },
	{ "66 06", BAD, 2, X86_F_NONE },
	{ "fe d0", BAD, 1, X86_F_NONE },
	{ "ff d8", BAD, 1, X86_F_NONE },				/* lcall needs memory */
	{ "ff f8", BAD, 1, X86_F_NONE },
	{ "0f 38 f1 f8", BAD, 1, X86_F_NONE },			/* movbe reg: BadOp */
	{ "0f c5 00", BAD, 2, X86_F_NONE },				/* pextrw mem + imm */
	{ "66 0f 78 00", BAD, 4, X86_F_NONE },			/* extrq mem */
	{ "d9 d8", OK, 2, X86_F_NONE },				/* x87 "(bad)" eats ModRM */
	{ "0f 0b", OK, 2, X86_F_NONE },
	{ "0f 05", OK, 2, X86_F_NONE },
	{ "cc", OK, 1, X86_F_NONE },
	{ "c3", OK, 1, X86_F_NONE },
};

/* One-byte opcodes that do not exist in 64-bit mode. */
static const uint8_t inval64[] = {
	0x06, 0x07, 0x0e, 0x16, 0x17, 0x1e, 0x1f, 0x27, 0x2f, 0x37, 0x3f,
	0x60, 0x61, 0x82, 0x9a, 0xce, 0xd4, 0xd5, 0xd6, 0xea,
};

static void check(const struct dcase *c, bool find)
{
	size_t n, k;
	uint8_t *b = hexbuf(c->hex, &n);
	struct x86_insn in;
	int r = x86_decode(b, n, &in);

	if (c->ok) {
		if (r != c->len)
			fail_msg("%s: got %d, want %d", c->hex, r, c->len);
		assert_int_equal(in.len, c->len);
	} else {
		if (r != X86_INVALID || in.len != c->len)
			fail_msg("%s: got %d/len %d, want invalid/%d",
				 c->hex, r, in.len, c->len);
	}
	if (find && in.find != c->find)
		fail_msg("%s: found %s, want %s", c->hex,
			 x86_find_name(in.find), x86_find_name(c->find));
	if (find && c->find != X86_F_NONE)
		assert_string_equal(x86_find_name(in.find), x86_find_name(c->find));
	/* every strict prefix of a valid instruction is truncated */
	for (k = 0; c->ok && k < (size_t)c->len; k++) {
		uint8_t *t = exact(b, k);

		if (x86_decode(t, k, &in) != X86_TRUNCATED)
			fail_msg("%s: cut at %zu not truncated", c->hex, k);
		free(t);
	}
	free(b);
}

static void test_finder(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(finder) / sizeof(finder[0]); i++)
		check(&finder[i], true);
}

static void test_lookalike(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(lookalike) / sizeof(lookalike[0]); i++)
		check(&lookalike[i], true);
}

static void test_lengths(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++)
		check(&lengths[i], false);
}

static void test_invalid64(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(inval64); i++) {
		uint8_t *b = exact((const uint8_t[]){ inval64[i], 0x90 }, 2);
		struct x86_insn in;

		assert_int_equal(x86_decode(b, 2, &in), X86_INVALID);
		assert_int_equal(in.len, 1);
		free(b);
	}
}

/* Every finder instruction's name and class. */
static void test_names(void **state)
{
	int f;

	(void)state;
	for (f = 0; f < X86_F_COUNT; f++) {
		const char *n = x86_find_name(f);

		assert_non_null(n);
		assert_true(strlen(n) > 3);
		if (f <= X86_F_INVVPID)
			assert_int_equal(x86_find_class(f), X86_C_VMX);
		else if (f <= X86_F_INVLPGA)
			assert_int_equal(x86_find_class(f), X86_C_SVM);
		else if (f <= X86_F_MOV_CR8)
			assert_int_equal(x86_find_class(f), X86_C_CR);
		else
			assert_int_equal(x86_find_class(f), X86_C_DR);
	}
	assert_string_equal(x86_find_name(X86_F_VMXON), "vmxon");
	assert_string_equal(x86_find_name(X86_F_MOV_CR8), "mov-cr8");
	assert_string_equal(x86_find_name(X86_F_MOV_DR7), "mov-dr7");
	assert_int_equal(x86_find_class(X86_F_NONE), X86_C_NONE);
	assert_int_equal(x86_find_class(X86_F_COUNT), X86_C_NONE);
}

/* No byte string of up to 3 bytes (plus nops) breaks the length rules. */
static void test_exhaustive_short(void **state)
{
	uint32_t v;

	(void)state;
	for (v = 0; v < (1u << 24); v += 7) {
		uint8_t raw[18] = { v >> 16, v >> 8, v };
		struct x86_insn in;
		uint8_t *b;
		int r;

		memset(raw + 3, 0x90, 15);
		b = exact(raw, sizeof(raw));
		r = x86_decode(b, sizeof(raw), &in);
		if (r > 0)
			assert_true(r <= 15 && in.len == r);
		else if (r == X86_INVALID)
			assert_true(in.len >= 1 && in.len <= 15);
		else
			fail_msg("%06x: truncated with 15 nops after", v);
		free(b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_finder),
		cmocka_unit_test(test_lookalike),
		cmocka_unit_test(test_lengths),
		cmocka_unit_test(test_invalid64),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_exhaustive_short),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
