/* SPDX-License-Identifier: GPL-2.0 */
/*
 * glob.c: shell-style patterns for task names (exempt_comm) and for the
 * components of cgroup paths (exempt_cgroup). Plain C (no kernel
 * headers): the module matches and checks with these, sldctl checks a
 * value before it persists it, so both accept the same ones.
 */
#ifndef SLD_GLOB_H
#define SLD_GLOB_H

#ifdef __KERNEL__
#include <linux/string.h>
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#endif

/*
 * '*' any run, '?' one character, "\*" "\?" "\\" those characters, any
 * other '\' itself; the whole name must match.
 */
bool sld_glob_match(const char *pattern, const char *name);
/* The same with the pattern's first plen bytes (a cgroup path component). */
bool sld_glob_match_n(const char *pattern, size_t plen, const char *name);
/* ... and the name's first nlen bytes. */
bool sld_glob_match_len(const char *pattern, size_t plen, const char *name,
			size_t nlen);

/* What a pattern holds (sld_glob_measure()). */
struct sld_glob_size {
	size_t chars;		/* characters it matches besides its stars */
	size_t literal;		/* of them, not '?' */
	bool star;
	bool lone_backslash;	/* a '\' that stands for itself */
};
void sld_glob_measure(const char *pattern, size_t plen,
		      struct sld_glob_size *gs);

/* NULL if pattern can match a task name of max_chars, else why not. */
const char *sld_glob_check(const char *pattern, size_t max_chars);

#endif /* SLD_GLOB_H */
