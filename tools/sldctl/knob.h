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

#define KNOB_WHY_MAX	160
#define KNOB_LIST_MAX	64	/* entries a list knob holds at most */
#define PARAMS_DIR	"/sys/module/sld_compat/parameters"
#define STATUS_DIR	"/sys/kernel/sld_compat"
#define CGROUP_DIR	"/sys/fs/cgroup"

enum knob_kind { KNOB_SCALAR, KNOB_LIST };

struct knob_def {
	const char *name;
	enum knob_kind kind;
	const char *what;	/* "module name", "absolute path", ... */
	/* 0, or -1 with a reason in why; may rewrite v (normalised) */
	int (*check)(char *v, char *why, size_t n);
	bool must_exist;	/* list entries: the file/dir must exist */
};

const struct knob_def *knob_find(const char *name);

/* Checks of one value; 0 or -1 with a reason in why. */
int knob_check_module(char *v, char *why, size_t n);
int knob_check_comm(char *v, char *why, size_t n);
int knob_check_path(char *v, char *why, size_t n);
int knob_check_cgroup(char *v, char *why, size_t n);
int knob_check_bool(char *v, char *why, size_t n);	/* -> "Y"/"N" */
int knob_check_verbose(char *v, char *why, size_t n);
int knob_check_policy(char *v, char *why, size_t n);
int knob_check_trust(char *v, char *why, size_t n);
/* The path/cgroup exists (regular file / directory) under the root. */
int knob_check_exists(const struct knob_def *d, const char *v, char *why,
		      size_t n);

struct name_list {
	char *v[KNOB_LIST_MAX + 1];
	int n;
};

/* "a,b" / "-" / "" -> entries (copied); -1 with why if malformed. */
int list_parse(const char *text, struct name_list *l, char *why, size_t n);
void list_free(struct name_list *l);
/* Index of name (module names compare with '-' == '_'), or -1. */
int list_find(const struct name_list *l, const char *name);
/* "a,b" or "-" for an empty list; malloc'd. */
char *list_join(const struct name_list *l);

/*
 * Plan adding (add=true) or removing names: names already listed are
 * skipped on add (*skipped counts them), a name not listed is an error on
 * remove, a name given twice is an error. On success *edit is the
 * module's edit string ("+a,+b", "-c") or NULL when nothing changes, and
 * after is the resulting list. -1 with why on error; nothing allocated.
 */
int list_plan(const struct name_list *cur, bool add, char **names, int nnames,
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
