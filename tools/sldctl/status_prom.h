/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sldctl status --format prometheus (status_prom.c): what status read,
 * as node_exporter textfile-collector metrics on stdout.
 */
#ifndef SLDCTL_STATUS_PROM_H
#define SLDCTL_STATUS_PROM_H

#include <stdbool.h>
#include <stddef.h>

struct prom_in {
	bool loaded;
	unsigned int errors;	/* files that could not be read */
	/* status files as read, NULL when absent or unreadable */
	const char *version, *sld_mode, *ac, *hypervisors, *tasks, *runs;
	const char *disable_count, *db, *mechanism;
	const char *account, *modules;	/* /proc/sld_compat_{account,modules} */
};

void status_prom(const struct prom_in *in);

/*
 * The value of the field " key=VALUE" of line[0..len), *vlen bytes: the
 * last such field (a task's comm, earlier on the line, may hold one), or
 * NULL.
 */
const char *status_kv(const char *line, size_t len, const char *key,
		      size_t *vlen);

#endif /* SLDCTL_STATUS_PROM_H */
