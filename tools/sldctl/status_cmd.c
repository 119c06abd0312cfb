// SPDX-License-Identifier: GPL-2.0
/*
 * sldctl status [--json]
 *
 * What the host offers and what sld_compat reports, generically: the CPU
 * flags split_lock_detect and bus_lock_detect (first "flags" line of
 * /proc/cpuinfo), whether sld_compat is loaded (/sys/module/sld_compat),
 * then every readable file below /sys/kernel/sld_compat/ (subdirectories
 * as "dir/file") and every knob in /sys/module/sld_compat/parameters/,
 * in byte order of their names. New files show up without code changes.
 *
 * Human output: "name: value"; a value of several lines is printed below
 * its name, indented; bytes outside printable ASCII are shown as \xNN.
 * --json: {"cpu": {"split_lock_detect": bool|null, "bus_lock_detect":
 * bool|null}, "loaded": bool, "status": {name: string|null}, "knobs":
 * {name: string|null}, "errors": [string]}; null = could not be read
 * (the reason is in "errors" and on stderr). One trailing newline of each
 * value is dropped.
 *
 * Exit: 0 module loaded and everything read, 1 module not loaded,
 * 2 a file could not be read or usage error.
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
#include "json.h"
#include "sldctl.h"
#include "util.h"

#define STATUS_DIR	"/sys/kernel/sld_compat"
#define MODULE_DIR	"/sys/module/sld_compat"
#define PARAMS_DIR	MODULE_DIR "/parameters"
#define VALUE_MAX	(1u << 20)
#define DEPTH_MAX	4

struct item {
	char *name;
	char *value;	/* NULL: unreadable */
	size_t len;
};

struct items {
	struct item *v;
	size_t n;
};

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

/* Read every file below dir into it; prefix is the name so far. */
static void read_dir(const char *dir, const char *prefix, int depth,
		     struct items *it, struct errs *e)
{
	struct dirent **names;
	struct item *nv;
	struct stat st;
	char *path, *name;
	int i, n, r;

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
		nv = realloc(it->v, (it->n + 1) * sizeof(*nv));
		if (!nv)
			goto next;
		it->v = nv;
		nv = &it->v[it->n++];
		nv->name = name;
		name = NULL;
		r = sldctl_read_all(path, VALUE_MAX, &nv->value, &nv->len);
		if (r) {
			nv->value = NULL;
			add_err(e, path, -r);
		} else if (nv->len && nv->value[nv->len - 1] == '\n') {
			nv->value[--nv->len] = '\0';
		}
next:
		free(path);
		free(name);
		free(names[i]);
	}
	free(names);
}

static void free_items(struct items *it)
{
	size_t i;

	for (i = 0; i < it->n; i++) {
		free(it->v[i].name);
		free(it->v[i].value);
	}
	free(it->v);
}

/* 1 present, 0 absent, -1 unknown. */
static void cpu_flags(int *sld, int *bld, struct errs *e)
{
	char path[4096], *buf, *line, *p, *tok, *save;
	size_t len;
	int r;

	*sld = *bld = -1;
	if (sldctl_path(path, sizeof(path), "/proc/cpuinfo"))
		return;
	r = sldctl_read_all(path, 64u << 20, &buf, &len);
	if (r) {
		add_err(e, path, -r);
		return;
	}
	for (line = buf; line && *line; line = p ? p + 1 : NULL) {
		p = strchr(line, '\n');
		if (p)
			*p = '\0';
		if (strncmp(line, "flags", 5) || !strchr(line, ':'))
			continue;
		line = strchr(line, ':') + 1;
		*sld = *bld = 0;
		for (tok = strtok_r(line, " \t", &save); tok;
		     tok = strtok_r(NULL, " \t", &save)) {
			if (!strcmp(tok, "split_lock_detect"))
				*sld = 1;
			else if (!strcmp(tok, "bus_lock_detect"))
				*bld = 1;
		}
		break;
	}
	free(buf);
}

static void put_escaped(const char *s, size_t len, const char *indent)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char ch = s[i];

		if (ch == '\n')
			printf("\n%s", indent);
		else if (ch == '\t' || (ch >= 0x20 && ch < 0x7f && ch != '\\'))
			putchar(ch);
		else
			printf("\\x%02x", ch);
	}
}

static void print_items_human(const char *title, const struct items *it)
{
	size_t i;

	printf("%s:\n", title);
	for (i = 0; i < it->n; i++) {
		const struct item *x = &it->v[i];

		printf("  ");
		put_escaped(x->name, strlen(x->name), "");
		if (!x->value) {
			printf(": (unreadable)\n");
		} else if (memchr(x->value, '\n', x->len)) {
			printf(":\n    ");
			put_escaped(x->value, x->len, "    ");
			putchar('\n');
		} else {
			printf(": ");
			put_escaped(x->value, x->len, "");
			putchar('\n');
		}
	}
}

static void print_items_json(struct json *j, const char *key,
			     const struct items *it)
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

static const char *tristate(int v)
{
	return v < 0 ? "unknown" : v ? "yes" : "no";
}

int cmd_status(int argc, char **argv)
{
	struct cli cl = { .cmd = "status", .usage = "[--json]" };
	char sdir[4096], mdir[4096], pdir[4096];
	struct items status = { 0 }, knobs = { 0 };
	struct errs errs = { 0 };
	bool as_json, loaded;
	int sld, bld, rc;
	struct stat st;
	struct json j;
	size_t i;

	CLI_PARSE_OR_RETURN(&cl, argc, argv);
	as_json = cl.json;
	if (sldctl_path(sdir, sizeof(sdir), STATUS_DIR) ||
	    sldctl_path(mdir, sizeof(mdir), MODULE_DIR) ||
	    sldctl_path(pdir, sizeof(pdir), PARAMS_DIR)) {
		fprintf(stderr, "sldctl status: SLDCTL_ROOT is too long\n");
		return SLDCTL_EXIT_ERROR;
	}
	cpu_flags(&sld, &bld, &errs);
	loaded = !stat(mdir, &st) && S_ISDIR(st.st_mode);
	if (loaded) {
		read_dir(sdir, "", 0, &status, &errs);
		read_dir(pdir, "", 0, &knobs, &errs);
	}
	if (as_json) {
		json_init(&j, stdout, true);
		json_begin_object(&j);
		json_key(&j, "cpu");
		json_begin_object(&j);
		json_key(&j, "split_lock_detect");
		json_tristate(&j, sld);
		json_key(&j, "bus_lock_detect");
		json_tristate(&j, bld);
		json_end_object(&j);
		json_key(&j, "loaded");
		json_bool(&j, loaded);
		print_items_json(&j, "status", &status);
		print_items_json(&j, "knobs", &knobs);
		json_key(&j, "errors");
		json_begin_array(&j);
		for (i = 0; i < errs.n; i++)
			json_string(&j, errs.v[i]);
		json_end_array(&j);
		json_end_object(&j);
		json_end(&j);
	} else {
		printf("cpu split_lock_detect: %s\n", tristate(sld));
		printf("cpu bus_lock_detect: %s\n", tristate(bld));
		printf("sld_compat: %s\n", loaded ? "loaded" : "not loaded");
		if (loaded) {
			print_items_human("status", &status);
			print_items_human("knobs", &knobs);
		}
	}
	rc = errs.n ? SLDCTL_EXIT_ERROR :
	     loaded ? SLDCTL_EXIT_OK : SLDCTL_EXIT_FOUND;
	free_items(&status);
	free_items(&knobs);
	for (i = 0; i < errs.n; i++)
		free(errs.v[i]);
	free(errs.v);
	return rc;
}
