// SPDX-License-Identifier: GPL-2.0
/*
 * Patterns (src/schema/glob.c): exempt_comm's matcher and check, the
 * matcher of each name of an exempt_cgroup rule.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <cmocka.h>
#include "schema/glob.h"

/* Both strings in exactly sized buffers, so ASan sees a read past the end. */
static bool match(const char *p, const char *s)
{
	char *bp = strdup(p);
	char *bs = strdup(s);
	bool r = sld_glob_match(bp, bs);

	free(bp);
	free(bs);
	return r;
}

static void test_match(void **state)
{
	(void)state;
	/* what vCPU threads are called */
	assert_true(match("CPU */KVM", "CPU 0/KVM"));
	assert_true(match("CPU */KVM", "CPU 127/KVM"));
	assert_false(match("CPU */KVM", "CPU 1/KVMX"));
	assert_false(match("CPU */KVM", "XCPU 1/KVM"));
	assert_true(match("EMT-*", "EMT-12"));
	assert_true(match("EMT-*", "EMT-"));
	assert_false(match("EMT-*", "EMT"));
	/* plain names match whole, as before patterns */
	assert_true(match("qemu-system-x86", "qemu-system-x86"));
	assert_false(match("qemu", "qemu-system-x86"));
	assert_false(match("qemu-system-x86", "qemu"));
	/* ? and runs of * */
	assert_true(match("a?c", "abc"));
	assert_false(match("a?c", "ac"));
	assert_true(match("**", ""));
	assert_true(match("*", "anything"));
	assert_false(match("", "a"));
	assert_true(match("", ""));
	assert_true(match("*a*b*c", "xxaxxbxxc"));
	assert_false(match("*a*b*c", "xxaxxbxxcx"));
	assert_true(match("a*aab", "aaaaaab"));
	/* escapes: literal * and ? */
	assert_true(match("a\\*b", "a*b"));
	assert_false(match("a\\*b", "axb"));
	assert_true(match("a\\?", "a?"));
	assert_false(match("a\\?", "ab"));
	assert_true(match("a\\\\", "a\\"));
	assert_false(match("a\\\\", "a\\\\"));
	/* any other '\' is itself: systemd's escapes read as they are shown */
	assert_false(match("a\\", "a"));
	assert_true(match("a\\", "a\\"));
	assert_true(match("machine-qemu\\x2d*.scope", "machine-qemu\\x2d1\\x2dwin10.scope"));
	assert_true(match("machine-qemu\\\\x2d*.scope", "machine-qemu\\x2d1\\x2dwin10.scope"));
	assert_false(match("machine-qemu\\x2d*.scope", "machine-qemux2d1x2dwin10.scope"));
	assert_false(match("machine-qemu\\x2d*.scope", "libpod-x.scope"));
	assert_false(match("machine-qemu\\x2d*.scope", "machine-qemu\\x2d1.scope.x"));
	assert_true(match("x\\y\\*", "x\\y*"));
	assert_false(match("x\\y\\*", "x\\yz"));
}

/* A pattern's first bytes, a name's first bytes: a cgroup rule's names. */
static void test_match_len(void **state)
{
	(void)state;
	assert_true(sld_glob_match_n("machine.slice/x", 13, "machine.slice"));
	assert_false(sld_glob_match_n("machine.slice/x", 14, "machine.slice"));
	assert_true(sld_glob_match_n("a*/b", 2, "abc"));
	assert_true(sld_glob_match_n("a\\*", 2, "a\\"));
	assert_true(sld_glob_match_len("a*", 2, "abc/d", 3));
	assert_false(sld_glob_match_len("a*c", 3, "abc/d", 5));
	assert_true(sld_glob_match_len("", 0, "abc", 0));
	assert_false(sld_glob_match_len("?", 1, "abc", 0));
}

static void test_check(void **state)
{
	(void)state;
	assert_null(sld_glob_check("CPU */KVM", 15));
	assert_null(sld_glob_check("123456789012345", 15));
	assert_null(sld_glob_check("*1*2*3*4*5*6*7*8*9*0*1*2*3*4*5*", 15));
	assert_null(sld_glob_check("a\\*", 15));
	assert_non_null(sld_glob_check("1234567890123456", 15));
	assert_non_null(sld_glob_check("", 15));
	assert_non_null(sld_glob_check("*", 15));
	assert_non_null(sld_glob_check("**", 15));
	assert_non_null(sld_glob_check("?*", 15));
	assert_non_null(sld_glob_check("*??", 15));
	assert_null(sld_glob_check("???", 15));
	assert_null(sld_glob_check("\\?*", 15));
	assert_non_null(sld_glob_check(" a", 15));
	assert_non_null(sld_glob_check("a ", 15));
	assert_non_null(sld_glob_check("a\\", 15));
	/* a '\' standing for itself: refused in a task name, '\\' asked */
	assert_string_equal(sld_glob_check("EMT\\-*", 15),
			    "'\\' not before '*', '?' or '\\' in a task name pattern (write a '\\' of the name as '\\\\')");
	assert_non_null(sld_glob_check("a\\", 15));
	assert_null(sld_glob_check("a\\\\b", 15));
	/* an escaped character counts once */
	assert_null(sld_glob_check("\\*23456789012345", 15));
	assert_non_null(sld_glob_check("\\*234567890123456", 15));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_match_len),
		cmocka_unit_test(test_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
