/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Facts about the running host that status and doctor share: the CPU's
 * split-lock flags, the kernel's split-lock mode and where that was
 * learned, kernel.split_lock_mitigate, and whether sld_compat is loaded.
 * All paths under $SLDCTL_ROOT; a fake tree's kernel log is the text
 * file dev/kmsg (lines as /dev/kmsg gives them, or plain text).
 */
#ifndef SLDCTL_HOST_H
#define SLDCTL_HOST_H

#include <stdbool.h>

struct host {
	int cpu_sld, cpu_bld;	/* 1 yes, 0 no, -1 unknown */
	char mode[16];		/* off, warn, fatal, ratelimit, unknown */
	const char *mode_source; /* sld_compat, kernel-log, cmdline, cpu, default */
	int mitigate;		/* kernel.split_lock_mitigate, -1 absent */
	bool loaded;
	int cpuinfo_err;	/* 0 or -errno reading /proc/cpuinfo */
};

void host_read(struct host *h);

/*
 * Why sld_compat is in use: its reference count (/sys/module/sld_compat/
 * refcnt), how many of those are its protected hypervisor tasks (status
 * file in_use) and of which hypervisors ("fx_hv (2 tasks), ..."), and the
 * rest, held by other modules. 0, or -errno when refcnt cannot be read.
 */
struct in_use {
	int refcnt, tasks, others;
	char hv[256];
};

int host_in_use(struct in_use *u);
/* One sentence: "no: ..." or "yes, N references: ...". */
void host_in_use_text(const struct in_use *u, char *buf, size_t n);

/* Pure helpers (unit-tested). */
/* "split_lock_detect=ratelimit:10" in a command line -> "ratelimit"; 0 found. */
int host_mode_from_cmdline(const char *cmdline, char *mode, size_t n);
/* One kernel log message -> mode; 0 if it is the kernel's SLD line. */
int host_mode_from_log_line(const char *line, char *mode, size_t n);
/* "flags : ..." of cpuinfo text -> sld, bld (-1 if no flags line). */
void host_cpu_flags_text(char *cpuinfo, int *sld, int *bld);

#endif /* SLDCTL_HOST_H */
