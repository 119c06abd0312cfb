/* SPDX-License-Identifier: GPL-2.0 */
/*
 * glob.c: shell-style patterns for task names (exempt_comm). Plain C (no
 * kernel headers): the module matches and checks with these, sldctl
 * checks a value before it persists it, so both accept the same ones.
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

/* '*' any run, '?' one character, '\' escapes; the whole name must match. */
bool sld_glob_match(const char *pattern, const char *name);
/* NULL if pattern can match a name of max_chars, else why not. */
const char *sld_glob_check(const char *pattern, size_t max_chars);

#endif /* SLD_GLOB_H */
