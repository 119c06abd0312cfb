// SPDX-License-Identifier: GPL-2.0
/*
 * Shell-style patterns, one grammar for task names (exempt_comm) and for
 * each component of a cgroup path (exempt_cgroup, entries.c). vCPU
 * threads are named by their VMM after exec ("CPU 3/KVM", "EMT-12"), one
 * per vCPU, and libvirt's VMs run in one scope per VM run
 * ("machine-qemu\x2d7\x2dwin10.scope"): an admin names them by pattern.
 *
 * '*' matches any run, '?' one character; "\*", "\?" and "\\" match '*',
 * '?' and '\'. A '\' before any other character, or at the end, is an
 * ordinary character: systemd writes a '-' inside a unit's name as the
 * four characters "\x2d", and a cgroup rule copied from systemd-cgls or
 * /proc/PID/cgroup must mean what it shows (as it did before patterns).
 * No brackets: alternatives are separate list entries. Shared by the
 * module (matching, checking a write) and sldctl (checking before it
 * persists, naming libvirt's scopes in its advice).
 */
#include "schema/glob.h"

static bool glob_special(char c)
{
	return c == '*' || c == '?' || c == '\\';
}

/* The literal at p (p < pe) in *c; how many pattern bytes it takes. */
static size_t glob_literal(const char *p, const char *pe, char *c)
{
	if (*p == '\\' && p + 1 < pe && glob_special(p[1])) {
		*c = p[1];
		return 2;
	}
	*c = *p;
	return 1;
}

/*
 * Iterative, backtracking only to the last '*': O(plen * slen), no
 * recursion (it runs in the #AC handler, preemption off).
 */
bool sld_glob_match_len(const char *p, size_t plen, const char *s,
			size_t slen)
{
	const char *pe = p + plen, *se = s + slen, *star = NULL, *resume = NULL;
	size_t k;
	char c;

	while (s < se) {
		if (p < pe && *p == '*') {
			star = ++p;
			resume = s;
			continue;
		}
		if (p < pe && *p == '?') {
			p++;
			s++;
			continue;
		}
		if (p < pe) {
			k = glob_literal(p, pe, &c);
			if (c == *s) {
				p += k;
				s++;
				continue;
			}
		}
		if (!star)
			return false;
		p = star;
		s = ++resume;
	}
	while (p < pe && *p == '*')
		p++;
	return p == pe;
}

bool sld_glob_match_n(const char *p, size_t plen, const char *s)
{
	return sld_glob_match_len(p, plen, s, strlen(s));
}

bool sld_glob_match(const char *p, const char *s)
{
	return sld_glob_match_len(p, strlen(p), s, strlen(s));
}

void sld_glob_measure(const char *p, size_t plen, struct sld_glob_size *gs)
{
	const char *pe = p + plen;
	char c;

	gs->chars = 0;
	gs->literal = 0;
	gs->star = false;
	gs->lone_backslash = false;
	while (p < pe) {
		if (*p == '*') {
			gs->star = true;
			p++;
			continue;
		}
		gs->chars++;
		if (*p == '?') {
			p++;
			continue;
		}
		gs->literal++;
		if (*p == '\\' && (p + 1 == pe || !glob_special(p[1])))
			gs->lone_backslash = true;
		p += glob_literal(p, pe, &c);
	}
}

/*
 * A pattern that can match a task name: at most max_chars characters to
 * match besides the stars (TASK_COMM_LEN - 1 = 15), at least one literal
 * character beside a star ("*", "?*" would exempt every task: that is
 * split_lock_detect=off), no space at either end (configuration files
 * trim them), and no '\' other than "\*", "\?", "\\": before cgroup
 * patterns a task-name pattern's "\a" meant 'a', so it is refused rather
 * than read with another meaning ("\\" is a '\' of the name). NULL if
 * fine, else why not.
 */
const char *sld_glob_check(const char *p, size_t max_chars)
{
	size_t len = strlen(p);
	struct sld_glob_size gs;

	if (!len)
		return "empty pattern";
	if (p[0] == ' ' || p[len - 1] == ' ')
		return "space at the start or end of a task name";
	sld_glob_measure(p, len, &gs);
	if (gs.lone_backslash)
		return "'\\' not before '*', '?' or '\\' in a task name pattern (write a '\\' of the name as '\\\\')";
	if (gs.star && !gs.literal)
		return "pattern matches every task name";
	if (gs.chars > max_chars)
		return "task name or pattern longer than 15 characters";
	return NULL;
}
