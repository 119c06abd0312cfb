// SPDX-License-Identifier: GPL-2.0
/*
 * sldctl offenders [--json] [--since boot|TIME]
 *
 * The tasks the kernel logged split-lock (and bus-lock) traps for, from
 * its own lines, aggregated per task (name and pid), with what each task
 * is (KVM vCPU thread, VirtualBox EMT, Wine/Proton game, other), what it
 * runs and in which cgroup while it still runs, and the `sldctl exempt
 * add` command that would spare it the kernel's penalty. Log lines that
 * look like trap lines but do not parse are skipped and counted.
 *
 * --since boot (the default) reads /dev/kmsg (journalctl -k -b when the
 * ring has wrapped); any other TIME is given to journalctl --since.
 *
 * Exit: 0 no offender, 1 offenders found, 2 usage error or the log could
 * not be read. Nothing is changed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "lib/json.h"
#include "lib/offenders.h"
#include "sldctl.h"
#include "lib/util.h"

#define SINCE_MAX	64

static void print_counts(const struct off_task *t)
{
	const char *sep = "";
	int k;

	for (k = 0; k < OFF_NKINDS; k++)
		if (t->n[k]) {
			printf("%s%lu %s", sep, t->n[k], off_kind_name(k));
			sep = ", ";
		}
}

/* "label s" with s escaped (a path or name a user chose), "?" if empty. */
static void put_name(const char *label, const char *s)
{
	fputs(label, stdout);
	if (*s)
		sldctl_put_esc(stdout, s, strlen(s));
	else
		putchar('?');
}

/*
 * Every name here is a user's (comm, exe, cgroup, the VMM's name, the
 * rule sld_compat logged) and escaped (sldctl_q(), sldctl_put_esc()); the
 * fix is one shell word in printable ASCII (lib/offenders.c, shell_word()),
 * the note escapes the names it quotes.
 */
static void print_one(const struct offender *f)
{
	const struct off_task *t = f->t;

	printf("%s/%d: ", sldctl_q(t->comm), t->pid);
	print_counts(t);
	printf(" (first %s, last %s)\n", sldctl_q(t->first), sldctl_q(t->last));
	printf("    class: %s", off_class_name(f->cls));
	if (t->why[0])
		printf("; sld_compat rule %s", sldctl_q(t->why));
	if (!f->alive) {
		printf("; no longer running\n");
	} else {
		put_name("; exe ", f->exe);
		put_name("; cgroup ", f->cgroup);
		putchar('\n');
	}
	if (f->vmm_pid > 0) {
		put_name("    vmm: ", f->vmm);
		printf("/%d\n", f->vmm_pid);
	}
	if (*f->fix)
		printf("    fix: %s\n", f->fix);
	if (f->caveat)
		printf("    caveat: %s\n", f->caveat);
	if (f->note)
		printf("    note: %s\n", f->note);
}

static void print_human(const struct offenders *o, const char *since)
{
	size_t i;

	printf("offenders since %s (from %s): %zu task(s), %lu trap line(s), %lu bad line(s) skipped\n",
	       since ? since : "boot", o->source, o->n, o->log.matched, o->log.bad);
	if (o->log.dropped)
		printf("%lu trap line(s) of tasks past the first %d not counted\n",
		       o->log.dropped, OFF_TASKS_MAX);
	for (i = 0; i < o->n; i++)
		print_one(&o->v[i]);
}

static void json_one(struct json *j, const struct offender *f)
{
	int k;

	json_begin_object_flat(j);
	json_field_str(j, "comm", f->t->comm);
	json_field_uint(j, "pid", f->t->pid);
	json_field_str(j, "class", off_class_name(f->cls));
	json_key(j, "counts");
	json_begin_object(j);
	for (k = 0; k < OFF_NKINDS; k++)
		json_field_uint(j, off_kind_name(k), f->t->n[k]);
	json_end_object(j);
	json_field_str(j, "first", f->t->first);
	json_field_str(j, "last", f->t->last);
	json_field_str(j, "sld_compat_rule", f->t->why[0] ? f->t->why : NULL);
	json_field_bool(j, "alive", f->alive);
	json_field_str(j, "exe", *f->exe ? f->exe : NULL);
	json_field_str(j, "cgroup", *f->cgroup ? f->cgroup : NULL);
	json_field_str(j, "vmm", *f->vmm ? f->vmm : NULL);
	json_key(j, "vmm_pid");
	if (f->vmm_pid > 0)
		json_uint(j, f->vmm_pid);
	else
		json_null(j);
	json_field_str(j, "fix", *f->fix ? f->fix : NULL);
	json_field_str(j, "caveat", f->caveat);
	json_field_str(j, "note", f->note);
	json_end_object(j);
}

static void print_json(const struct offenders *o, const char *since)
{
	struct json j;
	size_t i;

	json_init(&j, stdout, true);
	json_begin_object(&j);
	json_field_str(&j, "since", since ? since : "boot");
	json_field_str(&j, "source", o->source);
	json_field_uint(&j, "records", o->log.records);
	json_field_uint(&j, "trap_lines", o->log.matched);
	json_field_uint(&j, "bad_lines", o->log.bad);
	json_field_uint(&j, "dropped_lines", o->log.dropped);
	json_key(&j, "offenders");
	json_begin_array(&j);
	for (i = 0; i < o->n; i++)
		json_one(&j, &o->v[i]);
	json_end_array(&j);
	json_end_object(&j);
	json_end(&j);
}

/* NULL for this boot, else the TIME for journalctl; -1 if unusable. */
static int parse_since(const struct cli *c, const char **since)
{
	const char *s = cli_str(c, "since");
	size_t i;

	*since = NULL;
	if (!s || !strcasecmp(s, "boot"))
		return 0;
	for (i = 0; s[i] && i <= SINCE_MAX; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			break;
	if (s[i] || i > SINCE_MAX)
		return cli_error(c, "bad --since '%s': give 'boot' or a time journalctl --since accepts, e.g. '2026-01-31 12:00' or '2 hours ago' (printable, at most %d characters)",
				 sldctl_q(s), SINCE_MAX), -1;
	*since = s;
	return 0;
}

int cmd_offenders(int argc, char **argv)
{
	static const struct cli_opt opts[] = {
		{ "since", 0, true, false },
		{ NULL, 0, false, false },
	};
	struct cli c = { .cmd = "offenders", .opts = opts,
			 .usage = "[--json] [--since boot|TIME]" };
	struct offenders o;
	const char *since;
	char why[256 + PATH_MAX];
	size_t i;
	int rc;

	rc = cli_parse(&c, argc, argv);
	if (rc != CLI_OK)
		return cli_exit(rc);
	if (parse_since(&c, &since))
		return SLDCTL_EXIT_ERROR;
	if (offenders_read(&o, since, why, sizeof(why))) {
		fprintf(stderr, "sldctl offenders: %s\n", why);
		offenders_free(&o);
		return SLDCTL_EXIT_ERROR;
	}
	rc = SLDCTL_EXIT_OK;
	for (i = 0; i < o.n; i++)
		if (offender_trapped(&o.v[i]))
			rc = SLDCTL_EXIT_FOUND;
	if (c.json)
		print_json(&o, since);
	else
		print_human(&o, since);
	offenders_free(&o);
	return rc;
}
