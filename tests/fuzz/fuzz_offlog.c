// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for the kernel log parser of `sldctl offenders`: any
 * bytes, parsed in one piece and again split in two at the first 0xff
 * (as two reads would give them). Every task that comes out must satisfy
 * the parser's promises, and the counts must add up.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/offlog.h"

static void check(const struct off_log *l)
{
	unsigned long sum = 0;
	size_t i, k;

	if (l->n > OFF_TASKS_MAX || l->n > l->cap)
		abort();
	for (i = 0; i < l->n; i++) {
		const struct off_task *t = &l->v[i];
		unsigned long n = 0;

		if (t->pid <= 0 || t->pid > OFF_PID_MAX)
			abort();
		if (strnlen(t->comm, OFF_COMM_MAX) >= OFF_COMM_MAX ||
		    strnlen(t->first, OFF_TIME_MAX) >= OFF_TIME_MAX ||
		    strnlen(t->last, OFF_TIME_MAX) >= OFF_TIME_MAX ||
		    strnlen(t->why, OFF_WHY_MAX) >= OFF_WHY_MAX || !t->first[0])
			abort();
		for (k = 0; k < OFF_NKINDS; k++)
			n += t->n[k];
		if (!n || (t->n[OFF_HANDLED] && !t->why[0]))
			abort();
		sum += n;
	}
	if (sum != l->matched || l->matched > l->records)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	const uint8_t *cut = memchr(data, 0xff, size);
	size_t split = cut ? (size_t)(cut - data) : size;
	struct off_log l;

	off_log_init(&l);
	if (!off_log_parse(&l, buf, size))
		check(&l);
	off_log_free(&l);
	off_log_init(&l);
	if (!off_log_parse(&l, buf, split) &&
	    !off_log_parse(&l, buf + split, size - split))
		check(&l);
	off_log_free(&l);
	return 0;
}
