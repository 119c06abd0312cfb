// SPDX-License-Identifier: GPL-2.0
/*
 * The table of known hypervisors (src/schema/hypervisors.c) that the
 * verdict, the registry, hvwatch's profiles and sldctl all read: every
 * entry well formed, found under either spelling of its name, and the
 * verdict's view (unprepared ones only) exactly the table's. Also that no
 * other source file spells a table name or entry function as a string of
 * its own again.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "schema/hypervisors.h"
#include "schema/knobs_table.h"
#include "src_dirs.h"

static bool c_identifier(const char *s)
{
	if (!*s || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++)
		if (!(*s == '_' || (*s >= '0' && *s <= '9') ||
		      (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
			return false;
	return true;
}

static void test_entries(void **state)
{
	unsigned int i, k, unprepared = 0;

	(void)state;
	assert_true(SLD_KNOWN_HVS >= 3);
	for (i = 0; i < SLD_KNOWN_HVS; i++) {
		const struct sld_known_hv *hv = &sld_known_hvs[i];
		const char *c;

		assert_non_null(hv->module);
		assert_true(strlen(hv->module) >= 1 &&
			    strlen(hv->module) <= SLD_MODNAME_LEN);
		/* As the kernel spells it: no '-'. */
		for (c = hv->module; *c; c++)
			assert_true(sld_modname_char(*c) && *c != '-');
		assert_true(hv->kind == SLD_HV_UNPREPARED ||
			    hv->kind == SLD_HV_GUEST_HANDLER ||
			    hv->kind == SLD_HV_SWITCHES_DEBUGCTL);
		assert_non_null(hv->why);
		assert_true(strlen(hv->why) > 10);
		if (hv->entry)
			assert_true(c_identifier(hv->entry));
		if (hv->title)
			assert_non_null(strstr(hv->title, hv->module));
		for (k = 0; k < i; k++)
			assert_false(sld_modname_eq(hv->module, sld_known_hvs[k].module));
		unprepared += hv->kind == SLD_HV_UNPREPARED;
	}
	assert_true(unprepared >= 2);
}

/* Found under both spellings; the verdict sees the unprepared ones only. */
static void test_lookup(void **state)
{
	unsigned int i, n = 0;
	const char *why, *name;

	(void)state;
	for (i = 0; i < SLD_KNOWN_HVS; i++) {
		const struct sld_known_hv *hv = &sld_known_hvs[i];
		char dashed[SLD_MODNAME_LEN + 1], *c;

		strcpy(dashed, hv->module);
		for (c = dashed; *c; c++)
			if (*c == '_')
				*c = '-';
		assert_ptr_equal(sld_known_hv_find(hv->module), hv);
		assert_ptr_equal(sld_known_hv_find(dashed), hv);
		why = NULL;
		assert_int_equal(sld_known_hypervisor(dashed, &why),
				 hv->kind == SLD_HV_UNPREPARED);
		assert_int_equal(sld_known_switches_debugctl(dashed),
				 hv->kind == SLD_HV_SWITCHES_DEBUGCTL);
		if (hv->kind == SLD_HV_UNPREPARED) {
			assert_ptr_equal(why, hv->why);
			name = sld_known_hypervisor_at(n++, &why);
			assert_ptr_equal(name, hv->module);
			assert_ptr_equal(why, hv->why);
		}
	}
	assert_null(sld_known_hypervisor_at(n, NULL));
	assert_null(sld_known_hv_find(NULL));
	assert_null(sld_known_hv_find(""));
	assert_null(sld_known_hv_find("vbox"));
	assert_false(sld_known_hypervisor(NULL, NULL));
}

/* A table value as a string literal outside comments, in path. */
static void no_copy_in(const char *path, const char *word)
{
	char quoted[128], *line = NULL, *hit, *t;
	size_t cap = 0;
	unsigned int no = 0;
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	snprintf(quoted, sizeof(quoted), "\"%s\"", word);
	while (getline(&line, &cap, f) > 0) {
		no++;
		hit = strstr(line, quoted);
		if (!hit)
			continue;
		t = line + strspn(line, " \t");
		if (*t == '*' || !strncmp(t, "/*", 2) || !strncmp(t, "//", 2))
			continue;
		if (strstr(line, "/*") && strstr(line, "/*") < hit)
			continue;
		fail_msg("%s:%u spells %s again; use the table (src/schema/hypervisors.h)",
			 path, no, quoted);
	}
	free(line);
	fclose(f);
}

static void no_copy_under(const char *dir)
{
	struct dirent *e;
	char path[4096];
	size_t len;
	DIR *d = opendir(dir);
	unsigned int i;

	assert_non_null(d);
	while ((e = readdir(d))) {
		len = strlen(e->d_name);
		if (len < 3 || strcmp(e->d_name + len - 2, ".c"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		for (i = 0; i < SLD_KNOWN_HVS; i++) {
			no_copy_in(path, sld_known_hvs[i].module);
			if (sld_known_hvs[i].entry)
				no_copy_in(path, sld_known_hvs[i].entry);
		}
	}
	closedir(d);
}

static void test_one_place(void **state)
{
	char dname[4096];
	unsigned int i;

	(void)state;
	for (i = 0; i < MODULE_DIRS; i++) {
		snprintf(dname, sizeof(dname), "%s%s", SRC_DIR, module_dirs[i]);
		no_copy_under(dname);
	}
	no_copy_under(SRC_DIR "/x86scan");
	no_copy_under(TOOLS_DIR);
	no_copy_under(TOOLS_DIR "/lib");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_entries),
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_one_place),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
