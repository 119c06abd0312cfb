// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of sldctl's admin building blocks, in process: the shared
 * option parser (cli.c), knob value checks and list planning (knob.c),
 * the atomic configuration edit (conf_edit.c) and the host facts parsers
 * (host.c).
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

#include "cli.h"
#include "lib/config.h"
#include "host.h"
#include "lib/knob.h"
#include "lib/modchange.h"

/* ---- cli ------------------------------------------------------------------ */

static const struct cli_opt test_opts[] = {
	{ "persist", 'p', false, false },
	{ "config", 'c', true, false },
	{ "comm", 0, true, true },
	{ NULL, 0, false, false },
};

/* Parse a NULL-terminated argv with stderr silenced. */
static int parse(struct cli *c, const char *first, ...)
{
	static char *argv[32];	/* c->args points into it */
	int argc = 0, r;
	const char *a;
	va_list ap;
	FILE *saved;

	argv[argc++] = (char *)first;
	va_start(ap, first);
	while ((a = va_arg(ap, const char *)) && argc < 31)
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	c->opts = test_opts;
	c->cmd = "test";
	c->usage = "[...]";
	fflush(stderr);
	saved = stderr;
	stderr = fopen("/dev/null", "w");
	r = cli_parse(c, argc, argv);
	fclose(stderr);
	stderr = saved;
	return r;
}

static void test_cli_good(void **state)
{
	struct cli c = { .min_args = 0, .max_args = 2 };
	const struct cli_val *v;

	(void)state;
	assert_int_equal(parse(&c, "x", "--json", "-p", "--config", "f",
			       "--comm", "a", "op", "--comm=b", NULL), CLI_OK);
	assert_true(c.json);
	assert_true(cli_flag(&c, "persist"));
	assert_string_equal(cli_str(&c, "config"), "f");
	v = cli_get(&c, "comm");
	assert_int_equal(v->n, 2);
	assert_string_equal(v->values[0], "a");
	assert_string_equal(v->values[1], "b");
	assert_int_equal(c.nargs, 1);
	assert_string_equal(c.args[0], "op");
	/* "--" ends options: "-1" is an operand. */
	assert_int_equal(parse(&c, "x", "--", "-1", NULL), CLI_OK);
	assert_string_equal(c.args[0], "-1");
	assert_null(cli_get(&c, "nope"));
}

static void test_cli_bad(void **state)
{
	struct cli c = { .min_args = 1, .max_args = 1 };

	(void)state;
	assert_int_equal(parse(&c, "x", NULL), CLI_ERR);		/* missing */
	assert_int_equal(parse(&c, "x", "a", "b", NULL), CLI_ERR);	/* extra */
	assert_int_equal(parse(&c, "x", "--bogus", "a", NULL), CLI_ERR);
	assert_int_equal(parse(&c, "x", "-z", "a", NULL), CLI_ERR);
	assert_int_equal(parse(&c, "x", "--json", "--json", "a", NULL), CLI_ERR);
	assert_int_equal(parse(&c, "x", "-p", "-p", "a", NULL), CLI_ERR);
	assert_int_equal(parse(&c, "x", "a", "--config", NULL), CLI_ERR);
	assert_int_equal(parse(&c, "x", "a", "--config", "", NULL), CLI_ERR);
	assert_int_equal(parse(&c, "x", "a", "--config", "f", "-c", "g", NULL), CLI_ERR);
	assert_int_equal(parse(&c, "x", "a", "--persist=1", NULL), CLI_ERR);
	assert_int_equal(parse(&c, "x", "a", "--comm", "", NULL), CLI_ERR);
	assert_int_equal(parse(&c, "x", "--help", NULL), CLI_HELP);
}

/* ---- value checks ------------------------------------------------------------ */

struct check_case {
	int (*fn)(char *v, char *why, size_t n);
	const char *in;
	int ok;
	const char *why_has;	/* substring of the reason, when bad */
};

