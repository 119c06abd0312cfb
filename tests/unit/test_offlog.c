// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the kernel log parser of `sldctl offenders`
 * (tools/sldctl/lib/offlog.c): every split-lock line format the kernel prints
 * (6.1's intel.c and bus_lock.c up to 7.2 print the same text), /dev/kmsg
 * records and journalctl output, odd task names, bad and truncated lines
 * counted and skipped.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/offlog.h"

static void parse_file(struct off_log *l, const char *name)
{
	char path[512], *buf;
	size_t len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", FIXTURES, name);
	f = fopen(path, "r");
	assert_non_null(f);
	buf = malloc(65536);
	assert_non_null(buf);
	len = fread(buf, 1, 65536, f);
	fclose(f);
	off_log_init(l);
	assert_int_equal(off_log_parse(l, buf, len), 0);
	free(buf);
}

static const struct off_task *find(const struct off_log *l, const char *comm,
				   int pid)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->v[i].pid == pid && !strcmp(l->v[i].comm, comm))
			return &l->v[i];
	return NULL;
}

static const struct off_task *one(const struct off_log *l, const char *comm,
				  int pid, enum off_kind k, unsigned long n)
{
	const struct off_task *t = find(l, comm, pid);

	assert_non_null(t);
	assert_int_equal(t->n[k], n);
	return t;
}

static void test_kmsg(void **state)
{
	const struct off_task *t;
	struct off_log l;

	(void)state;
	parse_file(&l, "offenders-kmsg.txt");
	assert_int_equal(l.records, 16);
	assert_int_equal(l.matched, 9);
	assert_int_equal(l.bad, 5);
	assert_int_equal(l.n, 8);
	assert_true(l.have_seq);
	assert_int_equal(l.first_seq, 0);
	t = one(&l, "EMT-3", 187133, OFF_SPLIT_LOCK, 2);
	assert_string_equal(t->first, "51.000123");
	assert_string_equal(t->last, "54.000000");
	one(&l, "CPU 1/KVM", 175479, OFF_SPLIT_LOCK, 1);
	one(&l, "qemu-system-x86", 10167, OFF_SPLIT_LOCK, 1);
	one(&l, "game.exe", 4242, OFF_FATAL, 1);
	one(&l, "fx_guest", 77, OFF_BOGUS, 1);
	one(&l, "qemu", 123, OFF_BUS_LOCK, 1);
	t = one(&l, "a[b] c/9", 1, OFF_HANDLED, 1);
	assert_string_equal(t->why, "exempt-comm");
	one(&l, "sp ace\\x", 31, OFF_SPLIT_LOCK, 1);	/* kmsg's \xNN undone */
	off_log_free(&l);
}

static void test_journal(void **state)
{
	const struct off_task *t;
	struct off_log l;

	(void)state;
	parse_file(&l, "offenders-journal.txt");
	assert_int_equal(l.records, 4);
	assert_int_equal(l.matched, 3);
	assert_int_equal(l.bad, 2);
	assert_false(l.have_seq);
	t = one(&l, "EMT-3", 187133, OFF_SPLIT_LOCK, 1);
	assert_string_equal(t->first, "51.000123");
	one(&l, "CPU 0/KVM", 175478, OFF_SPLIT_LOCK, 1);
	t = one(&l, "qemu", 123, OFF_BUS_LOCK, 1);
	assert_string_equal(t->last, "2026-12-04T03:41:44+0000");
	off_log_free(&l);
}

static void parse_str(struct off_log *l, const char *s)
{
	off_log_init(l);
	assert_int_equal(off_log_parse(l, s, strlen(s)), 0);
}

