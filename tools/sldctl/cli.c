// SPDX-License-Identifier: GPL-2.0
/*
 * Shared option parsing for the subcommands (see cli.h): getopt_long over
 * a table built from the command's options plus --json and --help.
 */
#include <getopt.h>
#include <stdarg.h>
#include <string.h>

#include "cli.h"
#include "sldctl.h"
#include "lib/util.h"

#define ID_JSON	1000
#define ID_HELP	1001
#define ID_BASE	2000

void cli_usage(const struct cli *c, FILE *f)
{
	fprintf(f, "usage: sldctl %s %s\n", c->cmd, c->usage);
}

int cli_error(const struct cli *c, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "sldctl %s: ", c->cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	cli_usage(c, stderr);
	return CLI_ERR;
}

int cli_exit(int parse_result)
{
	return parse_result == CLI_HELP ? SLDCTL_EXIT_OK : SLDCTL_EXIT_ERROR;
}

static int nopts(const struct cli *c)
{
	int n = 0;

	while (c->opts && c->opts[n].name && n < CLI_MAX_OPTS)
		n++;
	return n;
}

/* getopt tables: long options and "h" plus the short names. */
static void build(const struct cli *c, struct option *lo, char *so)
{
	int i, n = nopts(c), k = 0;

	if (c->in_order)
		so[k++] = '+';	/* stop at the first operand, no permuting */
	so[k++] = ':';		/* report a missing argument as ':' */
	so[k++] = 'h';
	for (i = 0; i < n; i++) {
		const struct cli_opt *o = &c->opts[i];

		lo[i] = (struct option){ o->name, o->has_arg ? required_argument :
					 no_argument, NULL, ID_BASE + i };
		if (o->short_name) {
			so[k++] = o->short_name;
			if (o->has_arg)
				so[k++] = ':';
		}
	}
	lo[n++] = (struct option){ "json", no_argument, NULL, ID_JSON };
	lo[n++] = (struct option){ "help", no_argument, NULL, ID_HELP };
	lo[n] = (struct option){ NULL, 0, NULL, 0 };
	so[k] = '\0';
}

static int short_to_id(const struct cli *c, int ch)
{
	int i, n = nopts(c);

	for (i = 0; i < n; i++)
		if (c->opts[i].short_name == ch)
			return ID_BASE + i;
	return -1;
}

static int take(struct cli *c, int i, const char *arg)
{
	const struct cli_opt *o = &c->opts[i];
	struct cli_val *v = &c->val[i];

	if (v->set && !o->repeat)
		return cli_error(c, "--%s given twice", o->name);
	if (o->has_arg && !*arg)
		return cli_error(c, "--%s needs a non-empty value", o->name);
	if (v->n >= CLI_MAX_VALUES)
		return cli_error(c, "--%s given more than %d times", o->name,
				 CLI_MAX_VALUES);
	v->set = true;
	v->arg = arg;
	if (arg)
		v->values[v->n++] = arg;
	return CLI_OK;
}

static int bad_option(struct cli *c, char **argv, int ch)
{
	const char *arg = argv[optind - 1];

	if (ch == ':')
		return cli_error(c, "option '%s' needs a value", sldctl_q(arg));
	if (!strncmp(arg, "--", 2) && strchr(arg, '=') && optopt >= 256)
		return cli_error(c, "option '%.*s' takes no value", (int)(strchr(arg, '=') - arg),
				 sldctl_q(arg));
	if (optopt && optopt < 256 && strncmp(arg, "--", 2))
		return cli_error(c, "unknown option '-%c'", optopt);
	return cli_error(c, "unknown option '%s'", sldctl_q(arg));
}

int cli_parse(struct cli *c, int argc, char **argv)
{
	struct option lo[CLI_MAX_OPTS + 3];
	char so[2 * CLI_MAX_OPTS + 5];
	int ch, id;

	c->json = false;
	memset(c->val, 0, sizeof(c->val));
	build(c, lo, so);
	optind = 0;		/* full re-initialisation (glibc) */
	opterr = 0;
	while ((ch = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		id = ch == 'h' ? ID_HELP : ch;
		if (id != ID_JSON && id != ID_HELP && id < ID_BASE)
			id = short_to_id(c, ch);
		if (ch == '?' || ch == ':' || id < 0)
			return bad_option(c, argv, ch);
		if (id == ID_HELP) {
			cli_usage(c, stdout);
			return CLI_HELP;
		}
		if (id == ID_JSON) {
			if (c->json)
				return cli_error(c, "--json given twice");
			c->json = true;
			continue;
		}
		if (take(c, id - ID_BASE, optarg) != CLI_OK)
			return CLI_ERR;
	}
	c->args = argv + optind;
	c->nargs = argc - optind;
	if (c->nargs < c->min_args)
		return cli_error(c, "%s", c->missing ? c->missing :
				 "missing operand");
	if (c->max_args >= 0 && c->nargs > c->max_args)
		return cli_error(c, "unexpected argument '%s'",
				 sldctl_q(c->args[c->max_args]));
	return CLI_OK;
}

const struct cli_val *cli_get(const struct cli *c, const char *name)
{
	int i, n = nopts(c);

	for (i = 0; i < n; i++)
		if (!strcmp(c->opts[i].name, name))
			return &c->val[i];
	return NULL;
}

bool cli_flag(const struct cli *c, const char *name)
{
	const struct cli_val *v = cli_get(c, name);

	return v && v->set;
}

const char *cli_str(const struct cli *c, const char *name)
{
	const struct cli_val *v = cli_get(c, name);

	return v && v->set ? v->arg : NULL;
}