static void test_checks(void **state)
{
	static const struct check_case cases[] = {
		{ knob_check_module, "kvm_intel", 1, NULL },
		{ knob_check_module, "vbox-drv", 1, NULL },
		{ knob_check_module, "", 0, "empty" },
		{ knob_check_module, " ", 0, "whitespace" },
		{ knob_check_module, "a,b", 0, "comma" },
		{ knob_check_module, "+a", 0, "starts with '+'" },
		{ knob_check_module, "a/b", 0, "'/' in module name" },
		{ knob_check_module, "..", 0, "'.' in module name" },
		{ knob_check_module, "\xff", 0, "0xff" },
		{ knob_check_module, "a234567890123456789012345678901234567890123456789012345", 1, NULL },
		{ knob_check_module, "a2345678901234567890123456789012345678901234567890123456", 0, "longer than 55" },
		{ knob_check_comm, "game.exe", 1, NULL },
		{ knob_check_comm, "123456789012345", 1, NULL },
		{ knob_check_comm, "1234567890123456", 0, "longer than 15" },
		{ knob_check_comm, "a\tb", 0, "0x09" },
		{ knob_check_comm, "CPU */KVM", 1, NULL },
		{ knob_check_comm, "EMT-*", 1, NULL },
		{ knob_check_comm, "**12345678901234*5", 1, NULL },
		{ knob_check_comm, "*1234567890123456", 0, "longer than 15" },
		{ knob_check_comm, " CPU", 0, "space at the start or end" },
		{ knob_check_comm, "a\\", 0, "not before '*', '?' or '\\' in a task name pattern" },
		{ knob_check_comm, "a*,b", 0, "comma" },
		{ knob_check_comm, "a2345678901234567890123456789012", 0, "longer than 31 bytes" },
		{ knob_check_comm, "-x", 0, "starts with '-'" },
		{ knob_check_path, "/usr/bin/game", 1, NULL },
		{ knob_check_path, "usr/bin/game", 0, "absolute" },
		{ knob_check_path, "/usr/../bin", 0, "'..' component" },
		{ knob_check_path, "/usr/./bin", 0, "'.' or '..' component" },
		{ knob_check_path, "/usr//bin", 0, "empty component" },
		{ knob_check_path, "/usr/bin/", 0, "empty component" },
		{ knob_check_path, "/", 0, "not an executable" },
		{ knob_check_path, "/a..b/.c", 1, NULL },
		{ knob_check_cgroup, "/sld.slice/game", 1, NULL },
		{ knob_check_cgroup, "/", 0, "every task" },
		{ knob_check_cgroup, "/../x", 0, "'..' component" },
		{ knob_check_bool, "y", 1, NULL },
		{ knob_check_bool, "yes", 0, "not Y or N" },
		{ knob_check_verbose, "3", 1, NULL },
		{ knob_check_verbose, "4", 0, "not a level" },
		{ knob_check_verbose, "-1", 0, "not a level" },
		{ knob_check_verbose, "01", 0, "not a level" },
		{ knob_check_verbose, "99999999999999999999", 0, "not a level" },
		{ knob_check_policy, "refuse", 1, NULL },
		{ knob_check_policy, "Refuse", 0, "not protect" },
		{ knob_check_policy, "protect ", 0, "not protect" },
	};
	char buf[128], why[KNOB_WHY_MAX];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r;

		strcpy(buf, cases[i].in);
		why[0] = '\0';
		r = cases[i].fn(buf, why, sizeof(why));
		if ((r == 0) != cases[i].ok)
			fail_msg("case %zu '%s': got %d (%s)", i, cases[i].in, r, why);
		if (!cases[i].ok && !strstr(why, cases[i].why_has))
			fail_msg("case %zu '%s': reason '%s' lacks '%s'", i,
				 cases[i].in, why, cases[i].why_has);
	}
	strcpy(buf, "1");
	assert_int_equal(knob_check_bool(buf, why, sizeof(why)), 0);
	assert_string_equal(buf, "Y");
}

/* ---- lists ----------------------------------------------------------------- */

/* A module list: entries compare with '-' equal to '_', 64 of them. */
#define MODLIST (&sld_knob_schema[SLD_KN_SAFE_MODULES])

