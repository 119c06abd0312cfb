// SPDX-License-Identifier: GPL-2.0
/*
 * Shared plumbing of the commands that edit knobs and the configuration:
 * registry, exempt and policy (edit_cmd.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edit_cmd.h"
#include "lib/config.h"
#include "lib/modchange.h"
#include "lib/named_modules.h"
#include "sldctl.h"
#include "lib/util.h"

int admin_dispatch(const char *cmd, const struct admin_action *actions,
		   int argc, char **argv)
{
	const struct admin_action *x;

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: sldctl %s ACTION ... (actions:", cmd);
		for (x = actions; x->name; x++)
			printf(" %s", x->name);
		printf("; sldctl %s ACTION --help for more)\n", cmd);
		return SLDCTL_EXIT_OK;
	}
	for (x = actions; argc >= 2 && x->name; x++)
		if (!strcmp(argv[1], x->name))
			return x->fn(argc - 1, argv + 1);
	if (argc < 2)
		fprintf(stderr, "sldctl %s: missing action", cmd);
	else
		fprintf(stderr, "sldctl %s: unknown action '%s'", cmd,
			sldctl_q(argv[1]));
	fprintf(stderr, " (one of:");
	for (x = actions; x->name; x++)
		fprintf(stderr, " %s", x->name);
	fprintf(stderr, ")\n");
	return SLDCTL_EXIT_ERROR;
}

static int config_path(struct admin *a)
{
	const char *c = cli_str(a->cli, "config");
	const char *env = getenv("SLDCTL_CONFIG");

	a->config_given = c || env;
	if (c || env) {
		if (strlen(c ? c : env) >= sizeof(a->config)) {
			fprintf(stderr, "sldctl %s: configuration file name too long\n",
				a->cli->cmd);
			return -1;
		}
		strcpy(a->config, c ? c : env);
		return 0;
	}
	if (sldctl_path(a->config, sizeof(a->config), CONF_MAIN)) {
		fprintf(stderr, "sldctl %s: SLDCTL_ROOT is too long\n", a->cli->cmd);
		return -1;
	}
	return 0;
}

int admin_begin(struct admin *a, const struct cli *c, bool writes)
{
	memset(a, 0, sizeof(*a));
	a->cli = c;
	a->persist = cli_flag(c, "persist");
	a->loaded = knob_module_loaded();
	if (config_path(a))
		return SLDCTL_EXIT_ERROR;
	if (writes && !a->loaded && !a->persist) {
		fprintf(stderr, "sldctl %s: sld_compat is not loaded (no %s); load it with 'modprobe sld_compat', or add --persist to change only the configuration\n",
			c->cmd, PARAMS_DIR);
		return SLDCTL_EXIT_ERROR;
	}
	if (writes && (a->loaded || !a->config_given) && !sldctl_is_root()) {
		fprintf(stderr, "sldctl %s: must be run as root (the knobs in %s and %s are root-only)\n",
			c->cmd, PARAMS_DIR, CONF_DIR);
		return SLDCTL_EXIT_ERROR;
	}
	if (c->json) {
		json_init(&a->j, stdout, true);
		json_begin_object(&a->j);
		if (writes) {
			json_key(&a->j, "changes");
			json_begin_array(&a->j);
		}
	}
	return SLDCTL_EXIT_OK;
}

int admin_end(struct admin *a, int rc)
{
	if (!a->cli->json)
		return rc;
	if (a->j.depth > 1)
		json_end_array(&a->j);
	json_field_uint(&a->j, "exit", rc);
	json_end_object(&a->j);
	json_end(&a->j);
	return rc;
}

static int load_config(const struct admin *a, struct conf *cf)
{
	char dir[PATH_MAX];

	conf_init(cf);
	if (a->config_given)
		return conf_load_file(cf, a->config, 1) == -ENOMEM ? -ENOMEM : 0;
	snprintf(dir, sizeof(dir), "%s", a->config);
	return conf_load_dir(cf, dirname(dir));
}

static const struct conf_entry *conf_get(const struct conf *cf, const char *key)
{
	size_t i;

	for (i = 0; i < cf->nent; i++)
		if (!strcmp(cf->ent[i].key, key))
			return &cf->ent[i];
	return NULL;
}

int admin_current(const struct admin *a, const char *knob, char **value,
		  const char **source)
{
	const struct conf_entry *e;
	struct conf cf;
	int r;

	*value = NULL;
	if (a->loaded) {
		*source = "module";
		return knob_read(knob, value);
	}
	*source = "configuration";
	r = load_config(a, &cf);
	e = r ? NULL : conf_get(&cf, knob);
	if (e && !(*value = strdup(e->value)))
		r = -ENOMEM;
	conf_free(&cf);
	return r;
}

/* After --persist: warn if a drop-in overrides what we wrote. */
static void check_override(const struct admin *a, const char *knob)
{
	const struct conf_entry *e;
	struct conf cf;

	if (a->config_given || load_config(a, &cf))
		return;
	e = conf_get(&cf, knob);
	if (e && strcmp(e->file, a->config))
		fprintf(stderr, "sldctl %s: note: %s:%u also sets %s and overrides %s\n",
			a->cli->cmd, e->file, e->line, knob, a->config);
	conf_free(&cf);
}

