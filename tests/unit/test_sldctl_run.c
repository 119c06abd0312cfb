// SPDX-License-Identifier: GPL-2.0
/*
 * The real sldctl binary (ASan/UBSan build) against a fake tree:
 *  - table-driven bad input for every subcommand: exit 2, one clear
 *    message on stderr naming what was wrong (then at most the usage
 *    line), nothing on stdout, and not one byte of the tree changed;
 *  - --json output of every subcommand parsed back with json-c;
 *  - registry/exempt/policy changing the knobs and, with --persist, the
 *    configuration file (comments kept); status and doctor in the
 *    situations doctor explains.
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "schema/entries.h"
#include "run_util.h"

#define MAXARGS	8
#define HUGE_N	5000

struct bad {
	const char *argv[MAXARGS];	/* after the subcommand words */
	const char *err;		/* substring of stderr */
};

static char huge[HUGE_N + 1], huge_path[HUGE_N + 2];

static const char *expand(const char *a)
{
	if (!strcmp(a, "@HUGE@"))
		return huge;
	if (!strcmp(a, "@HUGEPATH@"))
		return huge_path;
	return a;
}

/* Bad for every subcommand. */
static const struct bad generic[] = {
	{ { "--bogus" }, "unknown option '--bogus'" },
	{ { "-x" }, "unknown option '-x'" },
	{ { "--json", "--json" }, "--json given twice" },
	{ { "--json=yes" }, "option '--json' takes no value" },
	{ { "--help=1" }, "option '--help' takes no value" },
	{ { "---" }, "unknown option '---'" },
	{ { "--\xff" }, "unknown option '--\\xff'" },
	{ { "-" "@HUGE@" }, "unknown option" },
};

/* Operands where a command takes none. */
static const struct bad no_operands[] = {
	{ { "" }, "unexpected argument ''" },
	{ { " " }, "unexpected argument ' '" },
	{ { "\t" }, "unexpected argument '\\x09'" },
	{ { "@HUGE@" }, "unexpected argument 'aaaa" },
	{ { "\xff\xfe" }, "unexpected argument '\\xff\\xfe'" },
	{ { "../../etc/passwd" }, "unexpected argument '../../etc/passwd'" },
	{ { "-1" }, "unknown option '-1'" },
	{ { "--", "-1" }, "unexpected argument '-1'" },
	{ { "99999999999999999999" }, "unexpected argument '99999999999999999999'" },
	{ { "%s%n" }, "unexpected argument '%s%n'" },
	{ { "a\nb" }, "unexpected argument 'a\\x0ab'" },
	{ { "x", "y" }, "unexpected argument 'x'" },
};

static int nargs(const struct bad *b)
{
	int n = 0;

	while (n < MAXARGS && b->argv[n])
		n++;
	return n;
}

static int check_one(const char *const *cmd, int ncmd, const struct bad *b,
		     const char *sum)
{
	char *argv[2 * MAXARGS + 2];
	struct run r;
	int i, n = 0;

	for (i = 0; i < ncmd; i++)
		argv[n++] = (char *)cmd[i];
	for (i = 0; i < nargs(b); i++)
		argv[n++] = (char *)expand(b->argv[i]);
	argv[n] = NULL;
	run_argv(&r, argv);
	if (r.rc == 2 && strstr(r.err, b->err) && !strncmp(r.err, "sldctl", 6) &&
	    count_lines(r.err) <= 2 && !*r.out && !strcmp(sum, tree_sum()))
		return 0;
	print_error("%s %s [%s%s]: exit %d, stdout '%.200s', stderr '%.400s' (want '%s'), tree %s\n",
		    cmd[0], ncmd > 1 ? cmd[1] : "", b->argv[0] ? expand(b->argv[0]) : "",
		    nargs(b) > 1 ? " ..." : "", r.rc, r.out, r.err, b->err,
		    strcmp(sum, tree_sum()) ? "CHANGED" : "unchanged");
	return 1;
}

/* Run a table (plus generic, plus no_operands if asked); >= 20 cases. */
static void check_table(const char *const *cmd, int ncmd, const struct bad *t,
			size_t n, bool operands_bad)
{
	char sum[128];
	size_t i, cases = 0;
	int fails = 0;

	make_loaded();
	strcpy(sum, tree_sum());
	for (i = 0; i < sizeof(generic) / sizeof(generic[0]); i++, cases++)
		fails += check_one(cmd, ncmd, &generic[i], sum);
	for (i = 0; operands_bad && i < sizeof(no_operands) / sizeof(no_operands[0]); i++, cases++)
		fails += check_one(cmd, ncmd, &no_operands[i], sum);
	for (i = 0; i < n; i++, cases++)
		fails += check_one(cmd, ncmd, &t[i], sum);
	assert_true(cases >= 20);
	assert_int_equal(fails, 0);
}

#define TABLE(name, t, operands_bad, ...)				\
	static void name(void **state)					\
	{								\
		static const char *const cmd[] = { __VA_ARGS__ };	\
		(void)state;						\
		check_table(cmd, sizeof(cmd) / sizeof(cmd[0]), t,	\
			    sizeof(t) / sizeof(t[0]), operands_bad);	\
	}

static const struct bad none[] = { { { "--bogus2" }, "unknown option '--bogus2'" } };

static const struct bad doctor_bad[] = {
	{ { "--kernel" }, "option '--kernel' needs a value" },
	{ { "--kernel", "" }, "--kernel needs a non-empty value" },
	{ { "--kernel", "../../etc" }, "bad kernel release '../../etc'" },
	{ { "--kernel", ".." }, "bad kernel release '..'" },
	{ { "--kernel", "a/b" }, "bad kernel release 'a/b'" },
	{ { "--kernel", "@HUGE@" }, "bad kernel release 'aaaa" },
	{ { "--kernel", " " }, "bad kernel release ' '" },
	{ { "--kernel", "\xff" }, "bad kernel release '\\xff'" },
	{ { "--kernel", "a", "--kernel", "b" }, "--kernel given twice" },
};

