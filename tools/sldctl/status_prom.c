// SPDX-License-Identifier: GPL-2.0
/*
 * sldctl status --format prometheus: the status files as node_exporter
 * textfile-collector metrics (Prometheus text exposition format 0.0.4).
 *
 * Every family is written with # HELP and # TYPE, its samples together.
 * Counters (monotonic in the module) end in _total; values that can go
 * down (tasks now, the log's offenders, which the ring forgets) are
 * gauges. Label values are escaped as the format says: backslash, double
 * quote and newline; any other byte outside printable ASCII as \\xNN
 * (put_label()). Lines of a status file that do not parse are skipped: a
 * scrape must never fail because the module grew a new field.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema/escape.h"
#include "lib/offenders.h"
#include "lib/util.h"
#include "status_prom.h"

#define PFX	"sld_compat_"
#define CLASS_MAX	64

static void head(const char *name, const char *type, const char *help)
{
	printf("# HELP " PFX "%s %s\n# TYPE " PFX "%s %s\n", name, help, name,
	       type);
}

/*
 * A label value: backslash, double quote and newline as the format says;
 * any other byte outside printable ASCII (ESC: a scrape read in a
 * terminal; bytes that are no UTF-8) as the text \xNN, the escape of
 * every name sldctl shows (src/schema/escape.h), its backslash doubled as
 * the format wants.
 */
static void put_label(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = s[i];

		if (c == '\\')
			fputs("\\\\", stdout);
		else if (c == '"')
			fputs("\\\"", stdout);
		else if (c == '\n')
			fputs("\\n", stdout);
		else if (sld_esc_needed(c, 0))
			printf("\\\\x%02x", c);
		else
			putchar(c);
	}
}

/* name{k1="v1",k2="v2"} value; labels as k, v pairs, v of length vl. */
static void sample(const char *name, const char *const *k, const char *const *v,
		   const size_t *vl, int nl, unsigned long long val)
{
	int i;

	printf(PFX "%s", name);
	for (i = 0; i < nl; i++) {
		printf("%c%s=\"", i ? ',' : '{', k[i]);
		put_label(v[i], vl[i]);
		putchar('"');
	}
	printf("%s %llu\n", nl ? "}" : "", val);
}

static void sample1(const char *name, const char *k, const char *v,
		    unsigned long long val)
{
	size_t l = strlen(v);

	sample(name, &k, &v, &l, 1, val);
}

const char *status_kv(const char *line, size_t len, const char *key,
		      size_t *vlen)
{
	size_t kl = strlen(key);
	const char *hit = NULL, *p;

	for (p = line; p + kl + 2 <= line + len; p++)
		if (*p == ' ' && !strncmp(p + 1, key, kl) && p[kl + 1] == '=')
			hit = p + kl + 2;
	if (!hit)
		return NULL;
	*vlen = strcspn(hit, " \n");
	if (hit + *vlen > line + len)
		*vlen = line + len - hit;
	return hit;
}

static int kv_num(const char *line, size_t len, const char *key,
		  unsigned long long *v)
{
	size_t n;
	const char *s = status_kv(line, len, key, &n);
	char *end;

	if (!s || !n || *s < '0' || *s > '9')
		return -1;
	*v = strtoull(s, &end, 10);
	return end == s + n ? 0 : -1;
}

typedef void (*line_fn)(const char *line, size_t len, void *ctx);

static void each_line(const char *text, line_fn fn, void *ctx)
{
	const char *l;
	size_t n;

	while (sldctl_next_line(&text, &l, &n))
		if (n)
			fn(l, n, ctx);
}

/*
 * A line whose first word an earlier line of text starts with: one series
 * per module, even if a file ever listed a module twice (a duplicate
 * series makes node_exporter reject the whole file).
 */
