/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The knobs of sld_compat as the admin commands see them: which knobs
 * exist, how a value or list entry is checked before anything is
 * written, list editing in the module's syntax ("a,b" replaces, "+a,-b"
 * edits, "-" clears), and reading/writing
 * /sys/module/sld_compat/parameters/KNOB.
 *
 * The checks and the list logic are pure functions (unit-tested); only
 * knob_read()/knob_write() and the existence checks of paths touch the
 * system (under $SLDCTL_ROOT).
 */
#ifndef SLDCTL_KNOB_H
#define SLDCTL_KNOB_H

#include <stdbool.h>
#include <stddef.h>

#include "schema/knobs_table.h"

#define KNOB_WHY_MAX	160
#define KNOB_LIST_MAX	SLD_LIST_MAX_ANY	/* room of a name_list */
#define PARAMS_DIR	"/sys/module/sld_compat/parameters"
#define STATUS_DIR	"/sys/kernel/sld_compat"
#define CGROUP_DIR	"/sys/fs/cgroup"

/*
 * A knob is its entry in the schema shared with the module
 * (src/schema/knobs_table.h): name, type, bounds, help.
 */
const struct sld_knob_schema *knob_find(const char *name);
bool knob_is_list(const struct sld_knob_schema *d);
/* A list entry as a person names it: "module name", "absolute path", ... */
const char *knob_entry_what(const struct sld_knob_schema *d);

/*
 * The validator: a scalar's value, or one entry of a list, exactly
 * within the schema's bounds. 0, or -1 with a reason in why; may
 * rewrite v (normalised: bool -> "Y"/"N").
 */
int knob_check_value(const struct sld_knob_schema *d, char *v, char *why,
		     size_t n);

/* Checks of one value; 0 or -1 with a reason in why. */
int knob_check_module(char *v, char *why, size_t n);
int knob_check_comm(char *v, char *why, size_t n);
int knob_check_path(char *v, char *why, size_t n);
int knob_check_cgroup(char *v, char *why, size_t n);
int knob_check_id(char *v, char *why, size_t n);
int knob_check_bool(char *v, char *why, size_t n);	/* -> "Y"/"N" */
int knob_check_verbose(char *v, char *why, size_t n);
int knob_check_policy(char *v, char *why, size_t n);
int knob_check_trust(char *v, char *why, size_t n);
/* exempt_path: the file exists under the root (other knobs: 0). */
int knob_check_exists(const struct sld_knob_schema *d, const char *v,
		      char *why, size_t n);
/* An exempt_cgroup entry whose cgroup does not exist (yet). */
bool knob_cgroup_pending(const char *v);

struct name_list {
	char *v[KNOB_LIST_MAX + 1];
	int n;
};

/* "a,b" / "-" / "" -> entries (copied); -1 with why if malformed. */
int list_parse(const char *text, struct name_list *l, char *why, size_t n);
void list_free(struct name_list *l);
/* Index of module name in l ('-' equals '_'), or -1. */
int list_find(const struct name_list *l, const char *name);
/* "a,b" or "-" for an empty list; malloc'd. */
char *list_join(const struct name_list *l);

/*
 * Plan adding (add=true) or removing names of list knob d: names already
 * listed are skipped on add (*skipped counts them), a name given twice is
 * an error; the edit then goes through the module's list grammar
 * (schema/names.h) on cur, which refuses what the module would (a name
 * not listed on remove, more than the knob's max_entries). On success
 * *edit is the module's edit string ("+a,+b", "-c") or NULL when nothing
 * changes, and after is the resulting list. -1 with why on error; nothing
 * allocated.
 */
int list_plan(const struct sld_knob_schema *d, const struct name_list *cur,
	      bool add, char **names, int nnames,
	      struct name_list *after, char **edit, int *skipped,
	      char *why, size_t n);

/* Is sld_compat loaded (its parameters directory exists)? */
bool knob_module_loaded(void);
/* 0, -ENOENT (no such knob / not loaded) or -errno; value malloc'd. */
int knob_read(const char *name, char **value);
/*
 * Write value to the knob in one write(2). 0, or -errno with a message
 * (without the "sldctl CMD: " prefix) in why.
 */
int knob_write(const char *name, const char *value, char *why, size_t n);

#endif /* SLDCTL_KNOB_H */
