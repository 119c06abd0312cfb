// SPDX-License-Identifier: GPL-2.0
/*
 * sldctl run [--anyway] [--] CMD [ARG...]
 *
 * Run CMD as the caller, relieved of the split-lock penalty with every
 * process and thread it starts, for as long as they live. sldctl itself
 * holds no privilege: it asks the caller's own systemd manager for a
 * transient scope (`systemd-run --user --scope --unit=sld-run-NAME-PID`;
 * root: the system manager's, below system.slice), re-enters itself in
 * it (--in-scope) to check it landed there, and execs CMD. sld_compat
 * relieves tasks of such scopes of root and of the users run_allow names
 * (the design and why it is safe: src/engine/run.c). When the last task
 * exits, the scope goes and nothing stays relieved.
 *
 * Root's runs need no run_allow entry, and sld_compat arms nothing for
 * runs until the first one: its first task in a run scope (our own exec
 * there) makes it arm them. So as root, once in the scope, we wait until
 * its task-clone (or task-start) probe is no longer idle (root_armed())
 * before CMD.
 *
 * Before anything starts: an unknown option, a missing CMD or one that
 * is neither an executable file nor found on PATH is exit 2. A caller
 * other than root that run_allow does not name is refused (exit 2),
 * whatever --anyway says. When relief cannot be set up (sld_compat not
 * loaded, no systemd-run, no user manager to ask, the scope not where it
 * should be, runs not armed for root) CMD is not started (exit 2) unless
 * --anyway: then it runs without relief, after a warning. Otherwise the
 * exit status is CMD's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "lib/knob.h"
#include "lib/run_allow.h"
#include "sldctl.h"
#include "lib/util.h"

#define RUN_USAGE	"[--anyway] [--] CMD [ARG...]"

/* An executable regular file: path itself, or found on PATH. */
static bool is_exec(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK);
}

static int find_cmd(const char *cmd, char *out, size_t n)
{
	const char *path = getenv("PATH"), *p, *end;

	if (strchr(cmd, '/')) {
		snprintf(out, n, "%s", cmd);
		return is_exec(out) ? 0 : -1;
	}
	for (p = path ? path : "/usr/bin:/bin"; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		if ((size_t)snprintf(out, n, "%.*s/%s", (int)(end - p), p, cmd) < n &&
		    end > p && is_exec(out))
			return 0;
	}
	return -1;
}

/* CMD without relief, after a warning (--anyway). */
static int run_plain(char **args, const char *path, const char *why)
{
	fprintf(stderr, "sldctl run: warning: %s; starting '%s' without relief (--anyway)\n",
		why, sldctl_q(args[0]));
	execv(path, args);
	fprintf(stderr, "sldctl run: cannot start '%s': %s\n", sldctl_q(path),
		strerror(errno));
	return SLDCTL_EXIT_ERROR;
}

/* Relief cannot be set up: refuse, or --anyway. */
static int no_relief(char **args, const char *path, bool anyway,
		     const char *why)
{
	if (anyway)
		return run_plain(args, path, why);
	fprintf(stderr, "sldctl run: %s; '%s' not started (--anyway starts it without relief)\n",
		why, sldctl_q(args[0]));
	return SLDCTL_EXIT_ERROR;
}

/* Is the caller allowed? 1 yes, 0 no (message printed), -1 unreadable. */
static int caller_allowed(const char *params, char *why, size_t n)
{
	char path[4096 + 32], *value = NULL;
	gid_t groups[256];
	struct run_allow a;
	int ng, r;

	/* params has SLDCTL_ROOT in it already. */
	if ((size_t)snprintf(path, sizeof(path), "%s/run_allow", params) >= sizeof(path) ||
	    sldctl_read_value(path, &value)) {
		snprintf(why, n, "cannot read sld_compat's run_allow (%.200s): too old for runs?",
			 path);
		free(value);
		return -1;
	}
	r = run_allow_parse(value, &a, why, n);
	ng = getgroups(256, groups);
	if (!r && !run_allowed(&a, getuid(), getgid(), groups, ng < 0 ? 0 : ng)) {
		fprintf(stderr, "sldctl run: uid %u is not allowed relief (run_allow = %s; the admin sets it in /etc/sld-compat, see sldctl(8)); nothing started\n",
			(unsigned int)getuid(), value);
		free(value);
		return 0;
	}
	free(value);
	return r ? -1 : 1;
}

