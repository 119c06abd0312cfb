// SPDX-License-Identifier: GPL-2.0
/*
 * sldctl registry list|add|remove: the admin's module lists (knobs
 * safe_modules and hypervisor_modules), the built-in table and what the
 * loaded module has seen (/proc/sld_compat_modules).
 *
 *   registry list [--json]
 *   registry add --safe|--hypervisor [--persist] [--config FILE] NAME...
 *   registry remove [--persist] [--config FILE] NAME...
 *
 * Exit: 0 done, 1 the module refused the value, 2 bad input, not root,
 * not loaded without --persist, or a file could not be written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edit_cmd.h"
#include "schema/hypervisors.h"
#include "sldctl.h"
#include "lib/util.h"
#include "modlib/verdict.h"

#define SEEN_FILE	"/proc/sld_compat_modules"

/*
 * One entry of the table of known hypervisors shared with the module
 * (src/schema): the verdict it gives, why, and the condition it
 * holds under (NULL: always). Both views of `registry
 * list` print these, so text and JSON carry the same facts.
 */
static const char *builtin_entry(const struct sld_known_hv *hv,
				 const char **why, const char **cond)
{
	*why = hv->why;
	*cond = NULL;
	switch (hv->kind) {
	case SLD_HV_GUEST_HANDLER:
		*cond = "the kernel has handle_guest_split_lock";
		return "sld_safe";
	case SLD_HV_SWITCHES_DEBUGCTL:
		*cond = "the kernel is 6.14 or later and sets DEBUGCTL's bus-lock bit on AMD (elsewhere its SVM text is svm-only)";
		return "sld_safe";
	case SLD_HV_UNPREPARED:
		break;
	}
	return "hypervisor";
}

static void list_human(struct admin *a)
{
	const char *knobs[] = { "safe_modules", "hypervisor_modules" };
	const char *src, *why, *verdict, *cond;
	char path[4096], *v, *seen;
	size_t i;

	for (i = 0; i < 2; i++) {
		admin_current(a, knobs[i], &v, &src);
		printf("%s: %s (%s)\n", knobs[i], v ? v : "-", src);
		free(v);
	}
	for (i = 0; i < SLD_KNOWN_HVS; i++) {
		verdict = builtin_entry(&sld_known_hvs[i], &why, &cond);
		printf("built-in %s: %s (%s%s%s)\n", strcmp(verdict, "sld_safe") ?
		       verdict : "safe", sld_known_hvs[i].module, why,
		       cond ? "; only when " : "", cond ? cond : "");
	}
	if (sldctl_path(path, sizeof(path), SEEN_FILE) || sldctl_read_value(path, &seen)) {
		printf("seen: (%s)\n", a->loaded ? "no " SEEN_FILE : "sld_compat not loaded");
		return;
	}
	printf("seen by sld_compat:\n");
	for (v = strtok(seen, "\n"); v; v = strtok(NULL, "\n"))
		printf("  %s\n", v);
	free(seen);
}

static void list_json(struct admin *a)
{
	const char *knobs[] = { "safe_modules", "hypervisor_modules" };
	const char *src = NULL, *why, *verdict, *cond;
	char *v;
	size_t i;

	json_field_bool(&a->j, "loaded", a->loaded);
	for (i = 0; i < 2; i++) {
		admin_current(a, knobs[i], &v, &src);
		json_key(&a->j, knobs[i]);
		admin_json_list(&a->j, v ? v : "-");
		free(v);
	}
	json_field_str(&a->j, "source", src);
	json_key(&a->j, "builtin");
	json_begin_array(&a->j);
	for (i = 0; i < SLD_KNOWN_HVS; i++) {
		verdict = builtin_entry(&sld_known_hvs[i], &why, &cond);
		json_begin_object_flat(&a->j);
		json_field_str(&a->j, "name", sld_known_hvs[i].module);
		json_field_str(&a->j, "verdict", verdict);
		json_field_str(&a->j, "why", why);
		json_field_str(&a->j, "condition", cond);
		json_end_object(&a->j);
	}
	json_end_array(&a->j);
	json_key(&a->j, "seen");
	admin_json_lines(&a->j, SEEN_FILE);
}

static void show(struct admin *a)
{
	if (a->cli->json)
		list_json(a);
	else
		list_human(a);
}

static int registry_list(int argc, char **argv)
{
	return admin_show(argc, argv, "registry list", show);
}