static const struct bad registry_add_bad[] = {
	{ { "vmx1" }, "give exactly one of --safe and --hypervisor" },
	{ { "--safe", "--hypervisor", "x" }, "give exactly one of --safe and --hypervisor" },
	{ { "--safe" }, "missing operand" },
	{ { "--safe", "" }, "bad module name '': empty module name" },
	{ { "--safe", " " }, "whitespace in module name" },
	{ { "--safe", "@HUGE@" }, "longer than 55" },
	{ { "--safe", "\xff\xfe" }, "byte 0xff at position 1" },
	{ { "--safe", "a,b" }, "comma in module name" },
	{ { "--safe", "--", "-foo" }, "starts with '-'" },
	{ { "--safe", "+foo" }, "starts with '+'" },
	{ { "--safe", "../foo" }, "'.' in module name" },
	{ { "--safe", "foo/bar" }, "'/' in module name" },
	{ { "--safe", "foo", "foo" }, "'foo' given twice" },
	{ { "--safe", "foo_x", "foo-x" }, "'foo-x' given twice" },
	{ { "--safe", "vmmon" }, "'vmmon' is in hypervisor_modules; remove it there first" },
	{ { "--hypervisor", "kvm-amd" }, "'kvm-amd' is in safe_modules" },
	{ { "--safe", "-1" }, "unknown option '-1'" },
	{ { "--safe", "x", "--config" }, "option '--config' needs a value" },
	{ { "--safe", "x", "--config", "" }, "--config needs a non-empty value" },
	{ { "--safe", "--safe", "x" }, "--safe given twice" },
	{ { "--safe", "x", "--persist", "--persist" }, "--persist given twice" },
	{ { "--safe", "\xc3\xa9t\xc3\xa9" }, "byte 0xc3" },
};

static const struct bad registry_remove_bad[] = {
	{ { NULL }, "missing operand" },
	{ { "" }, "empty module name" },
	{ { "notlisted" }, "'notlisted' is in neither safe_modules nor hypervisor_modules" },
	{ { "vmmon", "vmmon" }, "'vmmon' given twice" },
	{ { "kvm_amd", "vmmon", "vmmon" }, "'vmmon' given twice" },
	{ { "@HUGE@" }, "longer than 55" },
	{ { "\xff" }, "byte 0xff" },
	{ { "a b" }, "whitespace" },
	{ { "../vmmon" }, "'.' in module name" },
	{ { "vmmon", "--safe" }, "unknown option '--safe'" },
	{ { "--", "-vmmon" }, "starts with '-'" },
	{ { "+vmmon" }, "starts with '+'" },
	{ { "vmmon,kvm_amd" }, "comma" },
	{ { "vmmon", "--config" }, "needs a value" },
};

static const struct bad exempt_add_bad[] = {
	{ { NULL }, "nothing to add: give --comm, --path or --cgroup" },
	{ { "game" }, "unexpected argument 'game'" },
	{ { "--comm" }, "option '--comm' needs a value" },
	{ { "--comm", "" }, "--comm needs a non-empty value" },
	{ { "--comm", " " }, "bad task name ' ': space at the start or end" },
	{ { "--comm", "*" }, "pattern matches every task name" },
	{ { "--comm", "a\\" }, "not before '*', '?' or '\\' in a task name pattern" },
	{ { "--comm", "1234567890123456" }, "longer than 15 characters" },
	{ { "--comm", "@HUGE@" }, "longer than 31 bytes" },
	{ { "--comm", "\xff" }, "byte 0xff" },
	{ { "--comm", "a,b" }, "comma in task name" },
	{ { "--comm", "-x" }, "task name starts with '-'" },
	{ { "--comm", "x", "--comm", "x" }, "'x' given twice" },
	{ { "--path", "bin/game" }, "not absolute (must start with /)" },
	{ { "--path", "../usr/bin/game" }, "not absolute (must start with /)" },
	{ { "--path", "/usr/bin/../bin/game" }, "'.' or '..' component" },
	{ { "--path", "/usr/./bin/game" }, "'.' or '..' component" },
	{ { "--path", "/usr//bin/game" }, "empty component" },
	{ { "--path", "/usr/bin/missing" }, "No such file or directory" },
	{ { "--path", "/usr/bin" }, "is not a regular file" },
	{ { "--path", "@HUGEPATH@" }, "longer than 255" },
	{ { "--path", "/usr/bin/g\xffme" }, "byte that is not printable ASCII" },
	{ { "--cgroup", "/" }, "the root cgroup '/' would exempt every task" },
	{ { "--cgroup", "sld.slice" }, "bad cgroup path 'sld.slice': not absolute" },
	{ { "--cgroup", "/sld.slice/../x" }, "'..' component" },
	{ { "--comm", "ok", "--path", "rel" }, "not absolute" },
};

static const struct bad exempt_remove_bad[] = {
	{ { NULL }, "nothing to remove" },
	{ { "--comm", "notlisted" }, "exempt_comm: 'notlisted' is not listed" },
	{ { "--comm", "" }, "non-empty value" },
	{ { "--comm", "game", "--comm", "game" }, "'game' given twice" },
	{ { "--comm", "@HUGE@" }, "longer than 31" },
	{ { "--path", "relative" }, "not absolute" },
	{ { "--path", "/usr/../etc" }, "'..' component" },
	{ { "--path", "/usr/bin/game" }, "'/usr/bin/game' is not listed" },
	{ { "--comm", "game", "--path", "/usr/bin/game" }, "'/usr/bin/game' is not listed" },
	{ { "--cgroup", "/" }, "every task" },
	{ { "--comm", "\xff" }, "byte 0xff" },
	{ { "--comm", "game", "extra" }, "unexpected argument 'extra'" },
	{ { "--comm", "+game" }, "starts with '+'" },
};

static const struct bad policy_get_bad[] = {
	{ { "" }, "unknown policy knob ''" },
	{ { " " }, "unknown policy knob ' '" },
	{ { "frob" }, "unknown policy knob 'frob'" },
	{ { "safe_modules" }, "unknown policy knob 'safe_modules'" },
	{ { "@HUGE@" }, "unknown policy knob 'aaaa" },
	{ { "\xff" }, "unknown policy knob '\\xff'" },
	{ { "../verbose" }, "unknown policy knob '../verbose'" },
	{ { "VERBOSE" }, "unknown policy knob 'VERBOSE'" },
	{ { "verbose", "verbose" }, "'verbose' given twice" },
	{ { "-1" }, "unknown option '-1'" },
	{ { "a", "b", "c", "d", "e", "f", "g", "h" }, "unexpected argument 'h'" },
	{ { "%s" }, "unknown policy knob '%s'" },
};

