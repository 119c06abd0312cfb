// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for sldctl's configuration parser (tools/sldctl/lib/config.c):
 * good files, every kind of bad line, duplicates, drop-in order and
 * override, file loading.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/config.h"

static void parse_str(struct conf *c, const char *file, const char *s)
{
	assert_int_equal(conf_parse(c, file, s, strlen(s)), 0);
}

static const struct conf_entry *get(const struct conf *c, const char *key)
{
	size_t i;

	for (i = 0; i < c->nent; i++)
		if (!strcmp(c->ent[i].key, key))
			return &c->ent[i];
	return NULL;
}

static void test_good(void **state)
{
	const struct conf_entry *e;
	struct conf c;

	(void)state;
	conf_init(&c);
	parse_str(&c, "sld-compat.conf",
		  "# a comment, with = signs and UTF-8: \xc3\xa9\n"
		  "\n"
		  "   \t\n"
		  "verbose = 2\n"
		  "\tenabled\t=N  \r\n"
		  "  # indented comment\n"
		  "some_knob=a = b # not a comment\n"
		  "last_line = x");
	assert_int_equal(c.nerr, 0);
	assert_int_equal(c.nent, 4);
	assert_string_equal(c.ent[0].key, "verbose");
	assert_string_equal(c.ent[0].value, "2");
	assert_int_equal(c.ent[0].line, 4);
	assert_string_equal(c.ent[0].file, "sld-compat.conf");
	e = get(&c, "enabled");
	assert_non_null(e);
	assert_string_equal(e->value, "N");
	assert_int_equal(e->line, 5);
	e = get(&c, "some_knob");
	assert_non_null(e);
	assert_string_equal(e->value, "a = b # not a comment");
	e = get(&c, "last_line");
	assert_non_null(e);
	assert_string_equal(e->value, "x");
	assert_int_equal(e->line, 8);
	conf_free(&c);
}

static void test_empty(void **state)
{
	struct conf c;

	(void)state;
	conf_init(&c);
	assert_int_equal(conf_parse(&c, "f", "", 0), 0);
	parse_str(&c, "g", "\n\n# only comments\n");
	assert_int_equal(c.nent, 0);
	assert_int_equal(c.nerr, 0);
	conf_free(&c);
}

struct bad {
	const char *line;
	size_t len;	/* 0: strlen */
	const char *want;
};

static void test_bad_lines(void **state)
{
	static const struct bad bad[] = {
		{ "verbose 2", 0, "missing '='" },
		{ "= 2", 0, "empty key" },
		{ "verbose =", 0, "empty value for 'verbose'" },
		{ "verbose =   \t ", 0, "empty value" },
		{ "Verbose = 2", 0, "invalid character 'V' in key 'Verbose'" },
		{ "verbose2 = 2", 0, "invalid character '2' in key" },
		{ "ver-bose = 2", 0, "invalid character '-'" },
		{ "ver bose = 2", 0, "invalid character ' '" },
		{ "abcdefghijklmnopqrstuvwxyzabcdefg = 1", 0,
		  "key too long (33 characters, at most 32)" },
		{ "verbose = a\tb", 0, "tab inside the value of 'verbose'" },
		{ "verbose = 2\x01", 0, "control character 0x01 at column 12" },
		{ "verbose = 2\x7f", 0, "control character 0x7f" },
		{ "verbose = \xc3\xa9", 0, "non-ASCII character at column 11" },
		{ "verbose = \xff", 0, "invalid UTF-8 (byte 0xff at column 11)" },
		{ "# comment \xc3", 0, "invalid UTF-8" },
		{ "# overlong \xc0\xaf", 0, "invalid UTF-8" },
		{ "# surrogate \xed\xa0\x80", 0, "invalid UTF-8" },
		{ "verbose = 1\0002", 13, "NUL byte at column 12" },
		{ "# nul \000 in comment", 18, "NUL byte at column 7" },
		{ "verbose = 2\r\r", 0, "control character 0x0d at column 12" },
	};
	char *buf;
	size_t i, n;
	struct conf c;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		n = bad[i].len ? bad[i].len : strlen(bad[i].line);
		buf = malloc(n + 64);
		assert_non_null(buf);
		/* Line 3 is the bad one, around it good lines. */
		memcpy(buf, "# x\nenabled = Y\n", 16);
		memcpy(buf + 16, bad[i].line, n);
		memcpy(buf + 16 + n, "\nother = 1\n", 11);
		conf_init(&c);
		assert_int_equal(conf_parse(&c, "sld-compat.conf", buf, n + 27), 0);
		if (c.nerr != 1 || !strstr(c.err[0].msg, bad[i].want))
			fail_msg("case %zu '%s': %zu errors, first '%s', want '%s'",
				 i, bad[i].line, c.nerr,
				 c.nerr ? c.err[0].msg : "", bad[i].want);
		assert_int_equal(c.err[0].line, 3);
		assert_string_equal(c.err[0].file, "sld-compat.conf");
		/* Skipped whole, neighbours applied. */
		assert_int_equal(c.nent, 2);
		assert_null(get(&c, "verbose"));
		assert_non_null(get(&c, "enabled"));
		assert_non_null(get(&c, "other"));
		conf_free(&c);
		free(buf);
	}
}

