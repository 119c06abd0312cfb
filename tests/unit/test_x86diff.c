// SPDX-License-Identifier: GPL-2.0
/*
 * The fast path (x86_decode_fast, x86_decode_run, x86scan_run) against
 * the frozen reference decoder (tests/x86ref): every one- and 0f-map
 * opcode under the prefix combinations the fast path handles or must
 * refuse, with every ModRM and the SIB bytes that change the length; and
 * random bytes. Wherever the fast path decides, the reference must give
 * the same length and no finding; x86_decode must match the reference in
 * full; the scan loop must count and report the same. Buffers are exactly
 * sized, so ASan sees any read past the end. The same over all module
 * text: x86diff (x86scan.mk).
 */
#include "test_x86util.h"
#include "ref.h"

static const char *const prefixes[] = {
	"", "40", "41", "48", "4c", "4f", "66", "67", "f2", "f3", "f0", "2e",
	"3e", "26", "64", "65", "66 48", "67 48", "f3 48", "f2 4c", "f2 66",
	"66 f2", "66 f3", "f3 f2", "66 67", "f0 66", "2e 3e 66",
	"66 66 66 48", "66 66 66 66", "9b", "66 9b", "48 66", "48 48", "48 9b",
	"48 0f", "f3 0f",
};

static unsigned long decided, compared;

/* Compare at b (len bytes, exactly allocated). */
static void diff_one(const uint8_t *b, size_t len)
{
	struct x86_insn a, r;
	int ra = x86_decode(b, len, &a);
	int rr = ref_x86_decode(b, len, &r);
	int f = x86_decode_fast(b, len);

	compared++;
	if (!ref_insn_equal(ra, &a, rr, &r))
		fail_msg("x86_decode %d len %u, reference %d len %u at %02x %02x %02x %02x %02x %02x",
			 ra, a.len, rr, r.len, b[0], b[1], b[2], b[3], b[4], b[5]);
	if (f) {
		decided++;
		if (f != rr || r.find != X86_F_NONE)
			fail_msg("fast path %d, reference %d at %02x %02x %02x %02x %02x %02x",
				 f, rr, b[0], b[1], b[2], b[3], b[4], b[5]);
	}
}

/* Prefixes + opcode(s) + ModRM + next byte, padded to 16 bytes. */
static void sweep(void)
{
	static const uint8_t after[] = { 0x05, 0x24, 0xfd };
	size_t p, op, m, k;

	for (p = 0; p < sizeof(prefixes) / sizeof(prefixes[0]); p++) {
		size_t np;
		uint8_t *pb = hexbuf(prefixes[p], &np);

		for (op = 0; op < 512 + 3 * 256; op++) {
			for (m = 0; m < 256; m++) {
				/* the SIB matters only for rm 4 under mod 0-2 */
				size_t nk = ((m & 7) == 4 && m < 0xc0) ? 3 : 1;

				for (k = 0; k < nk; k++) {
					uint8_t raw[16];
					size_t n = np;
					uint8_t *b;

					memset(raw, 0xcc, sizeof(raw));
					memcpy(raw, pb, np);
					if (op >= 256)	/* 0f map, then 0f 38, 0f 3a, 0f 0f */
						raw[n++] = 0x0f;
					if (op >= 512)
						raw[n++] = (uint8_t[]){ 0x38, 0x3a, 0x0f }[(op - 512) / 256];
					raw[n++] = (uint8_t)op;
					raw[n++] = (uint8_t)m;
					raw[n++] = after[k];
					b = exact(raw, sizeof(raw));
					diff_one(b, sizeof(raw));
					free(b);
				}
			}
		}
		free(pb);
	}
}

static void test_sweep(void **state)
{
	(void)state;
	decided = compared = 0;
	sweep();
	print_message("# sweep: %lu cases, fast path decided %lu\n", compared, decided);
	assert_true(decided > compared / 4);
}

/* xorshift64: the same random bytes every run */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * Random buffers, every offset, and the scan loop on them; biased towards
 * the bytes that steer decoding (prefixes, REX, 0f, ModRM with SIB).
 */
