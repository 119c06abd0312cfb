// SPDX-License-Identifier: GPL-2.0
/*
 * sldtest: the small static helper the VM suite drives. Shell cannot write
 * an exact byte string in one write(2) or report the errno by name, so
 * this does, and it grows the task-side actions tests need.
 *
 *   sldtest write FILE DATA     DATA with \n \t \0 \\ \xNN escapes; prints
 *                               OK or the errno name (EINVAL, EACCES, ...)
 *   sldtest asuser UID CMD...   drop to UID/GID and exec CMD
 *   sldtest ac user|guest [N]   N (default 1) split-lock #AC handler calls
 *                               through /dev/fx_actest; prints
 *                               "handled=H sigbus=S mean_us=M mean_ns=M
 *                               real=0"; where the fixture cannot call
 *                               the user handler (sealed under IBT), N
 *                               real split locks 20 ms apart instead,
 *                               "real=1" (H: those completed; M: the
 *                               lock alone)
 *   sldtest ac guest-warn [N]   split_lock_warn() instead of the guest
 *                               handler: its warn-mode body (benchmark)
 *   sldtest ac offline          the kernel's splitlock_cpu_offline() on this
 *                               CPU, as CPU hotplug calls it; prints OK or
 *                               the errno name
 *                               (SLDTEST_GATE=FILE: the first once FILE exists;
 *                               SLDTEST_COMM=NAME: renamed to NAME first)
 *   sldtest ac null [N]         the same ioctl round trip without a handler
 *                               (the fixture answers ENOTTY): the baseline
 *   sldtest vcpus N FMT         N threads made after exec, each naming
 *                               itself FMT ("CPU %d/KVM"; - keeps the
 *                               name), then 3 guest split locks; prints
 *                               "vcpuI name=.. before=WHY|none handled=H
 *                               sigbus=S" per thread
 *   sldtest timeit CMD...       run CMD, print "ns=N rc=R" (wall time)
 *   sldtest rmmod NAME [force]  delete_module(NAME) as rmmod [-f] asks it
 *                               (O_NONBLOCK, O_TRUNC with force); prints
 *                               OK or the errno name (EAGAIN: in use)
 *   sldtest badargs FILE.ko     finit_module(FILE) with an unreadable
 *                               parameter string: the load fails with
 *                               EFAULT after module_finalize, before
 *                               COMING; prints OK or the errno name
 *   sldtest uidpark N UID0 NAME STOPFILE [DEV]
 *                               N processes, the i-th as uid and gid
 *                               UID0+i, each naming itself NAME (any
 *                               bytes), with DEV then making one RUN
 *                               ioctl on /dev/DEV (a simulated
 *                               hypervisor's vCPU), and then blocking
 *                               until STOPFILE exists; prints "parked=N
 *                               failed=F" once all have done so (one at
 *                               a time, with a pause every 16 so the pool
 *                               grows)
 *   sldtest renames N MS NAME STOPFILE [TASKS GEN]
 *                               N workers until STOPFILE exists, each
 *                               making thread after thread that names
 *                               itself NAME four times, spinning MS ms
 *                               after each, then exits; prints
 *                               "threads=T renames=R". With TASKS (the
 *                               module's tasks file) and GEN (a number
 *                               the caller raises after each write that
 *                               releases, once it returned) each thread
 *                               names itself once, then for MS ms reads
 *                               its own line there: if it says
 *                               why=released running=1, the thread
 *                               spins until GEN changes or STOPFILE
 *                               appears (1 s at most)
 *                               and reads it again; still so is a hold
 *                               kept for a released record (printed to
 *                               stderr), GEN unchanged is unsure; prints
 *                               "threads=T renames=R bad=B unsure=U"
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../fixtures/fx_actest.h"
#include "../../fixtures/fx_hv.h"
#include "realsplit.h"

static int usage(void)
{
	fprintf(stderr, "usage: sldtest write FILE DATA | asuser UID CMD... | ac user|guest|guest-warn|null [N] | ac offline | vcpus N FMT | timeit CMD... | rmmod NAME [force] | badargs FILE.ko | uidpark N UID0 NAME STOPFILE [DEV] | renames N MS NAME STOPFILE [TASKS GEN]\n");
	return 2;
}

static void wait_file(const char *path)
{
	while (access(path, F_OK))
		usleep(20000);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Decode escapes in place; returns the byte count. */
