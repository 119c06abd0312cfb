// SPDX-License-Identifier: GPL-2.0
/*
 * knobstress: concurrent knob writers for the VM suite (t/26-knobstress.sh).
 *
 *   knobstress SECONDS DIR [MODULE.ko ...]
 *
 * Four threads hammer every knob file in DIR (/sys/module/sld_compat/
 * parameters) for SECONDS with valid and invalid values, and read knobs
 * back; a fifth loads and unloads the given fixture modules in a loop;
 * a sixth, if /dev/fx_actest exists, runs the user #AC path (whose
 * exempt check reads exempt_comm under RCU). Checks:
 *  - every invalid write fails with EINVAL (or is a 0-byte write that
 *    sysfs never passes on), every valid one succeeds;
 *  - every read returns exactly one whole value that a writer wrote (or
 *    the knob's value at start): never a mix of two.
 * Knobs this program does not know get invalid writes only, so they must
 * read back their starting value throughout.
 * KNOBSTRESS_KNOBS="a b" limits the run to those knobs, KNOBSTRESS_SKIP="a"
 * leaves knobs out, KNOBSTRESS_AC=0 leaves the #AC thread out.
 * Prints one summary line; exit 0 if nothing was violated.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../../fixtures/fx_actest.h"

#define MAXV 8
#define MAXK 32

struct knob {
	char name[256];
	char path[4096 + 256];
	const char *w[MAXV];	/* valid writes */
	const char *r[MAXV];	/* what each reads back */
	int nv;
	char start[4096];	/* value at start, also allowed on read */
};

/* Valid values: written whole, and what each reads back. */
static const struct {
	const char *name;
	const char *w[MAXV], *r[MAXV];
} known[] = {
	{ "verbose", { "0", "1", "2", "3\n" }, { "0", "1", "2", "3" } },
	{ "enabled", { "Y", "N\n", "1", "0" }, { "Y", "N", "Y", "N" } },
	{ "on_hypervisor", { "protect", "log\n", "disable", "refuse" },
	  { "protect", "log", "disable", "refuse" } },
	{ "safe_modules", { "ks_a,ks_b", "ks_c\n", "ks_d,ks_e,ks_f,ks_g,ks_h" },
	  { "ks_a,ks_b", "ks_c", "ks_d,ks_e,ks_f,ks_g,ks_h" } },
	{ "hypervisor_modules", { "kh_a", "kh_b,kh_c,kh_d\n" },
	  { "kh_a", "kh_b,kh_c,kh_d" } },
	{ "exempt_path", { "/tests/bin/sldtest", "/tests/bin/knobstress\n", "-" },
	  { "/tests/bin/sldtest", "/tests/bin/knobstress", "-" } },
	{ "exempt_proactive", { "Y", "N\n" }, { "Y", "N" } },
	{ "max_tasks", { "1024", "4096\n" }, { "1024", "4096" } },
	{ "tasks_per_uid", { "512", "1000\n" }, { "512", "1000" } },
	{ "exempt_comm", { "knobstress,ks_x", "ks_y\n", "-",
			   "ks_1,ks_2,ks_3,ks_4,ks_5,ks_6,ks_7,ks_8" },
	  { "knobstress,ks_x", "ks_y", "-",
	    "ks_1,ks_2,ks_3,ks_4,ks_5,ks_6,ks_7,ks_8" } },
};

/* Invalid for every knob (see t/25-badinput.sh for the full tables). */
static const struct { const char *v; size_t len; } bad[] = {
	{ "\n", 1 }, { " ", 1 }, { "\xff", 1 }, { "a\0b", 3 },
	{ "\x1b[0m", 4 }, { "../../../etc/passwd/x", 21 }, { "-1", 2 },
	{ "\t1", 2 }, { "", 0 },
};

static struct knob knobs[MAXK];
static int nknobs;
static atomic_bool stop;
static atomic_ulong n_reads, n_writes, n_rejected, n_torn, n_errno, n_loads,
	n_load_fail, n_ac;
static pthread_mutex_t say_lock = PTHREAD_MUTEX_INITIALIZER;

