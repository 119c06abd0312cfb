// SPDX-License-Identifier: GPL-2.0
/*
 * sldctl status, the human view: first the lines that say whether this
 * host is protected and who is (sld_compat loaded and switched on, what
 * the CPU and the kernel do, the tasks protected and by which rule, the
 * hypervisor modules loaded and their verdicts, the #AC handled), then
 * the details: each knob, the protected tasks one a line, the counters
 * in groups. --verbose adds the machinery: hooks, kernel code, per-CPU
 * account, the scan record of every module seen.
 *
 * Each value is printed once. The aggregate status file repeats the value
 * files and is not shown; the module's copy of the CPU flags neither (the
 * flags come from /proc/cpuinfo, which works without the module), nor the
 * counters tasks_max and tasks_per_uid (the knobs of those names). A
 * status file, knob or counter this view does not know is still shown,
 * under "other files" or "other counters": a new one needs no code here
 * to be seen.
 *
 * Bytes outside printable ASCII (a task's comm may hold any) are shown as
 * \xNN; the module's tasks file has its names so escaped already, and
 * they are shown as they are there (put_escaped()).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"
#include "schema/knobs_table.h"
#include "status_prom.h"
#include "status_text.h"
#include "lib/util.h"

/* Status files shown in their own place below (or on purpose not at all). */
static const char *const known_files[] = {
	"version", "support", "mechanism", "sld_mode", "split_lock_mitigate",
	"cpu_split_lock_detect", "cpu_bus_lock_detect", "kernel_code",
	"hooks", "degraded", "ac", "db", "tasks", "in_use", "hypervisors",
	"vendor", "disable_count", "exempt_pending", "runs",
	"status",	/* all of the above again */
};

/* Counters of ac the summary shows, or that are knobs as well. */
static const char *const ac_elsewhere[] = {
	"ac_user_handled", "ac_guest_handled", "tasks_live",
	"tasks_max", "tasks_per_uid", "tasks_pool_bytes",
};

struct counter {
	const char *name, *label;
};

/* The details' counter lines: "title: label N, label N, ...". */
static const struct group {
	const char *title;
	const char *file;
	struct counter c[10];
} groups[] = {
	{ "#AC", "ac", {
		{ "ac_user_passed", "user passed on" },
		{ "ac_guest_passed", "guest passed on" },
		{ "ac_not_protected", "not protected" },
		{ "ac_sld_cleared", "SLD cleared" },
		{ "ac_handed_back", "handed back" } } },
	{ "#DB (bus lock)", "db", {
		{ "db_handled", "handled" },
		{ "db_passed", "passed on" },
		{ "db_not_protected", "not protected" },
		{ "db_policed", "policed beside a held core" } } },
	{ "SMT siblings beside a held core, unpoliced", "db", {
		{ "sibling_exposures", "times" },
		{ "sibling_exposed_ms", "user ms" } } },
	{ "tasks now", "ac", {
		{ "tasks_exempt", "exempt" },
		{ "tasks_admin", "under root's rules alone" },
		{ "tasks_pinning", "pinning sld_compat" } } },
	{ "tasks since load", "ac", {
		{ "tasks_protected", "protected" },
		{ "tasks_protected_hypervisor", "by hypervisor" },
		{ "tasks_protected_comm", "by comm" },
		{ "tasks_protected_path", "by path" },
		{ "tasks_protected_cgroup", "by cgroup" },
		{ "tasks_protected_run", "by sldctl run" },
		{ "tasks_proactive", "proactive" },
		{ "tasks_exited", "exited" },
		{ "tasks_exec_dropped", "dropped at exec" },
		{ "tasks_detached", "detached" } } },
	{ "tasks refused", "ac", {
		{ "tasks_refused", "total" },
		{ "tasks_refused_off", "off" },
		{ "tasks_refused_full", "full" },
		{ "tasks_refused_cap", "cap" },
		{ "tasks_refused_growing", "growing" },
		{ "tasks_refused_nomem", "no memory" },
		{ "tasks_refused_admin", "under root's rules alone" } } },
	{ "task pool", "ac", {
		{ "tasks_capacity", "records" },
		{ "tasks_record_bytes", "record bytes" },
		{ "tasks_grow_failed", "grow failed" } } },
	{ "scheduler", "ac", {
		{ "key_held", "key held" },
		{ "ready", "ready" },
		{ "sched_calls", "calls" },
		{ "sched_handovers", "handovers" } } },
	{ "vendor API", "vendor", {
		{ "bracket_refused", "brackets refused" },
		{ "bracket_unbalanced", "brackets unbalanced" } } },
};

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

