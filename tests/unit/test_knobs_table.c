// SPDX-License-Identifier: GPL-2.0
/*
 * The knob schema (src/schema/knobs_table.c) against both of its users:
 *
 *  - sldctl's validator (knob.c) accepts every value at a bound and
 *    refuses the first one past it: bytes per entry, entries per list,
 *    numeric ranges, enum values; a full list fits the module's write
 *    limit (max_len);
 *  - the module's knobs: every SLD_KNOB(name, var) in a src/ .c file is in the
 *    table, var points at the entry of that name, and every entry of the
 *    table is an SLD_KNOB() of the module;
 *  - sldctl's bash completion lists exactly the table's scalar knobs.
 *
 * So a knob added, renamed or bounded differently on one side only fails
 * here. SRC_DIR and COMPLETION are given by tests/unit/schema.mk.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/knob.h"
#include "schema/knobs_table.h"
#include "src_dirs.h"

/* A valid list entry of exactly len bytes for the knob's entry kind. */
static char *entry_of(const struct sld_knob_schema *d, size_t len, int seq)
{
	char *s = malloc(len + 1);
	size_t i = 0;

	assert_non_null(s);
	if (d->entry == SLD_KE_PATH || d->entry == SLD_KE_CGROUP)
		s[i++] = '/';
	for (; i < len; i++)
		s[i] = 'a' + (i + seq) % 26;
	/* A task-name pattern matches at most 15 characters: stars fill up. */
	for (i = SLD_COMM_LEN - 2; d->entry == SLD_KE_COMM && i + 2 < len; i++)
		s[i] = '*';
	/* A gid: '@' and digits, below 4294967295 with any two last ones. */
	for (i = 0; d->entry == SLD_KE_ID && i < len; i++)
		s[i] = i ? "42949671000"[(i - 1) % 11] : '@';
	s[len] = '\0';
	/* Distinct entries: the last two bytes carry seq. */
	if (len >= 3) {
		s[len - 2] = '0' + (seq / 10) % 10;
		s[len - 1] = '0' + seq % 10;
	}
	return s;
}

static int check(const struct sld_knob_schema *d, const char *v)
{
	char buf[8192], why[KNOB_WHY_MAX];

	assert_true(strlen(v) < sizeof(buf));
	strcpy(buf, v);
	return knob_check_value(d, buf, why, sizeof(why));
}

static void walk_scalar(const struct sld_knob_schema *d)
{
	char v[32];
	unsigned int i;

	switch (d->type) {
	case SLD_KT_BOOL:
		assert_int_equal(check(d, "Y"), 0);
		assert_int_equal(check(d, "N"), 0);
		assert_int_equal(check(d, "2"), -1);
		assert_int_equal(check(d, "YY"), -1);
		break;
	case SLD_KT_INT:
		snprintf(v, sizeof(v), "%d", d->min);
		assert_int_equal(check(d, v), 0);
		snprintf(v, sizeof(v), "%d", d->max);
		assert_int_equal(check(d, v), 0);
		/* The largest value fits the module's write limit. */
		assert_true(strlen(v) <= d->max_len);
		snprintf(v, sizeof(v), "%d", d->min - 1);
		assert_int_equal(check(d, v), -1);
		snprintf(v, sizeof(v), "%d", d->max + 1);
		assert_int_equal(check(d, v), -1);
		assert_int_equal(check(d, ""), -1);
		break;
	case SLD_KT_ENUM:
		assert_true(d->nvalues > 0);
		for (i = 0; i < d->nvalues; i++) {
			assert_int_equal(check(d, d->values[i]), 0);
			assert_true(strlen(d->values[i]) <= d->max_len);
			snprintf(v, sizeof(v), "%sx", d->values[i]);
			assert_int_equal(check(d, v), -1);
		}
		assert_int_equal(check(d, ""), -1);
		break;
	case SLD_KT_LIST:
		fail_msg("%s: a list among the scalars", d->name);
	}
}