static size_t unescape(char *s)
{
	char *out = s;
	const char *in = s;

	while (*in) {
		if (*in != '\\' || !in[1]) {
			*out++ = *in++;
			continue;
		}
		in++;
		switch (*in) {
		case 'n': *out++ = '\n'; in++; break;
		case 't': *out++ = '\t'; in++; break;
		case '0': *out++ = '\0'; in++; break;
		case 'x':
			if (hexval(in[1]) >= 0 && hexval(in[2]) >= 0) {
				*out++ = (char)(hexval(in[1]) * 16 + hexval(in[2]));
				in += 3;
				break;
			}
			/* fall through */
		default: *out++ = *in++; break;
		}
	}
	return (size_t)(out - s);
}

static int cmd_write(int argc, char **argv)
{
	size_t len;
	ssize_t n;
	int fd;

	if (argc != 4)
		return usage();
	len = unescape(argv[3]);
	fd = open(argv[2], O_WRONLY);
	if (fd < 0) {
		printf("%s\n", strerrorname_np(errno));
		return 0;
	}
	n = write(fd, argv[3], len);
	if (n < 0)
		printf("%s\n", strerrorname_np(errno));
	else if ((size_t)n != len)
		printf("SHORT %zd/%zu\n", n, len);
	else
		printf("OK\n");
	close(fd);
	return 0;
}

static int cmd_asuser(int argc, char **argv)
{
	uid_t uid;

	if (argc < 4)
		return usage();
	uid = (uid_t)strtoul(argv[2], NULL, 10);
	if (setgroups(0, NULL) || setgid(uid) || setuid(uid)) {
		perror("sldtest: setuid");
		return 1;
	}
	execvp(argv[3], argv + 3);
	perror("sldtest: exec");
	return 127;
}

static volatile sig_atomic_t sigbus_seen;

static void on_sigbus(int sig)
{
	(void)sig;
	sigbus_seen++;
}

/*
 * SLDTEST_GATE=FILE: wait until FILE exists (a test changes rules
 * meanwhile).
 */
static void gate(void)
{
	const char *f = getenv("SLDTEST_GATE");
	const char *comm = getenv("SLDTEST_COMM");

	/* SLDTEST_COMM=NAME: named after exec, as a VMM names its vCPU threads. */
	if (comm)
		prctl(PR_SET_NAME, comm);

	while (f && access(f, F_OK))
		usleep(10000);
}

static int cmd_ac(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_sigbus };
	unsigned long cmd, i, n = 1, handled = 0;
	struct timespec t0, t1;
	bool null;
	double us;
	int fd, r;

	if (argc < 3 || argc > 4)
		return usage();
	if (!strcmp(argv[2], "offline")) {
		fd = open("/dev/fx_actest", O_RDWR);
		r = fd < 0 ? -1 : ioctl(fd, FX_AC_CPU_OFFLINE);
		printf("%s\n", r ? strerrorname_np(errno) : "OK");
		return r ? 1 : 0;
	}
	null = !strcmp(argv[2], "null");
	if (!strcmp(argv[2], "user"))
		cmd = FX_AC_USER;
	else if (!strcmp(argv[2], "guest"))
		cmd = FX_AC_GUEST;
	else if (!strcmp(argv[2], "guest-warn"))
		cmd = FX_AC_GUEST_WARN;
	else if (null)
		cmd = _IO('S', 0);
	else
		return usage();
	if (argc == 4)
		n = strtoul(argv[3], NULL, 10);
	if (!n)
		return usage();
	fd = open("/dev/fx_actest", O_RDWR);
	if (fd < 0) {
		printf("%s\n", strerrorname_np(errno));
		return 1;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
	gate();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++) {
		r = ioctl(fd, cmd);
		if (r < 0 && null && errno == ENOTTY)
			continue;
		if (r < 0 && !i && cmd == FX_AC_USER && errno == EOPNOTSUPP) {
			close(fd);
			return real_split_report(n);	/* the CPU's #AC */
		}
		if (r < 0) {
			printf("%s\n", strerrorname_np(errno));
			return 1;
		}
		handled += r == 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	us = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 1e3;
	printf("handled=%lu sigbus=%d mean_us=%.0f mean_ns=%.0f real=0\n", handled,
	       (int)sigbus_seen, us / n, us * 1e3 / n);
	close(fd);
	return 0;
}