static void print_change(void *ctx, const struct modstate *m, const char *line)
{
	(void)ctx;
	(void)m;
	printf("  %s\n", line);
}

static void json_change(void *ctx, const struct modstate *m, const char *line)
{
	struct json *j = ctx;

	json_begin_object_flat(j);
	json_field_str(j, "module", m->name);
	json_field_str(j, "verdict", m->verdict);
	json_field_str(j, "reason", m->reason);
	json_field_bool(j, "watched", m->watched);
	json_field_bool(j, "sld_disabled", m->disabled);
	json_field_bool(j, "refuse_too_late", m->late);
	json_field_str(j, "change", line);
	json_end_object(j);
}

/*
 * What the write did to the loaded modules (sld_compat re-decides them):
 * one line each that changed. before NULL: not such a knob, or not known.
 */
static void report_modules(struct admin *a, const struct modstates *before)
{
	struct modstates after;

	if (a->cli->json)
		json_key(&a->j, "modules_changed");
	if (!before || modstates_read(&after)) {
		if (a->cli->json)
			json_null(&a->j);
		return;
	}
	if (a->cli->json) {
		json_begin_array(&a->j);
		modchange_each(before, &after, json_change, &a->j);
		json_end_array(&a->j);
	} else if (!modchange_each(before, &after, print_change, NULL)) {
		printf("  no loaded module changed\n");
	}
	modstates_free(&after);
}

static void report(struct admin *a, const char *knob, const char *full,
		   bool written, int skipped, const struct modstates *before)
{
	if (!a->cli->json) {
		printf("sld_compat.%s = %s%s", knob, full,
		       a->loaded ? "" : " (module not loaded)");
		if (a->persist)
			printf(" (saved in %s)", a->config);
		putchar('\n');
		report_modules(a, before);
		return;
	}
	json_begin_object(&a->j);
	json_field_str(&a->j, "knob", knob);
	json_field_str(&a->j, "value", full);
	json_field_bool(&a->j, "module_written", written);
	json_field_str(&a->j, "persisted", a->persist ? a->config : NULL);
	json_field_uint(&a->j, "already_listed", skipped);
	report_modules(a, before);
	json_end_object(&a->j);
}

static bool is_list(const char *knob)
{
	const struct sld_knob_schema *d = knob_find(knob);

	return d && knob_is_list(d);
}

int admin_apply(struct admin *a, const char *knob, const char *value,
		const char *full, int skipped)
{
	char why[PATH_MAX + KNOB_WHY_MAX];
	struct modstates before, *track = NULL;
	int err;

	/* The module re-decides its loaded modules: say what moved. */
	if (a->loaded && value && modchange_knob(knob) && !modstates_read(&before))
		track = &before;
	if (a->loaded && value) {
		err = knob_write(knob, value, why, sizeof(why));
		if (err) {
			fprintf(stderr, "sldctl %s: %s\n", a->cli->cmd, why);
			if (track)
				modstates_free(track);
			return err == -EINVAL ? SLDCTL_EXIT_FOUND : SLDCTL_EXIT_ERROR;
		}
	}
	if (a->persist) {
		/* An empty list is the default: the file stops setting it. */
		err = conf_set_value(a->config, knob, is_list(knob) && !strcmp(full, "-") ?
				     NULL : full, why, sizeof(why));
		if (err) {
			fprintf(stderr, "sldctl %s: %s\n", a->cli->cmd, why);
			if (track)
				modstates_free(track);
			return SLDCTL_EXIT_ERROR;
		}
		check_override(a, knob);
		if (!a->config_given && named_modules_knob(knob) &&
		    named_modules_update(why, sizeof(why)))
			fprintf(stderr, "sldctl %s: note: cannot record the modules the configuration names (their loads will not re-apply it until 'sldctl apply'): %s\n",
				a->cli->cmd, why);
	}
	report(a, knob, full, a->loaded && value, skipped, track);
	if (track)
		modstates_free(track);
	return SLDCTL_EXIT_OK;
}

