// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for sldctl's shared helpers (tools/sldctl/lib/util.c): the
 * one parser of the module's "name N" counters files
 * (sldctl_counter_value()) that doctor, status and the metrics share.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/util.h"

/*
 * name's value in text is want (NULL: not found). A value found lies in
 * text and ends at its line's end, where a caller may look on.
 */
static const char *expect(const char *text, const char *name,
			  const char *want)
{
	size_t n = 12345;
	const char *v = sldctl_counter_value(text, name, &n);

	if (!want) {
		assert_null(v);
		assert_int_equal(n, 12345);
		return NULL;
	}
	assert_non_null(v);
	assert_true(v > text && v + n <= text + strlen(text));
	assert_true(v[n] == '\n' || !v[n]);
	assert_int_equal(n, strlen(want));
	assert_memory_equal(v, want, n);
	return v + n;
}

static void test_present(void **state)
{
	const char *ac = "ac_user_handled 3\nac_guest_handled 1\n"
			 "tasks_pool_bytes 8192\ntasks_live 5";

	(void)state;
	expect(ac, "ac_user_handled", "3");
	expect(ac, "ac_guest_handled", "1");
	expect(ac, "tasks_pool_bytes", "8192");
	/* The last line without its newline. */
	expect(ac, "tasks_live", "5");
	/* Empty lines before it. */
	expect("\n\nac_user 18446744073709551615\n", "ac_user",
	       "18446744073709551615");
}

static void test_absent(void **state)
{
	(void)state;
	expect("ac_user_handled 3\nac_guest_handled 1\n", "ac_guest_passed",
	       NULL);
	expect("", "ac_user", NULL);
	expect("\n\n", "ac_user", NULL);
	assert_null(sldctl_counter_value(NULL, "ac_user", &(size_t){ 0 }));
}

/* A name that begins another's is not that one, either way round. */
static void test_prefix(void **state)
{
	(void)state;
	expect("ac_user_handled 3\n", "ac_user", NULL);
	expect("ac_user_handled 3\nac_user 4\n", "ac_user", "4");
	expect("ac_user 4\nac_user_handled 3\n", "ac_user_handled", "3");
	expect("ac_user 4\n", "ac_user_handled", NULL);
	expect("tasks_refused_admin 2\ntasks_refused 9\n", "tasks_refused",
	       "9");
	/* Nor is a name inside a line, or the end of a longer one. */
	expect("x ac_user 4\n", "ac_user", NULL);
	expect("xac_user 4\n", "ac_user", NULL);
	expect("ac_user_handled ac_user 4\n", "ac_user", NULL);
}

/*
 * A line without "name " is no counter's; with it, the value is the rest
 * of the line, whatever it is: each caller judges it.
 */
static void test_malformed(void **state)
{
	(void)state;
	expect("ac_user\n", "ac_user", NULL);
	expect("ac_user", "ac_user", NULL);
	expect("ac_user5\n", "ac_user", NULL);
	expect("ac_user\t5\n", "ac_user", NULL);
	expect(" ac_user 5\n", "ac_user", NULL);
	expect("ac_user \nac_user 5\n", "ac_user", "");
	expect("ac_user 12abc\n", "ac_user", "12abc");
	expect("ac_user 1 2\n", "ac_user", "1 2");
	expect("ac_user  7\n", "ac_user", " 7");
	/* A malformed line does not hide a good one after it. */
	expect("garbage\nac_user\nac_user 6\n", "ac_user", "6");
}

/* The first line wins; from its end a caller finds the next. */
static void test_look_on(void **state)
{
	const char *text = "ac_user x\nac_guest 1\nac_user 2";
	const char *p;

	(void)state;
	p = expect(text, "ac_user", "x");
	p = expect(p, "ac_user", "2");
	expect(p, "ac_user", NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_present),
		cmocka_unit_test(test_absent),
		cmocka_unit_test(test_prefix),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_look_on),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
