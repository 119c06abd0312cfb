// SPDX-License-Identifier: GPL-2.0
/*
 * Shell-style patterns for task names (exempt_comm): vCPU threads are
 * named by their VMM after exec ("CPU 3/KVM", "EMT-12"), one per vCPU, so
 * an admin names them by pattern. '*' matches any run, '?' one character,
 * '\' makes the next character literal; no brackets (a name is at most
 * 15 bytes: alternatives are separate list entries). Shared by the module
 * (matching, checking a write) and sldctl (checking before it persists).
 */
#include "glob.h"

/*
 * Iterative, backtracking only to the last '*': O(len(p) * len(s)), no
 * recursion (it runs in the #AC handler, preemption off).
 */
bool sld_glob_match(const char *p, const char *s)
{
	const char *star = NULL, *resume = NULL;

	while (*s) {
		if (*p == '*') {
			star = ++p;
			resume = s;
			continue;
		}
		if (*p == '\\' && p[1] && p[1] == *s) {
			p += 2;
			s++;
			continue;
		}
		if (*p && *p != '\\' && (*p == '?' || *p == *s)) {
			p++;
			s++;
			continue;
		}
		if (!star)
			return false;
		p = star;
		s = ++resume;
	}
	while (*p == '*')
		p++;
	return !*p;
}

/*
 * A pattern that can match a task name: at most max_chars characters to
 * match besides the stars (TASK_COMM_LEN - 1 = 15), at least one literal
 * character beside a star ("*", "?*" would exempt every task: that is
 * split_lock_detect=off), no lone '\' at the end, no space at either end
 * (configuration files trim them). NULL if fine, else why not.
 */
const char *sld_glob_check(const char *p, size_t max_chars)
{
	size_t n = 0, literal = 0, len = strlen(p);
	bool star = false, esc;

	if (!len)
		return "empty pattern";
	if (p[0] == ' ' || p[len - 1] == ' ')
		return "space at the start or end of a task name";
	for (; *p; p++) {
		if (*p == '*') {
			star = true;
			continue;
		}
		esc = *p == '\\';
		if (esc && !*++p)
			return "'\\' at the end of a pattern (it escapes the next character)";
		literal += esc || *p != '?';
		n++;
	}
	if (star && !literal)
		return "pattern matches every task name";
	if (n > max_chars)
		return "task name or pattern longer than 15 characters";
	return NULL;
}
