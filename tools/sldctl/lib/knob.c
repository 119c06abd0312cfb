// SPDX-License-Identifier: GPL-2.0
/*
 * Knob definitions, value checks, list planning and sysfs access (see
 * knob.h).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "schema/entries.h"
#include "schema/glob.h"
#include "knob.h"
#include "schema/modname.h"
#include "schema/names.h"
#include "util.h"

/* Bounds: the schema shared with the module (src/schema/knobs_table.h). */
#define MODNAME_MAX	SLD_MODNAME_LEN
#define COMM_MAX	SLD_COMM_LEN
#define COMM_PATTERN_LEN SLD_COMM_PATTERN_LEN

const struct sld_knob_schema *knob_find(const char *name)
{
	return sld_knob_schema_find(name);
}

bool knob_is_list(const struct sld_knob_schema *d)
{
	return d->type == SLD_KT_LIST;
}

const char *knob_entry_what(const struct sld_knob_schema *d)
{
	switch (d->entry) {
	case SLD_KE_MODULE:
		return "module name";
	case SLD_KE_COMM:
		return "task name";
	case SLD_KE_PATH:
		return "absolute path";
	case SLD_KE_CGROUP:
		return "cgroup path";
	case SLD_KE_ID:
		return "uid or @gid";
	case SLD_KE_NONE:
		break;
	}
	return "value";
}