const char *status_find(const struct status_items *it, const char *name)
{
	size_t i;

	for (i = 0; i < it->n; i++)
		if (!strcmp(it->v[i].name, name) && it->v[i].value)
			return it->v[i].value;
	return NULL;
}

static bool in_list(const char *const *list, size_t n, const char *s,
		    size_t len)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strlen(list[i]) == len && !strncmp(list[i], s, len))
			return true;
	return false;
}

/* s[0..len), bytes outside printable ASCII (and \) as \xNN. */
static void put_esc(const char *s, size_t len)
{
	sldctl_put_esc(stdout, s, len);
}

static void puts_esc(const char *s)
{
	put_esc(s, strlen(s));
}

/*
 * s[0..len) from a file whose names the module escaped as put_esc() does
 * (tasks): its \xNN as they are, anything else as put_esc().
 */
static void put_escaped(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		if (len - i >= 4 && s[i] == '\\' && s[i + 1] == 'x' &&
		    isxdigit((unsigned char)s[i + 2]) &&
		    isxdigit((unsigned char)s[i + 3])) {
			fwrite(s + i, 1, 4, stdout);
			i += 4;
			continue;
		}
		put_esc(s + i++, 1);
	}
}

/* Each line of text indented by two spaces. */
static void put_lines(const char *text)
{
	const char *l;
	size_t n;

	while (sldctl_next_line(&text, &l, &n)) {
		printf("  ");
		put_esc(l, n);
		putchar('\n');
	}
}

/* The counter name of text, or "?". */
static void put_counter(const char *text, const char *name)
{
	size_t n;
	const char *v = sldctl_counter_value(text, name, &n);

	if (v)
		put_esc(v, n);
	else
		putchar('?');
}

/* "; pool N KiB": the task pool's memory, if the module says it. */
static void put_pool_kib(const char *ac)
{
	size_t n;
	const char *v = sldctl_counter_value(ac, "tasks_pool_bytes", &n);

	if (v)
		printf("; pool %llu KiB", (strtoull(v, NULL, 10) + 1023) / 1024);
}

/* The field " key=VALUE" of a line (status_kv()), or "-". */
static void put_field(const char *l, size_t len, const char *key)
{
	size_t n;
	const char *v = status_kv(l, len, key, &n);

	if (v)
		put_esc(v, n);
	else
		putchar('-');
}

static bool field_is(const char *l, size_t len, const char *key,
		     const char *want)
{
	size_t n;
	const char *v = status_kv(l, len, key, &n);

	return v && n == strlen(want) && !strncmp(v, want, n);
}

/* Word i (from 0) of a line: start, length in *n; NULL past the end. */
static const char *word(const char *l, size_t len, int i, size_t *n)
{
	const char *e = l + len;

	for (;;) {
		while (l < e && *l == ' ')
			l++;
		if (l == e)
			return NULL;
		*n = strcspn(l, " ");
		if (l + *n > e)
			*n = e - l;
		if (!i--)
			return l;
		l += *n;
	}
}

/* flag is one of the comma-separated flags= of a line. */
static bool has_flag(const char *l, size_t len, const char *flag)
{
	size_t n, fl = strlen(flag), k;
	const char *v = status_kv(l, len, "flags", &n);

	while (v && n) {
		k = strcspn(v, ",");
		if (k > n)
			k = n;
		if (k == fl && !strncmp(v, flag, k))
			return true;
		k += k < n;
		v += k;
		n -= k;
	}
	return false;
}

/* ---- summary ----------------------------------------------------------- */

static const char *tristate(int v)
{
	return v < 0 ? "unknown" : v ? "yes" : "no";
}

static void put_host(const struct host *h)
{
	printf("cpu: split_lock_detect %s, bus_lock_detect %s\n",
	       tristate(h->cpu_sld), tristate(h->cpu_bld));
	printf("kernel: split-lock mode %s (from %s), split_lock_mitigate ",
	       h->mode, h->mode_source);
	if (h->mitigate < 0)
		printf("absent\n");
	else
		printf("%d\n", h->mitigate);
}

static void put_value_or(const char *v, const char *none)
{
	if (v)
		puts_esc(v);
	else
		printf("%s", none);
}

/* A value on its line, or its lines indented below the title. */
static void put_titled(const char *title, const char *v)
{
	printf("%s:", title);
	if (!v) {
		printf(" (unreadable)\n");
	} else if (strchr(v, '\n')) {
		putchar('\n');
		put_lines(v);
	} else {
		putchar(' ');
		puts_esc(v);
		putchar('\n');
	}
}

