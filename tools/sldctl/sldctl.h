/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SLDCTL_H
#define SLDCTL_H

/* Exit codes shared by all subcommands; a run exits with the worst. */
enum {
	SLDCTL_EXIT_OK = 0,	/* all clean / safe / svm-only */
	SLDCTL_EXIT_FOUND = 1,	/* a hypervisor (or, per command, a problem) */
	SLDCTL_EXIT_ERROR = 2,	/* usage error, unreadable or bad input */
};

/* A subcommand gets argv[0] == its own name, and getopt reset. */
typedef int (*sldctl_cmd_fn)(int argc, char **argv);

#define SLDCTL_CMD(name, fn, args, help) int fn(int argc, char **argv);
#include "commands.def"
#undef SLDCTL_CMD

#endif /* SLDCTL_H */
