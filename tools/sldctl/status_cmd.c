// SPDX-License-Identifier: GPL-2.0
/*
 * sldctl status [-v|--verbose] [--json] [--format text|json|prometheus]
 *
 * What the host offers and what sld_compat reports: the CPU flags
 * split_lock_detect and bus_lock_detect (first "flags" line of
 * /proc/cpuinfo), the kernel's split-lock mode (host.c), whether
 * sld_compat is loaded (/sys/module/sld_compat), then every readable
 * file below /sys/kernel/sld_compat/ (subdirectories as "dir/file"),
 * every knob in /sys/module/sld_compat/parameters/, in byte order of
 * their names, and /proc/sld_compat_{modules,account}.
 *
 * Human output (status_text.c): a summary, then the details, each value
 * once; --verbose adds hooks, kernel code, per-CPU account and every
 * module's scan record. The JSON view always holds all of it: -v is
 * accepted there and changes nothing. Files it does not know are shown as they are.
 * --json: {"cpu": {"split_lock_detect": bool|null, "bus_lock_detect":
 * bool|null}, "loaded": bool, "status": {name: string|null}, "knobs":
 * {name: string|null}, "in_use": {"refcnt", "hypervisor_tasks",
 * "others"} (loaded only), "errors": [string]}; null = could not be read
 * (the reason is in "errors" and on stderr). One trailing newline of each
 * value is dropped.
 *
 * --format text is the human output, json the same as --json, prometheus
 * node_exporter textfile metrics (status_prom.c).
 *
 * Exit: 0 module loaded and everything read, 1 module not loaded,
 * 2 a file could not be read or usage error. --format prometheus exits 0
 * unless the usage is wrong: a collector must keep running when the
 * module is not loaded (sld_compat_loaded 0) or a file is unreadable
 * (sld_compat_read_errors).
 *
 * All paths are prefixed with $SLDCTL_ROOT when it is set (tests).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "host.h"
#include "lib/json.h"
#include "lib/knob.h"
#include "sldctl.h"
#include "status_prom.h"
#include "status_text.h"
#include "lib/util.h"

#define VALUE_MAX	(1u << 20)
#define DEPTH_MAX	4

struct errs {
	char **v;
	size_t n;
};

static void add_err(struct errs *e, const char *path, int err)
{
	char *msg, **nv;

	if (asprintf(&msg, "%s: %s", path, strerror(err)) < 0)
		return;
	fprintf(stderr, "sldctl status: %s\n", msg);
	nv = realloc(e->v, (e->n + 1) * sizeof(*nv));
	if (!nv) {
		free(msg);
		return;
	}
	e->v = nv;
	e->v[e->n++] = msg;
}

static int name_filter(const struct dirent *d)
{
	return strcmp(d->d_name, ".") && strcmp(d->d_name, "..");
}

static int name_cmp(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* Read path into a new item called name (taken over). */
static void add_item(struct status_items *it, const char *path, char *name,
		     struct errs *e)
{
	struct status_item *nv;
	int r;

	nv = realloc(it->v, (it->n + 1) * sizeof(*nv));
	if (!nv) {
		free(name);
		return;
	}
	it->v = nv;
	nv = &it->v[it->n++];
	nv->name = name;
	r = sldctl_read_all(path, VALUE_MAX, &nv->value, &nv->len);
	if (r) {
		nv->value = NULL;
		add_err(e, path, -r);
	} else if (nv->len && nv->value[nv->len - 1] == '\n') {
		nv->value[--nv->len] = '\0';
	}
}

/* dir/name as an item, if it exists. */
static void read_one(const char *dir, const char *name,
		     struct status_items *it, struct errs *e)
{
	char *path, *n;
	struct stat st;

	if (asprintf(&path, "%s/%s", dir, name) < 0)
		return;
	n = stat(path, &st) ? NULL : strdup(name);
	if (n)
		add_item(it, path, n, e);
	free(path);
}

/* Read every file below dir into it; prefix is the name so far. */
static void read_dir(const char *dir, const char *prefix, int depth,
		     struct status_items *it, struct errs *e)
{
	struct dirent **names;
	struct stat st;
	char *path, *name;
	int i, n;

