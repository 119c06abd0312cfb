// SPDX-License-Identifier: GPL-2.0
/*
 * sldctl doctor [--json] [--kernel KVER]
 *
 * Explains in plain sentences what this host needs and what to do. It
 * looks at the CPU (split_lock_detect, bus_lock_detect), the kernel's
 * split-lock mode, kernel.split_lock_mitigate, the modules installed for
 * KVER (default: the running kernel) scanned offline with the same code
 * as `sldctl scan`, which hypervisor modules are loaded, whether
 * sld_compat is installed, loaded, enabled and with which policy, and
 * whether the configuration is valid and applied.
 *
 * Every finding has a stable identifier (see sldctl(8)); human output is
 * "[SEVERITY] ID: sentence" plus "    fix: COMMAND"; --json prints
 * {"findings": [{id, severity, message, fix}], "result":
 * "healthy"|"action-needed"|"error", "exit": N}.
 *
 * Exit: 0 healthy (nothing to do), 1 action needed, 2 error (something
 * could not be checked, or a usage error).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "edit_cmd.h"
#include "lib/config.h"
#include "doctor.h"
#include "host.h"
#include "lib/offenders.h"
#include "lib/run_allow.h"
#include "sldctl.h"
#include "lib/util.h"

struct facts {
	struct host h;
	struct inventory inv;
	const char *kver;
	char *enabled, *policy, *degraded, *mechanism;
	bool needed;		/* SLD on in the kernel and a hypervisor here */
	char hv[256];		/* titles of the unprepared hypervisors */
};

static bool sys_module_loaded(const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	return !sldctl_path(path, sizeof(path), "/sys/module/%s", name) &&
	       !stat(path, &st);
}

static void read_knobs(struct facts *x)
{
	char path[PATH_MAX];

	if (!x->h.loaded)
		return;
	knob_read("enabled", &x->enabled);
	knob_read("on_hypervisor", &x->policy);
	if (!sldctl_path(path, sizeof(path), STATUS_DIR "/degraded"))
		sldctl_read_value(path, &x->degraded);
	if (!sldctl_path(path, sizeof(path), STATUS_DIR "/mechanism"))
		sldctl_read_value(path, &x->mechanism);
}

static void cpu_findings(const struct facts *x, struct findings *f)
{
	const struct host *h = &x->h;

	if (h->cpuinfo_err)
		doc_add(f, "cpu-unknown", DOC_ERROR, NULL,
			"/proc/cpuinfo could not be read (%s), so the CPU's split-lock support is unknown.",
			strerror(-h->cpuinfo_err));
	else if (h->cpu_sld == 1)
		doc_add(f, "cpu-split-lock-detect", DOC_INFO, NULL,
			"The CPU has split-lock detection: an atomic operation across a cache line raises #AC.");
	else if (h->cpu_bld == 1)
		doc_add(f, "cpu-bus-lock-detect-only", DOC_INFO, NULL,
			"The CPU has bus-lock detection but no split-lock detection: no #AC; where the kernel sets DEBUGCTL's bus-lock bit (AMD, Linux 6.13 on) a bus lock raises #DB instead.");
	else
		doc_add(f, "cpu-no-split-lock-detect", DOC_INFO, NULL,
			"The CPU has no split-lock detection: split locks never raise #AC here.");
}

static void kernel_findings(const struct facts *x, struct findings *f)
{
	const struct host *h = &x->h;

	if (!strcmp(h->mode, "off"))
		doc_add(f, "kernel-sld-off", DOC_INFO, NULL,
			"The kernel's split-lock detection is off (learned from %s): no #AC reaches tasks or guests.",
			h->mode_source);
	else if (!strcmp(h->mode, "warn"))
		doc_add(f, "kernel-sld-warn", DOC_INFO, NULL,
			"The kernel is in split-lock warn mode (learned from %s)%s.",
			h->mode_source, h->mitigate == 1 ?
			" with mitigation: an offending task is also slowed by 10 ms (kernel.split_lock_mitigate=1)" : "");
	else
		doc_add(f, "kernel-sld-mode", DOC_INFO, NULL,
			"The kernel's split-lock mode is %s (learned from %s).",
			h->mode, h->mode_source);
}

