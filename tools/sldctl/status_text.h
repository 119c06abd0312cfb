/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sldctl status, the human view (status_text.c): what status_cmd.c read,
 * the lines that say whether this host is protected and who is first,
 * details after, each value once.
 */
#ifndef SLDCTL_STATUS_TEXT_H
#define SLDCTL_STATUS_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "host.h"

/* A file as read: its name below its directory, one trailing \n dropped. */
struct status_item {
	char *name;
	char *value;	/* NULL: unreadable */
	size_t len;
};

struct status_items {
	struct status_item *v;
	size_t n;
};

/* The value of the readable file called name, or NULL. */
const char *status_find(const struct status_items *it, const char *name);

/*
 * status: the files below /sys/kernel/sld_compat/, knobs: those of
 * /sys/module/sld_compat/parameters/, procs: /proc/sld_compat_modules and
 * /proc/sld_compat_account. verbose adds the machinery: hooks, kernel
 * code, per-CPU account, scan records of every module seen.
 */
void status_text(const struct host *h, const struct status_items *status,
		 const struct status_items *knobs,
		 const struct status_items *procs, bool verbose);

#endif /* SLDCTL_STATUS_TEXT_H */