static void test_lists(void **state)
{
	struct name_list cur, after;
	char why[KNOB_WHY_MAX], *edit, *s;
	char *add[] = { "b", "c-d", "a" }, *dup[] = { "x_y", "x-y" };
	char *rm[] = { "c_d" }, *missing[] = { "zz" };
	int skipped;

	(void)state;
	assert_int_equal(list_parse("-", &cur, why, sizeof(why)), 0);
	assert_int_equal(cur.n, 0);
	s = list_join(&cur);
	assert_string_equal(s, "-");
	free(s);
	assert_int_equal(list_parse("a,b", &cur, why, sizeof(why)), 0);
	assert_int_equal(cur.n, 2);

	assert_int_equal(list_plan(MODLIST, &cur, true, add, 3, &after, &edit, &skipped,
				   why, sizeof(why)), 0);
	assert_int_equal(skipped, 2);
	assert_string_equal(edit, "+c-d");
	s = list_join(&after);
	assert_string_equal(s, "a,b,c-d");
	free(s);
	free(edit);
	list_free(&cur);

	/* Module names compare with '-' == '_'. */
	assert_int_equal(list_plan(MODLIST, &after, false, rm, 1, &cur, &edit, &skipped,
				   why, sizeof(why)), 0);
	assert_string_equal(edit, "-c_d");
	free(edit);
	s = list_join(&cur);
	assert_string_equal(s, "a,b");
	free(s);
	list_free(&cur);

	assert_int_equal(list_plan(MODLIST, &after, false, missing, 1, &cur, &edit, &skipped,
				   why, sizeof(why)), -1);
	assert_non_null(strstr(why, "not listed"));
	assert_null(edit);
	assert_int_equal(list_plan(MODLIST, &after, true, dup, 2, &cur, &edit, &skipped,
				   why, sizeof(why)), -1);
	assert_non_null(strstr(why, "given twice"));
	/* Adding what is there changes nothing. */
	assert_int_equal(list_plan(MODLIST, &after, true, add, 1, &cur, &edit, &skipped,
				   why, sizeof(why)), 0);
	assert_null(edit);
	list_free(&cur);
	list_free(&after);
}

static void test_list_full(void **state)
{
	char text[KNOB_LIST_MAX * 4 + 8] = "", why[KNOB_WHY_MAX], *edit;
	char *one[] = { "new" };
	struct name_list cur, after;
	int i, skipped;

	(void)state;
	for (i = 0; i < KNOB_LIST_MAX; i++)
		sprintf(text + strlen(text), "%s%d", i ? "," : "", i);
	assert_int_equal(list_parse(text, &cur, why, sizeof(why)), 0);
	assert_int_equal(list_plan(MODLIST, &cur, true, one, 1, &after, &edit, &skipped,
				   why, sizeof(why)), -1);
	assert_non_null(strstr(why, "full"));
	list_free(&cur);
	strcat(text, ",x");
	assert_int_equal(list_parse(text, &cur, why, sizeof(why)), -1);
}

/* ---- configuration edit ------------------------------------------------------ */

