// SPDX-License-Identifier: GPL-2.0
/* x86scan_run: accounting, callbacks, chunking, resync, truncation. */
#include "test_x86util.h"

/*
 * nop; vmxon (%rax); 06 (bad); mov %rax,%cr4; rdrand %eax (no hit);
 * vmlaunch; extrq (no hit); mov %rax,%db7; vmlaunch; then a cut-off
 * mov $imm32,%eax at the very end.
 */
static const char *const prog =
	"90 f3 0f c7 30 06 0f 22 e0 0f c7 f0 0f 01 c2 "
	"66 0f 78 c0 01 02 0f 23 f8 0f 01 c2 b8 01 02";

struct hits {
	int n;
	enum x86_find f[16];
	size_t off[16];
	int stop_after;
};

static int record(void *ctx, enum x86_find f, size_t off)
{
	struct hits *h = ctx;

	h->f[h->n] = f;
	h->off[h->n] = off;
	h->n++;
	return h->stop_after && h->n >= h->stop_after;
}

static void test_run_all(void **state)
{
	size_t n;
	uint8_t *b = hexbuf(prog, &n);
	struct x86scan s;
	struct hits h = { 0 };

	(void)state;
	x86scan_init(&s, b, n);
	assert_false(x86scan_run(&s, 0, record, &h));
	assert_int_equal(s.pos, n);
	assert_false(s.stopped);
	assert_int_equal(h.n, 5);
	assert_int_equal(h.f[0], X86_F_VMXON);
	assert_int_equal(h.off[0], 1);
	assert_int_equal(h.f[1], X86_F_MOV_CR4);
	assert_int_equal(h.off[1], 6);
	assert_int_equal(h.f[2], X86_F_VMLAUNCH);
	assert_int_equal(h.off[2], 12);
	assert_int_equal(h.f[3], X86_F_MOV_DR7);
	assert_int_equal(h.f[4], X86_F_VMLAUNCH);
	assert_int_equal(s.st.count[X86_F_VMLAUNCH], 2);
	assert_int_equal(s.st.first[X86_F_VMLAUNCH], 12);
	assert_int_equal(s.st.count[X86_F_VMREAD], 0);
	assert_int_equal(s.st.invalid, 1);
	/* b8 01 02: truncated, objdump shows 3 x ".byte"/short insns */
	assert_int_equal(s.st.truncated, 1);
	assert_true(s.st.insns >= 8);
	free(b);
}

/* Running in chunks of k instructions gives the same result. */
static void test_run_chunks(void **state)
{
	size_t n, k;
	uint8_t *b = hexbuf(prog, &n);

	(void)state;
	for (k = 1; k < 5; k++) {
		struct x86scan s, ref;
		struct hits h = { 0 }, hr = { 0 };
		int guard = 0;

		x86scan_init(&ref, b, n);
		x86scan_run(&ref, 0, record, &hr);
		x86scan_init(&s, b, n);
		while (x86scan_run(&s, k, record, &h))
			assert_true(++guard < 100);
		assert_int_equal(s.pos, n);
		assert_memory_equal(&s.st, &ref.st, sizeof(s.st));
		assert_int_equal(h.n, hr.n);
	}
	free(b);
}

static void test_stop(void **state)
{
	size_t n;
	uint8_t *b = hexbuf(prog, &n);
	struct x86scan s;
	struct hits h = { .stop_after = 2 };

	(void)state;
	x86scan_init(&s, b, n);
	assert_false(x86scan_run(&s, 0, record, &h));
	assert_true(s.stopped);
	assert_int_equal(h.n, 2);
	assert_int_equal(s.pos, 9);	/* just after the mov to cr4 */
	/* a stopped scan stays stopped */
	assert_false(x86scan_run(&s, 0, record, &h));
	assert_int_equal(h.n, 2);
	free(b);
}

static void test_no_cb_and_empty(void **state)
{
	size_t n;
	uint8_t *b = hexbuf(prog, &n);
	struct x86scan s;

	(void)state;
	x86scan_init(&s, b, n);
	assert_false(x86scan_run(&s, 0, NULL, NULL));
	assert_int_equal(s.st.count[X86_F_VMXON], 1);
	x86scan_init(&s, b, 0);
	assert_false(x86scan_run(&s, 0, NULL, NULL));
	assert_int_equal(s.st.insns, 0);
	free(b);
}

/* A finder instruction hidden inside another one's immediate: no hit. */
static void test_no_hit_in_immediate(void **state)
{
	size_t n;
	/* mov $0xc2010f,%eax ; movabs $0x30c70ff3...,%rax */
	uint8_t *b = hexbuf("b8 0f 01 c2 00 48 b8 f3 0f c7 30 0f 22 e0 00", &n);
	struct x86scan s;

	(void)state;
	x86scan_init(&s, b, n);
	x86scan_run(&s, 0, NULL, NULL);
	assert_int_equal(s.st.insns, 2);
	assert_int_equal(s.st.count[X86_F_VMLAUNCH], 0);
	assert_int_equal(s.st.count[X86_F_VMXON], 0);
	assert_int_equal(s.st.count[X86_F_MOV_CR4], 0);
	free(b);
}

