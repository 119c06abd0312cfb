/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The option parser every subcommand shares. Each command describes its
 * options in a table; --json and --help exist everywhere. An option given
 * twice, an empty option value, an unknown option and a wrong number of
 * operands are usage errors: one line on stderr naming what was wrong,
 * then the command's usage line.
 */
#ifndef SLDCTL_CLI_H
#define SLDCTL_CLI_H

#include <stdbool.h>
#include <stdio.h>

#define CLI_MAX_OPTS	12
#define CLI_MAX_VALUES	64	/* per repeatable option */

struct cli_opt {
	const char *name;	/* long name without "--" */
	char short_name;	/* 0: none */
	bool has_arg;
	bool repeat;		/* may be given several times (values[]) */
};

struct cli_val {
	bool set;
	const char *arg;	/* last value */
	const char *values[CLI_MAX_VALUES];
	int n;
};

struct cli {
	const char *cmd;	/* "status", "exempt add": for messages */
	const char *usage;	/* operands and options after the command */
	const struct cli_opt *opts;	/* NULL-terminated by name, may be NULL */
	int min_args, max_args;	/* operands; max -1: any number */
	const char *missing;	/* message for too few operands, or NULL */
	bool in_order;		/* options end at the first operand (run CMD) */
	/* results */
	bool json;
	struct cli_val val[CLI_MAX_OPTS];
	char **args;
	int nargs;
};

enum { CLI_OK = 0, CLI_HELP = 1, CLI_ERR = -1 };

/* Parse argv (argv[0] is the command's name). CLI_HELP: usage printed. */
int cli_parse(struct cli *c, int argc, char **argv);

/* The result for opts[i] by long name; NULL if no such option. */
const struct cli_val *cli_get(const struct cli *c, const char *name);
bool cli_flag(const struct cli *c, const char *name);
const char *cli_str(const struct cli *c, const char *name);

void cli_usage(const struct cli *c, FILE *f);
/* "sldctl CMD: msg" on stderr, then the usage line; returns CLI_ERR. */
int cli_error(const struct cli *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * The exit status after a cli_parse() result other than CLI_OK: 0 after
 * --help (usage printed), 2 after a usage error. A subcommand does
 *	rc = cli_parse(&c, argc, argv);
 *	if (rc != CLI_OK)
 *		return cli_exit(rc);
 */
int cli_exit(int parse_result);

#endif /* SLDCTL_CLI_H */
