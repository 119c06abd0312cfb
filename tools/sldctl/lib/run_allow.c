// SPDX-License-Identifier: GPL-2.0
/*
 * What `sldctl run` decides before it starts anything (run_allow.h). The
 * module decides again on its own (src/engine/run.c): this is for a
 * clear refusal, not the protection.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema/entries.h"
#include "run_allow.h"

int run_allow_parse(const char *value, struct run_allow *a, char *why,
		    size_t n)
{
	char *copy, *e, *save = NULL;
	const char *bad;
	int r = 0;

	a->n = 0;
	if (!strcmp(value, "-"))
		return 0;
	copy = strdup(value);
	if (!copy) {
		snprintf(why, n, "out of memory");
		return -1;
	}
	for (e = strtok_r(copy, ",", &save); e && !r;
	     e = strtok_r(NULL, ",", &save)) {
		bad = sld_id_check(e);
		if (bad || a->n == SLD_RUN_ALLOW_MAX) {
			snprintf(why, n, "run_allow entry '%s': %s", e,
				 bad ? bad : "too many entries");
			r = -1;
			break;
		}
		a->e[a->n].group = *e == '@';
		a->e[a->n++].id = strtoul(e + (*e == '@'), NULL, 10);
	}
	if (!r && !a->n) {
		snprintf(why, n, "run_allow '%s' has no entry", value);
		r = -1;
	}
	free(copy);
	return r;
}

static bool has_gid(gid_t g, gid_t gid, const gid_t *groups, int ngroups)
{
	int i;

	if (g == gid)
		return true;
	for (i = 0; i < ngroups; i++)
		if (groups[i] == g)
			return true;
	return false;
}

bool run_allowed(const struct run_allow *a, uid_t uid, gid_t gid,
		 const gid_t *groups, int ngroups)
{
	unsigned int i;

	if (uid == 0)
		return true;
	for (i = 0; i < a->n; i++) {
		if (a->e[i].group ? has_gid((gid_t)a->e[i].id, gid, groups, ngroups) :
				    (uid_t)a->e[i].id == uid)
			return true;
	}
	return false;
}

/* One entry: a number stays, a name becomes its id. */
static int resolve_one(const char *e, char *out, size_t size, char *why,
		       size_t n)
{
	bool group = *e == '@';
	const char *name = e + group;
	struct passwd *pw;
	struct group *gr;

	if (!sld_id_check(e)) {
		snprintf(out, size, "%s", e);
		return 0;
	}
	if (!*name || strchr(name, ' ')) {
		snprintf(why, n, "'%s' is not a user, @group, uid or @gid", e);
		return -1;
	}
	if (group) {
		gr = getgrnam(name);
		if (gr)
			snprintf(out, size, "@%lu", (unsigned long)gr->gr_gid);
	} else {
		pw = getpwnam(name);
		if (pw)
			snprintf(out, size, "%lu", (unsigned long)pw->pw_uid);
	}
	if ((group && !gr) || (!group && !pw)) {
		snprintf(why, n, "no %s named '%s' on this system",
			 group ? "group" : "user", name);
		return -1;
	}
	return 0;
}

int run_allow_resolve(const char *value, char **out, char *why, size_t n)
{
	size_t cap = strlen(value) * 12 + 16, len = 0;
	char *copy = strdup(value), *e, *save = NULL, id[32];
	char *buf = malloc(cap);
	int r = 0;

	if (!copy || !buf) {
		free(copy);
		free(buf);
		snprintf(why, n, "out of memory");
		return -1;
	}
	buf[0] = '\0';
	if (!strcmp(value, "-"))
		len = (size_t)snprintf(buf, cap, "-");
	for (e = strtok_r(copy, ",", &save); e && !r && strcmp(value, "-");
	     e = strtok_r(NULL, ",", &save)) {
		const char *sign = *e == '+' || *e == '-' ? e : NULL;

		r = resolve_one(e + !!sign, id, sizeof(id), why, n);
		if (!r)
			len += (size_t)snprintf(buf + len, cap - len, "%s%.1s%s",
						len ? "," : "", sign ? sign : "",
						id);
	}
	free(copy);
	if (r) {
		free(buf);
		return -1;
	}
	*out = buf;
	return 0;
}

void run_unit_name(char *buf, size_t n, const char *cmd, long pid)
{
	const char *base = strrchr(cmd, '/');
	char name[33];
	size_t i;

	base = base ? base + 1 : cmd;
	for (i = 0; base[i] && i < sizeof(name) - 1; i++) {
		unsigned char c = (unsigned char)base[i];

		name[i] = isalnum(c) || c == '_' || c == '.' || c == ':' ? (char)c : '_';
	}
	name[i] = '\0';
	snprintf(buf, n, "sld-run-%s-%ld", i ? name : "cmd", pid);
}