static int cmd_timeit(int argc, char **argv)
{
	struct timespec t0, t1;
	pid_t pid;
	int st;

	if (argc < 3)
		return usage();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		perror("sldtest: fork");
		return 1;
	}
	if (!pid) {
		execvp(argv[2], argv + 2);
		perror("sldtest: exec");
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0) {
		perror("sldtest: waitpid");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("ns=%lld rc=%d\n",
	       (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL +
	       (t1.tv_nsec - t0.tv_nsec),
	       WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	return 0;
}

static int cmd_rmmod(int argc, char **argv)
{
	int flags = O_NONBLOCK;

	if (argc == 4 && !strcmp(argv[3], "force"))
		flags |= O_TRUNC;
	else if (argc != 3)
		return usage();
	printf("%s\n", syscall(SYS_delete_module, argv[2], flags) ?
	       strerrorname_np(errno) : "OK");
	return 0;
}

/* load_module() copies the parameters (strndup_user) after module_finalize. */
static int cmd_badargs(int argc, char **argv)
{
	int fd;
	long r;

	if (argc != 3)
		return usage();
	fd = open(argv[2], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror("sldtest: open");
		return 1;
	}
	r = syscall(SYS_finit_module, fd, (const char *)8, 0);
	printf("%s\n", r ? strerrorname_np(errno) : "OK");
	close(fd);
	return 0;
}

/* ---- vcpus: threads created after exec, as a VMM makes them ------------- */

static __thread volatile sig_atomic_t thread_sigbus;
static const char *vcpu_fmt;

static void on_thread_sigbus(int sig)
{
	(void)sig;
	thread_sigbus++;
}

/* This thread's why= in sld_compat's task list, or "none". */
static void task_why(char *out, size_t size)
{
	FILE *f = fopen("/sys/kernel/sld_compat/tasks", "r");
	char line[256], pfx[32];
	char *w;

	snprintf(out, size, "none");
	snprintf(pfx, sizeof(pfx), "%ld ", (long)syscall(SYS_gettid));
	while (f && fgets(line, sizeof(line), f)) {
		w = strstr(line, " why=");
		if (strncmp(line, pfx, strlen(pfx)) || !w)
			continue;
		snprintf(out, size, "%.*s", (int)strcspn(w + 5, " \n"), w + 5);
	}
	if (f)
		fclose(f);
}

static void *vcpu(void *arg)
{
	long i = (long)arg;
	char name[16], why[32];
	int fd, n, handled = 0;

	if (strcmp(vcpu_fmt, "-")) {
		snprintf(name, sizeof(name), vcpu_fmt, (int)i);
		prctl(PR_SET_NAME, name);
	}
	task_why(why, sizeof(why));
	fd = open("/dev/fx_actest", O_RDWR);
	for (n = 0; fd >= 0 && n < 3; n++)
		handled += ioctl(fd, FX_AC_GUEST) == 1;	/* 1: handled */
	prctl(PR_GET_NAME, name);
	printf("vcpu%ld name=%s before=%s handled=%d sigbus=%d\n", i, name,
	       why, handled, (int)thread_sigbus);
	if (fd >= 0)
		close(fd);
	return NULL;
}

/*
 * sldtest vcpus N FMT: N threads, one after the other, each named FMT
 * with its number ("CPU %d/KVM"; "-" keeps the name) by itself, then
 * three guest split locks through /dev/fx_actest.
 */
static int cmd_vcpus(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_thread_sigbus };
	long i, n;
	pthread_t t;

	if (argc != 4)
		return usage();
	n = strtol(argv[2], NULL, 10);
	vcpu_fmt = argv[3];
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < n; i++) {
		if (pthread_create(&t, NULL, vcpu, (void *)i))
			return 1;
		pthread_join(t, NULL);
	}
	return 0;
}