	n = scandir(dir, &names, name_filter, name_cmp);
	if (n < 0) {
		if (errno != ENOENT)
			add_err(e, dir, errno);
		return;
	}
	for (i = 0; i < n; i++) {
		path = NULL;
		name = NULL;
		if (asprintf(&path, "%s/%s", dir, names[i]->d_name) < 0)
			path = NULL;
		if (asprintf(&name, "%s%s", prefix, names[i]->d_name) < 0)
			name = NULL;
		if (!path || !name)
			goto next;
		if (stat(path, &st)) {
			add_err(e, path, errno);
			goto next;
		}
		if (S_ISDIR(st.st_mode)) {
			if (depth < DEPTH_MAX) {
				char *sub;

				if (asprintf(&sub, "%s/", name) >= 0) {
					read_dir(path, sub, depth + 1, it, e);
					free(sub);
				}
			}
			goto next;
		}
		/* Write-only controls are not status. */
		if (!S_ISREG(st.st_mode) || !(st.st_mode & 0444))
			goto next;
		add_item(it, path, name, e);
		name = NULL;
next:
		free(path);
		free(name);
		free(names[i]);
	}
	free(names);
}

static void free_items(struct status_items *it)
{
	size_t i;

	for (i = 0; i < it->n; i++) {
		free(it->v[i].name);
		free(it->v[i].value);
	}
	free(it->v);
}

static void print_items_json(struct json *j, const char *key,
			     const struct status_items *it)
{
	size_t i;

	json_key(j, key);
	json_begin_object(j);
	for (i = 0; i < it->n; i++) {
		json_key(j, it->v[i].name);
		if (it->v[i].value)
			json_string_len(j, it->v[i].value, it->v[i].len);
		else
			json_null(j);
	}
	json_end_object(j);
}

static void json_tristate(struct json *j, int v)
{
	if (v < 0)
		json_null(j);
	else
		json_bool(j, v);
}

/* A status file's lines as a JSON array (null when absent). */
static void json_lines(struct json *j, const char *key,
		       const struct status_items *it, const char *name)
{
	size_t i, k;

	json_key(j, key);
	for (i = 0; i < it->n; i++)
		if (!strcmp(it->v[i].name, name) && it->v[i].value)
			break;
	if (i == it->n) {
		json_null(j);
		return;
	}
	json_begin_array(j);
	for (k = 0; k < it->v[i].len; ) {
		const char *l = it->v[i].value + k;
		size_t n = strcspn(l, "\n");

		json_string_len(j, l, n);
		k += n + 1;
	}
	json_end_array(j);
}

static void json_host(struct json *j, const struct host *h)
{
	json_key(j, "cpu");
	json_begin_object(j);
	json_key(j, "split_lock_detect");
	json_tristate(j, h->cpu_sld);
	json_key(j, "bus_lock_detect");
	json_tristate(j, h->cpu_bld);
	json_end_object(j);
	json_key(j, "kernel");
	json_begin_object(j);
	json_field_str(j, "sld_mode", h->mode);
	json_field_str(j, "sld_mode_source", h->mode_source);
	json_key(j, "split_lock_mitigate");
	if (h->mitigate < 0)
		json_null(j);
	else
		json_uint(j, h->mitigate);
	json_end_object(j);
	json_field_bool(j, "loaded", h->loaded);
}

static void json_in_use(struct json *j)
{
	struct in_use u;

	json_key(j, "in_use");
	if (host_in_use(&u)) {
		json_null(j);
		return;
	}
	json_begin_object(j);
	json_field_uint(j, "refcnt", u.refcnt);
	json_field_uint(j, "hypervisor_tasks", u.tasks);
	json_field_uint(j, "others", u.others);
	json_end_object(j);
}

static void print_json(const struct host *h,
		       const struct status_items *status,
		       const struct status_items *knobs,
		       const struct status_items *procs, const struct errs *errs)
{
	struct json j;
	size_t i;

	json_init(&j, stdout, true);
	json_begin_object(&j);
	json_host(&j, h);
	print_items_json(&j, "status", status);
	print_items_json(&j, "knobs", knobs);
	json_lines(&j, "degraded", status, "degraded");
	json_lines(&j, "hypervisors", status, "hypervisors");
	json_lines(&j, "tasks", status, "tasks");
	if (h->loaded)
		json_in_use(&j);
	json_lines(&j, "account", procs, "sld_compat_account");
	json_lines(&j, "modules", procs, "sld_compat_modules");
	json_key(&j, "errors");
	json_begin_array(&j);
	for (i = 0; i < errs->n; i++)
		json_string(&j, errs->v[i]);
	json_end_array(&j);
	json_end_object(&j);
	json_end(&j);
}

