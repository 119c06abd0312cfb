/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel log's split-lock lines, parsed without touching the system.
 *
 * Input is text as /dev/kmsg gives it (records "prio,seq,usec,flags;msg",
 * message bytes outside printable ASCII escaped as \xNN, continuation
 * lines starting with a space) or as journalctl prints it
 * (-o short-monotonic "[  12.345678] host kernel: msg", or -o short-iso
 * "2026-01-02T03:04:05+0000 host kernel: msg"). Each line is read on its
 * own, so the formats may even be mixed.
 *
 * Lines recognised, from the kernel (the same text in 6.1's intel.c and
 * in bus_lock.c from 6.13 on, pr_fmt "x86/split lock detection: "):
 *	#AC: COMM/PID took a split_lock trap at address: 0xADDR
 *	#AC: COMM/PID fatal split_lock trap at address: 0xADDR
 *	#AC: COMM/PID bogus split_lock trap at address: 0xADDR
 *	#DB: COMM/PID took a bus_lock trap at address: 0xADDR
 * and from sld_compat (engine/task/task.c), COMM escaped as it shows
 * names (\xNN, src/schema/escape.h), which the parser undoes:
 *	sld_compat: split lock by WHY task COMM[PID]: handled in warn mode ...
 * COMM may hold spaces, '/' and '[' (a task names itself): the PID is
 * the last "/NUMBER" (or "[NUMBER]") before the fixed tail.
 *
 * A line that mentions a split_lock/bus_lock trap but does not parse,
 * and a /dev/kmsg record with a broken header, is counted as bad and
 * skipped.
 */
#ifndef SLDCTL_OFFLOG_H
#define SLDCTL_OFFLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum off_kind {
	OFF_SPLIT_LOCK,		/* "took a split_lock trap": warn mode */
	OFF_FATAL,		/* "fatal split_lock trap": guest, fatal mode */
	OFF_BOGUS,		/* "bogus split_lock trap": guest, SLD off */
	OFF_BUS_LOCK,		/* "#DB: ... took a bus_lock trap" */
	OFF_HANDLED,		/* sld_compat handled it without penalty */
	OFF_NKINDS
};

#define OFF_COMM_MAX	16	/* TASK_COMM_LEN: 15 bytes + NUL */
#define OFF_TIME_MAX	40
#define OFF_WHY_MAX	16
#define OFF_TASKS_MAX	4096
#define OFF_PID_MAX	4194304	/* PID_MAX_LIMIT */

struct off_task {
	char comm[OFF_COMM_MAX];
	int pid;
	unsigned long n[OFF_NKINDS];
	char first[OFF_TIME_MAX], last[OFF_TIME_MAX];	/* as the log says */
	char why[OFF_WHY_MAX];	/* sld_compat's rule, for OFF_HANDLED */
};

struct off_log {
	struct off_task *v;
	size_t n, cap;
	unsigned long records;	/* lines that are log records */
	unsigned long matched;	/* split-lock lines counted */
	unsigned long bad;	/* skipped: broken record or trap line */
	unsigned long dropped;	/* trap lines of tasks past OFF_TASKS_MAX */
	bool have_seq;
	uint64_t first_seq;	/* of the first /dev/kmsg record */
};

void off_log_init(struct off_log *l);
void off_log_free(struct off_log *l);

/* Parse buf (need not be NUL-terminated). 0, or -ENOMEM. */
int off_log_parse(struct off_log *l, const char *buf, size_t len);

const char *off_kind_name(enum off_kind k);

#endif /* SLDCTL_OFFLOG_H */