static const struct bad policy_set_bad[] = {
	{ { NULL }, "missing operand" },
	{ { "" }, "'' is not protect, disable, refuse or log" },
	{ { " " }, "' ' is not protect" },
	{ { "maybe" }, "'maybe' is not protect" },
	{ { "PROTECT" }, "'PROTECT' is not protect" },
	{ { "protect " }, "'protect ' is not protect" },
	{ { "@HUGE@" }, "value too long" },
	{ { "\xff" }, "'\\xff' is not protect" },
	{ { "-1" }, "unknown option '-1'" },
	{ { "verbose", "--", "-1" }, "'-1' is not a level" },
	{ { "verbose", "4" }, "'4' is not a level" },
	{ { "verbose", "99999999999999999999" }, "'99999999999999999999' is not a level" },
	{ { "verbose", "1.5" }, "'1.5' is not a level" },
	{ { "verbose", "0x1" }, "'0x1' is not a level" },
	{ { "enabled", "yes" }, "'yes' is not Y or N" },
	{ { "max_tasks", "15" }, "'15' is not a number 16-262144" },
	{ { "max_tasks", "262145" }, "'262145' is not a number 16-262144" },
	{ { "tasks_per_uid", "0" }, "'0' is not a number 1-262144" },
	{ { "enabled", "2" }, "'2' is not Y or N" },
	{ { "frob", "1" }, "unknown policy knob 'frob'" },
	{ { "safe_modules", "x" }, "unknown policy knob 'safe_modules'" },
	{ { "verbose", "1", "2" }, "unexpected argument '2'" },
	{ { "../verbose", "1" }, "unknown policy knob '../verbose'" },
	{ { "protect", "--config" }, "needs a value" },
};

static const struct bad apply_bad[] = {
	{ { "--config" }, "option '--config' needs a value" },
	{ { "--config", "" }, "--config needs a non-empty value" },
	{ { "--config", "/nonexistent.conf" }, "cannot read" },
	{ { "--module" }, "option '--module' needs a value" },
	{ { "--module", "a/b" }, "bad module name 'a/b'" },
	{ { "--module", "@HUGE@" }, "bad module name 'aaaa" },
	{ { "--module", "\xff" }, "bad module name '\\xff'" },
	{ { "--dry-run", "--dry-run" }, "--dry-run given twice" },
};

static const struct bad scan_bad[] = {
	{ { NULL }, "no file given" },
	{ { "" }, "cannot open" },
	{ { " " }, "cannot open" },
	{ { "@HUGE@" }, "cannot open" },
	{ { "\xff\xfe.ko" }, "cannot open" },
	{ { "../../nonexistent.ko" }, "cannot open" },
	{ { "/" }, "is a directory" },
	{ { "/dev/null" }, "not an ELF file" },
	{ { "-1" }, "unknown option '-1'" },
	{ { "--", "-1" }, "cannot open" },
	{ { "/proc/self/status" }, "not an ELF file" },
	{ { "%s%n" }, "cannot open" },
};

static const struct bad action_bad[] = {
	{ { "" }, "unknown action ''" },
	{ { "frob" }, "unknown action 'frob'" },
	{ { "LIST" }, "unknown action 'LIST'" },
	{ { "@HUGE@" }, "unknown action 'aaaa" },
	{ { "\xff" }, "unknown action '\\xff'" },
	{ { "../list" }, "unknown action '../list'" },
	{ { "list;rm" }, "unknown action 'list;rm'" },
	{ { " list" }, "unknown action ' list'" },
	{ { "--json" }, "unknown action '--json'" },
	{ { "-1" }, "unknown action '-1'" },
	{ { "%n" }, "unknown action '%n'" },
	{ { "add\n" }, "unknown action 'add\\x0a'" },
	{ { "lis" }, "unknown action 'lis'" },
	{ { "listt" }, "unknown action 'listt'" },
	{ { "list list" }, "unknown action 'list list'" },
	{ { "99999999999999999999" }, "unknown action '99999999999999999999'" },
	{ { "-" }, "unknown action '-'" },
	{ { "--" }, "unknown action '--'" },
	{ { "set\t" }, "unknown action 'set\\x09'" },
	{ { "get=1" }, "unknown action 'get=1'" },
};

TABLE(test_bad_status, none, true, "status")
TABLE(test_bad_doctor, doctor_bad, true, "doctor")
TABLE(test_bad_registry_list, none, true, "registry", "list")
TABLE(test_bad_registry_add, registry_add_bad, false, "registry", "add")
TABLE(test_bad_registry_remove, registry_remove_bad, false, "registry", "remove")
TABLE(test_bad_exempt_list, none, true, "exempt", "list")
TABLE(test_bad_exempt_add, exempt_add_bad, false, "exempt", "add")
TABLE(test_bad_exempt_remove, exempt_remove_bad, false, "exempt", "remove")
TABLE(test_bad_policy_get, policy_get_bad, false, "policy", "get")
TABLE(test_bad_policy_set, policy_set_bad, false, "policy", "set")
TABLE(test_bad_apply, apply_bad, true, "apply")
TABLE(test_bad_scan, scan_bad, false, "scan")

/* ACTION of registry/exempt/policy: its own table, without generic options. */
static void test_bad_actions(void **state)
{
	static const char *const cmds[] = { "registry", "exempt", "policy" };
	char sum[128];
	size_t c, i;
	int fails = 0;

	(void)state;
	make_loaded();
	strcpy(sum, tree_sum());
	for (c = 0; c < 3; c++) {
		struct bad missing = { { NULL }, "missing action" };

		fails += check_one(&cmds[c], 1, &missing, sum);
		for (i = 0; i < sizeof(action_bad) / sizeof(action_bad[0]); i++)
			fails += check_one(&cmds[c], 1, &action_bad[i], sum);
	}
	assert_int_equal(fails, 0);
}

/* ---- --json parsed back, and what the commands change ------------------------ */

static struct json_object *doc;

/* Parse r->out as JSON (the test fails if it is not). */
static struct json_object *parse_out(const struct run *r)
{
	if (doc)
		json_object_put(doc);
	doc = json_tokener_parse(r->out);
	if (!doc)
		fail_msg("not JSON: '%.300s' (stderr '%.300s')", r->out, r->err);
	return doc;
}

/* "a.b.0.c" from o; NULL if absent. */
static struct json_object *jget(struct json_object *o, const char *path)
{
	char buf[256], *tok, *save;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); o && tok; tok = strtok_r(NULL, ".", &save)) {
		if (json_object_is_type(o, json_type_array))
			o = json_object_array_get_idx(o, atoi(tok));
		else if (!json_object_object_get_ex(o, tok, &o))
			return NULL;
	}
	return o;
}

