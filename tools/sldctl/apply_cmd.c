// SPDX-License-Identifier: GPL-2.0
/*
 * sldctl apply [--config FILE] [--dry-run]
 *
 * Write every configured knob to /sys/module/sld_compat/parameters/KEY.
 * The configuration is /etc/sld-compat/sld-compat.conf plus
 * /etc/sld-compat/conf.d/ *.conf (see config.h), or only FILE with
 * --config. Invalid lines, unknown knobs, read-only knobs and values the
 * module refuses (EINVAL) are reported as FILE:LINE: reason on stderr and
 * the rest is still applied. Each applied knob is printed on stdout as
 * "sld_compat.KEY = VALUE (FILE:LINE)".
 *
 * --dry-run writes nothing and needs no root; if the module is not
 * loaded it only checks the files.
 *
 * Exit: 0 all applied, 1 some line invalid or knob rejected/unknown,
 * 2 module not loaded, not root, --config FILE unreadable, usage error.
 *
 * All paths are prefixed with $SLDCTL_ROOT when it is set (tests).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "sldctl.h"
#include "util.h"

#define PARAMS_DIR	"/sys/module/sld_compat/parameters"
#define CONF_DIR	"/etc/sld-compat"

static void apply_usage(FILE *f)
{
	fprintf(f, "usage: sldctl apply [--config FILE] [--dry-run]\n");
}

/* Write one knob; returns SLDCTL_EXIT_OK or SLDCTL_EXIT_FOUND. */
static int apply_one(const struct conf_entry *e, const char *params,
		     bool loaded, bool dry_run)
{
	char path[4096 + CONF_KEY_MAX + 2];
	struct stat st;
	size_t len = strlen(e->value);
	ssize_t k;
	int fd, err;

	snprintf(path, sizeof(path), "%s/%s", params, e->key);
	if (!loaded) {
		printf("would set sld_compat.%s = %s (%s:%u)\n", e->key,
		       e->value, e->file, e->line);
		return SLDCTL_EXIT_OK;
	}
	if (stat(path, &st)) {
		if (errno == ENOENT)
			fprintf(stderr, "%s:%u: sld_compat has no knob '%s' (no %s)\n",
				e->file, e->line, e->key, path);
		else
			fprintf(stderr, "%s:%u: sld_compat.%s: %s: %s\n", e->file,
				e->line, e->key, path, strerror(errno));
		return SLDCTL_EXIT_FOUND;
	}
	if (!S_ISREG(st.st_mode) || !(st.st_mode & 0222)) {
		fprintf(stderr, "%s:%u: sld_compat.%s is read-only (%s)\n",
			e->file, e->line, e->key, path);
		return SLDCTL_EXIT_FOUND;
	}
	if (dry_run) {
		printf("would set sld_compat.%s = %s (%s:%u)\n", e->key,
		       e->value, e->file, e->line);
		return SLDCTL_EXIT_OK;
	}
	/* O_TRUNC means nothing to sysfs; it keeps a fake tree's files exact. */
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		goto fail;
	}
	k = write(fd, e->value, len);
	err = k < 0 ? errno : 0;
	if (close(fd) && !err)
		err = errno;
	if (!err && (size_t)k != len)
		err = EIO;
	if (!err) {
		printf("sld_compat.%s = %s (%s:%u)\n", e->key, e->value,
		       e->file, e->line);
		return SLDCTL_EXIT_OK;
	}
fail:
	if (err == EINVAL)
		fprintf(stderr, "%s:%u: sld_compat.%s: the module rejected '%s' (EINVAL; see dmesg)\n",
			e->file, e->line, e->key, e->value);
	else if (err == EACCES || err == EPERM)
		fprintf(stderr, "%s:%u: sld_compat.%s: cannot write %s: %s\n",
			e->file, e->line, e->key, path, strerror(err));
	else
		fprintf(stderr, "%s:%u: sld_compat.%s: writing '%s' to %s: %s\n",
			e->file, e->line, e->key, e->value, path, strerror(err));
	return SLDCTL_EXIT_FOUND;
}

int cmd_apply(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *config = NULL;
	char params[4096], dir[4096];
	bool dry_run = false, loaded;
	int c, r, rc = SLDCTL_EXIT_OK;
	struct stat st;
	struct conf cf;
	size_t i;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "c:nh", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			config = optarg;
			break;
		case 'n':
			dry_run = true;
			break;
		case 'h':
			apply_usage(stdout);
			return SLDCTL_EXIT_OK;
		default:
			if (optopt == 'c')
				fprintf(stderr, "sldctl apply: --config needs a FILE\n");
			else
				fprintf(stderr, "sldctl apply: unknown option '%s'\n",
					argv[optind - 1]);
			apply_usage(stderr);
			return SLDCTL_EXIT_ERROR;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "sldctl apply: unexpected argument '%s'\n", argv[optind]);
		apply_usage(stderr);
		return SLDCTL_EXIT_ERROR;
	}
	if (sldctl_path(params, sizeof(params), "%s", PARAMS_DIR) ||
	    sldctl_path(dir, sizeof(dir), "%s", CONF_DIR)) {
		fprintf(stderr, "sldctl apply: SLDCTL_ROOT is too long\n");
		return SLDCTL_EXIT_ERROR;
	}
	loaded = !stat(params, &st) && S_ISDIR(st.st_mode);
	if (!loaded && !dry_run) {
		fprintf(stderr, "sldctl apply: sld_compat is not loaded (no %s); load it with 'modprobe sld_compat'\n",
			params);
		return SLDCTL_EXIT_ERROR;
	}
	if (!dry_run && !sldctl_fake_root() && geteuid() != 0) {
		fprintf(stderr, "sldctl apply: must be run as root (the knobs in %s are root-only)\n",
			params);
		return SLDCTL_EXIT_ERROR;
	}
	if (!loaded)
		fprintf(stderr, "sldctl apply: sld_compat is not loaded; knob names not checked\n");

	conf_init(&cf);
	if (config) {
		r = conf_load_file(&cf, config, 0);
		if (r && r != -ENOMEM) {
			conf_print_error(stderr, &cf.err[cf.nerr - 1]);
			conf_free(&cf);
			return SLDCTL_EXIT_ERROR;
		}
	} else {
		r = conf_load_dir(&cf, dir);
	}
	if (r == -ENOMEM) {
		fprintf(stderr, "sldctl apply: out of memory\n");
		conf_free(&cf);
		return SLDCTL_EXIT_ERROR;
	}
	for (i = 0; i < cf.nerr; i++)
		conf_print_error(stderr, &cf.err[i]);
	if (cf.nerr)
		rc = SLDCTL_EXIT_FOUND;
	for (i = 0; i < cf.nent; i++) {
		r = apply_one(&cf.ent[i], params, loaded, dry_run);
		if (r > rc)
			rc = r;
	}
	conf_free(&cf);
	return rc;
}