/* Long invalid stretches resync like objdump: prefix junk, bad VEX. */
static void test_resync(void **state)
{
	size_t n;
	uint8_t *b = hexbuf("48 66 90 c4 90 0f 01 c3 62 90 0f 01 d8", &n);
	struct x86scan s;

	(void)state;
	x86scan_init(&s, b, n);
	x86scan_run(&s, 0, NULL, NULL);
	assert_int_equal(s.pos, n);
	assert_int_equal(s.st.invalid, 3);	/* 48, c4, 62 */
	assert_int_equal(s.st.count[X86_F_VMRESUME], 1);
	assert_int_equal(s.st.first[X86_F_VMRESUME], 5);
	assert_int_equal(s.st.count[X86_F_VMRUN], 1);
	free(b);
}

/*
 * Direct calls and jumps to a target range, the code at base 0x1000:
 * call at 0 -> 0x1000 + 5 + 0x10 = 0x1015; jmp at 5 -> 0x100a - 10 =
 * 0x1000; jne rel32 at 10 -> 0x1010 + 5 = 0x1015; call at 16 -> its next
 * instruction, 0x1015; a call cut off at 21.
 */
static void test_rel32_to(void **state)
{
	size_t n;
	uint8_t *b = hexbuf("e8 10 00 00 00 e9 f6 ff ff ff 0f 85 05 00 00 00 "
			    "e8 00 00 00 00 e8 05 00", &n);

	(void)state;
	assert_int_equal(x86_rel32_to(b, n, 0x1000, 0x1015, 0x1015), 3);
	assert_int_equal(x86_rel32_to(b, n, 0x1000, 0x1000, 0x1000), 1);
	assert_int_equal(x86_rel32_to(b, n, 0x1000, 0x1000, 0x1015), 4);
	assert_int_equal(x86_rel32_to(b, n, 0x1000, 0x1016, 0x2000), 0);
	assert_int_equal(x86_rel32_to(b, n, 0x2000, 0x1015, 0x1015), 0);
	/* the cut-off call is never read past the buffer, nor counted */
	assert_int_equal(x86_rel32_to(b, n, 0x1000, 0, ~0ull), 4);
	assert_int_equal(x86_rel32_to(b, 15, 0x1000, 0, ~0ull), 2);
	assert_int_equal(x86_rel32_to(b, 4, 0x1000, 0, ~0ull), 0);
	/* backwards across zero: base near the top of the address space */
	free(b);
	b = hexbuf("e8 fb ff ff ff", &n);
	assert_int_equal(x86_rel32_to(b, n, 0xffffffffa0000000ull,
				      0xffffffffa0000000ull,
				      0xffffffffa0000000ull), 1);
	free(b);
}

/* Every offset, the obvious way: the reference for x86_rel32_to. */
static size_t rel32_ref(const uint8_t *b, size_t len, uint64_t base,
			uint64_t lo, uint64_t hi)
{
	size_t i, at, n = 0;

	for (i = 0; i + 5 <= len; i++) {
		uint64_t t;
		int32_t d;

		if (b[i] == 0xe8 || b[i] == 0xe9)
			at = i + 1;
		else if (b[i] == 0x0f && i + 6 <= len && (b[i + 1] & 0xf0) == 0x80)
			at = i + 2;
		else
			continue;
		d = (int32_t)((uint32_t)b[at] | (uint32_t)b[at + 1] << 8 |
			      (uint32_t)b[at + 2] << 16 | (uint32_t)b[at + 3] << 24);
		t = base + at + 4 + (uint64_t)(int64_t)d;
		n += t >= lo && t <= hi;
	}
	return n;
}

/* Random text with planted calls, jumps and Jccs: same count as the reference. */
static void test_rel32_random(void **state)
{
	const uint64_t base = 0xffffffffc0a00000ull, tgt = 0xffffffff81234560ull;
	size_t len, i, r, total = 0;
	uint8_t *b;

	(void)state;
	srand(12);
	for (r = 0; r < 200; r++) {
		len = 1 + (size_t)rand() % 5000;
		b = malloc(len);
		for (i = 0; i < len; i++)
			b[i] = (uint8_t)(rand() % 7 ? rand() : 0xe8 + rand() % 2);
		for (i = 0; i + 6 <= len; i += 1 + (size_t)rand() % 300) {
			int jcc = rand() % 3 == 0;
			size_t at = i + 1 + jcc;
			uint64_t t = tgt + (uint64_t)(rand() % 24) - 12;
			uint32_t d = (uint32_t)(t - (base + at + 4));

			b[i] = jcc ? 0x0f : 0xe8 + rand() % 2;
			if (jcc)
				b[i + 1] = 0x80 + rand() % 16;
			memcpy(b + at, &d, 4);	/* little-endian host */
		}
		assert_int_equal(x86_rel32_to(b, len, base, tgt, tgt),
				 rel32_ref(b, len, base, tgt, tgt));
		assert_int_equal(x86_rel32_to(b, len, base, tgt - 16, tgt + 4),
				 rel32_ref(b, len, base, tgt - 16, tgt + 4));
		assert_int_equal(x86_rel32_to(b, len, base, 0, ~0ull),
				 rel32_ref(b, len, base, 0, ~0ull));
		total += rel32_ref(b, len, base, tgt, tgt);
		free(b);
	}
	assert_true(total > 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_all),
		cmocka_unit_test(test_run_chunks),
		cmocka_unit_test(test_stop),
		cmocka_unit_test(test_no_cb_and_empty),
		cmocka_unit_test(test_no_hit_in_immediate),
		cmocka_unit_test(test_resync),
		cmocka_unit_test(test_rel32_to),
		cmocka_unit_test(test_rel32_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