static const char *jstr(struct json_object *o, const char *path)
{
	struct json_object *v = jget(o, path);

	if (!v || !json_object_is_type(v, json_type_string))
		fail_msg("%s is not a string", path);
	return json_object_get_string(v);
}

/* Present and null (json-c gives NULL for both null and absent). */
static bool jnull(struct json_object *o, const char *path)
{
	char parent[256], *last;
	struct json_object *v;

	snprintf(parent, sizeof(parent), "%s", path);
	last = strrchr(parent, '.');
	if (last)
		*last++ = '\0';
	o = last ? jget(o, parent) : o;
	return o && json_object_object_get_ex(o, last ? last : path, &v) && !v;
}

static size_t jlen(struct json_object *o, const char *path)
{
	struct json_object *v = jget(o, path);

	if (!v || !json_object_is_type(v, json_type_array))
		fail_msg("%s is not an array", path);
	return json_object_array_length(v);
}

static bool jbool(struct json_object *o, const char *path)
{
	struct json_object *v = jget(o, path);

	if (!v || !json_object_is_type(v, json_type_boolean))
		fail_msg("%s is not a boolean", path);
	return json_object_get_boolean(v);
}

/* The finding with this id, or NULL. */
static struct json_object *finding(struct json_object *o, const char *id)
{
	size_t i, n = jlen(o, "findings");
	char path[64];

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "findings.%zu.id", i);
		if (!strcmp(jstr(o, path), id)) {
			snprintf(path, sizeof(path), "findings.%zu", i);
			return jget(o, path);
		}
	}
	return NULL;
}

static char *file(const char *rel)
{
	static char buf[8192];
	char path[512];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "r");
	if (!f)
		return strcpy(buf, "(missing)");
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void test_status_loaded(void **state)
{
	struct json_object *o;
	struct run r;

	(void)state;
	make_loaded();
	RUN(&r, "status", "--json");
	assert_int_equal(r.rc, 0);
	o = parse_out(&r);
	assert_true(jbool(o, "cpu.split_lock_detect"));
	assert_false(jbool(o, "cpu.bus_lock_detect"));
	assert_true(jbool(o, "loaded"));
	assert_string_equal(jstr(o, "kernel.sld_mode"), "warn");
	assert_string_equal(jstr(o, "kernel.sld_mode_source"), "sld_compat");
	assert_int_equal(json_object_get_int(jget(o, "kernel.split_lock_mitigate")), 1);
	assert_string_equal(jstr(o, "knobs.on_hypervisor"), "protect");
	assert_string_equal(jstr(o, "knobs.exempt_comm"), "game");
	assert_int_equal(jlen(o, "account"), 2);
	assert_string_equal(jstr(o, "account.1"), "cpu1 core=0.1 hold=1 task=1 bracket=0 sld=off toggles_off=1 toggles_on=0 msr_writes=1 msr_skipped=0 reasserts=0 brackets=0");
	assert_string_equal(jstr(o, "tasks.0"), "1234 vmware-vmx why=hypervisor hv=vmmon cpu=1 running=1 switches=9 ac_user=2 ac_guest=0");
	assert_string_equal(jstr(o, "hypervisors.0"), "vmmon state=hooked via=profile entry=Vmx86_RunVM tasks=1 ac_user=2 ac_guest=0");
	assert_string_equal(jstr(o, "degraded.0"), "none");
	assert_non_null(strstr(jstr(o, "modules.0"), "vmmon hypervisor"));
	assert_int_equal(jlen(o, "errors"), 0);
	RUN(&r, "status");
	assert_int_equal(r.rc, 0);
	assert_non_null(strstr(r.out, "kernel: split-lock mode warn (from sld_compat),"));
	assert_non_null(strstr(r.out, "sld_compat mode: on_hypervisor=protect enabled=Y\n"));
	assert_non_null(strstr(r.out, ", split_lock_mitigate 1\n"));
	assert_non_null(strstr(r.out, "protected tasks: 1 (hypervisor 1, comm 0, path 0, cgroup 0, sldctl run 0)\n"));
	assert_non_null(strstr(r.out, "sldctl runs (uid, command, scope, since boot+seconds, tasks now, traps relieved): 1000 game scope=sld-run-game-42.scope since=120 tasks=3 ac=0\n"));
	assert_non_null(strstr(r.out, "hypervisors:\n  vmmon: hypervisor (known-hypervisor), hooked via profile, entry Vmx86_RunVM, 1 task, #AC user 2 guest 0\n"));
	assert_non_null(strstr(r.out, "#AC handled: 2 user, 0 guest\n"));
	assert_non_null(strstr(r.out, "  exempt_comm: game\n"));
	assert_non_null(strstr(r.out, "  1234 vmware-vmx why=hypervisor hv=vmmon cpu=1"));
}

/* Without the module: kernel log, then command line, then default. */
static void test_status_mode_sources(void **state)
{
	struct json_object *o;
	struct run r;

	(void)state;
	make_host();
	RUN(&r, "status", "--json");
	assert_int_equal(r.rc, 1);
	o = parse_out(&r);
	assert_false(jbool(o, "loaded"));
	assert_string_equal(jstr(o, "kernel.sld_mode"), "warn");
	assert_string_equal(jstr(o, "kernel.sld_mode_source"), "kernel-log");
	assert_true(jnull(o, "tasks"));
	put("dev/kmsg", "6,1,2,-;something else\n");
	put("proc/cmdline", "ro split_lock_detect=fatal\n");
	RUN(&r, "status", "--json");
	o = parse_out(&r);
	assert_string_equal(jstr(o, "kernel.sld_mode"), "fatal");
	assert_string_equal(jstr(o, "kernel.sld_mode_source"), "cmdline");
	put("proc/cmdline", "ro\n");
	RUN(&r, "status", "--json");
	o = parse_out(&r);
	assert_string_equal(jstr(o, "kernel.sld_mode_source"), "default");
	put("proc/cpuinfo", "flags : fpu\n");
	RUN(&r, "status", "--json");
	o = parse_out(&r);
	assert_string_equal(jstr(o, "kernel.sld_mode"), "off");
	assert_string_equal(jstr(o, "kernel.sld_mode_source"), "cpu");
}