/* Installed hypervisors; sets x->needed and x->hv. */
static void module_findings(struct facts *x, struct findings *f)
{
	bool sld_on = x->h.cpu_sld == 1 && (!strcmp(x->h.mode, "warn") ||
					    !strcmp(x->h.mode, "fatal"));
	char title[96];
	size_t i;

	/* What was asked could not be checked: an error, never "healthy". */
	if (x->inv.dir_err == ENOENT)
		doc_add(f, "modules-dir-missing", DOC_ERROR, NULL,
			"No modules are installed for kernel %s (/lib/modules/%s is missing), so its hypervisor modules could not be checked.",
			x->kver, x->kver);
	else if (x->inv.dir_err)
		doc_add(f, "modules-dir-unreadable", DOC_ERROR, NULL,
			"/lib/modules/%s could not be read (%s), so its hypervisor modules could not be checked.",
			x->kver, strerror(x->inv.dir_err));
	for (i = 0; i < x->inv.n; i++) {
		const struct installed *m = &x->inv.v[i];

		if (m->error || m->verdict != SLD_V_HYPERVISOR)
			continue;
		doc_module_title(m->name, title, sizeof(title));
		doc_add(f, "hypervisor-installed", DOC_INFO, NULL,
			"%s is installed (%s) and is a hypervisor that is not prepared for split-lock detection (%s)%s.",
			title, m->path, sld_reason_name(m->reason),
			sys_module_loaded(m->name) ? "; it is loaded" : "");
		if (strlen(x->hv) + strlen(title) + 3 < sizeof(x->hv))
			sprintf(x->hv + strlen(x->hv), "%s%s", *x->hv ? ", " : "", title);
	}
	x->needed = sld_on && *x->hv;
}

/* Why `rmmod sld_compat` is refused: a fact, not a problem. */
static void in_use_finding(struct findings *f)
{
	struct in_use u;
	char why[512];

	if (host_in_use(&u) || (!u.refcnt && !u.tasks))
		return;
	host_in_use_text(&u, why, sizeof(why));
	doc_add(f, "sld-compat-in-use", DOC_INFO, NULL,
		"sld_compat is in use (%s). To unload it anyway: stop those VMs first; enabled=N or rmmod -f detach their tasks, whose guests may then crash on a split lock.",
		why + strlen("yes, "));
}

/* "name N" in the counters text, or 0. */
static unsigned long ac_count(const char *ac, const char *name)
{
	size_t n;
	const char *v = sldctl_counter_value(ac, name, &n);

	return v ? strtoul(v, NULL, 10) : 0;
}

/*
 * Tasks refused protection since load. Under a rule only root can
 * satisfy (the admin's own guests) that is an error: nothing but memory
 * bounds them, so the host ran out of it or started them faster than the
 * pool grew. Refused for max_tasks or tasks_per_uid: a warning, as a
 * user's tasks are meant to meet those bounds.
 */
