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
#include <stdio.h>

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
/* The same from an open file descriptor, read to its end. */
int sldctl_read_fd(int fd, size_t max, char **buf, size_t *len);

/*
 * Write value to a sysfs (or fake-tree) file in one write(2), as the
 * kernel takes a knob: 0 or -errno (-EIO for a short write).
 */
int sldctl_write_value(const char *path, const char *value);

/*
 * Length of the valid UTF-8 sequence at s (at most n bytes; 1 for ASCII),
 * or 0 for an invalid one: overlong, surrogate, beyond U+10FFFF, cut.
 */
size_t sldctl_utf8_len(const unsigned char *s, size_t n);

/*
 * Show a user-given string in a message: bytes outside printable ASCII,
 * and backslash, as \xNN (src/schema/escape.h, as the module shows
 * names), cut after 64 bytes ("..."). Four rotating static buffers, so up
 * to four calls may appear in one printf.
 */
const char *sldctl_q(const char *s);
/* s[0..len) escaped as sldctl_q() does, uncut, to f. */
void sldctl_put_esc(FILE *f, const char *s, size_t len);

/* Read a small sysfs/proc value: whole file, one trailing newline dropped. */
int sldctl_read_value(const char *path, char **value);

/*
 * Split text into lines (no empty last line); *lines is a malloc'd array
 * pointing into text, which is modified. Returns the count or -ENOMEM.
 */
int sldctl_split_lines(char *text, char ***lines);

/*
 * The next line of *p, without its \n, in *l and *n; false at the end
 * (or if *p is NULL). *p moves past the line.
 */
bool sldctl_next_line(const char **p, const char **l, size_t *n);

/*
 * The value of the first line "name VALUE" of text, a module counters
 * file (ac, db, vendor), *len bytes from the return to the line's end;
 * NULL if there is none or text is NULL. One parser so that doctor,
 * status and the metrics agree on which line is a counter's: its whole
 * name at a line's start, never a longer name that begins with it
 * (tasks_refused in tasks_refused_admin). Each caller judges the value;
 * from the return + *len (the line's end) it may look on for another.
 */
const char *sldctl_counter_value(const char *text, const char *name,
				 size_t *len);

/* True when running as root or against a fake tree (SLDCTL_ROOT). */
bool sldctl_is_root(void);

#endif /* SLDCTL_UTIL_H */