static void test_doctor_not_loaded(void **state)
{
	struct json_object *o, *f;
	struct run r;

	(void)state;
	make_host();
	RUN(&r, "doctor", "--json", "--kernel", KVER);
	assert_int_equal(r.rc, 1);
	o = parse_out(&r);
	assert_string_equal(jstr(o, "result"), "action-needed");
	assert_non_null(finding(o, "cpu-split-lock-detect"));
	f = finding(o, "kernel-sld-warn");
	assert_non_null(f);
	assert_non_null(strstr(jstr(f, "message"), "split_lock_mitigate=1"));
	f = finding(o, "hypervisor-installed");
	assert_non_null(f);
	assert_non_null(strstr(jstr(f, "message"), "VMware's vmmon is installed"));
	f = finding(o, "sld-compat-not-loaded");
	assert_non_null(f);
	assert_string_equal(jstr(f, "severity"), "action");
	assert_string_equal(jstr(f, "fix"), "modprobe sld_compat");
	assert_non_null(strstr(jstr(f, "message"), "guests of VMware's vmmon will crash"));
	assert_null(finding(o, "healthy"));
	RUN(&r, "doctor", "--kernel", KVER);
	assert_int_equal(r.rc, 1);
	assert_non_null(strstr(r.out, "[action] sld-compat-not-loaded: "));
	assert_non_null(strstr(r.out, "    fix: modprobe sld_compat\n"));
	assert_non_null(strstr(r.out, "doctor: action-needed\n"));
	/* Not even installed. */
	sh("rm '%s/lib/modules/" KVER "/updates/dkms/sld_compat.ko'", root);
	RUN(&r, "doctor", "--json", "--kernel", KVER);
	assert_int_equal(r.rc, 1);
	o = parse_out(&r);
	assert_string_equal(jstr(finding(o, "sld-compat-not-installed"), "severity"), "action");
	/* What installs it all from a checkout: there is no repository. */
	assert_string_equal(jstr(finding(o, "sld-compat-not-installed"), "fix"),
			    "make install (in a checkout), or install the packages of make deb or make rpm (README.md, Install)");
}

static void test_doctor_loaded(void **state)
{
	struct json_object *o;
	struct run r;

	(void)state;
	make_loaded();
	RUN(&r, "doctor", "--json", "--kernel", KVER);
	assert_int_equal(r.rc, 0);
	o = parse_out(&r);
	assert_string_equal(jstr(o, "result"), "healthy");
	assert_non_null(finding(o, "healthy"));
	assert_non_null(finding(o, "sld-compat-loaded"));
	put(P "on_hypervisor", "log\n");
	put(P "enabled", "N\n");
	put(S "degraded", "ac_path: no kprobes\n");
	RUN(&r, "doctor", "--json", "--kernel", KVER);
	assert_int_equal(r.rc, 1);
	o = parse_out(&r);
	assert_string_equal(jstr(finding(o, "policy-log-only"), "fix"), "sldctl policy set protect --persist");
	assert_string_equal(jstr(finding(o, "sld-compat-disabled"), "severity"), "action");
	assert_string_equal(jstr(finding(o, "sld-compat-degraded"), "severity"), "warning");
	make_loaded();
	put("etc/sld-compat/sld-compat.conf", "verbose = 2\nbad line\n");
	RUN(&r, "doctor", "--json", "--kernel", KVER);
	assert_int_equal(r.rc, 1);
	o = parse_out(&r);
	assert_non_null(strstr(jstr(finding(o, "config-error"), "message"), "sld-compat.conf:2: missing '='"));
	assert_string_equal(jstr(finding(o, "config-not-applied"), "fix"), "sldctl apply");
	/*
	 * run_allow by name, as run-allow.conf.example has it: the module
	 * holds the ids apply wrote, which is applied, not a difference.
	 */
	make_loaded();
	put("etc/sld-compat/sld-compat.conf", "run_allow = root,@root\n");
	put(P "run_allow", "0,@0\n");
	RUN(&r, "doctor", "--json", "--kernel", KVER);
	assert_int_equal(r.rc, 0);
	o = parse_out(&r);
	assert_null(finding(o, "config-not-applied"));
	put(P "run_allow", "-\n");
	RUN(&r, "doctor", "--json", "--kernel", KVER);
	assert_int_equal(r.rc, 1);
	o = parse_out(&r);
	assert_non_null(strstr(jstr(finding(o, "config-not-applied"), "message"),
			       "sets run_allow = root,@root but the module has -"));
	/* A name the system does not know: apply refuses that line too. */
	put("etc/sld-compat/sld-compat.conf", "run_allow = @no-such-group-sldctl\n");
	RUN(&r, "doctor", "--json", "--kernel", KVER);
	assert_int_equal(r.rc, 1);
	o = parse_out(&r);
	assert_non_null(strstr(jstr(finding(o, "config-error"), "message"),
			       "sld-compat.conf:1: run_allow: "));
	/* No SLD on the CPU: nothing needed, whatever is installed. */
	make_host();
	put("proc/cpuinfo", "flags : fpu\n");
	RUN(&r, "doctor", "--json", "--kernel", KVER);
	assert_int_equal(r.rc, 0);
	o = parse_out(&r);
	assert_non_null(finding(o, "not-needed"));
	assert_non_null(finding(o, "cpu-no-split-lock-detect"));
}

/*
 * A KVM host: no hypervisor module needs sld_compat, but a vCPU thread
 * trapped. The verdict stays healthy (exit 0); its sentence says that
 * the offender still pays the penalty instead of "nothing to do".
 */
static void test_doctor_offenders(void **state)
{
	static const char log[] =
		"6,100,200,-;x86/split lock detection: #AC: crashing the kernel on kernel split_locks and warning on user-space split_locks\n"
		"4,101,300,-;x86/split lock detection: #AC: CPU 1/KVM/175479 took a split_lock trap at address: 0x7f00\n";
	struct json_object *o, *f;
	struct run r;

	(void)state;
	make_host();
	sh("rm '%s/lib/modules/" KVER "/updates/dkms/vmmon.ko'", root);
	RUN(&r, "doctor", "--json", "--kernel", KVER);
	assert_int_equal(r.rc, 0);
	f = finding(parse_out(&r), "not-needed");
	assert_non_null(f);
	assert_non_null(strstr(jstr(f, "message"), "no unprepared hypervisor module is installed): nothing to do."));
	put("dev/kmsg", log);
	RUN(&r, "doctor", "--json", "--kernel", KVER);
	assert_int_equal(r.rc, 0);
	o = parse_out(&r);
	assert_string_equal(jstr(o, "result"), "healthy");
	assert_string_equal(jstr(finding(o, "split-lock-offender"), "severity"), "warning");
	f = finding(o, "not-needed");
	assert_non_null(f);
	assert_non_null(strstr(jstr(f, "message"), "; the 1 split-lock offender(s) above pay the kernel's penalty until sld_compat and an exempt rule (their fix) cover them."));
	assert_null(strstr(jstr(f, "message"), "nothing to do"));
}

