// SPDX-License-Identifier: GPL-2.0
/*
 * What a knob write did to the loaded modules (modchange.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modchange.h"
#include "util.h"

#define MODULES_FILE	"/proc/sld_compat_modules"

bool modchange_knob(const char *knob)
{
	static const char *const knobs[] = {
		"on_hypervisor", "safe_modules", "hypervisor_modules", "enabled",
		"trust_sld_safe",
	};
	size_t i;

	for (i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
		if (!strcmp(knob, knobs[i]))
			return true;
	return false;
}

static bool has_flag(const char *flags, const char *f)
{
	size_t len = strlen(f);
	const char *p = flags;

	while ((p = strstr(p, f))) {
		if ((p == flags || p[-1] == ',') && (p[len] == ',' || !p[len]))
			return true;
		p += len;
	}
	return false;
}

/* "name verdict reason ... flags=a,b,loaded": false if malformed or gone. */
static bool parse_line(const char *line, struct modstate *m)
{
	const char *flags = strstr(line, " flags=");
	char fl[256];

	memset(m, 0, sizeof(*m));
	if (!flags || sscanf(line, "%63s %31s %31s", m->name, m->verdict,
			     m->reason) != 3)
		return false;
	snprintf(fl, sizeof(fl), "%s", flags + 7);
	fl[strcspn(fl, " \n")] = '\0';
	if (!has_flag(fl, "loaded"))
		return false;
	m->watched = has_flag(fl, "watched");
	m->disabled = has_flag(fl, "sld-disabled");
	m->late = has_flag(fl, "refuse-too-late");
	return true;
}

int modstates_parse(const char *text, struct modstates *out)
{
	const char *p = text, *nl;
	char line[1024];
	int max = 0;

	out->m = NULL;
	out->n = 0;
	for (; p && *p; p = nl ? nl + 1 : NULL) {
		struct modstate m;
		size_t len;

		nl = strchr(p, '\n');
		len = nl ? (size_t)(nl - p) : strlen(p);
		if (len >= sizeof(line))
			continue;
		memcpy(line, p, len);
		line[len] = '\0';
		if (!parse_line(line, &m))
			continue;
		if (out->n == max) {
			struct modstate *g;

			max = max ? 2 * max : 16;
			g = realloc(out->m, max * sizeof(*g));
			if (!g) {
				modstates_free(out);
				return -1;
			}
			out->m = g;
		}
		out->m[out->n++] = m;
	}
	return 0;
}

void modstates_free(struct modstates *s)
{
	free(s->m);
	s->m = NULL;
	s->n = 0;
}

int modstates_read(struct modstates *out)
{
	char path[4096], *text;
	int r;

	out->m = NULL;
	out->n = 0;
	if (sldctl_path(path, sizeof(path), MODULES_FILE) ||
	    sldctl_read_value(path, &text))
		return -1;
	r = modstates_parse(text, out);
	free(text);
	return r;
}

static int add(char *buf, size_t n, int at, bool cond, const char *what)
{
	if (!cond || at < 0 || (size_t)at >= n)
		return at;
	return at + snprintf(buf + at, n - at, "%s%s", buf[at - 1] == ':' ?
			     " " : ", ", what);
}

int modchange_describe(const struct modstate *was, const struct modstate *now,
		       char *buf, size_t n)
{
	bool verdict = strcmp(was->verdict, now->verdict) ||
		       strcmp(was->reason, now->reason);
	int at;

	if (!verdict && was->watched == now->watched &&
	    was->disabled == now->disabled && was->late == now->late)
		return 0;
	if (verdict)
		at = snprintf(buf, n, "%s: %s (%s) -> %s (%s):", now->name,
			      was->verdict, was->reason, now->verdict, now->reason);
	else
		at = snprintf(buf, n, "%s: %s (%s):", now->name, now->verdict,
			      now->reason);
	at = add(buf, n, at, now->watched && !was->watched, "watched");
	at = add(buf, n, at, !now->watched && was->watched,
		 "no longer watched, its protected tasks released");
	at = add(buf, n, at, now->disabled && !was->disabled, "holds SLD off");
	at = add(buf, n, at, !now->disabled && was->disabled,
		 "SLD disable hold given back");
	at = add(buf, n, at, now->late && !was->late,
		 "loaded, so not refused: flagged refuse-too-late until it unloads");
	at = add(buf, n, at, !now->late && was->late, "no longer flagged refuse-too-late");
	if (at > 0 && (size_t)at < n && buf[at - 1] == ':')
		buf[--at] = '\0';	/* verdict only */
	return at > 0 ? at : 0;
}

int modchange_each(const struct modstates *before, const struct modstates *after,
		   void (*emit)(void *ctx, const struct modstate *now,
				const char *line),
		   void *ctx)
{
	char line[512];
	int i, k, count = 0;

	for (i = 0; i < after->n; i++)
		for (k = 0; k < before->n; k++) {
			if (strcmp(before->m[k].name, after->m[i].name))
				continue;
			if (modchange_describe(&before->m[k], &after->m[i], line,
					       sizeof(line))) {
				emit(ctx, &after->m[i], line);
				count++;
			}
			break;
		}
	return count;
}