int admin_check_names(const struct admin *a, const struct sld_knob_schema *d,
		      char **names, int nnames, bool add)
{
	char why[PATH_MAX + KNOB_WHY_MAX], *buf;
	int i, r, rc = SLDCTL_EXIT_OK;

	for (i = 0; i < nnames; i++) {
		buf = strdup(names[i]);
		if (!buf)
			return SLDCTL_EXIT_ERROR;
		r = knob_check_value(d, buf, why, sizeof(why));
		if (!r && add)
			r = knob_check_exists(d, buf, why, sizeof(why));
		free(buf);
		if (!r && add && d->entry == SLD_KE_CGROUP &&
		    knob_cgroup_pending(names[i]))
			fprintf(stderr, "sldctl %s: note: cgroup %s does not exist yet; the rule waits for it (shown as pending in 'sldctl status')\n",
				a->cli->cmd, sldctl_q(names[i]));
		if (!r)
			continue;
		fprintf(stderr, "sldctl %s: bad %s '%s': %s\n", a->cli->cmd,
			knob_entry_what(d), sldctl_q(names[i]), why);
		rc = SLDCTL_EXIT_ERROR;
	}
	return rc;
}

int admin_list_plan(struct admin *a, const struct sld_knob_schema *d, bool add,
		    char **names, int nnames, struct list_change *ch)
{
	struct name_list cur, after;
	char why[KNOB_WHY_MAX], *val, *edit;
	const char *src;
	int r;

	memset(ch, 0, sizeof(*ch));
	r = admin_current(a, d->name, &val, &src);
	if (r) {
		fprintf(stderr, "sldctl %s: cannot read %s from the %s: %s\n",
			a->cli->cmd, d->name, src, r == -ENOENT ?
			"this sld_compat has no such knob (module too old?)" : strerror(-r));
		return SLDCTL_EXIT_ERROR;
	}
	r = list_parse(val ? val : "", &cur, why, sizeof(why));
	free(val);
	if (!r)
		r = list_plan(d, &cur, add, names, nnames, &after,
			      &edit, &ch->skipped, why, sizeof(why));
	list_free(&cur);
	if (r) {
		fprintf(stderr, "sldctl %s: %s: %s\n", a->cli->cmd, d->name, why);
		return SLDCTL_EXIT_ERROR;
	}
	ch->d = d;
	ch->full = list_join(&after);
	/*
	 * The whole new list: what we checked is what is set. An emptied
	 * list goes as the edit ("-a,-b"), which every sld_compat accepts
	 * (its registry lists take no "-" alone).
	 */
	ch->write = !edit ? NULL : after.n ? strdup(ch->full ? ch->full : "") : edit;
	if (ch->write != edit)
		free(edit);
	list_free(&after);
	if (!ch->full || (edit && !ch->write)) {
		admin_changes_free(ch, 1);
		return SLDCTL_EXIT_ERROR;
	}
	return SLDCTL_EXIT_OK;
}

void admin_changes_free(struct list_change *ch, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		free(ch[i].write);
		free(ch[i].full);
		memset(&ch[i], 0, sizeof(ch[i]));
	}
}

int admin_changes_apply(struct admin *a, struct list_change *ch, int n)
{
	int i, rc = SLDCTL_EXIT_OK;

	for (i = 0; i < n && !rc; i++) {
		if (ch[i].skipped)
			fprintf(stderr, "sldctl %s: note: %d already listed in %s\n",
				a->cli->cmd, ch[i].skipped, ch[i].d->name);
		rc = admin_apply(a, ch[i].d->name, ch[i].write, ch[i].full,
				 ch[i].skipped);
	}
	admin_changes_free(ch, n);
	return rc;
}

void admin_json_list(struct json *j, const char *value)
{
	struct name_list l;
	char why[KNOB_WHY_MAX];
	int i;

	if (!value || list_parse(value, &l, why, sizeof(why))) {
		json_null(j);
		return;
	}
	json_begin_array(j);
	for (i = 0; i < l.n; i++)
		json_string(j, l.v[i]);
	json_end_array(j);
	list_free(&l);
}

void admin_json_lines(struct json *j, const char *path_fmt)
{
	char path[PATH_MAX], *text, **lines;
	int i, n;

	if (sldctl_path(path, sizeof(path), "%s", path_fmt) ||
	    sldctl_read_value(path, &text)) {
		json_null(j);
		return;
	}
	n = sldctl_split_lines(text, &lines);
	json_begin_array(j);
	for (i = 0; i < n; i++)
		json_string(j, lines[i]);
	json_end_array(j);
	if (n > 0)
		free(lines);
	free(text);
}

int admin_show(int argc, char **argv, const char *cmd,
	       void (*show)(struct admin *a))
{
	struct cli c = { .cmd = cmd, .usage = "[--json]" };
	struct admin a;
	int rc;

	rc = cli_parse(&c, argc, argv);
	if (rc != CLI_OK)
		return cli_exit(rc);
	rc = admin_begin(&a, &c, false);
	if (rc)
		return rc;
	show(&a);
	return admin_end(&a, SLDCTL_EXIT_OK);
}
