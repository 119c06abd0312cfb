// SPDX-License-Identifier: GPL-2.0
/*
 * sldctl exempt list|add|remove: tasks whose split locks sld_compat
 * handles without the kernel's penalty, by task name (exempt_comm),
 * executable path (exempt_path) or cgroup v2 path (exempt_cgroup).
 *
 *   exempt list [--json]
 *   exempt add|remove [--comm NAME]... [--path /ABS]... [--cgroup /CG]...
 *                     [--persist] [--config FILE] [--force]
 *
 * Paths must be absolute without . or .. components (and exist, on add).
 * add refuses a path that someone besides root decides (lib/path_trust.h:
 * the file not root's, or it or a directory on its way writable by a
 * group or every user) unless --force, which warns who could then
 * satisfy the rule.
 * Exit: 0 done, 1 the module refused the value, 2 bad input, not root,
 * not loaded without --persist, no such knob in this module, or a file
 * could not be written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edit_cmd.h"
#include "lib/path_trust.h"
#include "sldctl.h"
#include "lib/util.h"

static const struct {
	const char *opt;
	const char *knob;
} by_opt[] = {
	{ "comm", "exempt_comm" },
	{ "path", "exempt_path" },
	{ "cgroup", "exempt_cgroup" },
};

#define NKINDS	(sizeof(by_opt) / sizeof(by_opt[0]))

/*
 * The protected tasks with their counters, one a line as the module's
 * tasks file has them: the text view shows what --json's "tasks" holds.
 */
static void tasks_human(const struct admin *a)
{
	char path[4096], *tasks, *v;

	if (sldctl_path(path, sizeof(path), STATUS_DIR "/tasks") ||
	    sldctl_read_value(path, &tasks)) {
		printf("protected tasks: (%s)\n", a->loaded ?
		       "no " STATUS_DIR "/tasks" : "sld_compat not loaded");
		return;
	}
	printf("protected tasks:\n");
	for (v = strtok(tasks, "\n"); v; v = strtok(NULL, "\n"))
		printf("  %s\n", v);
	free(tasks);
}

static void list_human(struct admin *a)
{
	const char *src;
	char *v;
	size_t i;

	for (i = 0; i < NKINDS; i++) {
		int r = admin_current(a, by_opt[i].knob, &v, &src);

		printf("%s: %s (%s)\n", by_opt[i].knob,
		       r ? "(not supported by this sld_compat)" : v ? v : "-", src);
		free(v);
	}
	if (!admin_current(a, "exempt_proactive", &v, &src) && v)
		printf("exempt_proactive: %s (%s)\n", v, src);
	free(v);
	tasks_human(a);
}

static void list_json(struct admin *a)
{
	const char *src = NULL;
	char *v;
	size_t i;

	json_field_bool(&a->j, "loaded", a->loaded);
	for (i = 0; i < NKINDS; i++) {
		int r = admin_current(a, by_opt[i].knob, &v, &src);

		json_key(&a->j, by_opt[i].knob);
		admin_json_list(&a->j, r ? NULL : v ? v : "-");
		free(v);
	}
	json_key(&a->j, "exempt_proactive");
	admin_current(a, "exempt_proactive", &v, &src);
	json_string(&a->j, v);
	free(v);
	json_field_str(&a->j, "source", src);
	json_key(&a->j, "tasks");
	admin_json_lines(&a->j, STATUS_DIR "/tasks");
}

static void show(struct admin *a)
{
	if (a->cli->json)
		list_json(a);
	else
		list_human(a);
}

static int exempt_list(int argc, char **argv)
{
	return admin_show(argc, argv, "exempt list", show);
}

/* The trust model (README): a task name is the task's own to choose. */
#define COMM_FORGEABLE \
	"sldctl: note: exempt_comm matches task names, which any process can give itself\n" \
	"  (prctl PR_SET_NAME): every local user can obtain this exemption. On a\n" \
	"  multi-user host prefer --path (an executable users cannot write) or --cgroup.\n"

/*
 * exempt_path (exempt.c): the file as it is when written, and while root
 * owns it and only root may write it, the file later at that name (a
 * package upgrade); anyone allowed to execute it can obtain it.
 */
#define PATH_BOUND \
	"sldctl: note: exempt_path matches this file as it is now, and, while root owns it\n" \
	"  and only root may write it, the file later at this name (a package upgrade).\n" \
	"  A user's binary replaced, rewritten, chmod'ed or chown'ed must be added again.\n" \
	"  Any user allowed to execute the file can obtain the exemption.\n"