static void refusal_findings(const struct facts *x, struct findings *f)
{
	unsigned long admin, full, cap;
	char path[PATH_MAX], *ac;
	size_t len;

	if (!x->h.loaded || sldctl_path(path, sizeof(path), STATUS_DIR "/ac") ||
	    sldctl_read_all(path, 1 << 16, &ac, &len))
		return;
	admin = ac_count(ac, "tasks_refused_admin");
	full = ac_count(ac, "tasks_refused_full");
	cap = ac_count(ac, "tasks_refused_cap");
	if (admin)
		doc_add(f, "tasks-refused-admin", DOC_ERROR,
			"journalctl -k -g 'not protecting'",
			"%lu refusal(s) of protection since load for tasks under rules only root can satisfy (of all refusals: %lu for no memory for the task pool, %lu for tasks started faster than it grew): such a task pays the kernel's split-lock penalty until a later split lock or rename finds a record. The kernel log names the first of each reason; give the host memory, or start fewer guests at once.",
			admin, ac_count(ac, "tasks_refused_nomem"),
			ac_count(ac, "tasks_refused_growing"));
	if (full + cap)
		doc_add(f, "tasks-refused-bounds", DOC_WARNING, NULL,
			"%lu refusal(s) of protection since load for max_tasks and %lu for tasks_per_uid, the bounds of rules a user can satisfy alone (exempt_comm, run_allow, exempt_path of a file others may execute, hypervisor devices). If they are the admin's own guests, give them a rule only root can satisfy (an exempt_cgroup of root's cgroups: README, trust model), or raise the bound (sldctl policy set max_tasks N --persist).",
			full, cap);
	free(ac);
}

static void sld_compat_findings(const struct facts *x, struct findings *f)
{
	enum doc_sev need = x->needed ? DOC_ACTION : DOC_INFO;

	/*
	 * No package repository exists: apt cannot find sld-compat-dkms, and
	 * `make dkms-install` alone loads nothing at boot.
	 */
	if (!x->h.loaded && !x->inv.sld_compat) {
		doc_add(f, "sld-compat-not-installed", need, x->needed ?
			"make install (in a checkout), or install the packages of make deb or make rpm (README.md, Install)" : NULL,
			"sld_compat is not installed for kernel %s%s%s.", x->kver,
			x->needed ? ", so guests of " : "", x->needed ? x->hv : "");
		return;
	}
	if (!x->h.loaded) {
		doc_add(f, "sld-compat-not-loaded", need,
			x->needed ? "modprobe sld_compat" : NULL,
			"sld_compat is installed (%s) but not loaded%s%s%s.",
			x->inv.sld_compat, x->needed ? ", so guests of " : "",
			x->needed ? x->hv : "", x->needed ? " will crash on their first split lock" : "");
		return;
	}
	doc_add(f, "sld-compat-loaded", DOC_INFO, NULL,
		"sld_compat is loaded (on_hypervisor=%s, enabled=%s).",
		x->policy ? x->policy : "?", x->enabled ? x->enabled : "?");
	/* An older module has no mechanism file: nothing to say then. */
	if (x->mechanism)
		doc_add(f, "trap-mechanism", DOC_INFO, NULL,
			"The trap a split lock raises here, as sld_compat reads it: %s.",
			x->mechanism);
	if (x->enabled && !strcmp(x->enabled, "N"))
		doc_add(f, "sld-compat-disabled", need,
			"sldctl policy set enabled Y --persist",
			"sld_compat is disabled (enabled=N): its hooks are off.");
	if (x->policy && !strcmp(x->policy, "log"))
		doc_add(f, "policy-log-only", need, "sldctl policy set protect --persist",
			"on_hypervisor is 'log': hypervisor modules are only logged, their guests are not protected.");
	if (x->degraded && strcmp(x->degraded, "none"))
		doc_add(f, "sld-compat-degraded", DOC_WARNING, NULL,
			"Some sld_compat features are off on this kernel: %s.",
			x->degraded);
	in_use_finding(f);
	refusal_findings(x, f);
}

/*
 * The tasks the kernel logged split-lock traps for this boot (as
 * `sldctl offenders`): a warning each, with the rule that would exempt
 * it. No log to read (a container, a fake root) is not a finding. The
 * names in it are users': the comm escaped here, the fix one shell word
 * in printable ASCII, the note escaping what it quotes (lib/offenders.c), so
 * no name adds a line or an escape sequence to root's terminal.
 */