static void say(const char *fmt, const char *a, const char *b, int c)
{
	static int said;

	pthread_mutex_lock(&say_lock);
	if (said++ < 10) {
		fprintf(stderr, fmt, a, b, c);
		fputc('\n', stderr);
	}
	pthread_mutex_unlock(&say_lock);
}

static int readv_knob(const struct knob *k, char *buf, size_t size)
{
	int fd = open(k->path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = 0;
	return 0;
}

static void check_read(const struct knob *k)
{
	char buf[4096];
	int i;

	if (readv_knob(k, buf, sizeof(buf))) {
		atomic_fetch_add(&n_errno, 1);
		say("read %s: %s%d", k->name, strerror(errno), 0);
		return;
	}
	atomic_fetch_add(&n_reads, 1);
	if (!strcmp(buf, k->start))
		return;
	for (i = 0; i < k->nv; i++)
		if (!strcmp(buf, k->r[i]))
			return;
	atomic_fetch_add(&n_torn, 1);
	say("read %s: '%s' was never written whole%.0d", k->name, buf, 0);
}

static void do_write(const struct knob *k, const char *v, size_t len,
		     bool valid)
{
	int fd = open(k->path, O_WRONLY);
	ssize_t n;

	if (fd < 0) {
		atomic_fetch_add(&n_errno, 1);
		say("open %s: %s%d", k->name, strerror(errno), 0);
		return;
	}
	n = write(fd, v, len);
	close(fd);
	atomic_fetch_add(&n_writes, 1);
	if (valid && n != (ssize_t)len) {
		atomic_fetch_add(&n_errno, 1);
		say("valid write to %s failed: %s (%d)", k->name,
		    n < 0 ? strerror(errno) : "short", (int)n);
	} else if (!valid) {
		if (n < 0 && errno == EINVAL)
			atomic_fetch_add(&n_rejected, 1);
		else if (!(len == 0 && n == 0)) {
			atomic_fetch_add(&n_errno, 1);
			say("invalid write to %s: got %s (%d)", k->name,
			    n < 0 ? strerror(errno) : "accepted", (int)n);
		}
	}
}

static void *writer(void *arg)
{
	unsigned int seed = (unsigned int)(uintptr_t)arg * 2654435761u;

	while (!atomic_load(&stop)) {
		const struct knob *k = &knobs[rand_r(&seed) % nknobs];

		if (k->nv && rand_r(&seed) % 2) {
			const char *v = k->w[rand_r(&seed) % k->nv];

			do_write(k, v, strlen(v), true);
		} else {
			int b = rand_r(&seed) % (sizeof(bad) / sizeof(bad[0]));

			do_write(k, bad[b].v, bad[b].len, false);
		}
		check_read(&knobs[rand_r(&seed) % nknobs]);
	}
	return NULL;
}

static char **mods;
static int nmods;

static void *loader(void *arg)
{
	(void)arg;
	while (nmods && !atomic_load(&stop)) {
		for (int i = 0; i < nmods && !atomic_load(&stop); i++) {
			char name[64];
			const char *b = strrchr(mods[i], '/');
			int fd = open(mods[i], O_RDONLY);

			snprintf(name, sizeof(name), "%s", b ? b + 1 : mods[i]);
			name[strcspn(name, ".")] = 0;
			if (fd < 0 || syscall(SYS_finit_module, fd, "", 0)) {
				atomic_fetch_add(&n_load_fail, 1);
			} else {
				atomic_fetch_add(&n_loads, 1);
				syscall(SYS_delete_module, name, O_NONBLOCK);
			}
			if (fd >= 0)
				close(fd);
		}
	}
	return NULL;
}

/* The guest handler's SIGBUS (kernel mode off): counted, not fatal. */
static atomic_ulong n_sigbus;
static atomic_bool ac_guest_path;	/* the user handler was sealed */

static void on_sigbus(int sig)
{
	(void)sig;
	atomic_fetch_add(&n_sigbus, 1);
}

static void *acpath(void *arg)
{
	const char *on = getenv("KNOBSTRESS_AC");
	unsigned long cmd = FX_AC_USER;
	int fd;

	(void)arg;
	if (on && !strcmp(on, "0"))
		return NULL;
	fd = open("/dev/fx_actest", O_RDWR);
	if (fd < 0)
		return NULL;
	signal(SIGBUS, on_sigbus);
	while (!atomic_load(&stop)) {
		if (ioctl(fd, cmd) >= 0)
			atomic_fetch_add(&n_ac, 1);
		/* The user handler is sealed under IBT: the guest one is not. */
		else if (errno == EOPNOTSUPP && cmd == FX_AC_USER) {
			cmd = FX_AC_GUEST;
			atomic_store(&ac_guest_path, true);
		}
	}
	close(fd);
	return NULL;
}

static void add_knob(const char *dir, const char *name)
{
	struct knob *k;
	size_t i;

	if (nknobs >= MAXK)
		return;
	k = &knobs[nknobs];
	snprintf(k->name, sizeof(k->name), "%s", name);
	snprintf(k->path, sizeof(k->path), "%.4000s/%s", dir, name);
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		if (strcmp(known[i].name, name))
			continue;
		for (k->nv = 0; k->nv < MAXV && known[i].w[k->nv]; k->nv++) {
			k->w[k->nv] = known[i].w[k->nv];
			k->r[k->nv] = known[i].r[k->nv];
		}
	}
	if (readv_knob(k, k->start, sizeof(k->start))) {
		perror(k->path);
		exit(1);
	}
	nknobs++;
}

