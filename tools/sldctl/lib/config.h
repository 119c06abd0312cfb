/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sld-compat configuration: /etc/sld-compat/sld-compat.conf, then
 * /etc/sld-compat/conf.d/ *.conf in lexical (byte) order. A later file
 * overrides an earlier one for the same key.
 *
 * Format, one item per line:
 *	# comment		(whole line; may hold any valid UTF-8)
 *				(blank lines)
 *	knob = value
 * key: a knob name, [a-z_]{1,32}. value: the rest of the line with
 * surrounding spaces/tabs trimmed, 1..CONF_VAL_MAX printable ASCII bytes
 * (a '#' inside a value is part of it). A trailing CR is ignored.
 *
 * An invalid line is reported as FILE:LINE: reason and skipped: a line is
 * applied whole or not at all. conf_parse() is a pure function over a
 * buffer, so it can be unit-tested and fuzzed.
 */
#ifndef SLDCTL_CONFIG_H
#define SLDCTL_CONFIG_H

#include <stddef.h>
#include <stdio.h>

#define CONF_KEY_MAX	32
#define CONF_VAL_MAX	4000
#define CONF_LINE_MAX	4096	/* bytes, without the newline */
#define CONF_FILE_MAX	(1u << 20)

struct conf_entry {
	char key[CONF_KEY_MAX + 1];
	char *value;
	char *file;		/* where the value in force was set */
	unsigned int line;
	unsigned int file_id;	/* which conf_parse() call set it */
};

struct conf_error {
	char *file;
	unsigned int line;	/* 0: about the file as a whole */
	char *msg;
};

struct conf {
	struct conf_entry *ent;
	size_t nent;
	struct conf_error *err;
	size_t nerr;
	unsigned int nfiles;
};

void conf_init(struct conf *c);
void conf_free(struct conf *c);

/*
 * Parse one file's contents (file names it in entries and errors) and
 * merge it into c. Returns 0, or -ENOMEM (c stays consistent).
 */
int conf_parse(struct conf *c, const char *file, const char *buf, size_t len);

/* Record an error about a whole file (line 0), e.g. it cannot be read. */
int conf_add_error(struct conf *c, const char *file, unsigned int line,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/*
 * Read and parse one file. Returns 0, or -errno when it cannot be read
 * (then also recorded in c->err unless missing_ok and it is ENOENT).
 */
int conf_load_file(struct conf *c, const char *path, int missing_ok);

/*
 * DIR/sld-compat.conf (may be missing) and DIR/conf.d/ *.conf (lexical
 * byte order; names starting with '.' are skipped). Returns 0 or -ENOMEM;
 * unreadable files are recorded in c->err.
 */
int conf_load_dir(struct conf *c, const char *dir);

/* "FILE:LINE: msg" (or "FILE: msg" for line 0). */
void conf_print_error(FILE *f, const struct conf_error *e);

/*
 * Set "key = value" in one configuration file (conf_edit.c), keeping every
 * other line, comments included: the first line setting key is replaced,
 * later ones for the same key are dropped, or the line is appended. The
 * file is written to a temporary file in its directory and renamed over
 * the original (created, with its directory, if missing). A NULL value
 * removes every line setting key. 0, or -errno with a message in why.
 */
int conf_set_value(const char *path, const char *key, const char *value,
		   char *why, size_t n);

/* Does this line ("  key = value", no newline) set key? */
int conf_line_sets(const char *line, size_t len, const char *key);

#endif /* SLDCTL_CONFIG_H */