/* Fill cur with n distinct valid entries of the longest length. */
static void fill(const struct sld_knob_schema *d, struct name_list *cur, int n)
{
	int i;

	cur->n = 0;
	for (i = 0; i < n; i++)
		cur->v[cur->n++] = entry_of(d, d->max_entry_len, i);
}

static void walk_list(const struct sld_knob_schema *d)
{
	char why[KNOB_WHY_MAX], *e, *edit, *joined, *one[1];
	struct name_list cur, after;
	size_t signed_len;
	int skipped;

	assert_true(d->max_entries > 0 && d->max_entries <= KNOB_LIST_MAX);
	assert_true(d->max_entry_len > 0);
	/* Bytes per entry: the longest passes, one more byte does not. */
	e = entry_of(d, d->max_entry_len, 1);
	assert_int_equal(check(d, e), 0);
	free(e);
	e = entry_of(d, d->max_entry_len + 1, 1);
	assert_int_equal(check(d, e), -1);
	free(e);

	/* Entries: the last one still fits, the next is refused. */
	one[0] = entry_of(d, d->max_entry_len, 99);
	fill(d, &cur, d->max_entries - 1);
	assert_int_equal(list_plan(d, &cur, true, one, 1, &after,
				   &edit, &skipped, why, sizeof(why)), 0);
	assert_int_equal(after.n, (int)d->max_entries);
	/* The whole list, and an edit of all of it, fit one module write. */
	joined = list_join(&after);
	assert_true(strlen(joined) <= d->max_len);
	signed_len = strlen(joined) + after.n;
	assert_true(signed_len <= d->max_len);
	free(joined);
	free(edit);
	list_free(&after);
	list_free(&cur);
	fill(d, &cur, d->max_entries);
	assert_int_equal(list_plan(d, &cur, true, one, 1, &after,
				   &edit, &skipped, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "full"));
	list_free(&after);
	list_free(&cur);
	free(one[0]);
}

static void test_validator_bounds(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < SLD_KN_COUNT; i++) {
		const struct sld_knob_schema *d = &sld_knob_schema[i];

		print_message("# %s\n", d->name);
		assert_non_null(d->name);
		assert_non_null(d->help);
		assert_true(d->max_len > 0);
		assert_ptr_equal(knob_find(d->name), d);
		/* Scalars first: sldctl's policy commands rely on it. */
		assert_int_equal(d->type == SLD_KT_LIST, i >= SLD_KN_NSCALARS);
		if (d->type == SLD_KT_LIST)
			walk_list(d);
		else
			walk_scalar(d);
	}
	assert_null(knob_find("no_such_knob"));
}

/* The issue that started this: what the module takes, sldctl takes. */
static void test_module_values(void **state)
{
	(void)state;
	assert_int_equal(knob_find("exempt_path")->max_entries, 16);
	assert_int_equal(knob_find("exempt_cgroup")->max_entries, 16);
	assert_int_equal(knob_find("exempt_comm")->max_entries, 32);
	assert_int_equal(knob_find("safe_modules")->max_entries, 64);
	assert_int_equal(knob_find("exempt_path")->max_entry_len, 255);
	assert_int_equal(knob_find("exempt_comm")->max_entry_len, 31);
	assert_int_equal(knob_find("max_tasks")->min, 16);
	assert_int_equal(knob_find("max_tasks")->max, 262144);
	assert_int_equal(knob_find("tasks_per_uid")->min, 1);
}

/* ---- the module's SLD_KNOB()s ---------------------------------------------- */

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *s = NULL;
	size_t n = 0;

	assert_non_null(f);
	assert_true(getdelim(&s, &n, '\0', f) > 0);
	fclose(f);
	return s;
}

