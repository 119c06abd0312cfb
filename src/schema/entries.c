// SPDX-License-Identifier: GPL-2.0
/*
 * The one checker of exempt_path, exempt_cgroup and run_allow entries
 * (entries.h).
 * The reasons are fixed strings: the module prints them in dmesg, sldctl
 * after the entry it quotes.
 */
#ifdef __KERNEL__
#include <linux/string.h>
#else
#include <string.h>
#endif

#include "entries.h"
#include "knobs_table.h"

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
	return components_check(s);
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