/*
 * What doctor was asked to check and could not: exit 2 and "error",
 * never "healthy" or "not-needed".
 */
static void test_doctor_cannot_check(void **state)
{
	struct json_object *o;
	struct run r;

	(void)state;
	make_loaded();
	RUN(&r, "doctor", "--json", "--kernel", "9.9.9");
	assert_int_equal(r.rc, 2);
	o = parse_out(&r);
	assert_string_equal(jstr(o, "result"), "error");
	assert_int_equal(json_object_get_int(jget(o, "exit")), 2);
	assert_string_equal(jstr(finding(o, "modules-dir-missing"), "severity"), "error");
	assert_null(finding(o, "healthy"));
	assert_null(finding(o, "not-needed"));
	RUN(&r, "doctor", "--kernel", "9.9.9");
	assert_int_equal(r.rc, 2);
	assert_non_null(strstr(r.out, "[error] modules-dir-missing: "));
	assert_non_null(strstr(r.out, "doctor: error\n"));
	/* An installed vmmon.ko that cannot be read is not a healthy host. */
	put("lib/modules/" KVER "/updates/dkms/vmmon.ko", "not an ELF file\n");
	RUN(&r, "doctor", "--json", "--kernel", KVER);
	assert_int_equal(r.rc, 2);
	o = parse_out(&r);
	assert_string_equal(jstr(o, "result"), "error");
	assert_string_equal(jstr(finding(o, "module-unreadable"), "severity"), "error");
	assert_non_null(strstr(jstr(finding(o, "module-unreadable"), "message"), "vmmon.ko could not be checked"));
	assert_null(finding(o, "healthy"));
	assert_null(finding(o, "not-needed"));
}

/* Why sld_compat is in use: its hypervisor tasks, and others' references. */
static void test_in_use(void **state)
{
	struct json_object *o;
	struct run r;

	(void)state;
	make_loaded();
	put("sys/module/sld_compat/refcnt", "0\n");
	put(S "in_use", "none\n");
	RUN(&r, "status");
	assert_int_equal(r.rc, 0);
	assert_non_null(strstr(r.out, "sld_compat in use: no: rmmod sld_compat is allowed\n"));
	RUN(&r, "doctor", "--json", "--kernel", KVER);
	assert_null(finding(parse_out(&r), "sld-compat-in-use"));
	put("sys/module/sld_compat/refcnt", "4\n");
	put(S "in_use", "vmmon tasks=2\nfx_hv tasks=1\n");
	RUN(&r, "status", "--json");
	assert_int_equal(r.rc, 0);
	o = parse_out(&r);
	assert_int_equal(json_object_get_int(jget(o, "in_use.refcnt")), 4);
	assert_int_equal(json_object_get_int(jget(o, "in_use.hypervisor_tasks")), 3);
	assert_int_equal(json_object_get_int(jget(o, "in_use.others")), 1);
	RUN(&r, "status");
	assert_non_null(strstr(r.out, "sld_compat in use: yes, 4 references: protected tasks of hypervisor vmmon (2 tasks), fx_hv (1 task) keep it loaded until they exit, so that their guests get no split-lock #AC; 1 held by other modules (vendor API users or modules linked against it); rmmod sld_compat is refused\n"));
	RUN(&r, "doctor", "--json", "--kernel", KVER);
	o = parse_out(&r);
	assert_string_equal(jstr(finding(o, "sld-compat-in-use"), "severity"), "info");
	assert_non_null(strstr(jstr(finding(o, "sld-compat-in-use"), "message"),
			       "sld_compat is in use (4 references: protected tasks of hypervisor vmmon (2 tasks)"));
	/* Only other modules' references (a vendor holding the API). */
	put("sys/module/sld_compat/refcnt", "1\n");
	put(S "in_use", "none\n");
	RUN(&r, "status");
	assert_non_null(strstr(r.out, "sld_compat in use: yes, 1 reference: 1 held by other modules (vendor API users or modules linked against it); rmmod sld_compat is refused\n"));
}

static void test_registry(void **state)
{
	struct json_object *o;
	struct run r;

	(void)state;
	make_loaded();
	RUN(&r, "registry", "add", "--safe", "foo", "kvm-amd", "--json");
	assert_int_equal(r.rc, 0);
	o = parse_out(&r);
	assert_string_equal(jstr(o, "changes.0.knob"), "safe_modules");
	assert_string_equal(jstr(o, "changes.0.value"), "kvm_amd,foo");
	assert_true(jbool(o, "changes.0.module_written"));
	assert_int_equal(json_object_get_int(jget(o, "changes.0.already_listed")), 1);
	assert_true(jnull(o, "changes.0.persisted"));
	/* The fake module re-decides nothing: an empty list, no null. */
	assert_int_equal(jlen(o, "changes.0.modules_changed"), 0);
	assert_string_equal(file(P "safe_modules"), "kvm_amd,foo");
	RUN(&r, "registry", "list", "--json");
	assert_int_equal(r.rc, 0);
	o = parse_out(&r);
	assert_int_equal(jlen(o, "safe_modules"), 2);
	assert_string_equal(jstr(o, "safe_modules.1"), "foo");
	assert_string_equal(jstr(o, "hypervisor_modules.0"), "vmmon");
	assert_string_equal(jstr(o, "builtin.0.name"), "vmmon");
	assert_string_equal(jstr(o, "builtin.1.name"), "vboxdrv");
	/* The same facts as the text view: kvm_intel is built-in safe. */
	assert_int_equal(jlen(o, "builtin"), 4);
	assert_string_equal(jstr(o, "builtin.0.verdict"), "hypervisor");
	assert_true(jnull(o, "builtin.0.condition"));
	assert_string_equal(jstr(o, "builtin.2.name"), "kvm_intel");
	assert_string_equal(jstr(o, "builtin.2.verdict"), "sld_safe");
	assert_string_equal(jstr(o, "builtin.2.condition"), "the kernel has handle_guest_split_lock");
	assert_string_equal(jstr(o, "builtin.3.name"), "kvm_amd");
	assert_string_equal(jstr(o, "builtin.3.verdict"), "sld_safe");
	assert_non_null(strstr(jstr(o, "builtin.3.condition"), "DEBUGCTL"));
	assert_non_null(strstr(jstr(o, "seen.0"), "vmmon hypervisor"));
	RUN(&r, "registry", "add", "--hypervisor", "vboxdrv", "--persist");
	assert_int_equal(r.rc, 0);
	RUN(&r, "registry", "remove", "vmmon", "foo", "--persist");
	assert_int_equal(r.rc, 0);
	assert_string_equal(file(P "safe_modules"), "kvm_amd");
	assert_string_equal(file(P "hypervisor_modules"), "vboxdrv");
	assert_string_equal(file("etc/sld-compat/sld-compat.conf"),
		"# sld-compat test\n#verbose = 1\nhypervisor_modules = vboxdrv\nsafe_modules = kvm_amd\n");
	/* Emptying a list: written as the module's edit, and the file stops setting it. */
	put(P "hypervisor_modules", "\n");	/* as src/detect/registry.c shows an empty list */
	RUN(&r, "registry", "add", "--hypervisor", "vboxdrv");
	assert_string_equal(file(P "hypervisor_modules"), "vboxdrv");
	RUN(&r, "registry", "remove", "vboxdrv", "--persist");
	assert_int_equal(r.rc, 0);
	assert_string_equal(file(P "hypervisor_modules"), "-vboxdrv");
	assert_string_equal(file("etc/sld-compat/sld-compat.conf"),
		"# sld-compat test\n#verbose = 1\nsafe_modules = kvm_amd\n");
}

