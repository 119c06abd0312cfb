// SPDX-License-Identifier: GPL-2.0
/*
 * The one checker of exempt_path, exempt_cgroup and run_allow entries
 * (entries.h), and the walk of a cgroup rule's components that both
 * sides match with (the module against a task's cgroup and its ancestors,
 * sldctl against a path read from /proc or a directory).
 * The reasons are fixed strings: the module prints them in dmesg, sldctl
 * after the entry it quotes.
 */
#ifdef __KERNEL__
#include <linux/string.h>
#else
#include <string.h>
#endif

#include "schema/entries.h"
#include "schema/glob.h"
#include "schema/knobs_table.h"

/* Printable ASCII, no space (a list separator in sldctl's output) or comma. */
static const char *bytes_check(const char *s)
{
	const unsigned char *c;

	for (c = (const unsigned char *)s; *c; c++) {
		if (*c == ',')
			return "comma in entry (commas separate list entries)";
		if (*c == ' ')
			return "space in entry";
		if (*c < 0x21 || *c > 0x7e)
			return "byte that is not printable ASCII in entry";
	}
	return NULL;
}

/* Each component between slashes: not empty, ".", or "..". */
static const char *components_check(const char *s)
{
	const char *c = s, *end;
	size_t len;

	while (*c == '/') {
		end = strchr(c + 1, '/');
		len = end ? (size_t)(end - c - 1) : strlen(c + 1);
		if (!len)
			return "empty component ('//' or a trailing '/')";
		if ((len == 1 && c[1] == '.') ||
		    (len == 2 && c[1] == '.' && c[2] == '.'))
			return "'.' or '..' component (give the path without them)";
		if (!end)
			break;
		c = end;
	}
	return NULL;
}

const char *sld_cgroup_next(const char *pos, size_t *len)
{
	if (*pos != '/')
		return NULL;
	pos++;
	*len = strcspn(pos, "/");
	return pos;
}

unsigned int sld_cgroup_depth(const char *rule)
{
	unsigned int depth = 0;

	for (; *rule; rule++)
		depth += *rule == '/';
	return depth;
}

/*
 * A cgroup rule's components are patterns (glob.c); one that matches
 * every name ("*", "?*") would make the rule the cgroup above it, or the
 * root (every task) for the first: name that cgroup instead, as
 * exempt_comm refuses "*".
 */
static const char *patterns_check(const char *s)
{
	struct sld_glob_size gs;
	size_t len;

	while ((s = sld_cgroup_next(s, &len))) {
		sld_glob_measure(s, len, &gs);
		if (gs.star && !gs.literal)
			return "a component of only '*' and '?' matches every cgroup there (name the cgroup above it)";
		s += len;
	}
	return NULL;
}

bool sld_cgroup_path_match(const char *rule, const char *path)
{
	size_t rlen, plen;

	while ((rule = sld_cgroup_next(rule, &rlen))) {
		path = sld_cgroup_next(path, &plen);
		if (!path || !plen ||
		    !sld_glob_match_len(rule, rlen, path, plen))
			return false;
		rule += rlen;
		path += plen;
	}
	return true;
}

_Static_assert(SLD_PATH_LEN == 255, "the reason below names the bound");

const char *sld_entry_check(const char *s, bool cgroup)
{
	const char *why;

	if (!*s)
		return "empty entry";
	if (strlen(s) > SLD_PATH_LEN)
		return "entry longer than 255 bytes";
	why = bytes_check(s);
	if (why)
		return why;
	if (s[0] != '/')
		return "not absolute (must start with /)";
	if (!strcmp(s, "/"))
		return cgroup ? "the root cgroup '/' would exempt every task" :
				"'/' is not an executable";
	why = components_check(s);
	return why || !cgroup ? why : patterns_check(s);
}

const char *sld_id_check(const char *s)
{
	const char *d = s + (*s == '@');
	unsigned long long v = 0;
	size_t i;

	if (!*d)
		return "empty entry (a uid, or @ and a gid)";
	for (i = 0; d[i]; i++) {
		if (d[i] < '0' || d[i] > '9')
			return "not a number (a uid, or @ and a gid; sldctl apply resolves names)";
		if (i >= 10)
			return "id out of range (at most 4294967294)";
		v = v * 10 + (unsigned int)(d[i] - '0');
	}
	if (d[0] == '0' && d[1])
		return "leading zero in id";
	return v > 4294967294ULL ? "id out of range (at most 4294967294)" : NULL;
}