static void test_random(void **state)
{
	static const uint8_t hot[] = {
		0x0f, 0x0f, 0x40, 0x48, 0x4c, 0x66, 0x67, 0xf2, 0xf3, 0xf0, 0x2e,
		0x9b, 0x04, 0x05, 0x24, 0x44, 0x84, 0xc4, 0xc5, 0x62, 0x8f, 0xf6,
		0xf7, 0xc6, 0xc7, 0xae, 0x01, 0x22, 0x23, 0x78, 0x79, 0x38, 0x3a,
	};
	uint64_t seed = 0x5eed1234abcdull;
	int round;

	(void)state;
	decided = compared = 0;
	for (round = 0; round < 3000; round++) {
		size_t len = 1 + rnd(&seed) % 300, i, k;
		uint8_t *b = malloc(len);
		struct x86scan_stats rst;
		struct ref_hits rh = { 0 }, h = { 0 }, hc = { 0 };
		struct x86scan s, sc;

		for (i = 0; i < len; i++) {
			uint64_t v = rnd(&seed);

			b[i] = (v & 3) ? (uint8_t)(v >> 8) : hot[(v >> 8) % sizeof(hot)];
		}
		for (i = 0; i < len; i++)
			diff_one(b + i, len - i);
		ref_scan(b, len, &rst, &rh);
		x86scan_init(&s, b, len);
		assert_false(x86scan_run(&s, 0, ref_hit_cb, &h));
		k = 1 + round % 5;
		x86scan_init(&sc, b, len);
		while (x86scan_run(&sc, k, ref_hit_cb, &hc))
			;
		assert_int_equal(s.pos, len);
		assert_int_equal(sc.pos, len);
		assert_memory_equal(&s.st, &rst, sizeof(rst));
		assert_memory_equal(&sc.st, &rst, sizeof(rst));
		assert_true(ref_hits_equal(&h, &rh));
		assert_true(ref_hits_equal(&hc, &rh));
		free(b);
	}
	print_message("# random: %lu offsets, fast path decided %lu\n", compared, decided);
	assert_true(decided > 0);
}

/* x86_decode_run: counts, the max limit, and never within 15 of the end. */
static void test_run_limits(void **state)
{
	size_t n, cnt, adv;
	/* 20 x "48 89 c7" (mov %rax,%rdi): all plain */
	uint8_t raw[60], *b;

	(void)state;
	for (n = 0; n < sizeof(raw); n += 3)
		memcpy(raw + n, "\x48\x89\xc7", 3);
	b = exact(raw, sizeof(raw));
	adv = x86_decode_run(b, sizeof(raw), (size_t)-1, &cnt);
	/* stops once fewer than X86_FAST_MIN bytes are left */
	assert_int_equal(adv, 3 * cnt);
	assert_true(sizeof(raw) - adv < X86_FAST_MIN);
	assert_true(sizeof(raw) - adv + 3 >= X86_FAST_MIN);
	adv = x86_decode_run(b, sizeof(raw), 4, &cnt);
	assert_int_equal(cnt, 4);
	assert_int_equal(adv, 12);
	adv = x86_decode_run(b, sizeof(raw), 0, &cnt);
	assert_int_equal(cnt, 0);
	assert_int_equal(adv, 0);
	adv = x86_decode_run(b, X86_FAST_MIN - 1, (size_t)-1, &cnt);
	assert_int_equal(cnt, 0);
	assert_int_equal(adv, 0);
	assert_int_equal(x86_decode_fast(b, X86_FAST_MIN - 1), 0);
	assert_int_equal(x86_decode_fast(b, X86_FAST_MIN), 3);
	/* a finder instruction is never decided by the fast path */
	memcpy(raw, "\x0f\x01\xc2", 3);		/* vmlaunch */
	memcpy(b, raw, sizeof(raw));
	assert_int_equal(x86_decode_fast(b, sizeof(raw)), 0);
	adv = x86_decode_run(b, sizeof(raw), (size_t)-1, &cnt);
	assert_int_equal(adv, 0);
	assert_int_equal(cnt, 0);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_limits),
		cmocka_unit_test(test_sweep),
		cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