static int why_set(char *why, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int why_set(char *why, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
	return -1;
}

/* Printable ASCII without space and comma, at most max bytes. */
static int check_token(const char *v, size_t max, const char *what,
		       char *why, size_t n)
{
	size_t i, len = strlen(v);

	if (!len)
		return why_set(why, n, "empty %s", what);
	if (len > max)
		return why_set(why, n, "%s longer than %zu characters", what, max);
	for (i = 0; i < len; i++) {
		unsigned char ch = v[i];

		if (ch == ' ' || ch == '\t')
			return why_set(why, n, "whitespace in %s", what);
		if (ch < 0x20 || ch >= 0x7f)
			return why_set(why, n, "byte 0x%02x at position %zu of %s (only printable ASCII)",
				       ch, i + 1, what);
		if (ch == ',')
			return why_set(why, n, "comma in %s (commas separate list entries)",
				       what);
	}
	if (v[0] == '+' || v[0] == '-')
		return why_set(why, n, "%s starts with '%c'", what, v[0]);
	return 0;
}

int knob_check_module(char *v, char *why, size_t n)
{
	size_t i;

	if (check_token(v, MODNAME_MAX, "module name", why, n))
		return -1;
	for (i = 0; v[i]; i++)
		if (!sld_modname_char(v[i]))
			return why_set(why, n, "'%c' in module name (allowed: a-z A-Z 0-9 _ -)",
				       v[i]);
	return 0;
}

/*
 * A task name or pattern, checked as the module checks it
 * (src/schema/glob.c): inner spaces allowed, as in "CPU 3/KVM".
 */
int knob_check_comm(char *v, char *why, size_t n)
{
	size_t i, len = strlen(v);
	const char *bad;

	if (len > COMM_PATTERN_LEN)
		return why_set(why, n, "task name pattern longer than %d bytes",
			       COMM_PATTERN_LEN);
	for (i = 0; i < len; i++) {
		unsigned char ch = v[i];

		if (ch < 0x20 || ch >= 0x7f)
			return why_set(why, n, "byte 0x%02x at position %zu of task name (only printable ASCII)",
				       ch, i + 1);
		if (ch == ',')
			return why_set(why, n, "comma in task name (commas separate list entries)");
	}
	if (v[0] == '+' || v[0] == '-')
		return why_set(why, n, "task name starts with '%c'", v[0]);
	bad = sld_glob_check(v, COMM_MAX);
	return bad ? why_set(why, n, "%s", bad) : 0;
}

/*
 * exempt_path and exempt_cgroup entries: the module's own checker
 * (src/schema/entries.c), so both refuse the same entries in one wording.
 */
int knob_check_path(char *v, char *why, size_t n)
{
	const char *bad = sld_entry_check(v, false);

	return bad ? why_set(why, n, "%s", bad) : 0;
}

int knob_check_cgroup(char *v, char *why, size_t n)
{
	const char *bad = sld_entry_check(v, true);

	return bad ? why_set(why, n, "%s", bad) : 0;
}

/* run_allow entries: the module's own checker, as for paths. */
int knob_check_id(char *v, char *why, size_t n)
{
	const char *bad = sld_id_check(v);

	return bad ? why_set(why, n, "%s", bad) : 0;
}

int knob_check_exists(const struct sld_knob_schema *d, const char *v,
		      char *why, size_t n)
{
	char path[PATH_MAX + 64];
	struct stat st;

	if (d->entry != SLD_KE_PATH)
		return 0;	/* a cgroup rule may wait for its cgroup */
	if (sldctl_path(path, sizeof(path), "%s", v))
		return why_set(why, n, "path too long");
	if (stat(path, &st))
		return why_set(why, n, "%s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return why_set(why, n, "%s is not a regular file", path);
	return 0;
}

/*
 * Some directory below dir has the names rule gives from here on (rule
 * at a '/', each name a pattern: src/schema/glob.c), as the module's
 * exempt_pending decides. dir is a buffer of size bytes, restored.
 */
static bool cgroup_dir_named(char *dir, size_t size, const char *rule)
{
	size_t len, dlen = strlen(dir);
	bool found = false;
	struct dirent *e;
	struct stat st;
	DIR *d;

	rule = sld_cgroup_next(rule, &len);
	if (!rule)
		return !stat(dir, &st) && S_ISDIR(st.st_mode);
	d = opendir(dir);
	if (!d)
		return false;
	while (!found && (e = readdir(d))) {
		if ((e->d_type != DT_DIR && e->d_type != DT_UNKNOWN) ||
		    !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    !sld_glob_match_n(rule, len, e->d_name) ||
		    (size_t)snprintf(dir + dlen, size - dlen, "/%s", e->d_name) >=
			    size - dlen)
			continue;
		found = cgroup_dir_named(dir, size, rule + len);
		dir[dlen] = '\0';
	}
	closedir(d);
	return found;
}

bool knob_cgroup_pending(const char *v)
{
	char path[PATH_MAX + 64];

	return !sldctl_path(path, sizeof(path), "%s", CGROUP_DIR) &&
	       !cgroup_dir_named(path, sizeof(path), v);
}

int knob_check_bool(char *v, char *why, size_t n)
{
	if (!strcmp(v, "Y") || !strcmp(v, "y") || !strcmp(v, "1")) {
		strcpy(v, "Y");
		return 0;
	}
	if (!strcmp(v, "N") || !strcmp(v, "n") || !strcmp(v, "0")) {
		strcpy(v, "N");
		return 0;
	}
	return why_set(why, n, "'%s' is not Y or N (also y/n, 1/0)", sldctl_q(v));
}

/* Decimal, no sign, no leading zero, within [min, max] as the module takes it. */
static int check_int(const struct sld_knob_schema *d, const char *what,
		     const char *v, char *why, size_t n)
{
	long long x = 0;
	size_t i;

	for (i = 0; v[i]; i++) {
		if (v[i] < '0' || v[i] > '9' || i >= 10 || (i == 1 && v[0] == '0'))
			break;
		x = x * 10 + (v[i] - '0');
	}
	if (!i || v[i] || x < d->min || x > d->max)
		return why_set(why, n, "'%s' is not %s %d-%d", sldctl_q(v), what,
			       d->min, d->max);
	return 0;
}

static int check_enum(const struct sld_knob_schema *d, const char *v,
		      char *why, size_t n)
{
	char list[128] = "";
	unsigned int i;

	for (i = 0; i < d->nvalues; i++)
		if (!strcmp(v, d->values[i]))
			return 0;
	for (i = 0; i < d->nvalues; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
			 i ? (i + 1 == d->nvalues ? " or " : ", ") : "", d->values[i]);
	return why_set(why, n, "'%s' is not %s", sldctl_q(v), list);
}

static int check_entry(const struct sld_knob_schema *d, char *v, char *why,
		       size_t n)
{
	switch (d->entry) {
	case SLD_KE_MODULE:
		return knob_check_module(v, why, n);
	case SLD_KE_COMM:
		return knob_check_comm(v, why, n);
	case SLD_KE_PATH:
		return knob_check_path(v, why, n);
	case SLD_KE_CGROUP:
		return knob_check_cgroup(v, why, n);
	case SLD_KE_ID:
		return knob_check_id(v, why, n);
	case SLD_KE_NONE:
		break;
	}
	return why_set(why, n, "%s is not a list", d->name);
}

int knob_check_value(const struct sld_knob_schema *d, char *v, char *why,
		     size_t n)
{
	switch (d->type) {
	case SLD_KT_BOOL:
		return knob_check_bool(v, why, n);
	case SLD_KT_INT:
		if (d == &sld_knob_schema[SLD_KN_VERBOSE])
			return knob_check_verbose(v, why, n);
		return check_int(d, "a number", v, why, n);
	case SLD_KT_ENUM:
		return check_enum(d, v, why, n);
	case SLD_KT_LIST:
		return check_entry(d, v, why, n);
	}
	return why_set(why, n, "unknown knob type");
}

int knob_check_verbose(char *v, char *why, size_t n)
{
	return check_int(&sld_knob_schema[SLD_KN_VERBOSE], "a level", v, why, n);
}

int knob_check_policy(char *v, char *why, size_t n)
{
	return check_enum(&sld_knob_schema[SLD_KN_ON_HYPERVISOR], v, why, n);
}

/* trust_sld_safe: exactly as the module spells it (no y/1 forms). */
int knob_check_trust(char *v, char *why, size_t n)
{
	return check_enum(&sld_knob_schema[SLD_KN_TRUST_SLD_SAFE], v, why, n);
}

/* ---- lists ------------------------------------------------------------ */

void list_free(struct name_list *l)
{
	int i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	l->n = 0;
}

int list_parse(const char *text, struct name_list *l, char *why, size_t n)
{
	const char *p = text, *e;

	l->n = 0;
	if (!*text || !strcmp(text, "-"))
		return 0;
	for (;;) {
		e = strchr(p, ',');
		if (l->n >= KNOB_LIST_MAX) {
			list_free(l);
			return why_set(why, n, "more than %d entries", KNOB_LIST_MAX);
		}
		l->v[l->n] = strndup(p, e ? (size_t)(e - p) : strlen(p));
		if (!l->v[l->n]) {
			list_free(l);
			return why_set(why, n, "out of memory");
		}
		l->n++;
		if (!e)
			return 0;
		p = e + 1;
	}
}

/* Module names: '-' equals '_', as the kernel and the module compare them. */
int list_find(const struct name_list *l, const char *name)
{
	int i;

	for (i = 0; i < l->n; i++)
		if (sld_modname_eq(l->v[i], name))
			return i;
	return -1;
}

/* The module's reading of a list (schema/names.h): "a,b", "-" if empty. */
char *list_join(const struct name_list *l)
{
	size_t len = sld_names_join((const char *const *)l->v, l->n, NULL, 0);
	char *s = malloc(len + 1);

	if (s)
		sld_names_join((const char *const *)l->v, l->n, s, len + 1);
	return s;
}

/* The edit string "+a,+b" / "-c" of names, or NULL when it is empty. */
static int plan_edit(const struct sld_names_rule *rule,
		     const struct sld_names_draft *cur, bool add, char **names,
		     int nnames, char **edit, int *skipped)
{
	char *s;
	int i;

	for (i = 0; i < nnames; i++) {
		if (add && sld_names_find(rule, cur, names[i]) >= 0) {
			(*skipped)++;
			continue;
		}
		if (asprintf(&s, "%s%s%c%s", *edit ? *edit : "", *edit ? "," : "",
			     add ? '+' : '-', names[i]) < 0)
			return -1;
		free(*edit);
		*edit = s;
	}
	return 0;
}

/* The module's reason for refusing the edit, in the words of the commands. */
static int plan_refused(enum sld_names_err e, const struct sld_names_draft *d,
			unsigned int max, const char *at, const char *said,
			char *why, size_t n)
{
	if (e == SLD_NE_MISSING)
		return why_set(why, n, "'%s' is not listed", sldctl_q(at));
	if (e == SLD_NE_FULL)
		return why_set(why, n, "the list is full (%u entries; sld_compat takes %u)",
			       d->n, max);
	return why_set(why, n, "sld_compat would refuse '%s': %s", sldctl_q(at), said);
}

/* after = copies of d's entries. */
static int draft_copy(struct name_list *after, const struct sld_names_draft *d)
{
	unsigned int i;

	after->n = 0;
	for (i = 0; i < d->n; i++) {
		after->v[i] = strdup(d->v[i]);
		if (!after->v[i]) {
			list_free(after);
			return -1;
		}
		after->n++;
	}
	return 0;
}

/* The same name twice among names, as the list matches names. */
static int given_twice(const struct sld_names_rule *rule, char **names,
		       int nnames, char *why, size_t n)
{
	int i, j;

	for (i = 0; i < nnames; i++)
		for (j = 0; j < i; j++)
			if (rule->modules ? sld_modname_eq(names[i], names[j]) :
			    !strcmp(names[i], names[j]))
				return why_set(why, n, "'%s' given twice",
					       sldctl_q(names[i]));
	return 0;
}

/*
 * The edit goes through the module's own grammar (schema/names.c) on the
 * list as it is, so what sldctl plans is what the module takes.
 */
int list_plan(const struct sld_knob_schema *d, const struct name_list *cur,
	      bool add, char **names, int nnames, struct name_list *after,
	      char **edit, int *skipped, char *why, size_t n)
{
	const char *said = NULL, *at = NULL;
	struct sld_names_draft draft;
	struct sld_names_rule rule;
	enum sld_names_err e;
	char *buf = NULL;
	int r;

	*edit = NULL;
	*skipped = 0;
	after->n = 0;
	sld_names_rule_of(d, &rule);
	if (given_twice(&rule, names, nnames, why, n))
		return -1;
	sld_names_draft_init(&draft, (const char *const *)cur->v, cur->n);
	if (plan_edit(&rule, &draft, add, names, nnames, edit, skipped) ||
	    (*edit && !(buf = strdup(*edit))))
		goto oom;
	e = buf ? sld_names_apply(&rule, &draft, buf, &said, &at) : SLD_NE_OK;
	if (e) {
		plan_refused(e, &draft, rule.max, at, said, why, n);
		free(buf);
		goto fail;
	}
	r = draft_copy(after, &draft);
	free(buf);
	if (!r)
		return 0;
oom:
	why_set(why, n, "out of memory");
fail:
	free(*edit);
	*edit = NULL;
	return -1;
}

/* ---- sysfs ------------------------------------------------------------ */

bool knob_module_loaded(void)
{
	char path[PATH_MAX];
	struct stat st;

	return !sldctl_path(path, sizeof(path), PARAMS_DIR) &&
	       !stat(path, &st) && S_ISDIR(st.st_mode);
}

int knob_read(const char *name, char **value)
{
	char path[PATH_MAX];

	if (sldctl_path(path, sizeof(path), PARAMS_DIR "/%s", name))
		return -ENAMETOOLONG;
	return sldctl_read_value(path, value);
}

int knob_write(const char *name, const char *value, char *why, size_t n)
{
	char path[PATH_MAX];
	struct stat st;
	int err;

	if (sldctl_path(path, sizeof(path), PARAMS_DIR "/%s", name))
		return why_set(why, n, "path too long"), -ENAMETOOLONG;
	if (stat(path, &st)) {
		err = -errno;
		if (err == -ENOENT)
			why_set(why, n, "this sld_compat has no knob '%s' (no %s; module too old?)",
				name, path);
		else
			why_set(why, n, "%s: %s", path, strerror(-err));
		return err;
	}
	err = sldctl_write_value(path, value);
	if (!err)
		return 0;
	if (err == -EINVAL)
		why_set(why, n, "sld_compat refused '%s' for %s (EINVAL; dmesg says why)",
			sldctl_q(value), name);
	else if (err == -EACCES || err == -EPERM)
		why_set(why, n, "cannot write %s: %s (root required)", path,
			strerror(-err));
	else
		why_set(why, n, "writing %s: %s", path, strerror(-err));
	return err;
}
