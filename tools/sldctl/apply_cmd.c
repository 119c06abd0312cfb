// SPDX-License-Identifier: GPL-2.0
/*
 * sldctl apply [--config FILE] [--dry-run]
 *
 * Write every configured knob to /sys/module/sld_compat/parameters/KEY.
 * The configuration is /etc/sld-compat/sld-compat.conf plus
 * /etc/sld-compat/conf.d/ *.conf (see lib/config.h), or only FILE with
 * --config. Invalid lines, unknown knobs, read-only knobs and values the
 * module refuses (EINVAL) are reported as FILE:LINE: reason on stderr and
 * the rest is still applied. Each applied knob is printed on stdout as
 * "sld_compat.KEY = VALUE (FILE:LINE)".
 *
 * --dry-run writes nothing and needs no root; if the module is not
 * loaded it only checks the files.
 *
 * --module NAME (used by the udev rule for a module that loads) applies
 * only if NAME is sld_compat or a module list of the configuration names
 * it (e.g. hypervisor_modules = vmmon), and does nothing if sld_compat is
 * not loaded. Applying the system configuration (no --config, no
 * --dry-run) also records the modules it names for the udev rule
 * (lib/named_modules.h). --json prints {"knobs": [{knob, value, file,
 * line, result: set|would-set|failed}], "errors": [...], "exit": N}.
 *
 * Exit: 0 all applied, 1 some line invalid or knob rejected/unknown,
 * 2 module not loaded, not root, --config FILE unreadable, usage error.
 *
 * All paths are prefixed with $SLDCTL_ROOT when it is set (tests).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "lib/config.h"
#include "lib/json.h"
#include "lib/knob.h"
#include "lib/named_modules.h"
#include "lib/run_allow.h"
#include "sldctl.h"
#include "lib/util.h"

#define CONF_DIR	"/etc/sld-compat"

static int apply_write(const struct conf_entry *e, const char *params,
		       bool loaded, bool dry_run);
static int apply_value(const struct conf_entry *e, const char *path,
		       bool dry_run);

/* One result line, or one object of the JSON "knobs" array. */
static void said(struct json *j, const struct conf_entry *e, const char *result)
{
	if (!j) {
		if (strcmp(result, "failed"))
			printf("%ssld_compat.%s = %s (%s:%u)\n",
			       strcmp(result, "set") ? "would set " : "",
			       e->key, e->value, e->file, e->line);
		return;
	}
	json_begin_object_flat(j);
	json_field_str(j, "knob", e->key);
	json_field_str(j, "value", e->value);
	json_field_str(j, "file", e->file);
	json_field_uint(j, "line", e->line);
	json_field_str(j, "result", result);
	json_end_object(j);
}

/* Write one knob; returns SLDCTL_EXIT_OK or SLDCTL_EXIT_FOUND. */
static int apply_one(const struct conf_entry *e, const char *params,
		     bool loaded, bool dry_run, struct json *j)
{
	int rc = apply_write(e, params, loaded, dry_run);

	said(j, e, rc ? "failed" : !loaded || dry_run ? "would-set" : "set");
	return rc;
}

static int apply_write(const struct conf_entry *e, const char *params,
		       bool loaded, bool dry_run)
{
	char path[4096 + CONF_KEY_MAX + 2];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", params, e->key);
	if (!loaded)
		return SLDCTL_EXIT_OK;
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
	return apply_value(e, path, dry_run);
}

/*
 * The value the module takes: run_allow's user and group names become
 * the ids the module compares (a name the system does not know is the
 * line's error); every other knob's as written.
 */