static void offender_findings(struct findings *f)
{
	struct offenders o;
	char why[256 + PATH_MAX];
	size_t i;
	int err = offenders_read(&o, NULL, why, sizeof(why));

	if (err && err != -ENOENT)
		doc_add(f, "offenders-unknown", DOC_INFO, NULL,
			"The kernel log could not be read for split-lock offenders: %s.", why);
	for (i = 0; !err && i < o.n; i++) {
		const struct offender *x = &o.v[i];

		if (!offender_trapped(x))
			continue;	/* sld_compat's own lines only */
		doc_add(f, "split-lock-offender", DOC_WARNING, *x->fix ? x->fix : NULL,
			"%s/%d (%s) took %lu split-lock and %lu bus-lock trap(s) logged since boot (%s)%s%s%s%s.",
			sldctl_q(x->t->comm), x->t->pid, off_class_name(x->cls),
			x->t->n[OFF_SPLIT_LOCK] + x->t->n[OFF_FATAL] + x->t->n[OFF_BOGUS],
			x->t->n[OFF_BUS_LOCK], o.source, x->caveat ? "; " : "",
			x->caveat ? x->caveat : "", x->note ? "; " : "", x->note ? x->note : "");
	}
	if (!err && o.log.bad)
		doc_add(f, "offenders-bad-lines", DOC_INFO, NULL,
			"%lu kernel log line(s) that look like split-lock lines could not be parsed and were skipped.",
			o.log.bad);
	offenders_free(&o);
}

/*
 * What `sldctl apply` writes for e, in *want (malloc'd): run_allow's user
 * and group names resolved to the ids the module holds and shows (as
 * apply_value() does), every other knob's value as written. -1 and why
 * when a name is unknown: apply reports that line too.
 */
static int applied_value(const struct conf_entry *e, char **want, char *why,
			 size_t n)
{
	if (!strcmp(e->key, "run_allow"))
		return run_allow_resolve(e->value, want, why, n);
	*want = strdup(e->value);
	if (*want)
		return 0;
	snprintf(why, n, "out of memory");
	return -1;
}

/* Compare the configuration with the knobs. */
static void config_findings(const struct facts *x, struct findings *f)
{
	char dir[PATH_MAX], why[256], *v, *want;
	struct conf cf;
	size_t i;

	if (sldctl_path(dir, sizeof(dir), CONF_DIR))
		return;
	conf_init(&cf);
	conf_load_dir(&cf, dir);
	for (i = 0; i < cf.nerr; i++)
		doc_add(f, "config-error", DOC_ACTION, NULL, "%s:%u: %s (fix or remove that line).",
			cf.err[i].file, cf.err[i].line, cf.err[i].msg);
	for (i = 0; i < cf.nent; i++) {
		const struct conf_entry *e = &cf.ent[i];

		if (applied_value(e, &want, why, sizeof(why))) {
			doc_add(f, "config-error", DOC_ACTION, NULL,
				"%s:%u: %s: %s (fix or remove that line).",
				e->file, e->line, e->key, why);
			continue;
		}
		if (x->h.loaded && !knob_read(e->key, &v)) {
			if (strcmp(v, want))
				doc_add(f, "config-not-applied", DOC_ACTION, "sldctl apply",
					"%s:%u sets %s = %s but the module has %s.", e->file,
					e->line, e->key, e->value, v);
			free(v);
		}
		free(want);
	}
	conf_free(&cf);
}

/*
 * The last word. Offender warnings leave the verdict healthy (exit 0) but
 * are no "nothing to do": a KVM guest or a game that split-locks needs
 * sld_compat and an exempt rule even where no hypervisor module does.
 */
static void summary(const struct facts *x, struct findings *f)
{
	char rest[160] = ": nothing to do";
	size_t i, off = 0;

	for (i = 0; i < f->n; i++) {
		if (f->v[i].sev >= DOC_ACTION)
			return;
		off += !strcmp(f->v[i].id, "split-lock-offender");
	}
	if (off)
		snprintf(rest, sizeof(rest),
			 "; the %zu split-lock offender(s) above pay the kernel's penalty until sld_compat and an exempt rule (their fix) cover them",
			 off);
	if (x->needed)
		doc_add(f, "healthy", DOC_INFO, NULL,
			"sld_compat protects the guests of %s%s.", x->hv, rest);
	else
		doc_add(f, "not-needed", DOC_INFO, NULL,
			"No hypervisor module here needs sld_compat (%s)%s.",
			*x->hv ? "split-lock detection is off or absent" :
			"no unprepared hypervisor module is installed", rest);
}

