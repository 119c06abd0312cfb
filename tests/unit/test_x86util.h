/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers for the x86scan unit tests. */
#ifndef TEST_X86UTIL_H
#define TEST_X86UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <stdio.h>
#include <cmocka.h>
#include "x86scan/x86scan.h"

/* Parse "66 0f 78 c0" into an exactly sized heap buffer (ASan-checked). */
static inline uint8_t *hexbuf(const char *hex, size_t *len)
{
	uint8_t tmp[256];
	size_t n = 0;
	char *e;

	while (*hex) {
		unsigned long v = strtoul(hex, &e, 16);

		if (e == hex)
			break;
		tmp[n++] = (uint8_t)v;
		hex = e;
	}
	*len = n;
	return n ? memcpy(malloc(n), tmp, n) : malloc(1);
}

/* Copy of the first len bytes of b into an exact-size buffer. */
static inline uint8_t *exact(const uint8_t *b, size_t len)
{
	uint8_t *p = malloc(len ? len : 1);

	memcpy(p, b, len);
	return p;
}

#endif
