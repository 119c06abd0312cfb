// SPDX-License-Identifier: GPL-2.0
/*
 * Tiny JSON writer. Nesting deeper than JSON_MAX_DEPTH is a programming
 * error in sldctl, not input-driven, so it is clamped rather than handled.
 */
#include <string.h>

#include "json.h"
#include "util.h"

void json_init(struct json *j, FILE *f, bool pretty)
{
	j->f = f;
	j->depth = 0;
	j->pretty = pretty;
	j->need_comma[0] = false;
	j->after_key = false;
	j->flat_depth = 0;
}

static bool flat(const struct json *j)
{
	return j->flat_depth && j->depth >= j->flat_depth;
}

static void indent(struct json *j)
{
	int i;

	if (!j->pretty || flat(j))
		return;
	fputc('\n', j->f);
	for (i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* Separator and indentation before any value or key. */
static void before_value(struct json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->need_comma[j->depth]) {
		fputc(',', j->f);
		if (j->pretty && flat(j))
			fputc(' ', j->f);
	}
	if (j->depth > 0)
		indent(j);
	j->need_comma[j->depth] = true;
}

static void open_level(struct json *j, char c)
{
	before_value(j);
	fputc(c, j->f);
	if (j->depth < JSON_MAX_DEPTH - 1)
		j->depth++;
	j->need_comma[j->depth] = false;
}

static void close_level(struct json *j, char c)
{
	bool had_items = j->need_comma[j->depth];

	if (j->flat_depth && j->depth == j->flat_depth) {
		j->flat_depth = 0;
		j->depth--;
		fputc(c, j->f);
		return;
	}
	if (j->depth > 0)
		j->depth--;
	if (had_items)
		indent(j);
	fputc(c, j->f);
}

void json_begin_array(struct json *j)	{ open_level(j, '['); }
void json_end_array(struct json *j)	{ close_level(j, ']'); }
void json_begin_object(struct json *j)	{ open_level(j, '{'); }
void json_end_object(struct json *j)	{ close_level(j, '}'); }

void json_begin_object_flat(struct json *j)
{
	open_level(j, '{');
	if (!j->flat_depth)
		j->flat_depth = j->depth;
}

void json_key(struct json *j, const char *key)
{
	json_string(j, key);
	fputs(j->pretty ? ": " : ":", j->f);
	j->after_key = true;
}

void json_write_escaped(FILE *f, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, n;

	while (i < len) {
		unsigned char c = s[i];

		switch (c) {
		case '"':  fputs("\\\"", f); i++; continue;
		case '\\': fputs("\\\\", f); i++; continue;
		case '\n': fputs("\\n", f); i++; continue;
		case '\r': fputs("\\r", f); i++; continue;
		case '\t': fputs("\\t", f); i++; continue;
		case '\b': fputs("\\b", f); i++; continue;
		case '\f': fputs("\\f", f); i++; continue;
		}
		if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
			i++;
		} else if (c < 0x80) {
			fputc(c, f);
			i++;
		} else if ((n = sldctl_utf8_len(s + i, len - i))) {
			fwrite(s + i, 1, n, f);
			i += n;
		} else {
			fprintf(f, "\\u%04x", c);
			i++;
		}
	}
}

void json_string_len(struct json *j, const char *s, size_t len)
{
	before_value(j);
	fputc('"', j->f);
	json_write_escaped(j->f, s, len);
	fputc('"', j->f);
}

void json_string(struct json *j, const char *s)
{
	if (!s) {
		json_null(j);
		return;
	}
	json_string_len(j, s, strlen(s));
}

void json_uint(struct json *j, uint64_t v)
{
	before_value(j);
	fprintf(j->f, "%llu", (unsigned long long)v);
}

void json_bool(struct json *j, bool v)
{
	before_value(j);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j)
{
	before_value(j);
	fputs("null", j->f);
}

void json_field_str(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	json_string(j, s);
}

void json_field_uint(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	json_uint(j, v);
}

void json_field_bool(struct json *j, const char *key, bool v)
{
	json_key(j, key);
	json_bool(j, v);
}

void json_end(struct json *j)
{
	fputc('\n', j->f);
}