/* Lines that must count as bad, each alone, and not as a task. */
static void test_bad(void **state)
{
	static const char *const bad[] = {
		"4,1,2,-;x86/split lock detection: #AC: a/1 took a split_lock trap at address: 0x",
		"4,1,2,-;x86/split lock detection: #AC: a/1 took a split_lock trap at address: 0x12345678901234567",
		"4,1,2,-;x86/split lock detection: #AC: a/0 took a split_lock trap at address: 0x1",
		"4,1,2,-;x86/split lock detection: #AC: a/ took a split_lock trap at address: 0x1",
		"4,1,2,-;x86/split lock detection: #AC: /5 took a split_lock trap at address: 0x1x",
		"4,1,2,-;x86/split lock detection: #DB: a/5 took a split_lock trap at address: 0x1",
		"4,1,2,-;x86/split lock detection: #AC: a/5 took a bus_lock trap at address: 0x1",
		"4,1,2,-;x86/split lock detection: #AC: a/5 weird split_lock trap at address: 0x1",
		"4,1,2,-;x86/split lock detection: #AC: a\\x00b/5 took a split_lock trap at address: 0x1",
		"4,1,2,-;#AC: a/5 took a split_lock trap at address: 0x1",
		"4,1,2,-;sld_compat: split lock by exempt-comm task a[x]: handled in warn mode",
		"4,1,2,-;sld_compat: split lock by task a[1]: handled in warn mode",
		"4,1,2;x86/split lock detection: #AC: a/5 took a split_lock trap at address: 0x1",
		"4,99999999999999999999,2,-;x86/split lock detection: #AC: a/5 took a split_lock trap at address: 0x1",
		"[ 1.0 host kernel: x86/split lock detection: #AC: a/5 took a split_lock trap at address: 0x1",
		"[] host kernel: x86/split lock detection: #AC: a/5 took a split_lock trap at address: 0x1",
		"[ 1.0] host x86/split lock detection: #AC: a/5 took a split_lock trap at address: 0x1",
		"4,8,1,-;x86/split lock detection: #AC: x/1 took a split_lock trap at address: 0x1 took a split_lock trap at address: 0x2",
		"4,1,2,-;x86/split lock detection: #AC: a/5 took a split_lo",
		"4,1,2,-;x86/split lock detection: #AC: took a split_lock trap at address: 0x1",
		"4,1,2,-;x86/split lock detection: #DB: a/5 took a bus",
		"4,1,2,-;sld_compat: split lock by hypervisor task qemu[12]: hand",
	};
	struct off_log l;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		parse_str(&l, bad[i]);
		if (l.bad != 1 || l.n)
			fail_msg("line %zu: bad %lu tasks %zu: %s", i, l.bad, l.n, bad[i]);
		off_log_free(&l);
	}
}

/* A NUL inside a journal time stamp or a rule name (fuzz_offlog): bad. */
static void test_nul_time(void **state)
{
	static const char line[] = "[ \0 52.5] h kernel: x86/split lock detection: #AC: a/5 took a split_lock trap at address: 0x1\n";
	struct off_log l;

	(void)state;
	off_log_init(&l);
	assert_int_equal(off_log_parse(&l, line, sizeof(line) - 1), 0);
	assert_int_equal(l.bad, 1);
	assert_int_equal(l.n, 0);
	off_log_free(&l);
	{
		static const char why[] = "4,1,2,-;sld_compat: split lock by \0x task a[1]: handled in warn mode\n";

		off_log_init(&l);
		assert_int_equal(off_log_parse(&l, why, sizeof(why) - 1), 0);
		assert_int_equal(l.bad, 1);
		assert_int_equal(l.n, 0);
		off_log_free(&l);
	}
}

/* The boundaries: a 15-byte name, the largest pid, a CRLF journal. */
static void test_edges(void **state)
{
	struct off_log l;

	(void)state;
	parse_str(&l, "4,7,1,-;x86/split lock detection: #AC: 0123456789abcde/4194304 took a split_lock trap at address: 0xffffffffffffffff\n"
		  "[ 2.5] h kernel: x86/split lock detection: #AC: a/b c/7 fatal split_lock trap at address: 0xA\r\n"
		  "4,8,1,-;x86/split lock detection: #AC: crashing the kernel on kernel split_locks and warning on user-space split_locks\n"
		  "4,9,1,-;x86/split lock detection: #DB: setting system wide bus lock rate limit to 5/sec\n");
	assert_int_equal(l.bad, 0);
	assert_int_equal(l.first_seq, 7);
	one(&l, "0123456789abcde", 4194304, OFF_SPLIT_LOCK, 1);
	one(&l, "a/b c", 7, OFF_FATAL, 1);
	assert_int_equal(l.n, 2);
	off_log_free(&l);
	parse_str(&l, "4,1,2,-;x86/split lock detection: #AC: a/4194305 took a split_lock trap at address: 0x1\n");
	assert_int_equal(l.bad, 1);
	off_log_free(&l);
}

/*
 * sld_compat's own line names the task escaped (\xNN, as the module
 * shows every name), and /dev/kmsg escapes that backslash once more: the
 * comm is the task's own bytes again, a 15-byte name with escapes fits.
 */