/* Can the caller's manager be asked? NULL if so, else why not. */
static const char *manager_missing(void)
{
	const char *rt = getenv("XDG_RUNTIME_DIR");
	char path[4096];
	struct stat st;

	if (find_cmd("systemd-run", path, sizeof(path)))
		return "no systemd-run on PATH (relief needs a systemd scope)";
	if (!getuid())
		return NULL;	/* the system manager */
	if (!rt || !*rt)
		return "no user manager to ask for a scope (XDG_RUNTIME_DIR is not set: log in through a session, or `loginctl enable-linger`)";
	snprintf(path, sizeof(path), "%s/bus", rt);
	if (!stat(path, &st))
		return NULL;
	snprintf(path, sizeof(path), "%s/systemd/private", rt);
	if (!stat(path, &st))
		return NULL;
	return "no user manager to ask for a scope (no bus in XDG_RUNTIME_DIR: is systemd --user running?)";
}

/* exec systemd-run, which execs us again in the new scope. */
static int start_scope(int nargs, char **args, const char *path, bool anyway)
{
	char unit[128], arg_unit[160], self[4096];
	const char *argv[24 + 4096 / 2];
	ssize_t len;
	int i, k = 0;

	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0)
		return no_relief(args, path, anyway, "cannot find sldctl itself (/proc/self/exe)");
	self[len] = '\0';
	if (nargs > (int)(sizeof(argv) / sizeof(argv[0])) - 24) {
		fprintf(stderr, "sldctl run: too many arguments\n");
		return SLDCTL_EXIT_ERROR;
	}
	run_unit_name(unit, sizeof(unit), path, (long)getpid());
	snprintf(arg_unit, sizeof(arg_unit), "--unit=%s", unit);
	argv[k++] = "systemd-run";
	argv[k++] = getuid() ? "--user" : "--slice=system.slice";
	argv[k++] = "--scope";
	argv[k++] = "--quiet";
	argv[k++] = "--collect";
	argv[k++] = arg_unit;
	argv[k++] = "--";
	argv[k++] = self;
	argv[k++] = "run";
	argv[k++] = "--in-scope";
	argv[k++] = unit;
	if (anyway)
		argv[k++] = "--anyway";
	argv[k++] = "--";
	argv[k++] = path;
	for (i = 1; i < nargs; i++)
		argv[k++] = args[i];
	argv[k] = NULL;
	execvp("systemd-run", (char **)argv);
	return no_relief(args, path, anyway, "cannot start systemd-run");
}

/* The last component of our cgroup is want.scope: the scope took us. */
static bool in_scope(const char *want)
{
	char path[4096], *text = NULL, *slash;
	size_t len;
	bool ok;

	if (sldctl_path(path, sizeof(path), "/proc/self/cgroup") ||
	    sldctl_read_all(path, 1 << 16, &text, &len)) {
		free(text);
		return false;
	}
	/* cgroup v2: one line "0::/PATH". */
	len = strcspn(text, "\n");
	text[len] = '\0';
	slash = strrchr(text, '/');
	ok = !strncmp(text, "0::/", 4) && slash &&
	     !strncmp(slash + 1, want, strlen(want)) &&
	     !strcmp(slash + 1 + strlen(want), ".scope");
	free(text);
	return ok;
}

/* The line l of n bytes ends with " WORD". */
static bool line_says(const char *l, size_t n, const char *word)
{
	size_t w = strlen(word);

	return n > w && l[n - w - 1] == ' ' && !strncmp(l + n - w, word, w);
}

/*
 * The hooks status text says the probes that protect a run's new tasks
 * are idle (on demand): task-clone, and task-start, which the module
 * arms only where the clone probe could not be placed. Idle: one of them
 * idle and none armed.
 */
