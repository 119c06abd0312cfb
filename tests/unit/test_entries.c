// SPDX-License-Identifier: GPL-2.0
/*
 * The checker of exempt_path and exempt_cgroup entries (src/schema/
 * entries.c) that sld_compat.ko's knobs and sldctl both run: a table of
 * entries with the verdict and the words, and a check that neither the
 * module nor sldctl keeps a checker of its own beside it.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "schema/entries.h"
#include "schema/knobs_table.h"

struct entry_case {
	const char *in;
	bool cgroup;
	const char *why;	/* NULL: valid */
};

static const struct entry_case cases[] = {
	{ "/usr/bin/qemu-system-x86_64", false, NULL },
	{ "/a..b/.c/...", false, NULL },
	{ "/machine.slice", true, NULL },
	{ "/machine.slice/machine-qemu\\x2d1\\x2dvm.scope", true, NULL },
	/* cgroup names are patterns; one that matches every name is refused */
	{ SLD_CGROUP_LIBVIRT_QEMU, true, NULL },
	{ "/machine.slice/*.scope/libvirt", true, NULL },
	{ "/???", true, NULL },
	{ "/a/\\*", true, NULL },
	{ "/*", true, "a component of only '*' and '?' matches every cgroup there (name the cgroup above it)" },
	{ "/machine.slice/*", true, "a component of only '*' and '?' matches every cgroup there (name the cgroup above it)" },
	{ "/machine.slice/?*/libvirt", true, "a component of only '*' and '?' matches every cgroup there (name the cgroup above it)" },
	{ "/a/**", true, "a component of only '*' and '?' matches every cgroup there (name the cgroup above it)" },
	{ "/usr/bin/*", false, NULL },
	{ "", false, "empty entry" },
	{ "usr/bin/qemu", false, "not absolute (must start with /)" },
	{ "machine.slice", true, "not absolute (must start with /)" },
	{ "/", false, "'/' is not an executable" },
	{ "/", true, "the root cgroup '/' would exempt every task" },
	{ "//", true, "empty component ('//' or a trailing '/')" },
	{ "/usr//bin", false, "empty component ('//' or a trailing '/')" },
	{ "/usr/bin/", false, "empty component ('//' or a trailing '/')" },
	{ "/usr/./bin", false, "'.' or '..' component (give the path without them)" },
	{ "/usr/..", false, "'.' or '..' component (give the path without them)" },
	{ "/../x", true, "'.' or '..' component (give the path without them)" },
	{ "/a,b", false, "comma in entry (commas separate list entries)" },
	{ "/a b", true, "space in entry" },
	{ "/a\tb", false, "byte that is not printable ASCII in entry" },
	{ "/a\nb", true, "byte that is not printable ASCII in entry" },
	{ "/caf\xc3\xa9", false, "byte that is not printable ASCII in entry" },
	{ "/a\x7f", false, "byte that is not printable ASCII in entry" },
};

static void test_cases(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *why = sld_entry_check(cases[i].in, cases[i].cgroup);

		if (!cases[i].why && why)
			fail_msg("case %zu: refused: %s", i, why);
		if (cases[i].why && (!why || strcmp(why, cases[i].why)))
			fail_msg("case %zu: got '%s', want '%s'", i,
				 why ? why : "(valid)", cases[i].why);
	}
}

/* A cgroup path (as /proc/PID/cgroup shows it) at a rule or below it. */
static void test_path_match(void **state)
{
	static const char vcpu[] =
		"/machine.slice/machine-qemu\\x2d1\\x2dwin10.scope/libvirt/vcpu1";

	(void)state;
	assert_true(sld_cgroup_path_match(SLD_CGROUP_LIBVIRT_QEMU, vcpu));
	assert_true(sld_cgroup_path_match(SLD_CGROUP_LIBVIRT_QEMU,
		"/machine.slice/machine-qemu\\x2d12\\x2ddebian.scope"));
	assert_false(sld_cgroup_path_match(SLD_CGROUP_LIBVIRT_QEMU,
		"/machine.slice/libpod-0123abcd.scope"));
	assert_false(sld_cgroup_path_match(SLD_CGROUP_LIBVIRT_QEMU,
		"/machine.slice/machine-debian.scope"));
	assert_false(sld_cgroup_path_match(SLD_CGROUP_LIBVIRT_QEMU,
		"/machine.slice/systemd-nspawn@qemu.service"));
	assert_false(sld_cgroup_path_match(SLD_CGROUP_LIBVIRT_QEMU, "/machine.slice"));
	assert_false(sld_cgroup_path_match(SLD_CGROUP_LIBVIRT_QEMU,
		"/user.slice/machine-qemu\\x2d1\\x2dx.scope"));
	assert_true(sld_cgroup_path_match("/machine.slice", vcpu));
	assert_true(sld_cgroup_path_match("/machine.slice", "/machine.slice"));
	assert_false(sld_cgroup_path_match("/machine.slice", "/machine.slicex"));
	assert_false(sld_cgroup_path_match("/machine.slice", "/"));
	assert_false(sld_cgroup_path_match("/a/b", "/a"));
	assert_true(sld_cgroup_path_match("/a/b?", "/a/bc/d"));
	assert_false(sld_cgroup_path_match("/a/b?", "/a/b/c"));
	assert_int_equal(sld_cgroup_depth(SLD_CGROUP_LIBVIRT_QEMU), 2);
}

/* The length bound: SLD_PATH_LEN bytes pass, one more does not. */
static void test_length(void **state)
{
	char s[SLD_PATH_LEN + 2];

	(void)state;
	memset(s, 'a', sizeof(s));
	s[0] = '/';
	s[SLD_PATH_LEN] = '\0';
	assert_null(sld_entry_check(s, false));
	s[SLD_PATH_LEN] = 'a';
	s[SLD_PATH_LEN + 1] = '\0';
	assert_string_equal(sld_entry_check(s, true), "entry longer than 255 bytes");
}

/* file contains needle (a fixed string) at least once. */
static bool file_has(const char *file, const char *needle)
{
	char *line = NULL;
	size_t cap = 0;
	bool found = false;
	FILE *f = fopen(file, "r");

	if (!f)
		fail_msg("cannot read %s", file);
	while (!found && getline(&line, &cap, f) > 0)
		found = strstr(line, needle) != NULL;
	free(line);
	fclose(f);
	return found;
}

/* One checker: both users call it, and the old words are gone from both. */
static void test_one_checker(void **state)
{
	static const char *const users[] = {
		SRC_DIR "/engine/exempt.c", TOOLS_DIR "/lib/knob.c",
	};
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		if (!file_has(users[i], "sld_entry_check("))
			fail_msg("%s does not call sld_entry_check()", users[i]);
		if (file_has(users[i], "component") || file_has(users[i], "absolute (")
		    || file_has(users[i], "is not absolute"))
			fail_msg("%s words a path check of its own", users[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_path_match),
		cmocka_unit_test(test_length),
		cmocka_unit_test(test_one_checker),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