/* Read everything status shows; errors are collected. */
static void gather(const struct host *h, struct status_items *status,
		   struct status_items *knobs, struct status_items *procs,
		   struct errs *errs)
{
	char sdir[4096], pdir[4096], proc[4096];

	if (h->cpuinfo_err)
		add_err(errs, "/proc/cpuinfo", -h->cpuinfo_err);
	if (!h->loaded)
		return;
	if (sldctl_path(sdir, sizeof(sdir), STATUS_DIR) ||
	    sldctl_path(pdir, sizeof(pdir), PARAMS_DIR) ||
	    sldctl_path(proc, sizeof(proc), "/proc")) {
		add_err(errs, "SLDCTL_ROOT", ENAMETOOLONG);
		return;
	}
	read_dir(sdir, "", 0, status, errs);
	read_dir(pdir, "", 0, knobs, errs);
	read_one(proc, "sld_compat_modules", procs, errs);
	read_one(proc, "sld_compat_account", procs, errs);
}

static void print_prom(const struct host *h,
		       const struct status_items *status,
		       const struct status_items *knobs,
		       const struct status_items *procs, const struct errs *errs)
{
	struct prom_in in = {
		.loaded = h->loaded,
		.errors = errs->n,
		.version = status_find(status, "version"),
		.sld_mode = status_find(status, "sld_mode"),
		.ac = status_find(status, "ac"),
		.db = status_find(status, "db"),
		.mechanism = status_find(status, "mechanism"),
		.hypervisors = status_find(status, "hypervisors"),
		.tasks = status_find(status, "tasks"),
		.runs = status_find(status, "runs"),
		.disable_count = status_find(status, "disable_count"),
		.account = status_find(procs, "sld_compat_account"),
		.modules = status_find(procs, "sld_compat_modules"),
	};

	(void)knobs;
	status_prom(&in);
}

enum { FMT_TEXT, FMT_JSON, FMT_PROM };

/* --format and --json together: one output format, or -1 (message given). */
static int out_format(const struct cli *cl)
{
	const char *f = cli_str(cl, "format");
	int fmt;

	if (!f)
		return cl->json ? FMT_JSON : FMT_TEXT;
	if (!strcmp(f, "text"))
		fmt = FMT_TEXT;
	else if (!strcmp(f, "json"))
		fmt = FMT_JSON;
	else if (!strcmp(f, "prometheus"))
		fmt = FMT_PROM;
	else
		return cli_error(cl, "--format %s: expected text, json or prometheus", f),
		       -1;
	if (cl->json && fmt != FMT_JSON)
		return cli_error(cl, "--json conflicts with --format %s", f), -1;
	/* JSON always holds everything, so -v asks for nothing more there. */
	if (cli_flag(cl, "verbose") && fmt == FMT_PROM)
		return cli_error(cl, "--verbose is for the text and JSON views, not --format %s",
				 f), -1;
	return fmt;
}

int cmd_status(int argc, char **argv)
{
	static const struct cli_opt opts[] = {
		{ .name = "format", .has_arg = true },
		{ .name = "verbose", .short_name = 'v' },
		{ NULL }
	};
	struct cli cl = { .cmd = "status", .opts = opts,
			  .usage = "[-v|--verbose] [--json] [--format text|json|prometheus]" };
	struct status_items status = { 0 }, knobs = { 0 }, procs = { 0 };
	struct errs errs = { 0 };
	struct host h;
	size_t i;
	int rc, fmt;

	rc = cli_parse(&cl, argc, argv);
	if (rc != CLI_OK)
		return cli_exit(rc);
	fmt = out_format(&cl);
	if (fmt < 0)
		return SLDCTL_EXIT_ERROR;
	host_read(&h);
	gather(&h, &status, &knobs, &procs, &errs);
	if (fmt == FMT_JSON)
		print_json(&h, &status, &knobs, &procs, &errs);
	else if (fmt == FMT_PROM)
		print_prom(&h, &status, &knobs, &procs, &errs);
	else
		status_text(&h, &status, &knobs, &procs,
			    cli_flag(&cl, "verbose"));
	rc = errs.n ? SLDCTL_EXIT_ERROR :
	     h.loaded ? SLDCTL_EXIT_OK : SLDCTL_EXIT_FOUND;
	if (fmt == FMT_PROM)
		rc = SLDCTL_EXIT_OK;
	free_items(&status);
	free_items(&knobs);
	free_items(&procs);
	for (i = 0; i < errs.n; i++)
		free(errs.v[i]);
	free(errs.v);
	return rc;
}