/* "SLD_KN_" + upper(name): the enum constant of a knob. */
static void id_of(const char *name, char *id, size_t n)
{
	size_t i, k = snprintf(id, n, "SLD_KN_");

	for (i = 0; name[i] && k + 1 < n; i++)
		id[k++] = toupper((unsigned char)name[i]);
	id[k] = '\0';
}

/* Checks one SLD_KNOB(name, var) of text; marks name in seen. */
static void check_knob(const char *file, const char *text, const char *name,
		       const char *var, bool *seen)
{
	const struct sld_knob_schema *d = sld_knob_schema_find(name);
	char def[128], want[160], id[64];
	const char *at, *end;

	if (!d)
		fail_msg("%s: module knob %s is not in the schema", file, name);
	seen[d - sld_knob_schema] = true;
	/* static struct sld_knob var = { .schema = &sld_knob_schema[ID], */
	snprintf(def, sizeof(def), "struct sld_knob %s = {", var);
	at = strstr(text, def);
	if (!at)
		fail_msg("%s: no definition of %s", file, var);
	end = strstr(at, "};");
	id_of(name, id, sizeof(id));
	snprintf(want, sizeof(want), ".schema = &sld_knob_schema[%s]", id);
	at = strstr(at, want);
	if (!at || at > end)
		fail_msg("%s: %s (knob %s) does not use %s", file, var, name, want);
}

static void scan_file(const char *file, bool *seen, int *nknobs)
{
	char *text = slurp(file), *p = text;
	char name[64], var[64];

	while ((p = strstr(p, "\nSLD_KNOB("))) {
		p += strlen("\nSLD_KNOB(");
		if (sscanf(p, "%63[a-z_], %63[a-z_]);", name, var) != 2)
			fail_msg("%s: cannot read SLD_KNOB(%.40s", file, p);
		check_knob(file, text, name, var, seen);
		(*nknobs)++;
	}
	free(text);
}

static void scan_dir(const char *dname, bool *seen, int *nknobs)
{
	char path[8192];
	struct dirent *e;
	DIR *dir;

	dir = opendir(dname);
	assert_non_null(dir);
	while ((e = readdir(dir))) {
		size_t len = strlen(e->d_name);

		if (len < 3 || strcmp(e->d_name + len - 2, ".c"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dname, e->d_name);
		scan_file(path, seen, nknobs);
	}
	closedir(dir);
}

static void test_module_knobs(void **state)
{
	bool seen[SLD_KN_COUNT] = { false };
	char dname[4096];
	int nknobs = 0;
	unsigned int i;

	(void)state;
	for (i = 0; i < MODULE_DIRS; i++) {
		snprintf(dname, sizeof(dname), "%s%s", SRC_DIR, module_dirs[i]);
		scan_dir(dname, seen, &nknobs);
	}
	for (i = 0; i < SLD_KN_COUNT; i++)
		if (!seen[i])
			fail_msg("schema knob %s has no SLD_KNOB() in %s",
				 sld_knob_schema[i].name, SRC_DIR);
	/* Each knob once: a second SLD_KNOB() of one name fails the build. */
	assert_int_equal(nknobs, SLD_KN_COUNT);
}

/* ---- sldctl's completion ----------------------------------------------- */

static void test_completion(void **state)
{
	char *text = slurp(COMPLETION), *p, *q, want[1024] = "";
	unsigned int i;

	(void)state;
	for (i = 0; i < SLD_KN_COUNT; i++)
		if (sld_knob_schema[i].type != SLD_KT_LIST)
			snprintf(want + strlen(want), sizeof(want) - strlen(want),
				 "%s%s", *want ? " " : "", sld_knob_schema[i].name);
	p = strstr(text, "local knobs=\"");
	assert_non_null(p);
	p += strlen("local knobs=\"");
	q = strchr(p, '"');
	assert_non_null(q);
	*q = '\0';
	assert_string_equal(p, want);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_validator_bounds),
		cmocka_unit_test(test_module_values),
		cmocka_unit_test(test_module_knobs),
		cmocka_unit_test(test_completion),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
