// SPDX-License-Identifier: GPL-2.0
/*
 * The list grammar of src/schema/names.c, which sld_compat.ko's list knobs
 * and sldctl's list planning both run: a table of writes, each applied to
 * a starting list under one rule, with the resulting list or the reason
 * the module gives in dmesg. The module-list cases are the inputs and
 * words of registry.c's list_set before it moved here; the name-list cases
 * those of knobs.c's sld_names_edit.
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

#include "schema/knobs_table.h"
#include "schema/modname.h"
#include "schema/names.h"

/* exempt_comm's rule as exempt.c has it (its check() aside). */
static const struct sld_names_rule comm_rule = {
	.max = SLD_COMM_LIST_MAX, .max_len = SLD_COMM_PATTERN_LEN,
	.spaces = true,
};

/* exempt_path's: no spaces. */
static const struct sld_names_rule path_rule = {
	.max = SLD_PATH_LIST_MAX, .max_len = SLD_PATH_LEN,
};

static int refuse_x(const char *name, const char **why)
{
	if (strchr(name, 'x')) {
		*why = "the check says no";
		return -1;
	}
	return 0;
}

static const struct sld_names_rule checked_rule = {
	.max = 4, .max_len = 8, .check = refuse_x,
};

static struct sld_names_rule modules_rule(void)
{
	struct sld_names_rule r;

	sld_names_rule_of(&sld_knob_schema[SLD_KN_SAFE_MODULES], &r);
	return r;
}

/*
 * Apply val to the list old ("a,b", "-" for none) under rule; returns
 * the resulting list joined, or "!" and the reason.
 */
static char *run(const struct sld_names_rule *rule, const char *old,
		 const char *val)
{
	char *olds = strdup(old), *buf = strdup(val), *out, *p;
	const char *v[SLD_LIST_MAX_ANY], *why = NULL, *at = NULL;
	struct sld_names_draft d;
	enum sld_names_err e;
	unsigned int n = 0;
	size_t len;

	assert_non_null(olds);
	assert_non_null(buf);
	for (p = strcmp(olds, "-") ? strtok(olds, ",") : NULL; p; p = strtok(NULL, ","))
		v[n++] = p;
	sld_names_draft_init(&d, v, n);
	e = sld_names_apply(rule, &d, buf, &why, &at);
	if (e) {
		assert_non_null(why);
		assert_non_null(at);
		assert_true(e < SLD_NE_COUNT);
		assert_int_equal(asprintf(&out, "!%s", why) > 0, 1);
	} else {
		len = sld_names_join(d.v, d.n, NULL, 0);
		out = malloc(len + 1);
		assert_non_null(out);
		assert_int_equal(sld_names_join(d.v, d.n, out, len + 1), len);
	}
	free(buf);
	free(olds);
	return out;
}

struct tcase {
	const char *old, *val, *want;
};

static void walk(const struct sld_names_rule *rule, const struct tcase *t,
		 size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char *got = run(rule, t[i].old, t[i].val);

		if (strcmp(got, t[i].want))
			fail_msg("'%s' on '%s': got '%s', want '%s'", t[i].val,
				 t[i].old, got, t[i].want);
		free(got);
	}
}

static void test_name_lists(void **state)
{
	static const struct tcase t[] = {
		{ "-", "a", "a" },
		{ "-", "a,b,c", "a,b,c" },
		{ "x,y", "a,b", "a,b" },		/* replaces */
		{ "x,y", "-", "-" },			/* clears */
		{ "-", "-", "-" },
		{ "x", "+a,+b", "x,a,b" },		/* edits append */
		{ "x,a,b", "-a", "x,b" },
		{ "x", "+a,-a", "x" },			/* a no-op here */
		{ "a,x", "-a,+a", "x,a" },
		{ "-", "CPU 3/KVM", "CPU 3/KVM" },	/* inner space */
		{ "-", "a,,b", "!empty entry" },
		{ "-", ",a", "!empty entry" },
		{ "-", "a,", "!empty entry" },
		{ "-", "+", "!empty entry" },
		{ "x", "+a,", "!mix of names and +/- edits" },
		{ "x", "+a,,+b", "!mix of names and +/- edits" },
		{ "-", "a,+", "!mix of names and +/- edits" },
		{ "-", "+x,y", "!mix of names and +/- edits" },
		{ "-", "x,+y", "!mix of names and +/- edits" },
		{ "-", "dup,dup", "!duplicate entry" },
		{ "keep1", "+keep1", "!duplicate entry" },
		{ "-", "-not_listed", "!removing an entry that is not listed" },
		{ "-", "--", "!removing an entry that is not listed" },
		{ "-", "a234567890123456789012345678901", "a234567890123456789012345678901" },
		{ "-", "a2345678901234567890123456789012", "!entry too long" },
	};

	(void)state;
	walk(&comm_rule, t, sizeof(t) / sizeof(t[0]));
}

