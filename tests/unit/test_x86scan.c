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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_all),
		cmocka_unit_test(test_run_chunks),
		cmocka_unit_test(test_stop),
		cmocka_unit_test(test_no_cb_and_empty),
		cmocka_unit_test(test_no_hit_in_immediate),
		cmocka_unit_test(test_resync),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
