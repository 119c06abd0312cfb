// SPDX-License-Identifier: GPL-2.0
/*
 * Parser of the kernel log's split-lock lines (offlog.h): pure, no
 * system calls, so it can be unit-tested and fuzzed on any bytes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "offlog.h"

#define MSG_MAX		2048	/* a record's text, unescaped */

#define KERNEL_PFX	"x86/split lock detection: "
#define COMPAT_PFX	"sld_compat: split lock by "
#define COMPAT_TAIL	"]: handled "
#define ADDR_TAIL	" at address: 0x"

struct span {
	const char *p;
	size_t n;
};

/* One line of the input, as a record: its time and its message. */
struct rec {
	char time[OFF_TIME_MAX];
	char msg[MSG_MAX];
	size_t len;
};

static const char *const kind_names[OFF_NKINDS] = {
	[OFF_SPLIT_LOCK] = "split_lock", [OFF_FATAL] = "fatal",
	[OFF_BOGUS] = "bogus", [OFF_BUS_LOCK] = "bus_lock",
	[OFF_HANDLED] = "handled",
};

const char *off_kind_name(enum off_kind k)
{
	return k < OFF_NKINDS ? kind_names[k] : "?";
}

void off_log_init(struct off_log *l)
{
	memset(l, 0, sizeof(*l));
}