/* title and the lines of v below it; nothing if v was not read. */
static void put_section(const char *title, const char *v)
{
	if (!v)
		return;
	printf("%s:\n", title);
	put_lines(v);
}

/*
 * Rules waiting for their cgroup (the module's exempt_pending): said only
 * when there are some, and not by a module too old to have the file.
 */
static void put_pending(const char *pending)
{
	if (pending && strcmp(pending, "-"))
		put_titled("exempt rules pending (cgroup does not exist yet)",
			   pending);
}

/*
 * Each `sldctl run` with relieved tasks (the module's runs file: "UID
 * COMM scope=NAME since=SECONDS tasks=N ac=N"): said only when there is
 * one. COMM and NAME come escaped (\xNN) from the module: shown as they
 * are (put_escaped()), as the tasks are.
 */
static void put_runs(const char *runs)
{
	bool multi = runs && strchr(runs, '\n');
	const char *l;
	size_t n;

	if (!runs || !strcmp(runs, "none"))
		return;
	printf("sldctl runs (uid, command, scope, since boot+seconds, tasks now, traps relieved):%s",
	       multi ? "\n" : " ");
	while (sldctl_next_line(&runs, &l, &n)) {
		printf("%s", multi ? "  " : "");
		put_escaped(l, n);
		putchar('\n');
	}
}

/* Protected tasks now, and by which rule (the tasks file's why=). */
static void put_protected(const char *ac, const char *tasks)
{
	static const struct { const char *why, *label; } rules[] = {
		{ "hypervisor", "hypervisor" }, { "exempt-comm", "comm" },
		{ "exempt-path", "path" }, { "exempt-cgroup", "cgroup" },
		{ "run", "sldctl run" },
	};
	unsigned long n[ARRAY_SIZE(rules)] = { 0 };
	unsigned long other = 0, unlisted = 0;
	const char *l, *p = tasks;
	size_t len, i, k;

	while (sldctl_next_line(&p, &l, &len)) {
		if (!strncmp(l, "... ", 4)) {
			unlisted += strtoul(l + 4, NULL, 10);
			continue;
		}
		if (!status_kv(l, len, "why", &k))
			continue;
		for (i = 0; i < ARRAY_SIZE(rules); i++)
			if (field_is(l, len, "why", rules[i].why))
				break;
		if (i < ARRAY_SIZE(rules))
			n[i]++;
		else
			other++;
	}
	printf("protected tasks: ");
	put_counter(ac, "tasks_live");
	printf(" (");
	for (i = 0; i < ARRAY_SIZE(rules); i++)
		printf("%s%s %lu", i ? ", " : "", rules[i].label, n[i]);
	if (other)
		printf(", other %lu", other);
	if (unlisted)
		printf(", %lu not listed", unlisted);
	printf(")");
	put_pool_kib(ac);
	printf("\n");
}

/* The watched-module line of hv called name[0..nl), or NULL. */
static const char *hv_line(const char *hv, const char *name, size_t nl,
			   size_t *len)
{
	const char *l;

	while (sldctl_next_line(&hv, &l, len))
		if (*len > nl && !strncmp(l, name, nl) && l[nl] == ' ')
			return l;
	return NULL;
}

/* ", hooked via learned, entry E, N tasks, #AC user U guest G" */
static void put_watch(const char *l, size_t len)
{
	size_t n;
	const char *tasks = status_kv(l, len, "tasks", &n);

	printf(", ");
	put_field(l, len, "state");
	if (!field_is(l, len, "via", "-")) {
		printf(" via ");
		put_field(l, len, "via");
	}
	if (!field_is(l, len, "entry", "-")) {
		printf(", entry ");
		put_field(l, len, "entry");
	}
	printf(", ");
	put_field(l, len, "tasks");
	printf(" task%s, #AC user ",
	       tasks && n == 1 && *tasks == '1' ? "" : "s");
	put_field(l, len, "ac_user");
	printf(" guest ");
	put_field(l, len, "ac_guest");
}

/* A module the summary lists: not clean, still loaded. */
static bool listed_module(const char *l, size_t len)
{
	size_t n;
	const char *v = word(l, len, 1, &n);

	return v && !(n == 5 && !strncmp(v, "clean", 5)) &&
	       has_flag(l, len, "loaded");
}

/* The words of a scan record after name, verdict and reason. */
static void put_scan_rest(const char *l, size_t len)
{
	size_t n;
	const char *v = word(l, len, 3, &n);

	if (v)
		put_esc(v, l + len - v);
}