/*
 * Only root decides what each --path runs, or --force and a warning
 * saying who else could then obtain the exemption.
 */
static int check_paths(const struct cli *c, const struct cli_val *v)
{
	bool force = cli_flag(c, "force");
	char who[PATH_MAX + 256];
	int i, r, rc = SLDCTL_EXIT_OK;

	for (i = 0; i < v->n; i++) {
		r = path_trust(v->values[i], who, sizeof(who));
		if (!r)
			continue;
		if (force) {
			fprintf(stderr, "sldctl %s: warning: %s%s: with --force the rule relieves whatever %s puts at %s, and any program run from there\n",
				c->cmd, r < 0 ? "cannot tell who may change it: " : "",
				who, r < 0 ? "whoever may" : "that user or group",
				sldctl_q(v->values[i]));
			continue;
		}
		if (r > 0)
			fprintf(stderr, "sldctl %s: refused --path %s: %s, who could then get any program they put there relieved; give --force to add it anyway, or relieve that user's runs (run_allow, sldctl run) or a cgroup only root controls (--cgroup)\n",
				c->cmd, sldctl_q(v->values[i]), who);
		else
			fprintf(stderr, "sldctl %s: refused --path %s: cannot tell who may change it (%s); --force adds it anyway\n",
				c->cmd, sldctl_q(v->values[i]), who);
		rc = SLDCTL_EXIT_ERROR;
	}
	return rc;
}

static int exempt_edit(int argc, char **argv, bool add)
{
	static const struct cli_opt opts[] = {
		{ "comm", 0, true, true },
		{ "path", 0, true, true },
		{ "cgroup", 0, true, true },
		{ "force", 0, false, false },
		ADMIN_WRITE_OPTS,
		{ NULL, 0, false, false },
	};
	struct cli c = { .opts = opts, .min_args = 0, .max_args = 0,
			 .usage = "[--comm NAME]... [--path /ABS/PATH]... [--cgroup /CGROUP]... [--force] [--persist] [--config FILE] [--json]" };
	struct list_change ch[NKINDS];
	const struct cli_val *v;
	struct admin a;
	size_t i;
	int rc, any = 0, nch = 0;

	c.cmd = add ? "exempt add" : "exempt remove";
	rc = cli_parse(&c, argc, argv);
	if (rc != CLI_OK)
		return cli_exit(rc);
	for (i = 0; i < NKINDS; i++)
		any += cli_get(&c, by_opt[i].opt)->n;
	if (!any)
		return cli_error(&c, "nothing to %s: give --comm, --path or --cgroup",
				 add ? "add" : "remove"), SLDCTL_EXIT_ERROR;
	if (!add && cli_flag(&c, "force"))
		return cli_error(&c, "--force is for exempt add --path"), SLDCTL_EXIT_ERROR;
	rc = admin_begin(&a, &c, true);
	if (rc)
		return rc;
	for (i = 0; i < NKINDS && !rc; i++) {
		v = cli_get(&c, by_opt[i].opt);
		if (v->n)
			rc = admin_check_names(&a, knob_find(by_opt[i].knob),
					       (char **)v->values, v->n, add);
	}
	if (!rc && add)
		rc = check_paths(&c, cli_get(&c, "path"));
	for (i = 0; i < NKINDS && !rc; i++) {
		v = cli_get(&c, by_opt[i].opt);
		if (v->n)
			rc = admin_list_plan(&a, knob_find(by_opt[i].knob), add,
					     (char **)v->values, v->n, &ch[nch++]);
	}
	if (rc)
		admin_changes_free(ch, nch);
	else
		rc = admin_changes_apply(&a, ch, nch);
	if (!rc && add && cli_get(&c, "comm")->n)
		fputs(COMM_FORGEABLE, stderr);
	if (!rc && add && cli_get(&c, "path")->n)
		fputs(PATH_BOUND, stderr);
	return admin_end(&a, rc);
}

static int exempt_add(int argc, char **argv)
{
	return exempt_edit(argc, argv, true);
}

static int exempt_remove(int argc, char **argv)
{
	return exempt_edit(argc, argv, false);
}

int cmd_exempt(int argc, char **argv)
{
	static const struct admin_action actions[] = {
		{ "list", exempt_list },
		{ "add", exempt_add },
		{ "remove", exempt_remove },
		{ NULL, NULL },
	};

	return admin_dispatch("exempt", actions, argc, argv);
}