static int apply_value(const struct conf_entry *e, const char *path,
		       bool dry_run)
{
	char why[256], *ids = NULL;
	const char *value = e->value;
	int err;

	if (!strcmp(e->key, "run_allow")) {
		if (run_allow_resolve(e->value, &ids, why, sizeof(why))) {
			fprintf(stderr, "%s:%u: sld_compat.run_allow: %s\n",
				e->file, e->line, why);
			return SLDCTL_EXIT_FOUND;
		}
		value = ids;
	}
	err = dry_run ? 0 : -sldctl_write_value(path, value);
	free(ids);
	if (!err)
		return SLDCTL_EXIT_OK;
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

/* The configuration: FILE only (must exist), or DIR and conf.d. */
static int load(struct conf *cf, const char *config, const char *dir)
{
	int r;

	conf_init(cf);
	if (config) {
		r = conf_load_file(cf, config, 0);
		if (r && r != -ENOMEM) {
			fprintf(stderr, "sldctl apply: ");
			conf_print_error(stderr, &cf->err[cf->nerr - 1]);
			return SLDCTL_EXIT_ERROR;
		}
	} else {
		r = conf_load_dir(cf, dir);
	}
	if (r == -ENOMEM) {
		fprintf(stderr, "sldctl apply: out of memory\n");
		return SLDCTL_EXIT_ERROR;
	}
	return SLDCTL_EXIT_OK;
}

/*
 * --module NAME (the udev rule, for a module that loads): apply only when
 * NAME is sld_compat or a module list of the configuration names it.
 */
static bool concerns(const struct conf *cf, const char *module)
{
	return !strcmp(module, "sld_compat") || named_modules_has(cf, module);
}

/*
 * Before applying the system configuration: the files the udev rule tests
 * before it spawns `apply --module` (lib/named_modules.h). A failure (a
 * read-only /run) is a warning, not a failed apply: the knobs are still
 * applied; only later loads of named modules miss the re-apply.
 */
static void update_named(const struct conf *cf)
{
	char why[4096 + 64];

	if (!named_modules_sync(cf, why, sizeof(why)))
		return;
	fprintf(stderr, "sldctl apply: warning: cannot record the modules the configuration names (their later loads will not re-apply it): %s\n",
		why);
}

static int apply_all(struct conf *cf, const char *params, bool loaded,
		     bool dry_run, struct json *j)
{
	int r, rc = cf->nerr ? SLDCTL_EXIT_FOUND : SLDCTL_EXIT_OK;
	size_t i;

	for (i = 0; i < cf->nerr; i++)
		conf_print_error(stderr, &cf->err[i]);
	if (j) {
		json_key(j, "knobs");
		json_begin_array(j);
	}
	for (i = 0; i < cf->nent; i++) {
		r = apply_one(&cf->ent[i], params, loaded, dry_run, j);
		if (r > rc)
			rc = r;
	}
	if (j) {
		json_end_array(j);
		json_key(j, "errors");
		json_begin_array(j);
		for (i = 0; i < cf->nerr; i++)
			json_string(j, cf->err[i].msg);
		json_end_array(j);
		json_field_uint(j, "exit", rc);
	}
	return rc;
}

static int check_state(const char *params, bool loaded, bool dry_run)
{
	if (!loaded && !dry_run) {
		fprintf(stderr, "sldctl apply: sld_compat is not loaded (no %s); load it with 'modprobe sld_compat'\n",
			params);
		return SLDCTL_EXIT_ERROR;
	}
	if (!dry_run && !sldctl_is_root()) {
		fprintf(stderr, "sldctl apply: must be run as root (the knobs in %s are root-only)\n",
			params);
		return SLDCTL_EXIT_ERROR;
	}
	if (!loaded)
		fprintf(stderr, "sldctl apply: sld_compat is not loaded; knob names not checked\n");
	return SLDCTL_EXIT_OK;
}

int cmd_apply(int argc, char **argv)
{
	static const struct cli_opt opts[] = {
		{ "config", 'c', true, false },
		{ "dry-run", 'n', false, false },
		{ "module", 'm', true, false },
		{ NULL, 0, false, false },
	};
	struct cli cl = { .cmd = "apply", .opts = opts,
			  .usage = "[--config FILE] [--dry-run] [--module NAME] [--json]" };
	const char *module;
	char params[4096], dir[4096], why[KNOB_WHY_MAX], buf[64];
	bool dry_run, loaded;
	struct json j;
	struct stat st;
	struct conf cf;
	int rc;

	rc = cli_parse(&cl, argc, argv);
	if (rc != CLI_OK)
		return cli_exit(rc);
	dry_run = cli_flag(&cl, "dry-run");
	module = cli_str(&cl, "module");
	if (module && (strlen(module) >= sizeof(buf) ||
		       knob_check_module(strcpy(buf, module), why, sizeof(why)))) {
		fprintf(stderr, "sldctl apply: bad module name '%s'%s%s\n", sldctl_q(module),
			strlen(module) >= sizeof(buf) ? "" : ": ",
			strlen(module) >= sizeof(buf) ? "" : why);
		return SLDCTL_EXIT_ERROR;
	}
	if (sldctl_path(params, sizeof(params), "%s", PARAMS_DIR) ||
	    sldctl_path(dir, sizeof(dir), "%s", CONF_DIR)) {
		fprintf(stderr, "sldctl apply: SLDCTL_ROOT is too long\n");
		return SLDCTL_EXIT_ERROR;
	}
	loaded = !stat(params, &st) && S_ISDIR(st.st_mode);
	if (module && !loaded)
		return SLDCTL_EXIT_OK;	/* nothing to apply to */
	rc = check_state(params, loaded, dry_run);
	if (rc)
		return rc;
	rc = load(&cf, cli_str(&cl, "config"), dir);
	if (rc) {
		conf_free(&cf);
		return rc;
	}
	if (module && !concerns(&cf, module)) {
		conf_free(&cf);
		return SLDCTL_EXIT_OK;
	}
	if (cl.json) {
		json_init(&j, stdout, true);
		json_begin_object(&j);
	}
	if (!dry_run && !module && !cli_str(&cl, "config"))
		update_named(&cf);
	rc = apply_all(&cf, params, loaded, dry_run, cl.json ? &j : NULL);
	if (cl.json) {
		json_end_object(&j);
		json_end(&j);
	}
	conf_free(&cf);
	return rc;
}