static void test_exempt(void **state)
{
	struct json_object *o;
	struct run r;

	(void)state;
	make_loaded();
	RUN(&r, "exempt", "add", "--comm", "a", "--path", "/usr/bin/game",
	    "--cgroup", "/sld.slice/game", "--persist", "--json");
	assert_int_equal(r.rc, 0);
	o = parse_out(&r);
	assert_int_equal(jlen(o, "changes"), 3);
	assert_string_equal(jstr(o, "changes.2.knob"), "exempt_cgroup");
	/* Exemptions re-decide no module: nothing to report. */
	assert_true(jnull(o, "changes.2.modules_changed"));
	assert_string_equal(file(P "exempt_comm"), "game,a");
	assert_string_equal(file(P "exempt_path"), "/usr/bin/game");
	assert_string_equal(file("etc/sld-compat/sld-compat.conf"),
		"# sld-compat test\n#verbose = 1\nexempt_comm = game,a\n"
		"exempt_path = /usr/bin/game\nexempt_cgroup = /sld.slice/game\n");
	RUN(&r, "exempt", "list", "--json");
	assert_int_equal(r.rc, 0);
	o = parse_out(&r);
	assert_string_equal(jstr(o, "exempt_comm.1"), "a");
	assert_string_equal(jstr(o, "exempt_cgroup.0"), "/sld.slice/game");
	assert_string_equal(jstr(o, "exempt_proactive"), "N");
	assert_int_equal(jlen(o, "tasks"), 1);
	/* No such status file exists: no key that is always null. */
	assert_false(json_object_object_get_ex(o, "ac_tasks", NULL));
	/* The text view shows the same tasks, one a line. */
	RUN(&r, "exempt", "list");
	assert_int_equal(r.rc, 0);
	assert_non_null(strstr(r.out, "exempt_proactive: N (module)\nprotected tasks:\n"
			       "  1234 vmware-vmx why=hypervisor hv=vmmon cpu=1 running=1"));
	/* A cgroup that does not exist yet: accepted, with a note. */
	RUN(&r, "exempt", "add", "--cgroup", "/machine.slice");
	assert_int_equal(r.rc, 0);
	assert_non_null(strstr(r.err, "note: cgroup /machine.slice does not exist yet; the rule waits for it"));
	assert_string_equal(file(P "exempt_cgroup"), "/sld.slice/game,/machine.slice");
	RUN(&r, "exempt", "remove", "--cgroup", "/machine.slice");
	assert_int_equal(r.rc, 0);
	/*
	 * A rule of patterns waits until a cgroup it names exists: a
	 * podman scope in the slice is not one, a libvirt VM's scope is.
	 */
	sh("mkdir -p '%s/sys/fs/cgroup/machine.slice/libpod-1.scope'", root);
	RUN(&r, "exempt", "add", "--cgroup", SLD_CGROUP_LIBVIRT_QEMU);
	assert_int_equal(r.rc, 0);
	assert_non_null(strstr(r.err, "note: cgroup /machine.slice/machine-qemu"));
	assert_non_null(strstr(r.err, "does not exist yet"));
	RUN(&r, "exempt", "remove", "--cgroup", SLD_CGROUP_LIBVIRT_QEMU);
	assert_int_equal(r.rc, 0);
	sh("mkdir -p '%s/sys/fs/cgroup/machine.slice/machine-qemu\\x2d3\\x2dvm.scope/libvirt'", root);
	RUN(&r, "exempt", "add", "--cgroup", SLD_CGROUP_LIBVIRT_QEMU);
	assert_int_equal(r.rc, 0);
	assert_null(strstr(r.err, "does not exist yet"));
	RUN(&r, "exempt", "add", "--cgroup", "/machine.slice/machine-qemu\\x2d3\\x2dvm.scope/?ibvirt");
	assert_int_equal(r.rc, 0);
	assert_null(strstr(r.err, "does not exist yet"));
	RUN(&r, "exempt", "remove", "--cgroup", SLD_CGROUP_LIBVIRT_QEMU, "--cgroup",
	    "/machine.slice/machine-qemu\\x2d3\\x2dvm.scope/?ibvirt");
	assert_int_equal(r.rc, 0);
	sh("rm -r '%s/sys/fs/cgroup/machine.slice'", root);
	RUN(&r, "exempt", "remove", "--comm", "game", "--persist");
	assert_int_equal(r.rc, 0);
	assert_string_equal(file(P "exempt_comm"), "a");
	assert_non_null(strstr(file("etc/sld-compat/sld-compat.conf"), "exempt_comm = a\n"));
	/* A knob this module lacks: clear error, nothing written. */
	sh("rm '%s/" P "exempt_path'", root);
	RUN(&r, "exempt", "add", "--path", "/usr/bin/game");
	assert_int_equal(r.rc, 2);
	assert_non_null(strstr(r.err, "no such knob (module too old?)"));
	RUN(&r, "exempt", "list");
	assert_non_null(strstr(r.out, "exempt_path: (not supported by this sld_compat)"));
}

