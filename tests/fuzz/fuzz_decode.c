// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for x86_decode and x86scan_run. The input is copied
 * into an exactly sized heap buffer so ASan reports any read past it.
 * Invariants checked:
 *  - x86_decode returns 1..15, X86_TRUNCATED, or X86_INVALID with
 *    insn.len in 1..15; a valid length fits in the buffer;
 *  - decoding a strict prefix of a valid instruction is X86_TRUNCATED
 *    (the decoder never decides on bytes past the end);
 *  - x86scan_run terminates with pos == len, in one call and in chunks,
 *    with identical statistics.
 */
#include <stdlib.h>
#include <string.h>
#include "x86scan/x86scan.h"

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

static void check_insn(const uint8_t *data, size_t size)
{
	struct x86_insn in;
	int r = x86_decode(data, size, &in);
	size_t k;

	if (r == X86_TRUNCATED)
		return;
	if (r == X86_INVALID) {
		CHECK(in.len >= 1 && in.len <= 15);
		return;
	}
	CHECK(r >= 1 && r <= 15 && (size_t)r <= size && in.len == r);
	CHECK(in.find >= X86_F_NONE && in.find < X86_F_COUNT);
	for (k = 0; k < (size_t)r; k++) {
		uint8_t *t = malloc(k ? k : 1);

		memcpy(t, data, k);
		CHECK(x86_decode(t, k, &in) == X86_TRUNCATED);
		free(t);
	}
}

static int count_cb(void *ctx, enum x86_find f, size_t off)
{
	(void)f;
	(void)off;
	(*(size_t *)ctx)++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf = malloc(size ? size : 1);
	struct x86scan a, b;
	size_t hits_a = 0, hits_b = 0, guard = 0;

	memcpy(buf, data, size);
	check_insn(buf, size);

	x86scan_init(&a, buf, size);
	CHECK(!x86scan_run(&a, 0, count_cb, &hits_a));
	CHECK(a.pos == size && !a.stopped);

	x86scan_init(&b, buf, size);
	while (x86scan_run(&b, 3, count_cb, &hits_b))
		CHECK(++guard <= size);
	CHECK(b.pos == size);
	CHECK(!memcmp(&a.st, &b.st, sizeof(a.st)) && hits_a == hits_b);
	free(buf);
	return 0;
}