static void on_sig(int sig)
{
	(void)sig;
}

int main(int argc, char **argv)
{
	pthread_t w[4], l, a;
	struct dirent *de;
	DIR *d;
	int secs, i;

	if (argc < 3) {
		fprintf(stderr, "usage: knobstress SECONDS DIR [MODULE.ko ...]\n");
		return 2;
	}
	secs = atoi(argv[1]);
	signal(SIGBUS, on_sig);
	d = opendir(argv[2]);
	if (!d) {
		perror(argv[2]);
		return 1;
	}
	while ((de = readdir(d))) {
		const char *only = getenv("KNOBSTRESS_KNOBS");
		const char *skip = getenv("KNOBSTRESS_SKIP");
		char pat[300], list[1024];

		snprintf(pat, sizeof(pat), " %s ", de->d_name);
		if (de->d_name[0] == '.')
			continue;
		snprintf(list, sizeof(list), " %s ", only ? only : "");
		if (only && !strstr(list, pat))
			continue;
		snprintf(list, sizeof(list), " %s ", skip ? skip : "");
		if (skip && strstr(list, pat))
			continue;
		add_knob(argv[2], de->d_name);
	}
	closedir(d);
	if (!nknobs) {
		fprintf(stderr, "knobstress: no knobs in %s\n", argv[2]);
		return 1;
	}
	mods = argv + 3;
	nmods = argc - 3;
	for (i = 0; i < 4; i++)
		pthread_create(&w[i], NULL, writer, (void *)(uintptr_t)(i + 1));
	pthread_create(&l, NULL, loader, NULL);
	pthread_create(&a, NULL, acpath, NULL);
	sleep(secs);
	atomic_store(&stop, true);
	for (i = 0; i < 4; i++)
		pthread_join(w[i], NULL);
	pthread_join(l, NULL);
	pthread_join(a, NULL);
	printf("knobs=%d reads=%lu writes=%lu rejected=%lu torn=%lu unexpected=%lu loads=%lu load_failed=%lu ac_calls=%lu ac_path=%s ac_sigbus=%lu\n",
	       nknobs, atomic_load(&n_reads), atomic_load(&n_writes),
	       atomic_load(&n_rejected), atomic_load(&n_torn),
	       atomic_load(&n_errno), atomic_load(&n_loads),
	       atomic_load(&n_load_fail), atomic_load(&n_ac),
	       atomic_load(&ac_guest_path) ? "guest" : "user", atomic_load(&n_sigbus));
	return atomic_load(&n_torn) || atomic_load(&n_errno) ? 1 : 0;
}
