// SPDX-License-Identifier: GPL-2.0
/*
 * sldctl run's decisions before it starts anything (tools/sldctl/
 * run_allow.c): the run_allow list read back, who it allows (the rule
 * src/engine/run.c applies), names resolved for sldctl apply, the unit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/run_allow.h"

static char why[256];

static void test_parse(void **state)
{
	struct run_allow a;

	(void)state;
	assert_int_equal(run_allow_parse("-", &a, why, sizeof(why)), 0);
	assert_int_equal(a.n, 0);
	assert_int_equal(run_allow_parse("1000,@60,0", &a, why, sizeof(why)), 0);
	assert_int_equal(a.n, 3);
	assert_false(a.e[0].group);
	assert_int_equal(a.e[0].id, 1000);
	assert_true(a.e[1].group);
	assert_int_equal(a.e[1].id, 60);
	assert_int_equal(a.e[2].id, 0);
	assert_int_equal(run_allow_parse("4294967294", &a, why, sizeof(why)), 0);
	assert_int_equal(a.e[0].id, 4294967294UL);
	assert_int_equal(run_allow_parse("alice", &a, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "'alice'"));
	assert_int_equal(run_allow_parse("01", &a, why, sizeof(why)), -1);
	assert_int_equal(run_allow_parse("@", &a, why, sizeof(why)), -1);
	assert_int_equal(run_allow_parse("4294967295", &a, why, sizeof(why)), -1);
	assert_int_equal(run_allow_parse("", &a, why, sizeof(why)), -1);
	assert_int_equal(run_allow_parse(",", &a, why, sizeof(why)), -1);
}

static void test_too_many(void **state)
{
	char v[SLD_RUN_ALLOW_MAX * 8 + 8] = "";
	struct run_allow a;
	int i;

	(void)state;
	for (i = 0; i <= SLD_RUN_ALLOW_MAX; i++)
		sprintf(v + strlen(v), "%s%d", i ? "," : "", i + 1);
	assert_int_equal(run_allow_parse(v, &a, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "too many"));
	*strrchr(v, ',') = '\0';
	assert_int_equal(run_allow_parse(v, &a, why, sizeof(why)), 0);
	assert_int_equal(a.n, SLD_RUN_ALLOW_MAX);
}

static void test_allowed(void **state)
{
	const gid_t sup[] = { 24, 60, 100 };
	struct run_allow a;

	(void)state;
	assert_int_equal(run_allow_parse("1000,@60", &a, why, sizeof(why)), 0);
	assert_true(run_allowed(&a, 1000, 1000, NULL, 0));
	assert_false(run_allowed(&a, 1001, 1001, NULL, 0));
	/* The group as real gid or as a supplementary group. */
	assert_true(run_allowed(&a, 1001, 60, NULL, 0));
	assert_true(run_allowed(&a, 1001, 1001, sup, 3));
	assert_false(run_allowed(&a, 1001, 1001, sup, 1));
	/* A uid entry is no gid, a gid entry no uid. */
	assert_false(run_allowed(&a, 60, 1001, NULL, 0));
	assert_false(run_allowed(&a, 1001, 1000, NULL, 0));
	/* Root always: with the list set and while it is empty. */
	assert_true(run_allowed(&a, 0, 0, NULL, 0));
	assert_int_equal(run_allow_parse("-", &a, why, sizeof(why)), 0);
	assert_true(run_allowed(&a, 0, 0, NULL, 0));
	assert_true(run_allowed(&a, 0, 1000, sup, 3));
	/* Nobody else while it is empty, whatever their groups. */
	assert_false(run_allowed(&a, 1000, 1000, NULL, 0));
	assert_false(run_allowed(&a, 1001, 60, sup, 3));
	assert_false(run_allowed(&a, 65534, 0, NULL, 0));
}

static void check_resolve(const char *in, const char *want)
{
	char *out = NULL;

	assert_int_equal(run_allow_resolve(in, &out, why, sizeof(why)), 0);
	assert_string_equal(out, want);
	free(out);
}

static void test_resolve(void **state)
{
	char *out = NULL;

	(void)state;
	/* root and its group exist on every system the tests run on. */
	check_resolve("root,@root", "0,@0");
	check_resolve("1000,@60", "1000,@60");
	check_resolve("+root,-@root,+1000", "+0,-@0,+1000");
	check_resolve("-", "-");
	assert_int_equal(run_allow_resolve("nosuchuser-sldtest", &out, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "no user named 'nosuchuser-sldtest'"));
	assert_int_equal(run_allow_resolve("@nosuchgroup-sldtest", &out, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "no group named 'nosuchgroup-sldtest'"));
	assert_int_equal(run_allow_resolve("root,@", &out, why, sizeof(why)), -1);
	assert_null(out);
}

static void test_unit_name(void **state)
{
	char b[128];

	(void)state;
	run_unit_name(b, sizeof(b), "/usr/games/God of War.exe", 42);
	assert_string_equal(b, "sld-run-God_of_War.exe-42");
	run_unit_name(b, sizeof(b), "VirtualBoxVM", 7);
	assert_string_equal(b, "sld-run-VirtualBoxVM-7");
	run_unit_name(b, sizeof(b), "/bin/", 7);
	assert_string_equal(b, "sld-run-cmd-7");
	run_unit_name(b, sizeof(b), "a123456789b123456789c123456789d123456789", 1);
	assert_string_equal(b, "sld-run-a123456789b123456789c123456789d1-1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_too_many),
		cmocka_unit_test(test_allowed),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_unit_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