/* The other list must not hold any of the names. */
static int check_conflict(struct admin *a, const char *other, char **names,
			  int n)
{
	struct name_list l;
	char why[KNOB_WHY_MAX], *v;
	const char *src;
	int i, rc = SLDCTL_EXIT_OK;

	if (admin_current(a, other, &v, &src) ||
	    list_parse(v ? v : "", &l, why, sizeof(why))) {
		free(v);
		return rc;
	}
	for (i = 0; i < n; i++) {
		if (list_find(&l, names[i]) < 0)
			continue;
		fprintf(stderr, "sldctl %s: '%s' is in %s; remove it there first\n",
			a->cli->cmd, sldctl_q(names[i]), other);
		rc = SLDCTL_EXIT_ERROR;
	}
	list_free(&l);
	free(v);
	return rc;
}

static int registry_add(int argc, char **argv)
{
	static const struct cli_opt opts[] = {
		{ "safe", 's', false, false },
		{ "hypervisor", 'H', false, false },
		ADMIN_WRITE_OPTS,
		{ NULL, 0, false, false },
	};
	struct cli c = { .cmd = "registry add", .opts = opts, .min_args = 1,
			 .max_args = KNOB_LIST_MAX,
			 .usage = "--safe|--hypervisor [--persist] [--config FILE] [--json] NAME..." };
	const struct sld_knob_schema *d;
	struct list_change ch;
	bool safe, hv;
	struct admin a;
	int rc;

	rc = cli_parse(&c, argc, argv);
	if (rc != CLI_OK)
		return cli_exit(rc);
	safe = cli_flag(&c, "safe");
	hv = cli_flag(&c, "hypervisor");
	if (safe == hv)
		return cli_error(&c, "give exactly one of --safe and --hypervisor"),
		       SLDCTL_EXIT_ERROR;
	d = knob_find(safe ? "safe_modules" : "hypervisor_modules");
	rc = admin_begin(&a, &c, true);
	if (rc)
		return rc;
	rc = admin_check_names(&a, d, c.args, c.nargs, true);
	if (!rc)
		rc = check_conflict(&a, safe ? "hypervisor_modules" : "safe_modules",
				    c.args, c.nargs);
	if (!rc)
		rc = admin_list_plan(&a, d, true, c.args, c.nargs, &ch);
	if (!rc)
		rc = admin_changes_apply(&a, &ch, 1);
	return admin_end(&a, rc);
}

/* Split names by the list that holds them; unknown names are errors. */
static int registry_remove(int argc, char **argv)
{
	static const struct cli_opt opts[] = { ADMIN_WRITE_OPTS, { NULL, 0, false, false } };
	struct cli c = { .cmd = "registry remove", .opts = opts, .min_args = 1,
			 .max_args = KNOB_LIST_MAX,
			 .usage = "[--persist] [--config FILE] [--json] NAME..." };
	const char *knobs[] = { "safe_modules", "hypervisor_modules" };
	char *by[2][KNOB_LIST_MAX], why[KNOB_WHY_MAX], *v;
	int n[2] = { 0, 0 }, i, k, rc, nch = 0;
	struct list_change ch[2];
	struct name_list l[2];
	const char *src;
	struct admin a;

	rc = cli_parse(&c, argc, argv);
	if (rc != CLI_OK)
		return cli_exit(rc);
	rc = admin_begin(&a, &c, true);
	if (rc)
		return rc;
	rc = admin_check_names(&a, knob_find(knobs[0]), c.args, c.nargs, false);
	for (k = 0; k < 2; k++) {
		l[k].n = 0;
		if (!admin_current(&a, knobs[k], &v, &src))
			list_parse(v ? v : "", &l[k], why, sizeof(why));
		free(v);
	}
	for (i = 0; !rc && i < c.nargs; i++) {
		k = list_find(&l[0], c.args[i]) >= 0 ? 0 :
		    list_find(&l[1], c.args[i]) >= 0 ? 1 : -1;
		if (k < 0) {
			fprintf(stderr, "sldctl %s: '%s' is in neither safe_modules nor hypervisor_modules\n",
				c.cmd, sldctl_q(c.args[i]));
			rc = SLDCTL_EXIT_ERROR;
		} else {
			by[k][n[k]++] = c.args[i];
		}
	}
	list_free(&l[0]);
	list_free(&l[1]);
	for (k = 0; !rc && k < 2; k++)
		if (n[k])
			rc = admin_list_plan(&a, knob_find(knobs[k]), false, by[k],
					     n[k], &ch[nch++]);
	if (rc)
		admin_changes_free(ch, nch);
	else
		rc = admin_changes_apply(&a, ch, nch);
	return admin_end(&a, rc);
}

int cmd_registry(int argc, char **argv)
{
	static const struct admin_action actions[] = {
		{ "list", registry_list },
		{ "add", registry_add },
		{ "remove", registry_remove },
		{ NULL, NULL },
	};

	return admin_dispatch("registry", actions, argc, argv);
}