static bool dup_first(const char *text, const char *l)
{
	size_t n = strcspn(l, " \n");
	const char *p = text;

	while (p && p < l) {
		if (!strncmp(p, l, n) && (p[n] == ' ' || p[n] == '\n'))
			return true;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return false;
}

/* ---- the "ac" file: "name N" lines ----------------------------------- */

struct ac_map {
	const char *key;	/* line name */
	const char *metric;
	const char *label;	/* label value, NULL: none */
	const char *help;	/* for a family of its own */
};

static const struct ac_map ac_traps[] = {
	{ "ac_user_handled", "ac_traps_total", "user_handled", NULL },
	{ "ac_guest_handled", "ac_traps_total", "guest_handled", NULL },
	{ "ac_user_passed", "ac_traps_total", "user_passed", NULL },
	{ "ac_guest_passed", "ac_traps_total", "guest_passed", NULL },
	{ "ac_not_protected", "ac_traps_total", "not_protected", NULL },
	{ "ac_sld_cleared", "ac_traps_total", "sld_cleared", NULL },
	{ "ac_handed_back", "ac_traps_total", "handed_back", NULL },
	{ 0 }
};

static const struct ac_map db_traps[] = {
	{ "db_handled", "db_traps_total", "handled", NULL },
	{ "db_passed", "db_traps_total", "passed", NULL },
	{ "db_not_protected", "db_traps_total", "not_protected", NULL },
	{ "db_policed", "db_traps_total", "policed", NULL },
	{ 0 }
};

static const struct ac_map exposures[] = {
	{ "sibling_exposures", "sibling_exposures_total", NULL,
	  "Times a CPU began running beside a core held off, unpoliced (SLD without bus-lock detection)." },
	{ 0 }
};

static const struct ac_map task_events[] = {
	{ "tasks_protected", "task_events_total", "protected", NULL },
	{ "tasks_exited", "task_events_total", "exited", NULL },
	{ "tasks_exec_dropped", "task_events_total", "exec_dropped", NULL },
	{ "tasks_detached", "task_events_total", "detached", NULL },
	{ "tasks_proactive", "task_events_total", "proactive", NULL },
	{ "tasks_protected_run", "task_events_total", "protected_run", NULL },
	{ "tasks_refused_off", "task_events_total", "refused_off", NULL },
	{ "tasks_refused_full", "task_events_total", "refused_full", NULL },
	{ "tasks_refused_cap", "task_events_total", "refused_cap", NULL },
	{ "tasks_refused_growing", "task_events_total", "refused_growing", NULL },
	{ "tasks_refused_nomem", "task_events_total", "refused_nomem", NULL },
	{ "tasks_refused_admin", "task_events_total", "refused_admin", NULL },
	{ "tasks_grow_failed", "task_events_total", "grow_failed", NULL },
	{ 0 }
};

static const struct ac_map task_gauges[] = {
	{ "tasks_live", "protected_tasks", NULL,
	  "Tasks sld_compat protects now." },
	{ "tasks_exempt", "exempt_tasks", NULL,
	  "Protected tasks that match an exempt rule." },
	{ "tasks_pinning", "pinning_tasks", NULL,
	  "Protected tasks that keep sld_compat loaded." },
	{ "tasks_admin", "admin_tasks", NULL,
	  "Protected tasks under a rule only root can satisfy (bounded by memory)." },
	{ "tasks_pool_bytes", "task_pool_bytes", NULL,
	  "Memory of the protected-task pool, in bytes." },
	{ 0 }
};

static const struct ac_map sched[] = {
	{ "sched_calls", "sched_calls_total", NULL,
	  "Context switches of protected tasks sld_compat saw." },
	{ "sched_handovers", "sched_handovers_total", NULL,
	  "Context switches that handed split-lock detection over." },
	{ 0 }
};

/*
 * "key N" in text; 0 found. A "key" line whose value does not start with
 * a digit is passed over for a later one; digits with more after them
 * are not found.
 */
static int ac_value(const char *text, const char *key, unsigned long long *v)
{
	const char *p = text, *val;
	char *end;
	size_t n;

	for (; (val = sldctl_counter_value(p, key, &n)); p = val + n) {
		if (*val < '0' || *val > '9')
			continue;
		*v = strtoull(val, &end, 10);
		return end == val + n ? 0 : -1;
	}
	return -1;
}

static void ac_family(const char *text, const struct ac_map *m,
		      const char *label, const char *type, const char *help)
{
	const char *done = NULL;
	unsigned long long v;

	for (; m->key; m++) {
		if (ac_value(text, m->key, &v))
			continue;
		if (!done || strcmp(done, m->metric))
			head(m->metric, type, help);
		done = m->metric;
		if (m->label)
			sample1(m->metric, label, m->label, v);
		else
			sample(m->metric, NULL, NULL, NULL, 0, v);
	}
}

/* The SMT siblings' exposure: how often, and its user time in seconds. */
static void prom_siblings(const char *db)
{
	unsigned long long ms;

	ac_family(db, exposures, NULL, "counter", exposures[0].help);
	if (ac_value(db, "sibling_exposed_ms", &ms))
		return;
	head("sibling_exposed_seconds_total", "counter",
	     "User time CPUs ran beside a core held off, unpoliced.");
	printf(PFX "sibling_exposed_seconds_total %llu.%03llu\n", ms / 1000, ms % 1000);
}

static void prom_ac(const char *text)
{
	const struct ac_map *g;

	if (!text)
		return;
	ac_family(text, ac_traps, "outcome", "counter",
		  "Split-lock #AC traps seen by sld_compat, by outcome.");
	ac_family(text, task_events, "event", "counter",
		  "Protected-task events: protected, exited, refused, ...");
	for (g = task_gauges; g->key; g++) {
		const struct ac_map one[] = { *g, { 0 } };

		ac_family(text, one, NULL, "gauge", g->help);
	}
	for (g = sched; g->key; g++) {
		const struct ac_map one[] = { *g, { 0 } };

		ac_family(text, one, NULL, "counter", g->help);
	}
}

/* ---- hypervisors: "NAME state=S via=V ... tasks=N ac_user=N ac_guest=N" */

static void hv_tasks(const char *l, size_t len, void *ctx)
{
	static const char *const k[] = { "module", "state", "via" };
	const char *v[3];
	size_t vl[3];
	unsigned long long n;

	if (dup_first(ctx, l))
		return;
	v[0] = l;
	vl[0] = strcspn(l, " \n");
	if (vl[0] >= len || kv_num(l, len, "tasks", &n))
		return;
	v[1] = status_kv(l, len, "state", &vl[1]);
	v[2] = status_kv(l, len, "via", &vl[2]);
	if (v[1] && v[2])
		sample("hypervisor_tasks", k, v, vl, 3, n);
}

static void hv_ac(const char *l, size_t len, void *ctx)
{
	static const char *const k[] = { "module", "context" };
	static const char *const ctxs[] = { "user", "guest" };
	const char *key[] = { "ac_user", "ac_guest" };
	const char *v[2];
	size_t vl[2];
	unsigned long long n;
	int i;

	if (dup_first(ctx, l))
		return;
	v[0] = l;
	vl[0] = strcspn(l, " \n");
	for (i = 0; i < 2 && vl[0] < len; i++) {
		if (kv_num(l, len, key[i], &n))
			continue;
		v[1] = ctxs[i];
		vl[1] = strlen(ctxs[i]);
		sample("hypervisor_ac_traps_total", k, v, vl, 2, n);
	}
}

static void prom_hv(const char *text)
{
	if (!text)
		return;
	head("hypervisor_tasks", "gauge",
	     "Protected tasks per watched hypervisor module.");
	each_line(text, hv_tasks, (void *)text);
	head("hypervisor_ac_traps_total", "counter",
	     "Split-lock #AC traps per hypervisor module, user or guest.");
	each_line(text, hv_ac, (void *)text);
}

/* ---- tasks: "PID COMM why=W hv=H ...", or "... N more" -------------- */

struct task_class {
	char why[32], hv[64];
	unsigned long long n;
};

struct task_classes {
	struct task_class v[CLASS_MAX];
	int n;
};

static void count_class(struct task_classes *c, const char *why, size_t wl,
			const char *hv, size_t hl, unsigned long long n)
{
	int i;

	wl = wl < sizeof(c->v[0].why) ? wl : sizeof(c->v[0].why) - 1;
	hl = hl < sizeof(c->v[0].hv) ? hl : sizeof(c->v[0].hv) - 1;
	for (i = 0; i < c->n; i++)
		if (!strncmp(c->v[i].why, why, wl) && !c->v[i].why[wl] &&
		    !strncmp(c->v[i].hv, hv, hl) && !c->v[i].hv[hl])
			break;
	if (i == c->n) {
		if (c->n == CLASS_MAX)
			return;
		memcpy(c->v[i].why, why, wl);
		memcpy(c->v[i].hv, hv, hl);
		c->n++;
	}
	c->v[i].n += n;
}

static void task_line(const char *l, size_t len, void *ctx)
{
	const char *why, *hv;
	size_t wl, hl;
	char *end;
	unsigned long long more;

	if (!strncmp(l, "... ", 4)) {
		more = strtoull(l + 4, &end, 10);
		if (end > l + 4 && !strncmp(end, " more", 5))
			count_class(ctx, "unlisted", 8, "", 0, more);
		return;
	}
	why = status_kv(l, len, "why", &wl);
	hv = status_kv(l, len, "hv", &hl);
	if (why && hv)
		count_class(ctx, why, wl, hv, hl, 1);
}

static void prom_tasks(const char *text)
{
	static const char *const k[] = { "class", "hypervisor" };
	struct task_classes *c;
	const char *v[2];
	size_t vl[2];
	int i;

	c = text ? calloc(1, sizeof(*c)) : NULL;
	if (!c)
		return;
	each_line(text, task_line, c);
	head("protected_tasks_by_class", "gauge",
	     "Protected tasks now, by why they are protected and hypervisor.");
	for (i = 0; i < c->n; i++) {
		v[0] = c->v[i].why;
		v[1] = c->v[i].hv;
		vl[0] = strlen(v[0]);
		vl[1] = strlen(v[1]);
		sample("protected_tasks_by_class", k, v, vl, 2, c->v[i].n);
	}
	free(c);
}

/* ---- runs: "UID COMM scope=NAME ...", "none", or "... N more task(s)" */

static void run_line(const char *l, size_t len, void *ctx)
{
	size_t vl;

	if (status_kv(l, len, "scope", &vl))
		(*(unsigned long long *)ctx)++;
}

static void prom_runs(const char *text)
{
	unsigned long long n = 0;

	if (!text)
		return;
	each_line(text, run_line, &n);
	head("runs", "gauge", "sldctl runs with relieved tasks now (their scopes).");
	sample("runs", NULL, NULL, NULL, 0, n);
}

/* ---- account: "cpuN ... toggles_off=N toggles_on=N msr_writes=N ..." */

struct acct_field {
	const char *key, *metric, *label;
};

static void acct_one(const char *l, size_t len, void *ctx)
{
	const struct acct_field *f = ctx;
	static const char *const k2[] = { "cpu", "direction" };
	const char *v[2];
	size_t vl[2];
	unsigned long long n;

	if (strncmp(l, "cpu", 3) || kv_num(l, len, f->key, &n))
		return;
	v[0] = l + 3;
	vl[0] = strcspn(v[0], " \n");
	v[1] = f->label;
	vl[1] = f->label ? strlen(f->label) : 0;
	sample(f->metric, k2, v, vl, f->label ? 2 : 1, n);
}

static void prom_account(const char *text)
{
	static const struct acct_field off = { "toggles_off", "msr_toggles_total", "off" };
	static const struct acct_field on = { "toggles_on", "msr_toggles_total", "on" };
	static const struct acct_field wr = { "msr_writes", "msr_writes_total", NULL };
	static const struct acct_field sk = { "msr_skipped", "msr_writes_skipped_total", NULL };
	static const struct acct_field re = { "reasserts", "sld_reasserts_total", NULL };

	if (!text)
		return;
	head("msr_toggles_total", "counter",
	     "Split-lock detection turned off or back on, per CPU.");
	each_line(text, acct_one, (void *)&off);
	each_line(text, acct_one, (void *)&on);
	head("msr_writes_total", "counter", "MSR_TEST_CTRL writes made, per CPU.");
	each_line(text, acct_one, (void *)&wr);
	head("msr_writes_skipped_total", "counter",
	     "MSR_TEST_CTRL writes skipped (no SLD on this CPU), per CPU.");
	each_line(text, acct_one, (void *)&sk);
	head("sld_reasserts_total", "counter",
	     "Split-lock detection re-asserted on a CPU.");
	each_line(text, acct_one, (void *)&re);
}

/* ---- modules: "NAME VERDICT REASON ... guest_calls=N ... flags=..." -- */

static void mod_info(const char *l, size_t len, void *ctx)
{
	static const char *const k[] = { "module", "verdict", "reason" };
	const char *v[3];
	size_t vl[3];
	int i;

	if (dup_first(ctx, l))
		return;
	v[0] = l;
	for (i = 0; i < 3; i++) {
		vl[i] = strcspn(v[i], " \n");
		if (v[i] + vl[i] >= l + len)
			return;
		if (i < 2)
			v[i + 1] = v[i] + vl[i] + 1;
	}
	sample("module_info", k, v, vl, 3, 1);
}

static void mod_calls(const char *l, size_t len, void *ctx)
{
	static const char *const k = "module";
	const char *v = l;
	size_t vl = strcspn(l, " \n");
	unsigned long long n;

	if (dup_first(ctx, l))
		return;
	if (vl < len && !kv_num(l, len, "guest_calls", &n))
		sample("module_guest_calls_total", &k, &v, &vl, 1, n);
}

static void prom_modules(const char *text)
{
	if (!text)
		return;
	head("module_info", "gauge",
	     "Modules sld_compat classified: verdict and reason (value 1).");
	each_line(text, mod_info, (void *)text);
	head("module_guest_calls_total", "counter",
	     "Calls of each module's guest-entry handler sld_compat saw.");
	each_line(text, mod_calls, (void *)text);
}

/* ---- offenders, from the kernel log ----------------------------------- */

static void prom_offenders(void)
{
	unsigned long long tasks[OFF_OTHER + 1] = { 0 };
	unsigned long long traps[OFF_OTHER + 1][OFF_NKINDS] = { { 0 } };
	struct offenders o;
	char why[256];
	size_t i;
	int c, k, ok;

	ok = !offenders_read(&o, NULL, why, sizeof(why));
	if (!ok)
		fprintf(stderr, "sldctl status: offenders: %s\n", why);
	head("offenders_log_readable", "gauge",
	     "1 if the kernel log could be read for offenders.");
	sample("offenders_log_readable", NULL, NULL, NULL, 0, ok);
	if (!ok)
		return;
	for (i = 0; i < o.n; i++) {
		tasks[o.v[i].cls]++;
		for (k = 0; k < OFF_NKINDS; k++)
			traps[o.v[i].cls][k] += o.v[i].t->n[k];
	}
	head("offender_tasks", "gauge",
	     "Tasks with split-lock lines in the kernel log this boot, by class.");
	for (c = 0; c <= OFF_OTHER; c++)
		sample1("offender_tasks", "class", off_class_name(c), tasks[c]);
	head("offender_log_lines", "gauge",
	     "Split-lock lines in the kernel log this boot, by class and kind.");
	for (c = 0; c <= OFF_OTHER; c++)
		for (k = 0; k < OFF_NKINDS; k++) {
			static const char *const kk[] = { "class", "kind" };
			const char *v[] = { off_class_name(c), off_kind_name(k) };
			size_t vl[] = { strlen(v[0]), strlen(v[1]) };

			sample("offender_log_lines", kk, v, vl, 2, traps[c][k]);
		}
	offenders_free(&o);
}

static void prom_scalar(const char *name, const char *help, const char *text)
{
	unsigned long long v;
	char *end;

	if (!text || *text < '0' || *text > '9')
		return;
	v = strtoull(text, &end, 10);
	if (*end && *end != '\n')
		return;
	head(name, "gauge", help);
	sample(name, NULL, NULL, NULL, 0, v);
}

/* "bus-lock #DB: why..." -> the label mechanism="bus-lock #DB". */
static void prom_mechanism(const char *text)
{
	static const char *const k[] = { "mechanism" };
	const char *v[] = { text };
	size_t vl[1];

	if (!text)
		return;
	vl[0] = strcspn(text, ":\n");
	head("mechanism", "gauge",
	     "The trap the kernel raises for a split lock here: split-lock #AC, bus-lock #DB, both or none (value 1).");
	sample("mechanism", k, v, vl, 1, 1);
}

void status_prom(const struct prom_in *in)
{
	static const char *const k[] = { "version", "sld_mode" };

	head("loaded", "gauge", "1 if the sld_compat module is loaded.");
	sample("loaded", NULL, NULL, NULL, 0, in->loaded);
	head("read_errors", "gauge", "Status files sldctl could not read.");
	sample("read_errors", NULL, NULL, NULL, 0, in->errors);
	if (in->loaded && in->version && in->sld_mode) {
		const char *v[] = { in->version, in->sld_mode };
		size_t vl[] = { strlen(v[0]), strlen(v[1]) };

		head("info", "gauge", "sld_compat version and the kernel's split-lock mode (value 1).");
		sample("info", k, v, vl, 2, 1);
	}
	if (in->loaded) {
		prom_mechanism(in->mechanism);
		prom_ac(in->ac);
		if (in->db) {
			ac_family(in->db, db_traps, "outcome", "counter",
				  "Bus-lock #DB traps seen by sld_compat, by outcome.");
			prom_siblings(in->db);
		}
		prom_hv(in->hypervisors);
		prom_tasks(in->tasks);
		prom_runs(in->runs);
		prom_account(in->account);
		prom_modules(in->modules);
		prom_scalar("sld_disable_holders",
			    "Holders keeping split-lock detection off now (disable_count).",
			    in->disable_count);
	}
	prom_offenders();
}
