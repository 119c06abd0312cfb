/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pieces of `sldctl run` that decide, apart from the command so that
 * tests/unit can call them: the module's run_allow list read back and
 * asked about the caller, the names of /etc/sld-compat resolved to the
 * ids the module takes, and the scope's unit name.
 */
#ifndef SLDCTL_RUN_ALLOW_H
#define SLDCTL_RUN_ALLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "schema/knobs_table.h"

struct run_allow {
	unsigned int n;
	struct {
		bool group;
		unsigned long id;
	} e[SLD_RUN_ALLOW_MAX];
};

/*
 * a = the knob's value ("1000,@60", "-" for none). -1 with a reason in
 * why for anything the module would not have written.
 */
int run_allow_parse(const char *value, struct run_allow *a, char *why,
		    size_t n);

/*
 * As run.c decides, on real ids: root always (the list may be empty), a
 * listed uid, or a listed gid that is the real gid or a supplementary one.
 */
bool run_allowed(const struct run_allow *a, uid_t uid, gid_t gid,
		 const gid_t *groups, int ngroups);

/*
 * The configuration's value for the module: each entry a uid, @gid, user
 * name or @group name (a sign of an edit kept, "-" as is), names resolved
 * through the system's user database. *out is malloc'd; -1 and why when
 * a name is unknown or an entry is malformed.
 */
int run_allow_resolve(const char *value, char **out, char *why, size_t n);

/*
 * The scope's unit name without ".scope": "sld-run-" CMD's base name in
 * the characters a unit name allows (others '_', at most 32) "-" PID.
 */
void run_unit_name(char *buf, size_t n, const char *cmd, long pid);

#endif /* SLDCTL_RUN_ALLOW_H */