static void test_compat_escaped(void **state)
{
	const struct off_task *t;
	struct off_log l;

	(void)state;
	parse_str(&l, "4,1,2,-;sld_compat: split lock by exempt-comm task off\\x5cx0aline[7]: handled in warn mode without penalty, SLD off while it runs\n"
		  "4,2,3,-;sld_compat: split lock by exempt-comm task off\\x5cx5cx0a[8]: handled in warn mode without penalty, SLD off while it runs\n"
		  "4,3,4,-;sld_compat: split lock by hypervisor task 0123456789abc\\x5cx1b\\x5cx0a[9]: handled in warn mode without penalty, SLD off while it runs\n"
		  "[ 5.5] h kernel: sld_compat: split lock by exempt-path task off\\x1b[7mesc[10]: handled in warn mode without penalty, SLD off while it runs\n");
	assert_int_equal(l.bad, 0);
	assert_int_equal(l.n, 4);
	t = one(&l, "off\nline", 7, OFF_HANDLED, 1);
	assert_string_equal(t->why, "exempt-comm");
	one(&l, "off\\x0a", 8, OFF_HANDLED, 1);
	one(&l, "0123456789abc\033\n", 9, OFF_HANDLED, 1);
	t = one(&l, "off\033[7mesc", 10, OFF_HANDLED, 1);
	assert_string_equal(t->why, "exempt-path");
	off_log_free(&l);
	/* Past 15 bytes unescaped, or a NUL: bad. */
	parse_str(&l, "4,1,2,-;sld_compat: split lock by exempt-comm task 0123456789abcdef[7]: handled in warn mode\n"
		  "4,2,3,-;sld_compat: split lock by exempt-comm task a\\x5cx00b[8]: handled in warn mode\n");
	assert_int_equal(l.bad, 2);
	assert_int_equal(l.n, 0);
	off_log_free(&l);
}

/*
 * Records the kernels wrote themselves, as /dev/kmsg gave them, captured
 * from tests/vm/t/58-offenders.sh on the enforcing test CPU: Debian 12's
 * 6.1 and 6.12 (intel.c) and trixie-backports' 7.3 (bus_lock.c), the
 * Intel model in warn mode (the #DB with DEBUGCTL bit 2 set by hand)
 * and the AMD model (the kernel's own bit 2). Names hold a space, a
 * newline, an ESC sequence, a backslash and a '/', each undone from its
 * \xNN once.
 */