/*
 * Hypervisor modules loaded (the scan records whose verdict is not
 * clean), with their verdict and, if watched, the watch: state, tasks,
 * #AC. Then modules watched without a record.
 */
static void put_hypervisors(const char *mods, const char *hv, bool verbose)
{
	const char *l, *w, *name, *p = mods;
	size_t len, wl, nl, k;
	int shown = 0;

	while (sldctl_next_line(&p, &l, &len)) {
		if (!listed_module(l, len))
			continue;
		if (!shown++)
			printf("hypervisors:\n");
		name = word(l, len, 0, &nl);
		printf("  ");
		put_esc(name, nl);
		printf(": ");
		w = word(l, len, 1, &wl);
		put_esc(w, wl);
		w = word(l, len, 2, &wl);
		if (w) {
			printf(" (");
			put_esc(w, wl);
			putchar(')');
		}
		w = hv ? hv_line(hv, name, nl, &k) : NULL;
		if (w)
			put_watch(w, k);
		else
			printf(", not watched");
		if (has_flag(l, len, "sld-disabled"))
			printf(", holds SLD off");
		if (has_flag(l, len, "refuse-too-late"))
			printf(", loaded before on_hypervisor=refuse");
		putchar('\n');
		if (verbose) {
			printf("    scan: ");
			put_scan_rest(l, len);
			putchar('\n');
		}
	}
	/* Watched but without a scan record (should not happen). */
	p = hv;
	while (sldctl_next_line(&p, &l, &len)) {
		name = word(l, len, 0, &nl);
		if (!name || !status_kv(l, len, "state", &k))
			continue;
		if (mods) {
			const char *q = mods, *r;
			size_t rl;
			bool found = false;

			while (!found && sldctl_next_line(&q, &r, &rl))
				found = listed_module(r, rl) && rl > nl &&
					!strncmp(r, name, nl) && r[nl] == ' ';
			if (found)
				continue;
		}
		if (!shown++)
			printf("hypervisors:\n");
		printf("  ");
		put_esc(name, nl);
		printf(": no scan record");
		put_watch(l, len);
		putchar('\n');
	}
	if (!shown)
		printf("hypervisors: none loaded\n");
}

static void put_summary(const struct host *h,
			const struct status_items *status,
			const struct status_items *knobs,
			const struct status_items *procs, bool verbose)
{
	const char *ac = status_find(status, "ac");
	struct in_use u;
	char why[512];

	printf("sld_compat: loaded, version ");
	put_value_or(status_find(status, "version"), "?");
	printf("\nsld_compat mode: on_hypervisor=");
	put_value_or(status_find(knobs, "on_hypervisor"), "?");
	printf(" enabled=");
	put_value_or(status_find(knobs, "enabled"), "?");
	putchar('\n');
	put_titled("support", status_find(status, "support"));
	put_titled("mechanism", status_find(status, "mechanism"));
	put_titled("degraded", status_find(status, "degraded"));
	put_host(h);
	put_protected(ac, status_find(status, "tasks"));
	put_pending(status_find(status, "exempt_pending"));
	put_runs(status_find(status, "runs"));
	put_hypervisors(status_find(procs, "sld_compat_modules"),
			status_find(status, "hypervisors"), verbose);
	printf("#AC handled: ");
	put_counter(ac, "ac_user_handled");
	printf(" user, ");
	put_counter(ac, "ac_guest_handled");
	printf(" guest\nmodules holding SLD off: ");
	put_value_or(status_find(status, "disable_count"), "?");
	putchar('\n');
	/* Why rmmod would be refused (see host_in_use()). */
	if (!host_in_use(&u)) {
		host_in_use_text(&u, why, sizeof(why));
		printf("sld_compat in use: %s\n", why);
	}
}

/* ---- details ----------------------------------------------------------- */

static bool is_summary_knob(const char *name)
{
	return !strcmp(name, "enabled") || !strcmp(name, "on_hypervisor");
}

/* The knobs in the schema's order, then any the schema does not know. */
static void put_knobs(const struct status_items *knobs)
{
	const struct status_item *x;
	size_t i, k;

	printf("knobs:\n");
	for (k = 0; k < SLD_KN_COUNT; k++) {
		for (i = 0; i < knobs->n; i++) {
			x = &knobs->v[i];
			if (!strcmp(x->name, sld_knob_schema[k].name) &&
			    !is_summary_knob(x->name))
				break;
		}
		if (i < knobs->n) {
			printf("  ");
			put_titled(x->name, x->value);
		}
	}
	for (i = 0; i < knobs->n; i++) {
		x = &knobs->v[i];
		if (sld_knob_schema_find(x->name) || is_summary_knob(x->name))
			continue;
		printf("  ");
		put_titled(x->name, x->value);
	}
}

