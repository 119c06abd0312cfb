// SPDX-License-Identifier: GPL-2.0
/*
 * Parser of the sld-compat configuration files (format in config.h).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "util.h"

void conf_init(struct conf *c)
{
	memset(c, 0, sizeof(*c));
}

void conf_free(struct conf *c)
{
	size_t i;

	for (i = 0; i < c->nent; i++) {
		free(c->ent[i].value);
		free(c->ent[i].file);
	}
	for (i = 0; i < c->nerr; i++) {
		free(c->err[i].file);
		free(c->err[i].msg);
	}
	free(c->ent);
	free(c->err);
	conf_init(c);
}

static int conf_verror(struct conf *c, const char *file, unsigned int line,
		       const char *fmt, va_list ap)
{
	struct conf_error *e;
	char *msg, *fn;

	if (vasprintf(&msg, fmt, ap) < 0)
		return -ENOMEM;
	fn = strdup(file);
	e = realloc(c->err, (c->nerr + 1) * sizeof(*e));
	if (!fn || !e) {
		free(msg);
		free(fn);
		if (e)
			c->err = e;
		return -ENOMEM;
	}
	c->err = e;
	e = &c->err[c->nerr++];
	e->file = fn;
	e->line = line;
	e->msg = msg;
	return 0;
}

int conf_add_error(struct conf *c, const char *file, unsigned int line,
		   const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = conf_verror(c, file, line, fmt, ap);
	va_end(ap);
	return r;
}

void conf_print_error(FILE *f, const struct conf_error *e)
{
	if (e->line)
		fprintf(f, "%s:%u: %s\n", e->file, e->line, e->msg);
	else
		fprintf(f, "%s: %s\n", e->file, e->msg);
}

static bool is_blank(char ch)
{
	return ch == ' ' || ch == '\t';
}

/* Trim spaces and tabs: [*b, *e). */
static void trim(const char **b, const char **e)
{
	while (*b < *e && is_blank(**b))
		(*b)++;
	while (*e > *b && is_blank((*e)[-1]))
		(*e)--;
}

static struct conf_entry *find_entry(struct conf *c, const char *key)
{
	size_t i;

	for (i = 0; i < c->nent; i++)
		if (!strcmp(c->ent[i].key, key))
			return &c->ent[i];
	return NULL;
}

static int set_entry(struct conf *c, const char *file, unsigned int line,
		     const char *key, const char *val, size_t vlen)
{
	struct conf_entry *e = find_entry(c, key);
	char *v, *fn;

	v = strndup(val, vlen);
	fn = strdup(file);
	if (!v || !fn)
		goto nomem;
	if (!e) {
		e = realloc(c->ent, (c->nent + 1) * sizeof(*e));
		if (!e)
			goto nomem;
		c->ent = e;
		e = &c->ent[c->nent++];
		memset(e, 0, sizeof(*e));
		strcpy(e->key, key);
	}
	free(e->value);
	free(e->file);
	e->value = v;
	e->file = fn;
	e->line = line;
	e->file_id = c->nfiles;
	return 0;
nomem:
	free(v);
	free(fn);
	return -ENOMEM;
}

