/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Split-lock offenders: the kernel log read (/dev/kmsg, or journalctl when
 * the ring has wrapped or an older TIME is asked for), parsed by offlog.c,
 * each task resolved while it still runs (executable, cgroup, the VMM
 * process it belongs to), classified, and given the exemption rule that
 * fits it. Shared by `sldctl offenders` and `sldctl doctor`.
 */
#ifndef SLDCTL_OFFENDERS_H
#define SLDCTL_OFFENDERS_H

#include <limits.h>
#include <stdbool.h>

#include "offlog.h"

enum off_class { OFF_KVM_VCPU, OFF_VBOX_EMT, OFF_WINE, OFF_OTHER };

struct offender {
	const struct off_task *t;
	enum off_class cls;
	bool alive;		/* the pid still runs with that name */
	char exe[PATH_MAX];	/* of the task's process, "" if unknown */
	char cgroup[PATH_MAX];	/* cgroup v2 path, "" if unknown */
	char vmm[64];		/* VMM process name, "" if none found */
	int vmm_pid;
	char fix[PATH_MAX + 96];	/* the command to run, "" if none */
	const char *caveat;	/* NULL: the rule is not forgeable */
	const char *note;	/* NULL or a remark on the rule */
	char advice[PATH_MAX + 512];	/* a note made for this one */
};

struct offenders {
	struct off_log log;
	const char *source;	/* "/dev/kmsg" or "journalctl" */
	struct offender *v;
	size_t n;
};

/*
 * Read and resolve. since: NULL (this boot) or a TIME for journalctl.
 * 0; -ENOENT when /dev/kmsg is absent (and no journalctl);
 * -ENOEXEC when TIME needs journalctl and there is none; other -errno
 * with why[] saying what failed.
 */
int offenders_read(struct offenders *o, const char *since, char *why,
		   size_t whylen);
void offenders_free(struct offenders *o);

const char *off_class_name(enum off_class c);
/* The kernel logged a trap for it (not only sld_compat's lines). */
bool offender_trapped(const struct offender *f);

#endif /* SLDCTL_OFFENDERS_H */