static bool known_counter(const char *file, const char *name, size_t len)
{
	size_t g, i;

	if (!strcmp(file, "ac") &&
	    in_list(ac_elsewhere, ARRAY_SIZE(ac_elsewhere), name, len))
		return true;
	for (g = 0; g < ARRAY_SIZE(groups); g++) {
		if (strcmp(groups[g].file, file))
			continue;
		for (i = 0; i < ARRAY_SIZE(groups[g].c) && groups[g].c[i].name;
		     i++)
			if (strlen(groups[g].c[i].name) == len &&
			    !strncmp(groups[g].c[i].name, name, len))
				return true;
	}
	return false;
}

/* Lines of the "name N" files this view does not know, as they are. */
static int put_other_counters(const char *file, const char *text, int shown)
{
	const char *l;
	size_t len, n;

	while (sldctl_next_line(&text, &l, &len)) {
		n = strcspn(l, " ");
		if (n < len && known_counter(file, l, n))
			continue;
		printf("%s", shown++ ? ", " : "  other: ");
		put_esc(l, len);
	}
	return shown;
}

/* One line per group: "  title: label N, label N". */
static void put_counters(const struct status_items *status)
{
	const struct group *g;
	const char *text, *v;
	size_t i, n;
	int shown;

	printf("counters:\n");
	for (g = groups; g < groups + ARRAY_SIZE(groups); g++) {
		text = status_find(status, g->file);
		shown = 0;
		for (i = 0; text && i < ARRAY_SIZE(g->c) && g->c[i].name; i++) {
			v = sldctl_counter_value(text, g->c[i].name, &n);
			if (!v)
				continue;
			if (shown++)
				printf(", %s ", g->c[i].label);
			else
				printf("  %s: %s ", g->title, g->c[i].label);
			put_esc(v, n);
		}
		if (shown)
			putchar('\n');
	}
	shown = put_other_counters("ac", status_find(status, "ac"), 0);
	shown = put_other_counters("vendor", status_find(status, "vendor"),
				   shown);
	if (shown)
		putchar('\n');
}

/*
 * The protected tasks, one a line as the module gives them (their names
 * escaped already, shown as they are).
 */
static void put_tasks(const char *tasks)
{
	const char *l;
	size_t n;

	if (!tasks || !strcmp(tasks, "none"))
		return;
	printf("tasks:\n");
	while (sldctl_next_line(&tasks, &l, &n)) {
		printf("  ");
		put_escaped(l, n);
		putchar('\n');
	}
}

/* Scan records of the modules put_hypervisors() did not list. */
static void put_other_modules(const char *mods)
{
	const char *l;
	size_t len;
	int shown = 0;

	while (sldctl_next_line(&mods, &l, &len)) {
		if (listed_module(l, len))
			continue;
		if (!shown++)
			printf("other modules seen:\n");
		printf("  ");
		put_esc(l, len);
		putchar('\n');
	}
}

/* Status files this view does not know, as "name: value". */
static void put_other_files(const struct status_items *status)
{
	const struct status_item *x;
	size_t i;
	int shown = 0;

	for (i = 0; i < status->n; i++) {
		x = &status->v[i];
		if (in_list(known_files, ARRAY_SIZE(known_files), x->name,
			    strlen(x->name)))
			continue;
		if (!shown++)
			printf("other files:\n");
		printf("  ");
		puts_esc(x->name);
		if (!x->value) {
			printf(": (unreadable)\n");
		} else if (memchr(x->value, '\n', x->len)) {
			printf(":\n");
			put_lines(x->value);
		} else {
			printf(": ");
			put_esc(x->value, x->len);
			putchar('\n');
		}
	}
}

void status_text(const struct host *h, const struct status_items *status,
		 const struct status_items *knobs,
		 const struct status_items *procs, bool verbose)
{
	if (!h->loaded) {
		printf("sld_compat: not loaded\n");
		put_host(h);
		return;
	}
	put_summary(h, status, knobs, procs, verbose);
	putchar('\n');
	put_knobs(knobs);
	put_tasks(status_find(status, "tasks"));
	put_counters(status);
	if (verbose) {
		put_section("hooks", status_find(status, "hooks"));
		put_section("kernel code", status_find(status, "kernel_code"));
		put_section("per-CPU account",
			    status_find(procs, "sld_compat_account"));
		put_other_modules(status_find(procs, "sld_compat_modules"));
	}
	put_other_files(status);
}
