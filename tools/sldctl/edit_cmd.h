/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What registry, exempt and policy share: the ACTION dispatch, where the
 * configuration file is, reading a knob's value in force (from the module
 * when it is loaded, else from the configuration), and applying one
 * change to the module and, with --persist, to the configuration file.
 */
#ifndef SLDCTL_EDIT_CMD_H
#define SLDCTL_EDIT_CMD_H

#include <limits.h>
#include <stdbool.h>

#include "cli.h"
#include "lib/json.h"
#include "lib/knob.h"

#define CONF_MAIN	"/etc/sld-compat/sld-compat.conf"
#define CONF_DIR	"/etc/sld-compat"

/* The options every changing action takes. */
#define ADMIN_WRITE_OPTS					\
	{ "persist", 'p', false, false },			\
	{ "config", 'c', true, false }

struct admin {
	const struct cli *cli;
	bool persist;
	bool loaded;
	char config[PATH_MAX];	/* the file --persist edits */
	bool config_given;	/* --config or $SLDCTL_CONFIG */
	struct json j;
	int nchanges;
};

struct admin_action {
	const char *name;
	int (*fn)(int argc, char **argv);
};

/* Run argv[1] from actions; usage errors name the valid actions. */
int admin_dispatch(const char *cmd, const struct admin_action *actions,
		   int argc, char **argv);

/* After cli_parse: config path, loaded, root check when writing. 0 or exit code. */
int admin_begin(struct admin *a, const struct cli *c, bool writes);
/* Close the JSON document (if any). Returns rc. */
int admin_end(struct admin *a, int rc);

/* Value in force: module knob, or configuration. NULL value: not set / no knob. */
int admin_current(const struct admin *a, const char *knob, char **value,
		  const char **source);

/*
 * Apply: write value (the module's syntax; edit strings allowed) to the
 * module when loaded, then with --persist store full (the whole new
 * value) in the configuration. Prints the result. Returns an exit code.
 */
int admin_apply(struct admin *a, const char *knob, const char *value,
		const char *full, int skipped);

/* One planned list change: what to write, the whole new list. */
struct list_change {
	const struct sld_knob_schema *d;
	char *write;		/* NULL: the module already has it */
	char *full;
	int skipped;
};

/*
 * Plan a list knob edit (names checked already): every change of a
 * command is planned before any is applied, so bad input changes nothing.
 * Returns an exit code; on error nothing is allocated.
 */
int admin_list_plan(struct admin *a, const struct sld_knob_schema *d, bool add,
		    char **names, int nnames, struct list_change *ch);
/* Apply planned changes in order and free them; returns an exit code. */
int admin_changes_apply(struct admin *a, struct list_change *ch, int n);
void admin_changes_free(struct list_change *ch, int n);

/* Check every name with d's check (and existence on add); prints errors. */
int admin_check_names(const struct admin *a, const struct sld_knob_schema *d,
		      char **names, int nnames, bool add);

/* A "list" action: [--json] and no operands; show() prints either way. */
int admin_show(int argc, char **argv, const char *cmd,
	       void (*show)(struct admin *a));

/* "a,b" -> ["a","b"] for JSON, "-"/NULL -> [] / null. */
void admin_json_list(struct json *j, const char *value);
/* Lines of a file as a JSON array (null if unreadable/absent). */
void admin_json_lines(struct json *j, const char *path_fmt);

#endif /* SLDCTL_EDIT_CMD_H */
