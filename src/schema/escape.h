/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How a name that came from a user is shown: task names, executable
 * paths, cgroup and scope names. A task names itself (prctl) and a user
 * names their files and cgroups, with any bytes but '/' and NUL: shown
 * raw, a newline adds a line that forges a record of a status file or a
 * finding of sldctl, and ESC sequences drive root's terminal. Plain C (no
 * kernel headers): sld_compat.ko escapes the names of its files and its
 * dmesg lines with this, sldctl the names in its text output, so one name
 * reads the same in both.
 *
 * Every byte outside printable ASCII, and the backslash (so that a name
 * holding "\x0a" itself stays apart from an escaped newline), is written
 * as \xNN; the flags add characters that matter where the name goes.
 * JSON and Prometheus have escapes of their own (sldctl's json.c,
 * status_prom.c), which carry the name exactly.
 */
#ifndef SLD_ESCAPE_H
#define SLD_ESCAPE_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stddef.h>
#endif

/* Also ' ': the name is a field of a space-separated line. */
#define SLD_ESC_SPACE	0x1u
/* Also ' and ": the text goes inside a shell $'...' word. */
#define SLD_ESC_QUOTES	0x2u

/* Room for n bytes escaped, and the NUL. */
#define SLD_ESC_SIZE(n)	(4 * (n) + 1)

/* c is shown as \xNN under flags. */
bool sld_esc_needed(unsigned char c, unsigned int flags);

/*
 * src, up to its NUL or max bytes, escaped into dst of size bytes (size
 * > 0: always NUL-terminated, an escape never cut in half). Returns the
 * bytes of src taken: fewer than strnlen(src, max) when dst was full.
 */
size_t sld_esc(char *dst, size_t size, const char *src, size_t max,
	       unsigned int flags);

#endif /* SLD_ESCAPE_H */
