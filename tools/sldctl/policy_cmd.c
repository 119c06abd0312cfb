// SPDX-License-Identifier: GPL-2.0
/*
 * sldctl policy get|set: the scalar knobs.
 *
 *   policy get [--json] [KNOB...]       (default: all of them)
 *   policy set [--persist] [--config FILE] [KNOB] VALUE
 *
 * KNOB is on_hypervisor (the default) or another scalar knob of the
 * schema (src/schema/knobs_table.h): enabled, verbose, exempt_proactive,
 * trust_sld_safe, max_tasks, tasks_per_uid. Exit: 0 done, 1 the module refused the value,
 * 2 bad input, not root, not loaded without --persist, unknown knob.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edit_cmd.h"
#include "sldctl.h"
#include "lib/util.h"

/* The scalars come first in the schema, in the order they are shown. */
#define NSCALARS	SLD_KN_NSCALARS

static const struct sld_knob_schema *scalar(const struct cli *c, const char *name)
{
	const struct sld_knob_schema *d = knob_find(name);
	size_t i;

	if (d && !knob_is_list(d))
		return d;
	fprintf(stderr, "sldctl %s: unknown policy knob '%s' (one of:", c->cmd,
		sldctl_q(name));
	for (i = 0; i < NSCALARS; i++)
		fprintf(stderr, "%s %s", i ? "," : "", sld_knob_schema[i].name);
	fprintf(stderr, ")\n");
	return NULL;
}

static void show(struct admin *a, const char *name)
{
	const char *src;
	char *v;
	int r = admin_current(a, name, &v, &src);

	if (a->cli->json) {
		json_field_str(&a->j, name, r ? NULL : v);
	} else {
		printf("%s: %s (%s)\n", name, r ? "(not supported by this sld_compat)" :
		       v ? v : "(not set)", src);
	}
	free(v);
}

static int policy_get(int argc, char **argv)
{
	struct cli c = { .cmd = "policy get", .min_args = 0, .max_args = NSCALARS,
			 .usage = "[--json] [KNOB...]" };
	struct admin a;
	size_t i;
	int k, rc;

	rc = cli_parse(&c, argc, argv);
	if (rc != CLI_OK)
		return cli_exit(rc);
	for (k = 0; k < c.nargs; k++) {
		if (!scalar(&c, c.args[k]))
			return SLDCTL_EXIT_ERROR;
		for (i = 0; i < (size_t)k; i++)
			if (!strcmp(c.args[i], c.args[k]))
				return cli_error(&c, "'%s' given twice", c.args[k]),
				       SLDCTL_EXIT_ERROR;
	}
	rc = admin_begin(&a, &c, false);
	if (rc)
		return rc;
	if (c.json) {
		json_field_str(&a.j, "source", a.loaded ? "module" : "configuration");
	}
	for (i = 0; !c.nargs && i < NSCALARS; i++)
		show(&a, sld_knob_schema[i].name);
	for (k = 0; k < c.nargs; k++)
		show(&a, c.args[k]);
	return admin_end(&a, SLDCTL_EXIT_OK);
}

static int policy_set(int argc, char **argv)
{
	static const struct cli_opt opts[] = { ADMIN_WRITE_OPTS, { NULL, 0, false, false } };
	struct cli c = { .cmd = "policy set", .opts = opts, .min_args = 1, .max_args = 2,
			 .usage = "[--persist] [--config FILE] [--json] [KNOB] VALUE" };
	char val[64], why[KNOB_WHY_MAX];
	const struct sld_knob_schema *d;
	const char *value;
	struct admin a;
	int rc;

	rc = cli_parse(&c, argc, argv);
	if (rc != CLI_OK)
		return cli_exit(rc);
	d = scalar(&c, c.nargs == 2 ? c.args[0] : "on_hypervisor");
	if (!d)
		return SLDCTL_EXIT_ERROR;
	value = c.args[c.nargs - 1];
	if (strlen(value) >= sizeof(val)) {
		snprintf(why, sizeof(why), "value too long");
	} else {
		strcpy(val, value);
		if (!knob_check_value(d, val, why, sizeof(why)))
			goto good;
	}
	fprintf(stderr, "sldctl %s: bad value for %s: %s\n", c.cmd, d->name, why);
	return SLDCTL_EXIT_ERROR;
good:
	rc = admin_begin(&a, &c, true);
	if (rc)
		return rc;
	return admin_end(&a, admin_apply(&a, d->name, val, val, 0));
}

int cmd_policy(int argc, char **argv)
{
	static const struct admin_action actions[] = {
		{ "get", policy_get },
		{ "set", policy_set },
		{ NULL, NULL },
	};

	return admin_dispatch("policy", actions, argc, argv);
}