static bool start_idle(const char *text)
{
	bool idle = false;
	const char *l;
	size_t n;

	while (sldctl_next_line(&text, &l, &n)) {
		if (strncmp(l, "task-clone ", 11) && strncmp(l, "task-start ", 11))
			continue;
		if (line_says(l, n, "armed"))
			return false;
		idle |= line_says(l, n, "idle");
	}
	return idle;
}

/*
 * Root: wait up to 2 s until sld_compat armed runs (see the top), so
 * that CMD is relieved from its exec and what it starts from its start.
 * A status it does not have (no such file or line) is no reason to wait.
 */
static bool root_armed(void)
{
	const struct timespec tick = { 0, 10 * 1000 * 1000 };
	char path[4096], *text = NULL;
	size_t len;
	bool idle;
	int i;

	if (sldctl_path(path, sizeof(path), "%s/hooks", STATUS_DIR))
		return true;
	for (i = 0; i < 200; i++) {
		if (sldctl_read_all(path, 1 << 16, &text, &len)) {
			free(text);
			return true;
		}
		idle = start_idle(text);
		free(text);
		text = NULL;
		if (!idle)
			return true;
		nanosleep(&tick, NULL);
	}
	return false;
}

/* In the new scope (systemd-run started us): check, then become CMD. */
static int enter(const char *unit, char **args, const char *path,
		 bool anyway)
{
	char why[256];

	if (!in_scope(unit)) {
		snprintf(why, sizeof(why),
			 "systemd-run did not start us in %s.scope (see /proc/self/cgroup)",
			 unit);
		return no_relief(args, path, anyway, why);
	}
	if (!getuid() && !root_armed())
		return no_relief(args, path, anyway,
				 "sld_compat did not arm relief for root's run within 2 s (its task-clone (or task-start) probe stays idle: see `sldctl status`)");
	execv(path, args);
	fprintf(stderr, "sldctl run: cannot start '%s': %s\n", sldctl_q(path),
		strerror(errno));
	return SLDCTL_EXIT_ERROR;
}

int cmd_run(int argc, char **argv)
{
	static const struct cli_opt opts[] = {
		{ "anyway", 0, false, false },
		{ "in-scope", 0, true, false },	/* internal: see enter() */
		{ NULL, 0, false, false },
	};
	struct cli cl = { .cmd = "run", .opts = opts, .usage = RUN_USAGE,
			  .min_args = 1, .max_args = -1, .in_order = true,
			  .missing = "missing CMD" };
	char path[4096], params[4096], why[512];
	const char *missing;
	struct stat st;
	bool anyway;
	int rc;

	rc = cli_parse(&cl, argc, argv);
	if (rc != CLI_OK)
		return cli_exit(rc);
	if (cl.json) {
		cli_error(&cl, "--json: run prints nothing of its own");
		return SLDCTL_EXIT_ERROR;
	}
	anyway = cli_flag(&cl, "anyway");
	if (find_cmd(cl.args[0], path, sizeof(path))) {
		fprintf(stderr, "sldctl run: '%s': no such command (not an executable file, not on PATH); nothing started\n",
			sldctl_q(cl.args[0]));
		return SLDCTL_EXIT_ERROR;
	}
	if (cli_str(&cl, "in-scope"))
		return enter(cli_str(&cl, "in-scope"), cl.args, path, anyway);
	if (sldctl_path(params, sizeof(params), "%s", PARAMS_DIR) ||
	    stat(params, &st) || !S_ISDIR(st.st_mode))
		return no_relief(cl.args, path, anyway, "sld_compat is not loaded");
	rc = caller_allowed(params, why, sizeof(why));
	if (!rc)
		return SLDCTL_EXIT_ERROR;
	if (rc < 0)
		return no_relief(cl.args, path, anyway, why);
	missing = manager_missing();
	if (missing)
		return no_relief(cl.args, path, anyway, missing);
	return start_scope(cl.nargs, cl.args, path, anyway);
}
