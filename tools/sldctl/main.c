// SPDX-License-Identifier: GPL-2.0
/*
 * sldctl: userspace companion of sld_compat. main() only dispatches; each
 * subcommand lives in its own file and is listed in commands.def.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "sldctl.h"

/* From src/VERSION, the module's too (tools/sldctl/Makefile passes it). */
#ifndef SLD_COMPAT_VERSION
#error "SLD_COMPAT_VERSION is not set: build with tools/sldctl/Makefile"
#endif

struct sldctl_cmd {
	const char *name;
	sldctl_cmd_fn fn;
	const char *args;
	const char *help;
};

static const struct sldctl_cmd cmds[] = {
#define SLDCTL_CMD(name, fn, args, help) { #name, fn, args, help },
#include "commands.def"
#undef SLDCTL_CMD
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: sldctl [--help|--version] COMMAND [ARGS]\n\ncommands:\n");
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-8s %s\n      %s\n", cmds[i].name, cmds[i].args,
			cmds[i].help);
}

static const struct sldctl_cmd *find_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(cmds[i].name, name))
			return &cmds[i];
	return NULL;
}

/* Report a failed stdout (EPIPE aside, e.g. a full disk) as an error. */
static int finish(int rc)
{
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "sldctl: error writing output\n");
		return SLDCTL_EXIT_ERROR;
	}
	return rc;
}

int main(int argc, char **argv)
{
	const struct sldctl_cmd *c;

	if (argc < 2) {
		usage(stderr);
		return SLDCTL_EXIT_ERROR;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return finish(SLDCTL_EXIT_OK);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("sldctl %s\n", SLD_COMPAT_VERSION);
		return finish(SLDCTL_EXIT_OK);
	}
	c = find_cmd(argv[1]);
	if (!c) {
		fprintf(stderr, "sldctl: unknown command '%s'\n", argv[1]);
		usage(stderr);
		return SLDCTL_EXIT_ERROR;
	}
	optind = 1;
	return finish(c->fn(argc - 1, argv + 1));
}