void off_log_free(struct off_log *l)
{
	free(l->v);
	off_log_init(l);
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int hexval(char c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool starts(struct span s, const char *pfx)
{
	size_t n = strlen(pfx);

	return s.n >= n && !memcmp(s.p, pfx, n);
}

static bool ends(struct span s, const char *sfx)
{
	size_t n = strlen(sfx);

	return s.n >= n && !memcmp(s.p + s.n - n, sfx, n);
}

/* Decimal number of 1..maxdig digits at s->p, consumed. -1 if none. */
static long long take_num(struct span *s, size_t maxdig)
{
	long long v = 0;
	size_t i;

	for (i = 0; i < s->n && i < maxdig && is_digit(s->p[i]); i++)
		v = v * 10 + (s->p[i] - '0');
	if (!i || (i < s->n && is_digit(s->p[i])))
		return -1;
	s->p += i;
	s->n -= i;
	return v;
}

/* Position of the last occurrence of needle in s, or NULL. */
static const char *last_of(struct span s, const char *needle)
{
	size_t n = strlen(needle), i;

	for (i = s.n; i >= n; i--)
		if (!memcmp(s.p + i - n, needle, n))
			return s.p + i - n;
	return NULL;
}

/* Copy msg into r, undoing /dev/kmsg's \xNN escapes when kmsg is set. */
static void set_msg(struct rec *r, struct span m, bool kmsg)
{
	size_t i, o = 0;

	for (i = 0; i < m.n && o < MSG_MAX - 1; i++) {
		if (kmsg && m.p[i] == '\\' && i + 3 < m.n && m.p[i + 1] == 'x' &&
		    hexval(m.p[i + 2]) >= 0 && hexval(m.p[i + 3]) >= 0) {
			r->msg[o++] = (char)(hexval(m.p[i + 2]) * 16 + hexval(m.p[i + 3]));
			i += 3;
			continue;
		}
		r->msg[o++] = m.p[i];
	}
	r->msg[o] = '\0';
	r->len = o;
}

/* "prio,seq,usec[,more];message": a /dev/kmsg record. */
static int kmsg_record(struct off_log *l, struct span s, struct rec *r)
{
	long long prio, seq, usec;
	const char *semi;

	prio = take_num(&s, 4);
	if (prio < 0 || !starts(s, ","))
		return -1;
	s.p++, s.n--;
	seq = take_num(&s, 18);
	if (seq < 0 || !starts(s, ","))
		return -1;
	s.p++, s.n--;
	usec = take_num(&s, 18);
	if (usec < 0 || !starts(s, ","))
		return -1;
	semi = memchr(s.p, ';', s.n);
	if (!semi)
		return -1;
	if (!l->have_seq) {
		l->have_seq = true;
		l->first_seq = seq;
	}
	snprintf(r->time, sizeof(r->time), "%lld.%06lld", usec / 1000000,
		 usec % 1000000);
	s.n -= semi + 1 - s.p;
	s.p = semi + 1;
	set_msg(r, s, true);
	return 0;
}

/*
 * journalctl: "[  12.345678] host kernel: msg" (short-monotonic) or
 * "TIMESTAMP host kernel: msg" (short, short-iso, ...).
 */
/* A time stamp or a rule name: printable ASCII without spaces, no NUL. */
static bool printable(const char *p, const char *e)
{
	for (; p < e; p++)
		if (*p <= ' ' || *p > '~')
			return false;
	return true;
}

static int journal_record(struct span s, struct rec *r)
{
	const char *t = s.p, *te, *k;
	struct span rest;

	if (*t == '[') {
		te = memchr(t, ']', s.n);
		if (!te)
			return -1;
		for (t++; t < te && *t == ' '; t++)
			;
	} else {
		te = memchr(t, ' ', s.n);
		if (!te)
			return -1;
	}
	if (te - t >= OFF_TIME_MAX || te == t || !printable(t, te))
		return -1;
	memcpy(r->time, t, te - t);
	r->time[te - t] = '\0';
	rest.p = te;
	rest.n = s.n - (te - s.p);
	k = memmem(rest.p, rest.n, " kernel: ", 9);
	if (!k)
		return -1;
	rest.n -= k + 9 - rest.p;
	rest.p = k + 9;
	set_msg(r, rest, false);
	return 0;
}

static struct off_task *task_get(struct off_log *l, const char *comm, int pid)
{
	struct off_task *t;
	size_t i;

	for (i = l->n; i > 0; i--)
		if (l->v[i - 1].pid == pid && !strcmp(l->v[i - 1].comm, comm))
			return &l->v[i - 1];
	if (l->n == OFF_TASKS_MAX)
		return NULL;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;

		t = realloc(l->v, cap * sizeof(*t));
		if (!t)
			return NULL;
		l->v = t;
		l->cap = cap;
	}
	t = &l->v[l->n++];
	memset(t, 0, sizeof(*t));
	strcpy(t->comm, comm);
	t->pid = pid;
	return t;
}

/* A trap line's task, kind and sld_compat rule (why), parsed. */
struct hit {
	char comm[OFF_COMM_MAX];
	long long pid;
	enum off_kind kind;
	char why[OFF_WHY_MAX];
};

/* "COMM" + sep + "PID" filling s exactly (sep '/' or '['). */
static int comm_pid(struct span s, char sep, struct hit *h)
{
	const char *p = s.p + s.n;
	struct span num;

	while (p > s.p && is_digit(p[-1]))
		p--;
	if (p == s.p + s.n || p == s.p || p[-1] != sep)
		return -1;
	num.p = p;
	num.n = s.p + s.n - p;
	h->pid = take_num(&num, 7);
	if (h->pid <= 0 || h->pid > OFF_PID_MAX || num.n)
		return -1;
	s.n = p - 1 - s.p;
	if (s.n >= OFF_COMM_MAX || memchr(s.p, '\0', s.n))
		return -1;
	memcpy(h->comm, s.p, s.n);
	h->comm[s.n] = '\0';
	return 0;
}

static const struct {
	const char *pfx, *sfx;
	enum off_kind kind;
} kernel_lines[] = {
	{ "#AC: ", " took a split_lock trap", OFF_SPLIT_LOCK },
	{ "#AC: ", " fatal split_lock trap", OFF_FATAL },
	{ "#AC: ", " bogus split_lock trap", OFF_BOGUS },
	{ "#DB: ", " took a bus_lock trap", OFF_BUS_LOCK },
};

/* "#AC: COMM/PID took a split_lock trap at address: 0xADDR" and kin. */
static int kernel_line(struct span s, struct hit *h)
{
	size_t i, hex = 0;

	while (s.n && (s.p[s.n - 1] == ' ' || s.p[s.n - 1] == '\r'))
		s.n--;
	while (hex < s.n && hexval(s.p[s.n - 1 - hex]) >= 0)
		hex++;
	if (!hex || hex > 16)
		return -1;
	s.n -= hex;
	if (!ends(s, ADDR_TAIL))
		return -1;
	s.n -= strlen(ADDR_TAIL);
	for (i = 0; i < sizeof(kernel_lines) / sizeof(kernel_lines[0]); i++) {
		struct span c = s;

		/* pfx and sfx may overlap in a short line: "#AC: took a ..." */
		if (c.n < 5 + strlen(kernel_lines[i].sfx) ||
		    !starts(c, kernel_lines[i].pfx) || !ends(c, kernel_lines[i].sfx))
			continue;
		c.p += 5;
		c.n -= 5 + strlen(kernel_lines[i].sfx);
		h->kind = kernel_lines[i].kind;
		return comm_pid(c, '/', h);
	}
	return -1;
}

/*
 * "split lock by WHY task COMM[PID]: handled in warn mode ...". sld_compat
 * writes COMM escaped (src/schema/escape.h: \xNN for every byte outside
 * printable ASCII and for the backslash), which is undone here, once
 * more than /dev/kmsg's own escapes: a task named "a\nb" is logged as
 * "a\x0ab" (/dev/kmsg shows "a\x5cx0ab"), and its comm is "a\nb" again.
 */
static int compat_line(struct span s, struct hit *h)
{
	const char *tail = last_of(s, COMPAT_TAIL), *sp;
	char un[4 * OFF_COMM_MAX + 16];	/* COMM escaped, '[', PID */
	struct span u = { un, 0 };
	size_t i;

	if (!tail)
		return -1;
	s.n = tail + 1 - s.p;		/* up to and with ']' */
	sp = memmem(s.p, s.n, " task ", 6);
	if (!sp || sp == s.p || sp - s.p >= OFF_WHY_MAX || !printable(s.p, sp))
		return -1;
	memcpy(h->why, s.p, sp - s.p);
	h->why[sp - s.p] = '\0';
	s.n -= sp + 6 - s.p;
	s.p = sp + 6;
	if (!ends(s, "]"))
		return -1;
	s.n--;
	for (i = 0; i < s.n; i++) {
		if (u.n == sizeof(un))
			return -1;
		if (s.p[i] == '\\' && i + 3 < s.n && s.p[i + 1] == 'x' &&
		    hexval(s.p[i + 2]) >= 0 && hexval(s.p[i + 3]) >= 0) {
			un[u.n++] = (char)(hexval(s.p[i + 2]) * 16 + hexval(s.p[i + 3]));
			i += 3;
		} else {
			un[u.n++] = s.p[i];
		}
	}
	h->kind = OFF_HANDLED;
	return comm_pid(u, '[', h);
}

/*
 * A trap line, maybe cut short: any #AC/#DB line of the kernel's but the
 * boot-time ones ("... on user-space split_locks", "... rate limit ..."),
 * sld_compat's, or any line naming a trap.
 */
static bool is_candidate(const struct rec *r)
{
	struct span s = { r->msg, r->len };

	if (starts(s, KERNEL_PFX "#AC: ") || starts(s, KERNEL_PFX "#DB: "))
		return !memmem(s.p, s.n, " user-space ", 12) &&
		       !memmem(s.p, s.n, " rate limit ", 12);
	return starts(s, COMPAT_PFX) || memmem(s.p, s.n, "_lock trap", 10);
}

static int count_hit(struct off_log *l, const struct rec *r, const struct hit *h)
{
	struct off_task *t = task_get(l, h->comm, (int)h->pid);

	if (!t) {
		if (l->n < OFF_TASKS_MAX)
			return -ENOMEM;
		l->dropped++;
		return 0;
	}
	if (!t->first[0])
		strcpy(t->first, r->time);
	strcpy(t->last, r->time);
	t->n[h->kind]++;
	if (h->kind == OFF_HANDLED)
		strcpy(t->why, h->why);
	l->matched++;
	return 0;
}

/* A record's message: counted, bad, or of no interest. */
static int message(struct off_log *l, const struct rec *r)
{
	struct span s = { r->msg, r->len };
	struct hit h = { .kind = OFF_SPLIT_LOCK };
	int err = -1;

	if (!is_candidate(r))
		return 0;
	if (starts(s, KERNEL_PFX)) {
		s.p += strlen(KERNEL_PFX);
		s.n -= strlen(KERNEL_PFX);
		err = kernel_line(s, &h);
	} else if (starts(s, COMPAT_PFX)) {
		s.p += strlen(COMPAT_PFX);
		s.n -= strlen(COMPAT_PFX);
		err = compat_line(s, &h);
	}
	if (err) {
		l->bad++;
		return 0;
	}
	return count_hit(l, r, &h);
}

static int line(struct off_log *l, struct span s, struct rec *r)
{
	struct span d = s;
	int err;

	if (!s.n || s.p[0] == ' ')	/* kmsg's continuation lines */
		return 0;
	take_num(&d, 18);
	if (d.p != s.p && starts(d, ","))
		err = kmsg_record(l, s, r);
	else if (s.p[0] == '[' || d.p != s.p)
		err = journal_record(s, r);
	else if (memmem(s.p, s.n, "_lock trap", 10))
		err = -1;		/* a trap line in no known format */
	else
		return 0;		/* "-- Boot ... --", "-- No entries --" */
	if (err) {
		l->bad++;
		return 0;
	}
	l->records++;
	return message(l, r);
}

int off_log_parse(struct off_log *l, const char *buf, size_t len)
{
	struct rec *r = malloc(sizeof(*r));
	const char *end = buf + len, *nl;
	struct span s;
	int err = 0;

	if (!r)
		return -ENOMEM;
	while (buf < end && !err) {
		nl = memchr(buf, '\n', end - buf);
		s.p = buf;
		s.n = (nl ? nl : end) - buf;
		err = line(l, s, r);
		buf = nl ? nl + 1 : end;
	}
	free(r);
	return err;
}