/* One line without its newline; len <= CONF_LINE_MAX. */
static int parse_line(struct conf *c, const char *file, unsigned int lineno,
		      const char *line, size_t len)
{
	const unsigned char *u = (const unsigned char *)line;
	const char *b = line, *e = line + len, *eq, *kb, *ke, *vb, *ve;
	char key[CONF_KEY_MAX + 1];
	struct conf_entry *old;
	size_t i, k;

	if (len && line[len - 1] == '\r')
		e--;
	trim(&b, &e);
	if (b == e)
		return 0;
	/* Encoding first: a comment may hold UTF-8, nothing may hold NUL. */
	for (i = 0; i < len; i += k) {
		if (!u[i])
			return conf_add_error(c, file, lineno,
					      "NUL byte at column %zu", i + 1);
		k = sldctl_utf8_len(u + i, len - i);
		if (!k)
			return conf_add_error(c, file, lineno,
					      "invalid UTF-8 (byte 0x%02x at column %zu)",
					      u[i], i + 1);
	}
	if (*b == '#')
		return 0;
	for (i = 0; i < len; i++) {
		if (u[i] >= 0x80)
			return conf_add_error(c, file, lineno,
					      "non-ASCII character at column %zu (only comments may hold UTF-8)",
					      i + 1);
		if ((u[i] < 0x20 && u[i] != '\t' && !(u[i] == '\r' && i == len - 1)) ||
		    u[i] == 0x7f)
			return conf_add_error(c, file, lineno,
					      "control character 0x%02x at column %zu",
					      u[i], i + 1);
	}
	eq = memchr(b, '=', e - b);
	if (!eq)
		return conf_add_error(c, file, lineno, "missing '='");
	kb = b;
	ke = eq;
	trim(&kb, &ke);
	vb = eq + 1;
	ve = e;
	trim(&vb, &ve);
	if (kb == ke)
		return conf_add_error(c, file, lineno, "empty key");
	if ((size_t)(ke - kb) > CONF_KEY_MAX)
		return conf_add_error(c, file, lineno,
				      "key too long (%zu characters, at most %d)",
				      (size_t)(ke - kb), CONF_KEY_MAX);
	for (i = 0; i < (size_t)(ke - kb); i++)
		if (!((kb[i] >= 'a' && kb[i] <= 'z') || kb[i] == '_'))
			return conf_add_error(c, file, lineno,
					      "invalid character '%c' in key '%.*s' (allowed: a-z and _)",
					      kb[i], (int)(ke - kb), kb);
	memcpy(key, kb, ke - kb);
	key[ke - kb] = '\0';
	if (vb == ve)
		return conf_add_error(c, file, lineno,
				      "empty value for '%s'", key);
	if ((size_t)(ve - vb) > CONF_VAL_MAX)
		return conf_add_error(c, file, lineno,
				      "value of '%s' too long (%zu bytes, at most %d)",
				      key, (size_t)(ve - vb), CONF_VAL_MAX);
	for (i = 0; i < (size_t)(ve - vb); i++)
		if (vb[i] == '\t')
			return conf_add_error(c, file, lineno,
					      "tab inside the value of '%s'", key);
	old = find_entry(c, key);
	if (old && old->file_id == c->nfiles)
		return conf_add_error(c, file, lineno,
				      "duplicate key '%s' (already set at line %u)",
				      key, old->line);
	return set_entry(c, file, lineno, key, vb, ve - vb);
}

int conf_parse(struct conf *c, const char *file, const char *buf, size_t len)
{
	unsigned int lineno = 0;
	size_t pos = 0, n;
	const char *nl;
	int r;

	c->nfiles++;
	while (pos < len) {
		nl = memchr(buf + pos, '\n', len - pos);
		n = nl ? (size_t)(nl - (buf + pos)) : len - pos;
		lineno++;
		if (n > CONF_LINE_MAX)
			r = conf_add_error(c, file, lineno,
					   "line too long (%zu bytes, at most %d)",
					   n, CONF_LINE_MAX);
		else
			r = parse_line(c, file, lineno, buf + pos, n);
		if (r)
			return r;
		pos += n + 1;
	}
	return 0;
}

int conf_load_file(struct conf *c, const char *path, int missing_ok)
{
	size_t len;
	char *buf;
	int r;

	r = sldctl_read_all(path, CONF_FILE_MAX, &buf, &len);
	if (r) {
		if (r == -ENOENT && missing_ok)
			return r;
		if (r == -EFBIG)
			conf_add_error(c, path, 0, "file too large (more than %u bytes)",
				       CONF_FILE_MAX);
		else
			conf_add_error(c, path, 0, "cannot read: %s", strerror(-r));
		return r;
	}
	r = conf_parse(c, path, buf, len);
	free(buf);
	return r;
}

static int conf_filter(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return d->d_name[0] != '.' && n > 5 && !strcmp(d->d_name + n - 5, ".conf");
}

/* Lexical byte order, independent of the locale. */
static int conf_cmp(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int conf_load_dir(struct conf *c, const char *dir)
{
	struct dirent **names;
	char path[4096];
	int i, n, r = 0;

	snprintf(path, sizeof(path), "%s/sld-compat.conf", dir);
	if (conf_load_file(c, path, 1) == -ENOMEM)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s/conf.d", dir);
	n = scandir(path, &names, conf_filter, conf_cmp);
	if (n < 0) {
		if (errno == ENOENT)
			return 0;
		return conf_add_error(c, path, 0, "cannot read directory: %s",
				      strerror(errno));
	}
	for (i = 0; i < n; i++) {
		if (!r) {
			snprintf(path, sizeof(path), "%s/conf.d/%s", dir,
				 names[i]->d_name);
			if (conf_load_file(c, path, 0) == -ENOMEM)
				r = -ENOMEM;
		}
		free(names[i]);
	}
	free(names);
	return r;
}