static const struct {
	const char *line, *comm;
	int pid;
	enum off_kind kind;
} real_lines[] = {
	/* 6.1.0-57-amd64, Intel model, warn mode */
	{ "4,401,25036078,-;x86/split lock detection: #AC: off space/210 took a split_lock trap at address: 0x4024e9",
	  "off space", 210, OFF_SPLIT_LOCK },
	{ "4,404,26022336,-;x86/split lock detection: #AC: off\\x0aline/231 took a split_lock trap at address: 0x4024e9",
	  "off\nline", 231, OFF_SPLIT_LOCK },
	{ "4,407,30174227,-;x86/split lock detection: #AC: off\\x1b[7mesc/268 took a split_lock trap at address: 0x4024e9",
	  "off\033[7mesc", 268, OFF_SPLIT_LOCK },
	{ "4,410,36191531,-;x86/split lock detection: #AC: off\\x5cx0a/307 took a split_lock trap at address: 0x4024e9",
	  "off\\x0a", 307, OFF_SPLIT_LOCK },
	{ "4,412,38203714,-;x86/split lock detection: #AC: CPU 1/KVM/343 took a split_lock trap at address: 0x4024e9",
	  "CPU 1/KVM", 343, OFF_SPLIT_LOCK },
	{ "4,418,45137660,-;x86/split lock detection: #DB: offcount/386 took a bus_lock trap at address: 0x4024f1",
	  "offcount", 386, OFF_BUS_LOCK },
	/* 6.12.107+deb12-amd64, Intel model, warn mode */
	{ "4,401,18239345,-;x86/split lock detection: #AC: off space/262 took a split_lock trap at address: 0x4024e9",
	  "off space", 262, OFF_SPLIT_LOCK },
	{ "4,404,20163511,-;x86/split lock detection: #AC: off\\x0aline/300 took a split_lock trap at address: 0x4024e9",
	  "off\nline", 300, OFF_SPLIT_LOCK },
	{ "4,407,22510467,-;x86/split lock detection: #AC: off\\x1b[7mesc/339 took a split_lock trap at address: 0x4024e9",
	  "off\033[7mesc", 339, OFF_SPLIT_LOCK },
	{ "4,409,24050311,-;x86/split lock detection: #AC: off\\x5cx0a/375 took a split_lock trap at address: 0x4024e9",
	  "off\\x0a", 375, OFF_SPLIT_LOCK },
	{ "4,412,24858614,-;x86/split lock detection: #AC: CPU 1/KVM/394 took a split_lock trap at address: 0x4024e9",
	  "CPU 1/KVM", 394, OFF_SPLIT_LOCK },
	{ "4,418,31574240,-;x86/split lock detection: #DB: offcount/455 took a bus_lock trap at address: 0x4024f1",
	  "offcount", 455, OFF_BUS_LOCK },
	/* 7.3.4+deb13-amd64, Intel model, warn mode */
	{ "4,400,18124854,-;x86/split lock detection: #AC: off space/206 took a split_lock trap at address: 0x4024e9",
	  "off space", 206, OFF_SPLIT_LOCK },
	{ "4,403,20324120,-;x86/split lock detection: #AC: off\\x0aline/244 took a split_lock trap at address: 0x4024e9",
	  "off\nline", 244, OFF_SPLIT_LOCK },
	{ "4,406,21582632,-;x86/split lock detection: #AC: off\\x1b[7mesc/280 took a split_lock trap at address: 0x4024e9",
	  "off\033[7mesc", 280, OFF_SPLIT_LOCK },
	{ "4,408,22950203,-;x86/split lock detection: #AC: off\\x5cx0a/318 took a split_lock trap at address: 0x4024e9",
	  "off\\x0a", 318, OFF_SPLIT_LOCK },
	{ "4,410,23326744,-;x86/split lock detection: #AC: CPU 1/KVM/337 took a split_lock trap at address: 0x4024e9",
	  "CPU 1/KVM", 337, OFF_SPLIT_LOCK },
	{ "4,417,30522633,-;x86/split lock detection: #DB: offcount/395 took a bus_lock trap at address: 0x4024f1",
	  "offcount", 395, OFF_BUS_LOCK },
	/* 7.3.4+deb13-amd64, AMD model: #DB only */
	{ "4,395,14786047,-;x86/split lock detection: #DB: offplain/176 took a bus_lock trap at address: 0x4024f1",
	  "offplain", 176, OFF_BUS_LOCK },
	{ "4,398,16497020,-;x86/split lock detection: #DB: off space/214 took a bus_lock trap at address: 0x4024f1",
	  "off space", 214, OFF_BUS_LOCK },
	{ "4,400,17477346,-;x86/split lock detection: #DB: off\\x0aline/247 took a bus_lock trap at address: 0x4024f1",
	  "off\nline", 247, OFF_BUS_LOCK },
	{ "4,403,17820126,-;x86/split lock detection: #DB: off\\x1b[7mesc/267 took a bus_lock trap at address: 0x4024f1",
	  "off\033[7mesc", 267, OFF_BUS_LOCK },
	{ "4,406,18981595,-;x86/split lock detection: #DB: off\\x5cx0a/302 took a bus_lock trap at address: 0x4024f1",
	  "off\\x0a", 302, OFF_BUS_LOCK },
	{ "4,409,20629697,-;x86/split lock detection: #DB: CPU 1/KVM/339 took a bus_lock trap at address: 0x4024f1",
	  "CPU 1/KVM", 339, OFF_BUS_LOCK },
};

static void test_real_lines(void **state)
{
	const struct off_task *t;
	struct off_log l;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(real_lines) / sizeof(real_lines[0]); i++) {
		parse_str(&l, real_lines[i].line);
		if (l.bad || l.matched != 1 || l.n != 1)
			fail_msg("line %zu: bad %lu matched %lu tasks %zu: %s", i,
				 l.bad, l.matched, l.n, real_lines[i].line);
		t = one(&l, real_lines[i].comm, real_lines[i].pid,
			real_lines[i].kind, 1);
		assert_int_equal(strlen(t->comm), strlen(real_lines[i].comm));
		off_log_free(&l);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kmsg),
		cmocka_unit_test(test_journal),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_nul_time),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_compat_escaped),
		cmocka_unit_test(test_real_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
