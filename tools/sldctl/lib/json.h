/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny streaming JSON writer: enough for sldctl's reports, no parser.
 *
 * Strings are taken as bytes. Valid UTF-8 is copied through; quotes,
 * backslash and control characters are escaped; every byte that is not
 * part of a valid UTF-8 sequence (stray continuation bytes, overlong
 * forms, surrogates, code points above U+10FFFF, cut-off sequences) is
 * written as \u00XX, i.e. read back as the Latin-1 character with that
 * byte value. The output is always valid JSON and no byte is lost, at the
 * price that such a name no longer round-trips to the same bytes
 * unambiguously. File and section names are almost always ASCII anyway.
 */
#ifndef SLDCTL_JSON_H
#define SLDCTL_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH	16

struct json {
	FILE *f;
	int depth;
	bool pretty;
	bool need_comma[JSON_MAX_DEPTH];
	bool after_key;
	int flat_depth;		/* levels >= this stay on one line; 0 = none */
};

void json_init(struct json *j, FILE *f, bool pretty);
void json_begin_array(struct json *j);
void json_end_array(struct json *j);
void json_begin_object(struct json *j);
/* An object printed on one line even in pretty mode (list items). */
void json_begin_object_flat(struct json *j);
void json_end_object(struct json *j);
void json_key(struct json *j, const char *key);
void json_string(struct json *j, const char *s);	/* NULL -> null */
void json_string_len(struct json *j, const char *s, size_t len);
void json_uint(struct json *j, uint64_t v);
void json_bool(struct json *j, bool v);
void json_null(struct json *j);
/* A key and its value, the common case. */
void json_field_str(struct json *j, const char *key, const char *s);
void json_field_uint(struct json *j, const char *key, uint64_t v);
void json_field_bool(struct json *j, const char *key, bool v);
/* Finish the document with a newline. */
void json_end(struct json *j);

/* Escape bytes as a JSON string body (no quotes) to f; for tests too. */
void json_write_escaped(FILE *f, const char *s, size_t len);

#endif /* SLDCTL_JSON_H */