static void test_name_rules(void **state)
{
	static const struct tcase path[] = {
		{ "-", "/a b", "!space in entry" },
		{ "-", "/a,/a", "!duplicate entry" },
		{ "-", "/a,,/b", "!empty entry" },
	};
	static const struct tcase checked[] = {
		{ "-", "a,b,c,d", "a,b,c,d" },
		{ "-", "a,b,c,d,e", "!too many entries" },
		{ "a,b,c,d", "+e", "!too many entries" },
		{ "a,b,c,d", "-a,+e", "b,c,d,e" },
		{ "-", "a,bx", "!the check says no" },
		{ "-", "123456789", "!entry too long" },
	};

	(void)state;
	walk(&path_rule, path, sizeof(path) / sizeof(path[0]));
	walk(&checked_rule, checked, sizeof(checked) / sizeof(checked[0]));
}

static void test_module_lists(void **state)
{
	static const struct tcase t[] = {
		{ "-", "keep_a,keep-b", "keep_a,keep-b" },
		{ "x", "+vbox-drv", "x,vbox-drv" },
		{ "vbox_drv", "-vbox-drv", "-" },	/* '-' equals '_' */
		{ "-", "-", "-" },
		{ "-", "a,,b", "!empty entry" },
		{ "-", ",a", "!empty entry" },
		{ "-", "a,", "!empty entry" },
		{ "-", "+", "!empty entry" },
		{ "x", "+a,", "!empty entry" },		/* before the sign */
		{ "-", "a,+", "!empty entry" },
		{ "-", "+x,y", "!mixes a replacing list with +/- edits" },
		{ "-", "x,+y", "!mixes a replacing list with +/- edits" },
		{ "-", "dup,dup", "!name given twice" },
		{ "-", "a-b,a_b", "!name given twice" },
		{ "x", "+a,-a", "!name given twice" },
		{ "a", "-a,+a", "!name given twice" },
		{ "a", "+a", "!name already listed" },
		{ "-", "-not_listed", "!removing a name that is not listed" },
		{ "-", "a b", "!name must be 1-55 of [a-zA-Z0-9_-]" },
		{ "-", "a.b", "!name must be 1-55 of [a-zA-Z0-9_-]" },
		{ "-", "a/b", "!name must be 1-55 of [a-zA-Z0-9_-]" },
		{ "-", "a;b", "!name must be 1-55 of [a-zA-Z0-9_-]" },
		{ "-", "../x", "!name must be 1-55 of [a-zA-Z0-9_-]" },
		{ "-", "%s%n", "!name must be 1-55 of [a-zA-Z0-9_-]" },
		{ "-", "a234567890123456789012345678901234567890123456789012345",
		  "a234567890123456789012345678901234567890123456789012345" },
		{ "-", "a2345678901234567890123456789012345678901234567890123456",
		  "!name must be 1-55 of [a-zA-Z0-9_-]" },
	};
	struct sld_names_rule r = modules_rule();

	(void)state;
	assert_true(r.modules);
	assert_int_equal(r.max, 64);
	walk(&r, t, sizeof(t) / sizeof(t[0]));
}

/* "m0,m1,..." with n names, sign before each (0: none). */
static char *names(unsigned int from, unsigned int n, char sign)
{
	char *s = calloc(n, 8), *p = s;
	unsigned int i;

	assert_non_null(s);
	for (i = 0; i < n; i++) {
		if (sign)
			*p++ = sign;
		p += sprintf(p, "m%u,", from + i);
	}
	if (p > s)
		p[-1] = '\0';
	return s;
}