static void test_limits(void **state)
{
	char line[CONF_LINE_MAX + 64];
	struct conf c;
	size_t n;

	(void)state;
	conf_init(&c);
	/* Key of exactly 32 characters, value of exactly 4000 bytes. */
	n = sprintf(line, "abcdefghijklmnopqrstuvwxyzabcdef = ");
	memset(line + n, 'v', CONF_VAL_MAX);
	line[n + CONF_VAL_MAX] = '\n';
	assert_int_equal(conf_parse(&c, "f", line, n + CONF_VAL_MAX + 1), 0);
	assert_int_equal(c.nerr, 0);
	assert_int_equal(c.nent, 1);
	assert_int_equal(strlen(c.ent[0].value), CONF_VAL_MAX);
	conf_free(&c);

	/* 4001-byte value. */
	n = sprintf(line, "k = ");
	memset(line + n, 'v', CONF_VAL_MAX + 1);
	assert_int_equal(conf_parse(&c, "f", line, n + CONF_VAL_MAX + 1), 0);
	assert_int_equal(c.nerr, 1);
	assert_non_null(strstr(c.err[0].msg, "value of 'k' too long (4001 bytes, at most 4000)"));
	assert_int_equal(c.nent, 0);
	conf_free(&c);

	/* A line of CONF_LINE_MAX + 1 bytes, then a good one. */
	memset(line, '#', CONF_LINE_MAX + 1);
	memcpy(line + CONF_LINE_MAX + 1, "\nk=1\n", 5);
	assert_int_equal(conf_parse(&c, "f", line, CONF_LINE_MAX + 6), 0);
	assert_int_equal(c.nerr, 1);
	assert_int_equal(c.err[0].line, 1);
	assert_non_null(strstr(c.err[0].msg, "line too long (4097 bytes, at most 4096)"));
	assert_int_equal(c.nent, 1);
	assert_int_equal(c.ent[0].line, 2);
	conf_free(&c);
}

static void test_duplicate_same_file(void **state)
{
	struct conf c;

	(void)state;
	conf_init(&c);
	parse_str(&c, "a.conf", "verbose = 1\nenabled = Y\nverbose = 3\n");
	assert_int_equal(c.nerr, 1);
	assert_int_equal(c.err[0].line, 3);
	assert_string_equal(c.err[0].msg,
			    "duplicate key 'verbose' (already set at line 1)");
	assert_string_equal(get(&c, "verbose")->value, "1");
	conf_free(&c);
}

