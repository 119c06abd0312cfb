// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the scanner's decoder against the frozen reference
 * decoder (tests/x86ref). The input is copied into an exactly sized heap
 * buffer (ASan sees any read past it) and, so that short inputs reach the
 * fast path too (it needs X86_FAST_MIN bytes), into one padded with
 * X86_FAST_MIN bytes of 0x90. In both:
 *  - at the first 256 offsets and at those near the end (where lengths
 *    get cut), where x86_decode_fast decides, ref_x86_decode gives the
 *    same length and no finding, and x86_decode gives what ref_x86_decode
 *    gives, field by field;
 *  - over the whole buffer, x86scan_run, in one call and in chunks of 1..4
 *    instructions, gives the statistics and hits of the scan loop before
 *    the fast path (its second lane included).
 * Offsets are capped so that an input costs about what a fuzz_decode one
 * does; x86diff (tests/unit) covers every offset of real module text.
 */
#include <stdlib.h>
#include <string.h>
#include "ref.h"

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)
#define OFFSETS_MAX	256

static void diff_offsets(const uint8_t *b, size_t len, size_t from, size_t to)
{
	size_t off;

	for (off = from; off < to && off < len; off++) {
		struct x86_insn a, r;
		int f = x86_decode_fast(b + off, len - off);
		int ra = x86_decode(b + off, len - off, &a);
		int rr = ref_x86_decode(b + off, len - off, &r);

		CHECK(ref_insn_equal(ra, &a, rr, &r));
		if (f)
			CHECK(f == rr && r.find == X86_F_NONE);
	}
}

static void diff_scan(const uint8_t *b, size_t len, unsigned int chunk)
{
	struct x86scan_stats rst;
	struct ref_hits rh = { 0 }, h = { 0 }, hc = { 0 };
	struct x86scan s, sc;
	size_t guard = 0;

	ref_scan(b, len, &rst, &rh);
	x86scan_init(&s, b, len);
	CHECK(!x86scan_run(&s, 0, ref_hit_cb, &h));
	x86scan_init(&sc, b, len);
	while (x86scan_run(&sc, chunk, ref_hit_cb, &hc))
		CHECK(++guard <= len);
	CHECK(s.pos == len && sc.pos == len);
	CHECK(!memcmp(&s.st, &rst, sizeof(rst)) && !memcmp(&sc.st, &rst, sizeof(rst)));
	CHECK(ref_hits_equal(&h, &rh) && ref_hits_equal(&hc, &rh));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf = malloc(size ? size : 1);
	uint8_t *pad = malloc(size + X86_FAST_MIN);
	unsigned int chunk = 1 + (size ? data[0] % 4 : 0);
	/* with 20 bytes or more left (objdump's fetch limit) the end is moot */
	size_t tail = size > 20 ? size - 20 : 0;

	memcpy(buf, data, size);
	diff_offsets(buf, size, 0, OFFSETS_MAX);
	diff_offsets(buf, size, tail > OFFSETS_MAX ? tail : OFFSETS_MAX, size);
	diff_scan(buf, size, chunk);
	memcpy(pad, data, size);
	memset(pad + size, 0x90, X86_FAST_MIN);
	diff_offsets(pad, size + X86_FAST_MIN, tail, size + X86_FAST_MIN);
	diff_scan(pad, size + X86_FAST_MIN, chunk);
	free(buf);
	free(pad);
	return 0;
}