static char *slurp(const char *path)
{
	static char buf[8192];
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void test_conf_edit(void **state)
{
	char dir[] = "/tmp/sldctl-test-XXXXXX", path[256], why[256];
	struct stat st;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/etc/sld.conf", dir);
	/* Missing file and directory: both created. */
	assert_int_equal(conf_set_value(path, "verbose", "2", why, sizeof(why)), 0);
	assert_string_equal(slurp(path), "verbose = 2\n");
	f = fopen(path, "w");
	fputs("# head\n  verbose=1 \n# verbose = 0\nverbose_x = 1\nenabled = Y\nverbose = 3", f);
	fclose(f);
	chmod(path, 0640);
	assert_int_equal(conf_set_value(path, "verbose", "2", why, sizeof(why)), 0);
	assert_string_equal(slurp(path),
		"# head\nverbose = 2\n# verbose = 0\nverbose_x = 1\nenabled = Y\n");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640);
	assert_int_equal(conf_set_value(path, "exempt_comm", "-", why, sizeof(why)), 0);
	assert_non_null(strstr(slurp(path), "enabled = Y\nexempt_comm = -\n"));
	/* NULL: the file stops setting the key. */
	assert_int_equal(conf_set_value(path, "verbose", NULL, why, sizeof(why)), 0);
	assert_string_equal(slurp(path),
		"# head\n# verbose = 0\nverbose_x = 1\nenabled = Y\nexempt_comm = -\n");
	/* Not writable: error names the file, file unchanged. */
	snprintf(path, sizeof(path), "%s/nodir/x/sld.conf", dir);
	assert_int_not_equal(conf_set_value(path, "verbose", "2", why, sizeof(why)), 0);
	assert_non_null(strstr(why, path));
	assert_true(conf_line_sets(" a = b", 6, "a"));
	assert_false(conf_line_sets("ab = b", 6, "a"));
	assert_false(conf_line_sets("#a = b", 6, "a"));
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	assert_int_equal(system(path), 0);
}

/* ---- host facts ----------------------------------------------------------------- */

static void test_host_parsers(void **state)
{
	char mode[16], cpu[] = "processor : 0\nflags\t\t: fpu split_lock_detect bus_lock_detect\nflags : fpu\n";
	int sld, bld;

	(void)state;
	assert_int_equal(host_mode_from_cmdline("ro split_lock_detect=fatal quiet", mode, sizeof(mode)), 0);
	assert_string_equal(mode, "fatal");
	assert_int_equal(host_mode_from_cmdline("split_lock_detect=ratelimit:10", mode, sizeof(mode)), 0);
	assert_string_equal(mode, "ratelimit");
	assert_int_equal(host_mode_from_cmdline("xsplit_lock_detect=off", mode, sizeof(mode)), -1);
	assert_int_equal(host_mode_from_cmdline("split_lock_detect=bogus", mode, sizeof(mode)), -1);
	assert_int_equal(host_mode_from_log_line("6,1,2,-;x86/split lock detection: #AC: crashing the kernel on kernel split_locks and warning on user-space split_locks", mode, sizeof(mode)), 0);
	assert_string_equal(mode, "warn");
	assert_int_equal(host_mode_from_log_line("x86/split lock detection: #AC: crashing the kernel on kernel split_locks and sending SIGBUS on user-space split_locks", mode, sizeof(mode)), 0);
	assert_string_equal(mode, "fatal");
	assert_int_equal(host_mode_from_log_line("x86/split lock detection: disabled", mode, sizeof(mode)), 0);
	assert_string_equal(mode, "off");
	assert_int_equal(host_mode_from_log_line("x86/split lock detection: #DB: setting system wide bus lock rate limit to 10", mode, sizeof(mode)), 0);
	assert_string_equal(mode, "ratelimit");
	assert_int_equal(host_mode_from_log_line("something else", mode, sizeof(mode)), -1);
	host_cpu_flags_text(cpu, &sld, &bld);
	assert_int_equal(sld, 1);
	assert_int_equal(bld, 1);
	strcpy(cpu, "processor : 0\n");
	host_cpu_flags_text(cpu, &sld, &bld);
	assert_int_equal(sld, -1);
}

/* ---- modchange: what a knob write did to the loaded modules ------------------ */

static void emit_count(void *ctx, const struct modstate *m, const char *line)
{
	(void)ctx;
	assert_non_null(m);
	assert_true(strlen(line) > 0);
}

#define REC(name, v, r, flags) \
	name " " v " " r " vmx=1 svm=0 cr=0 dr=0 first=- scan_us=3 flags=sections," flags "\n"