/* ---- uidpark: many uids, each with one task of a given name ------------ */

/* One RUN ioctl on /dev/dev; true if it worked. */
static bool hv_run_once(const char *dev)
{
	struct fx_run r = { .loops = 1 };
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/dev/%s", dev);
	fd = open(path, O_RDWR);
	return fd >= 0 && !ioctl(fd, FX_HV_RUN, &r);
}

/*
 * One parked process as uid: named (and a hypervisor's vCPU with dev),
 * says so on ready, waits for EOF on go.
 */
static void __attribute__((noreturn)) uidpark_child(uid_t uid,
						   const char *name,
						   const char *dev,
						   int ready, int go)
{
	bool ok = !setgroups(0, NULL) && !setresgid(uid, uid, uid) &&
		  !setresuid(uid, uid, uid);
	char c;

	if (ok)
		prctl(PR_SET_NAME, name);
	if (ok && dev)
		ok = hv_run_once(dev);
	if (write(ready, ok ? "r" : "f", 1) != 1 || !ok)
		_exit(1);
	while (read(go, &c, 1) > 0)
		;
	_exit(0);
}

static int cmd_uidpark(int argc, char **argv)
{
	unsigned long n, i, failed = 0;
	int ready[2], go[2];
	uid_t uid0;
	pid_t pid;
	char c;

	if (argc < 6 || argc > 7 || pipe(ready) || pipe(go))
		return usage();
	n = strtoul(argv[2], NULL, 10);
	uid0 = (uid_t)strtoul(argv[3], NULL, 10);
	for (i = 0; i < n; i++) {
		pid = fork();
		if (!pid) {
			close(go[1]);
			uidpark_child(uid0 + i, argv[4], argc == 7 ? argv[6] : NULL,
				      ready[1], go[0]);
		}
		if (pid < 0 || read(ready[0], &c, 1) != 1 || c != 'r')
			failed++;
		if (i % 16 == 15)
			usleep(10000);
	}
	printf("parked=%lu failed=%lu\n", n - failed, failed);
	fflush(stdout);
	wait_file(argv[5]);
	close(go[1]);
	while (wait(NULL) > 0)
		;
	return 0;
}

/* ---- renames: thread after thread naming itself, for a stress test ------ */

static const char *rename_to;
static unsigned long rename_ms;
static const char *rename_stop;
static const char *rename_tasks, *rename_gen;
static atomic_ulong n_threads, n_renames, n_bad, n_unsure;

static void spin_ms(unsigned long ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 <
	       (long)ms);
}

/*
 * This thread's line in the tasks file says why=released running=1 (a
 * copy in line). The file is read from this thread, on its CPU, without
 * a switch: a hold wrongly kept lasts until this thread's next switch.
 */