static void test_override(void **state)
{
	struct conf c;

	(void)state;
	conf_init(&c);
	parse_str(&c, "sld-compat.conf", "verbose = 1\nenabled = Y\n");
	parse_str(&c, "conf.d/10-a.conf", "\nverbose = 2\n");
	parse_str(&c, "conf.d/20-b.conf", "verbose = 3\nnew_knob = x\n");
	assert_int_equal(c.nerr, 0);
	assert_int_equal(c.nent, 3);
	/* Order of first appearance, the latest value. */
	assert_string_equal(c.ent[0].key, "verbose");
	assert_string_equal(c.ent[0].value, "3");
	assert_string_equal(c.ent[0].file, "conf.d/20-b.conf");
	assert_int_equal(c.ent[0].line, 1);
	assert_string_equal(c.ent[1].value, "Y");
	assert_string_equal(c.ent[1].file, "sld-compat.conf");
	assert_string_equal(c.ent[2].key, "new_knob");
	conf_free(&c);
}

static void write_file(const char *dir, const char *name, const char *s)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(s, f);
	assert_int_equal(fclose(f), 0);
}

static void test_load_dir(void **state)
{
	char tmpl[] = "/tmp/test_config.XXXXXX", sub[512], cmd[600];
	char *dir = mkdtemp(tmpl);
	struct conf c;

	(void)state;
	assert_non_null(dir);
	conf_init(&c);
	/* Nothing there: no entries, no errors. */
	assert_int_equal(conf_load_dir(&c, dir), 0);
	assert_int_equal(c.nent + c.nerr, 0);
	conf_free(&c);

	snprintf(sub, sizeof(sub), "%s/conf.d", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	write_file(dir, "sld-compat.conf", "verbose = 1\nenabled = Y\na = main\n");
	write_file(sub, "20-b.conf", "verbose = 3\nbad line\n");
	write_file(sub, "10-a.conf", "verbose = 2\nenabled = N\n");
	write_file(sub, "10-a.conf.bak", "verbose = 9\n");
	write_file(sub, ".hidden.conf", "verbose = 8\n");
	write_file(sub, "README", "verbose = 7\n");
	/* Byte order: "Z" sorts before "a" whatever the locale says. */
	write_file(sub, "Z.conf", "a = Z\n");
	write_file(sub, "a.conf", "a = a\n");
	assert_int_equal(conf_load_dir(&c, dir), 0);
	assert_int_equal(c.nerr, 1);
	assert_int_equal(c.err[0].line, 2);
	assert_non_null(strstr(c.err[0].file, "/conf.d/20-b.conf"));
	assert_string_equal(c.err[0].msg, "missing '='");
	assert_string_equal(get(&c, "verbose")->value, "3");
	assert_string_equal(get(&c, "enabled")->value, "N");
	assert_non_null(strstr(get(&c, "enabled")->file, "/conf.d/10-a.conf"));
	assert_string_equal(get(&c, "a")->value, "a");
	conf_free(&c);

	/* A missing file given explicitly is an error. */
	snprintf(sub, sizeof(sub), "%s/nope.conf", dir);
	assert_int_equal(conf_load_file(&c, sub, 0), -ENOENT);
	assert_int_equal(c.nerr, 1);
	assert_int_equal(c.err[0].line, 0);
	assert_non_null(strstr(c.err[0].msg, "cannot read"));
	conf_free(&c);
	assert_int_equal(conf_load_file(&c, sub, 1), -ENOENT);
	assert_int_equal(c.nerr, 0);
	conf_free(&c);

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_print_error(void **state)
{
	struct conf_error e = { .file = "sld-compat.conf", .line = 7,
				.msg = "missing '='" };
	char buf[128] = "";
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	(void)state;
	assert_non_null(f);
	conf_print_error(f, &e);
	e.line = 0;
	e.msg = "cannot read: No such file or directory";
	conf_print_error(f, &e);
	fclose(f);
	assert_string_equal(buf, "sld-compat.conf:7: missing '='\n"
			    "sld-compat.conf: cannot read: No such file or directory\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_duplicate_same_file),
		cmocka_unit_test(test_override),
		cmocka_unit_test(test_load_dir),
		cmocka_unit_test(test_print_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
