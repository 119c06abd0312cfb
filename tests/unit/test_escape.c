// SPDX-License-Identifier: GPL-2.0
/*
 * How names from users are shown (src/schema/escape.c), the one escape
 * sld_compat.ko and sldctl share: a newline, ESC and quotes, the flags,
 * and a full buffer (an escape never cut in half).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "schema/escape.h"

/* src escaped under flags into a buffer of exactly size bytes. */
static char *esc(const char *src, size_t size, unsigned int flags,
		 size_t *took)
{
	char *b = malloc(size);

	assert_non_null(b);
	*took = sld_esc(b, size, src, strlen(src) + 1, flags);
	return b;
}

static void expect(const char *src, unsigned int flags, const char *want)
{
	size_t took;
	char *b = esc(src, SLD_ESC_SIZE(strlen(src)), flags, &took);

	assert_string_equal(b, want);
	assert_int_equal(took, strlen(src));
	free(b);
}

static void test_bytes(void **state)
{
	(void)state;
	expect("CPU 1/KVM", 0, "CPU 1/KVM");
	expect("a\nb", 0, "a\\x0ab");
	expect("\033[31mred", 0, "\\x1b[31mred");
	expect("q'\"q", 0, "q'\"q");
	expect("back\\slash", 0, "back\\x5cslash");
	expect("del\x7f", 0, "del\\x7f");
	expect("caf\xc3\xa9", 0, "caf\\xc3\\xa9");
	expect("\t", 0, "\\x09");
	expect("", 0, "");
}

static void test_flags(void **state)
{
	(void)state;
	expect("a b", SLD_ESC_SPACE, "a\\x20b");
	expect("a b", SLD_ESC_QUOTES, "a b");
	expect("q'\"q", SLD_ESC_QUOTES, "q\\x27\\x22q");
	expect("q' \"\n", SLD_ESC_SPACE | SLD_ESC_QUOTES, "q\\x27\\x20\\x22\\x0a");
	assert_true(sld_esc_needed('\n', 0));
	assert_true(sld_esc_needed(0x1b, 0));
	assert_false(sld_esc_needed('"', 0));
	assert_true(sld_esc_needed('"', SLD_ESC_QUOTES));
	assert_false(sld_esc_needed('~', SLD_ESC_SPACE | SLD_ESC_QUOTES));
}

static void test_full(void **state)
{
	size_t took;
	char *b;

	(void)state;
	/* Room for "ab" and no whole escape after it. */
	b = esc("ab\ncd", 6, 0, &took);
	assert_string_equal(b, "ab");
	assert_int_equal(took, 2);
	free(b);
	b = esc("ab\ncd", 7, 0, &took);
	assert_string_equal(b, "ab\\x0a");
	assert_int_equal(took, 3);
	free(b);
	b = esc("abc", 1, 0, &took);
	assert_string_equal(b, "");
	assert_int_equal(took, 0);
	free(b);
	/* max bounds what is read: a name not NUL-terminated. */
	b = malloc(SLD_ESC_SIZE(3));
	assert_non_null(b);
	assert_int_equal(sld_esc(b, SLD_ESC_SIZE(3), "x\ny-unread", 3, 0), 3);
	assert_string_equal(b, "x\\x0ay");
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_full),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