static int own_released_running(char *line, size_t size)
{
	char buf[65536], pfx[24];
	ssize_t n;
	char *l, *e;
	int fd;

	fd = open(rename_tasks, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	snprintf(pfx, sizeof(pfx), "%ld ", (long)syscall(SYS_gettid));
	for (l = buf; l && *l; l = e ? e + 1 : NULL) {
		e = strchr(l, '\n');
		if (e)
			*e = '\0';
		if (strncmp(l, pfx, strlen(pfx)))
			continue;
		n = (ssize_t)strlen(l) < (ssize_t)size ? (ssize_t)strlen(l) : (ssize_t)size - 1;
		memcpy(line, l, n);
		line[n] = '\0';
		return strstr(l, " why=released ") && strstr(l, " running=1 ");
	}
	return 0;
}

static long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

static long read_gen(void)
{
	char buf[32];
	ssize_t n;
	int fd = open(rename_gen, O_RDONLY);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

/*
 * Seen released and running: until the release's IPI has come (its write
 * returned, GEN moved) that is a release half done. Spin, do not sleep:
 * a switch would give a wrongly kept hold back.
 */
static void recheck(char *line, size_t size)
{
	struct timespec t0;
	long g = read_gen();

	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* GEN moved, or the caller is done writing: every write returned. */
	while (read_gen() == g && access(rename_stop, F_OK))
		if (ms_since(&t0) >= 1000) {
			atomic_fetch_add(&n_unsure, 1);
			return;
		}
	if (own_released_running(line, size)) {
		atomic_fetch_add(&n_bad, 1);
		fprintf(stderr, "kept: %s\n", line);
	}
}

/* Named once, then watching its own record for rename_ms ms. */
static void rename_check(void)
{
	struct timespec t0;
	char line[512];

	prctl(PR_SET_NAME, rename_to);
	atomic_fetch_add(&n_renames, 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		if (own_released_running(line, sizeof(line))) {
			recheck(line, sizeof(line));
			return;
		}
	} while (ms_since(&t0) < (long)rename_ms);
}

static void *rename_thread(void *arg)
{
	int i;

	(void)arg;
	if (rename_tasks) {
		rename_check();
		return NULL;
	}
	for (i = 0; i < 4; i++) {
		prctl(PR_SET_NAME, rename_to);
		atomic_fetch_add(&n_renames, 1);
		spin_ms(rename_ms);
	}
	return NULL;
}

static void *rename_worker(void *arg)
{
	pthread_t t;

	(void)arg;
	while (access(rename_stop, F_OK)) {
		if (pthread_create(&t, NULL, rename_thread, NULL))
			break;
		pthread_join(t, NULL);
		atomic_fetch_add(&n_threads, 1);
	}
	return NULL;
}

static int cmd_renames(int argc, char **argv)
{
	pthread_t w[64];
	long i, n;

	if (argc != 6 && argc != 8)
		return usage();
	rename_tasks = argc == 8 ? argv[6] : NULL;
	rename_gen = argc == 8 ? argv[7] : NULL;
	n = strtol(argv[2], NULL, 10);
	if (n < 1 || n > 64)
		return usage();
	rename_ms = strtoul(argv[3], NULL, 10);
	rename_to = argv[4];
	rename_stop = argv[5];
	for (i = 0; i < n; i++)
		if (pthread_create(&w[i], NULL, rename_worker, NULL))
			return 1;
	for (i = 0; i < n; i++)
		pthread_join(w[i], NULL);
	printf("threads=%lu renames=%lu", atomic_load(&n_threads),
	       atomic_load(&n_renames));
	if (rename_tasks)
		printf(" bad=%lu unsure=%lu", atomic_load(&n_bad),
		       atomic_load(&n_unsure));
	printf("\n");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "write"))
		return cmd_write(argc, argv);
	if (!strcmp(argv[1], "asuser"))
		return cmd_asuser(argc, argv);
	if (!strcmp(argv[1], "vcpus"))
		return cmd_vcpus(argc, argv);
	if (!strcmp(argv[1], "ac"))
		return cmd_ac(argc, argv);
	if (!strcmp(argv[1], "timeit"))
		return cmd_timeit(argc, argv);
	if (!strcmp(argv[1], "rmmod"))
		return cmd_rmmod(argc, argv);
	if (!strcmp(argv[1], "badargs"))
		return cmd_badargs(argc, argv);
	if (!strcmp(argv[1], "uidpark"))
		return cmd_uidpark(argc, argv);
	if (!strcmp(argv[1], "renames"))
		return cmd_renames(argc, argv);
	return usage();
}
