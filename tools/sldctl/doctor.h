/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sldctl doctor: facts gathered offline and online, turned into findings.
 * A finding has a stable identifier (scripts act on it), a severity, a
 * sentence and, when something must be done, the command to run.
 */
#ifndef SLDCTL_DOCTOR_H
#define SLDCTL_DOCTOR_H

#include <stdbool.h>
#include <stddef.h>

#include "modlib/verdict.h"

enum doc_sev { DOC_INFO, DOC_WARNING, DOC_ACTION, DOC_ERROR };

struct finding {
	const char *id;
	enum doc_sev sev;
	char *text;
	char *fix;		/* NULL: nothing to run */
};

struct findings {
	struct finding *v;
	size_t n;
};

void doc_add(struct findings *f, const char *id, enum doc_sev sev,
	     const char *fix, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
void doc_free(struct findings *f);
const char *doc_sev_name(enum doc_sev s);

/* One installed module file of interest, classified offline. */
struct installed {
	char name[64];
	char *path;
	enum sld_verdict verdict;
	enum sld_reason reason;
	bool error;		/* could not be read: reason in findings */
};

struct inventory {
	struct installed *v;
	size_t n;
	char *sld_compat;	/* path of an installed sld_compat.ko*, or NULL */
	int dir_err;		/* errno: the directory could not be walked */
};

/*
 * Walk dir (/lib/modules/KVER): files outside kernel/ (DKMS, extra,
 * updates, misc) and files named like a built-in hypervisor are scanned
 * with the scan library. Unreadable files and directories below dir
 * become error findings (doctor then exits 2); dir itself missing or
 * unreadable sets dir_err.
 */
void inventory_scan(const char *dir, struct inventory *inv, struct findings *f);
void inventory_free(struct inventory *inv);

/* "VMware's vmmon", "VirtualBox's vboxdrv", or "module NAME". */
const char *doc_module_title(const char *name, char *buf, size_t n);

#endif /* SLDCTL_DOCTOR_H */