static int worst(const struct findings *f)
{
	int rc = SLDCTL_EXIT_OK;
	size_t i;

	for (i = 0; i < f->n; i++) {
		if (f->v[i].sev == DOC_ERROR)
			return SLDCTL_EXIT_ERROR;
		if (f->v[i].sev == DOC_ACTION)
			rc = SLDCTL_EXIT_FOUND;
	}
	return rc;
}

static void print(const struct findings *f, bool as_json, int rc)
{
	static const char *const result[] = { "healthy", "action-needed", "error" };
	struct json j;
	size_t i;

	if (!as_json) {
		for (i = 0; i < f->n; i++) {
			printf("[%s] %s: %s\n", doc_sev_name(f->v[i].sev), f->v[i].id,
			       f->v[i].text);
			if (f->v[i].fix)
				printf("    fix: %s\n", f->v[i].fix);
		}
		printf("doctor: %s\n", result[rc]);
		return;
	}
	json_init(&j, stdout, true);
	json_begin_object(&j);
	json_key(&j, "findings");
	json_begin_array(&j);
	for (i = 0; i < f->n; i++) {
		json_begin_object_flat(&j);
		json_field_str(&j, "id", f->v[i].id);
		json_field_str(&j, "severity", doc_sev_name(f->v[i].sev));
		json_field_str(&j, "message", f->v[i].text);
		json_field_str(&j, "fix", f->v[i].fix);
		json_end_object(&j);
	}
	json_end_array(&j);
	json_field_str(&j, "result", result[rc]);
	json_field_uint(&j, "exit", rc);
	json_end_object(&j);
	json_end(&j);
}

static int kernel_release(const struct cli *c, struct utsname *u,
			  const char **kver)
{
	char why[KNOB_WHY_MAX];
	size_t i;

	*kver = cli_str(c, "kernel");
	if (!*kver) {
		uname(u);
		*kver = u->release;
	}
	for (i = 0; (*kver)[i]; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.+-_~", (*kver)[i]))
			break;
	if (!(*kver)[i] && i <= 128 && strcmp(*kver, ".") && strcmp(*kver, ".."))
		return 0;
	snprintf(why, sizeof(why), "bad kernel release '%s' (letters, digits, . + - _ ~)",
		 sldctl_q(*kver));
	return cli_error(c, "%s", why), -1;
}

int cmd_doctor(int argc, char **argv)
{
	static const struct cli_opt opts[] = {
		{ "kernel", 'k', true, false },
		{ NULL, 0, false, false },
	};
	struct cli c = { .cmd = "doctor", .opts = opts, .usage = "[--json] [--kernel KVER]" };
	struct findings f = { 0 };
	struct facts x = { 0 };
	char dir[PATH_MAX];
	struct utsname u;
	int rc;

	rc = cli_parse(&c, argc, argv);
	if (rc != CLI_OK)
		return cli_exit(rc);
	if (kernel_release(&c, &u, &x.kver))
		return SLDCTL_EXIT_ERROR;
	host_read(&x.h);
	read_knobs(&x);
	cpu_findings(&x, &f);
	kernel_findings(&x, &f);
	if (!sldctl_path(dir, sizeof(dir), "/lib/modules/%s", x.kver))
		inventory_scan(dir, &x.inv, &f);
	module_findings(&x, &f);
	sld_compat_findings(&x, &f);
	config_findings(&x, &f);
	offender_findings(&f);
	summary(&x, &f);
	rc = worst(&f);
	print(&f, c.json, rc);
	doc_free(&f);
	inventory_free(&x.inv);
	free(x.enabled);
	free(x.policy);
	free(x.degraded);
	free(x.mechanism);
	return rc;
}