static void test_modchange(void **state)
{
	static const char before[] =
		REC("fx_hv", "hypervisor", "vmx-text", "modinfo,watched,loaded")
		REC("fx_old", "hypervisor", "vmx-text", "modinfo,unloaded")
		REC("fx_dis", "hypervisor", "vmx-text", "modinfo,sld-disabled,loaded")
		REC("fx_same", "clean", "none", "modinfo,loaded")
		"garbage line\n"
		REC("fx_gone", "hypervisor", "vmx-text", "modinfo,watched,loaded");
	static const char after[] =
		REC("fx_hv", "sld_safe", "admin-safe", "modinfo,loaded")
		REC("fx_dis", "hypervisor", "vmx-text", "modinfo,watched,refuse-too-late,loaded")
		REC("fx_same", "clean", "none", "modinfo,loaded")
		REC("fx_new", "hypervisor", "vmx-text", "modinfo,watched,loaded");
	struct modstates b, a;
	char line[512];

	(void)state;
	assert_true(modchange_knob("on_hypervisor"));
	assert_true(modchange_knob("safe_modules"));
	assert_true(modchange_knob("hypervisor_modules"));
	assert_true(modchange_knob("enabled"));
	assert_false(modchange_knob("verbose"));
	assert_false(modchange_knob("exempt_comm"));
	assert_int_equal(modstates_parse(before, &b), 0);
	assert_int_equal(modstates_parse(after, &a), 0);
	/* Unloaded records and malformed lines are not loaded modules. */
	assert_int_equal(b.n, 4);
	assert_int_equal(a.n, 4);
	assert_string_equal(b.m[0].name, "fx_hv");
	assert_true(b.m[0].watched);
	assert_false(b.m[0].disabled);
	assert_true(b.m[1].disabled);
	assert_true(a.m[1].late && a.m[1].watched && !a.m[1].disabled);
	assert_true(modchange_describe(&b.m[0], &a.m[0], line, sizeof(line)) > 0);
	assert_string_equal(line, "fx_hv: hypervisor (vmx-text) -> sld_safe (admin-safe): "
			    "no longer watched, its protected tasks released");
	assert_true(modchange_describe(&b.m[1], &a.m[1], line, sizeof(line)) > 0);
	assert_string_equal(line, "fx_dis: hypervisor (vmx-text): watched, SLD disable hold "
			    "given back, loaded, so not refused: flagged refuse-too-late until it unloads");
	assert_int_equal(modchange_describe(&b.m[2], &a.m[2], line, sizeof(line)), 0);
	/* A verdict change alone, and the reverse moves. */
	assert_true(modchange_describe(&a.m[2], &b.m[0], line, sizeof(line)) > 0);
	assert_string_equal(line, "fx_hv: clean (none) -> hypervisor (vmx-text): watched");
	assert_true(modchange_describe(&a.m[1], &b.m[1], line, sizeof(line)) > 0);
	assert_string_equal(line, "fx_dis: hypervisor (vmx-text): no longer watched, its "
			    "protected tasks released, holds SLD off, no longer flagged refuse-too-late");
	b.m[3].watched = a.m[3].watched;
	strcpy(b.m[3].reason, "admin-hypervisor");
	strcpy(b.m[3].name, "fx_x");
	strcpy(a.m[3].name, "fx_x");
	assert_true(modchange_describe(&b.m[3], &a.m[3], line, sizeof(line)) > 0);
	assert_string_equal(line, "fx_x: hypervisor (admin-hypervisor) -> hypervisor (vmx-text)");
	/* Only modules in both snapshots: fx_new loaded meanwhile, fx_gone left. */
	assert_int_equal(modchange_each(&b, &a, emit_count, NULL), 3);
	/* A tiny buffer truncates, never overflows. */
	assert_true(modchange_describe(&b.m[0], &a.m[0], line, 8) > 0);
	assert_int_equal(strlen(line), 7);
	modstates_free(&b);
	modstates_free(&a);
	assert_null(b.m);
	assert_int_equal(modstates_parse("", &b), 0);
	assert_int_equal(b.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cli_good),
		cmocka_unit_test(test_cli_bad),
		cmocka_unit_test(test_checks),
		cmocka_unit_test(test_lists),
		cmocka_unit_test(test_list_full),
		cmocka_unit_test(test_conf_edit),
		cmocka_unit_test(test_host_parsers),
		cmocka_unit_test(test_modchange),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
