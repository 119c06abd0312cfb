/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers shared by the subcommands that touch the live system.
 *
 * Every system path (/sys, /proc, /etc) is prefixed with the value of the
 * environment variable SLDCTL_ROOT when it is set, so tests can run the
 * real binary against a fake tree.
 */
#ifndef SLDCTL_UTIL_H
#define SLDCTL_UTIL_H

#include <stdbool.h>
#include <stddef.h>

/* "" or the value of SLDCTL_ROOT (without trailing slashes). */
const char *sldctl_root(void);
/* True when SLDCTL_ROOT is set: no root check against a fake tree. */
bool sldctl_fake_root(void);

/* buf = root + printf(fmt, ...); -ENAMETOOLONG if it does not fit. */
int sldctl_path(char *buf, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Read a whole file into a NUL-terminated malloc'd buffer (*len excludes
 * the NUL). Returns 0, -errno, or -EFBIG above max bytes.
 */
int sldctl_read_all(const char *path, size_t max, char **buf, size_t *len);

#endif /* SLDCTL_UTIL_H */