static void test_policy(void **state)
{
	struct json_object *o;
	struct run r;

	(void)state;
	make_loaded();
	RUN(&r, "policy", "set", "refuse", "--persist", "--json");
	assert_int_equal(r.rc, 0);
	o = parse_out(&r);
	assert_string_equal(jstr(o, "changes.0.value"), "refuse");
	assert_int_equal(jlen(o, "changes.0.modules_changed"), 0);
	assert_string_equal(file(P "on_hypervisor"), "refuse");
	RUN(&r, "policy", "set", "enabled", "n");
	assert_int_equal(r.rc, 0);
	assert_string_equal(r.out, "sld_compat.enabled = N\n  no loaded module changed\n");
	RUN(&r, "policy", "set", "verbose", "2");
	assert_int_equal(r.rc, 0);
	assert_string_equal(r.out, "sld_compat.verbose = 2\n");
	assert_string_equal(file(P "enabled"), "N");
	RUN(&r, "policy", "get", "--json");
	assert_int_equal(r.rc, 0);
	o = parse_out(&r);
	assert_string_equal(jstr(o, "on_hypervisor"), "refuse");
	assert_string_equal(jstr(o, "enabled"), "N");
	assert_string_equal(jstr(o, "source"), "module");
	assert_string_equal(file("etc/sld-compat/sld-compat.conf"),
		"# sld-compat test\n#verbose = 1\non_hypervisor = refuse\n");
}

/* Not loaded: only --persist may change the configuration; apply later. */
static void test_persist_then_apply(void **state)
{
	struct json_object *o;
	struct run r;

	(void)state;
	make_host();
	RUN(&r, "exempt", "add", "--comm", "x");
	assert_int_equal(r.rc, 2);
	assert_non_null(strstr(r.err, "sld_compat is not loaded"));
	assert_string_equal(file("etc/sld-compat/sld-compat.conf"), "# sld-compat test\n#verbose = 1\n");
	RUN(&r, "exempt", "add", "--comm", "x", "--persist");
	assert_int_equal(r.rc, 0);
	assert_non_null(strstr(r.out, "sld_compat.exempt_comm = x (module not loaded) (saved in "));
	RUN(&r, "policy", "set", "verbose", "3", "--persist");
	assert_int_equal(r.rc, 0);
	RUN(&r, "policy", "get", "--json");
	o = parse_out(&r);
	assert_string_equal(jstr(o, "source"), "configuration");
	assert_string_equal(jstr(o, "verbose"), "3");
	/* A drop-in overriding the main file is pointed out. */
	put("etc/sld-compat/conf.d/50-local.conf", "verbose = 1\n");
	RUN(&r, "policy", "set", "verbose", "2", "--persist");
	assert_non_null(strstr(r.err, "50-local.conf:1 also sets verbose and overrides"));
	sh("rm '%s/etc/sld-compat/conf.d/50-local.conf'", root);
	/* "load" the module and apply. */
	put(P "verbose", "1\n");
	put(P "exempt_comm", "-\n");
	RUN(&r, "apply", "--json");
	assert_int_equal(r.rc, 0);
	o = parse_out(&r);
	assert_int_equal(jlen(o, "knobs"), 2);
	assert_string_equal(jstr(o, "knobs.0.result"), "set");
	assert_string_equal(file(P "exempt_comm"), "x");
	assert_string_equal(file(P "verbose"), "2");
	/* --module: only sld_compat and modules named in the configuration. */
	put(P "verbose", "0\n");
	RUN(&r, "apply", "--module", "fx_clean");
	assert_int_equal(r.rc, 0);
	assert_string_equal(file(P "verbose"), "0\n");
	put("etc/sld-compat/sld-compat.conf", "verbose = 2\nsafe_modules = fx_clean\n");
	put(P "safe_modules", "-\n");
	RUN(&r, "apply", "--module", "fx-clean");
	assert_int_equal(r.rc, 0);
	assert_string_equal(file(P "verbose"), "2");
}

static void test_scan_json(void **state)
{
	struct json_object *o;
	struct run r;

	(void)state;
	RUN(&r, "scan", "--json", SLDCTL_DATA_DIR "/sld_vmx.ko");
	assert_int_equal(r.rc, 1);
	o = parse_out(&r);
	assert_string_equal(jstr(o, "0.verdict"), "hypervisor");
	assert_string_equal(jstr(o, "0.module"), "sld_vmx");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_status),
		cmocka_unit_test(test_bad_doctor),
		cmocka_unit_test(test_bad_registry_list),
		cmocka_unit_test(test_bad_registry_add),
		cmocka_unit_test(test_bad_registry_remove),
		cmocka_unit_test(test_bad_exempt_list),
		cmocka_unit_test(test_bad_exempt_add),
		cmocka_unit_test(test_bad_exempt_remove),
		cmocka_unit_test(test_bad_policy_get),
		cmocka_unit_test(test_bad_policy_set),
		cmocka_unit_test(test_bad_apply),
		cmocka_unit_test(test_bad_scan),
		cmocka_unit_test(test_bad_actions),
		cmocka_unit_test(test_status_loaded),
		cmocka_unit_test(test_status_mode_sources),
		cmocka_unit_test(test_doctor_not_loaded),
		cmocka_unit_test(test_doctor_loaded),
		cmocka_unit_test(test_doctor_offenders),
		cmocka_unit_test(test_doctor_cannot_check),
		cmocka_unit_test(test_in_use),
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_exempt),
		cmocka_unit_test(test_policy),
		cmocka_unit_test(test_persist_then_apply),
		cmocka_unit_test(test_scan_json),
	};
	int r;

	memset(huge, 'a', HUGE_N);
	huge_path[0] = '/';
	memset(huge_path + 1, 'a', HUGE_N);
	if (!mkdtemp(test_dir))
		return 1;
	snprintf(root, sizeof(root), "%s/root", test_dir);
	r = cmocka_run_group_tests(tests, NULL, NULL);
	sh("rm -rf '%s'", test_dir);
	if (doc)
		json_object_put(doc);
	return r;
}