/* 64 entries fit; a 65th, or 65 names in one write, do not. */
static void test_module_bounds(void **state)
{
	struct sld_names_rule r = modules_rule();
	char *all = names(0, 64, 0), *more = names(0, 65, 0);
	char *swap = names(0, 64, '-'), *write, *got;

	(void)state;
	got = run(&r, "-", all);
	assert_string_equal(got, all);
	free(got);
	got = run(&r, "-", more);
	assert_string_equal(got, "!more than 64 entries");
	free(got);
	got = run(&r, all, "+new");
	assert_string_equal(got, "!more than 64 entries");
	free(got);
	/* Remove all 64 and add one: 65 names in one write. */
	assert_int_equal(asprintf(&write, "%s,+new", swap) > 0, 1);
	got = run(&r, all, write);
	assert_string_equal(got, "!more than 64 entries");
	free(got);
	free(write);
	/* A name list has no such bound on a write, only on the list. */
	got = run(&comm_rule, "m0", "-m0,+a,-a,+b");
	assert_string_equal(got, "b");
	free(got);
	free(swap);
	free(more);
	free(all);
}

/* The failing entry is named, without its sign. */
static void test_at(void **state)
{
	struct sld_names_rule r = modules_rule();
	const char *v[1] = { "a" }, *why = NULL, *at = NULL;
	struct sld_names_draft d;
	char buf[] = "+b,-zz,+c";

	(void)state;
	sld_names_draft_init(&d, v, 1);
	assert_int_equal(sld_names_apply(&r, &d, buf, &why, &at), SLD_NE_MISSING);
	assert_string_equal(at, "zz");
	assert_string_equal(why, "removing a name that is not listed");
}

static void test_join(void **state)
{
	const char *v[] = { "alpha", "beta" };
	char buf[8];

	(void)state;
	assert_int_equal(sld_names_join(v, 0, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "-");
	assert_int_equal(sld_names_join(v, 2, NULL, 0), 10);
	/* Cut to the buffer, always terminated; the length of the whole. */
	assert_int_equal(sld_names_join(v, 2, buf, sizeof(buf)), 10);
	assert_string_equal(buf, "alpha,b");
	assert_int_equal(sld_names_join(v, 1, buf, 6), 5);
	assert_string_equal(buf, "alpha");
	assert_int_equal(sld_names_join(v, 1, buf, 1), 5);
	assert_string_equal(buf, "");
}

/* Every list knob of the schema gets a rule with its bounds. */
static void test_rule_of_schema(void **state)
{
	struct sld_names_rule r;
	unsigned int i;

	(void)state;
	for (i = SLD_KN_NSCALARS; i < SLD_KN_COUNT; i++) {
		const struct sld_knob_schema *k = &sld_knob_schema[i];

		sld_names_rule_of(k, &r);
		assert_int_equal(r.max, k->max_entries);
		assert_true(r.max <= SLD_LIST_MAX_ANY);
		assert_int_equal(r.max_len, k->max_entry_len);
		assert_int_equal(r.modules, k->entry == SLD_KE_MODULE);
		assert_int_equal(r.spaces, k->entry == SLD_KE_COMM);
		assert_null(r.check);
	}
}

static void test_modname(void **state)
{
	char out[16];

	(void)state;
	assert_true(sld_modname_eq("kvm-intel", "kvm_intel"));
	assert_true(sld_modname_eq("a_b-c", "a-b_c"));
	assert_false(sld_modname_eq("kvm_intel", "kvm_intel2"));
	assert_false(sld_modname_eq("kvm", "kvm_intel"));
	assert_false(sld_modname_eq("vmm-on", "vmmon"));
	assert_true(sld_modname_eq("", ""));
	sld_modname_norm(out, "kvm-intel.ko", 9);
	assert_string_equal(out, "kvm_intel");
	assert_true(sld_modname_char('a') && sld_modname_char('Z') &&
		    sld_modname_char('0') && sld_modname_char('_') &&
		    sld_modname_char('-'));
	assert_false(sld_modname_char('.') || sld_modname_char(' ') ||
		     sld_modname_char('/') || sld_modname_char('+') ||
		     sld_modname_char(','));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name_lists),
		cmocka_unit_test(test_name_rules),
		cmocka_unit_test(test_module_lists),
		cmocka_unit_test(test_module_bounds),
		cmocka_unit_test(test_at),
		cmocka_unit_test(test_join),
		cmocka_unit_test(test_rule_of_schema),
		cmocka_unit_test(test_modname),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
