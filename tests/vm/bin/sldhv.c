// SPDX-License-Identifier: GPL-2.0
/*
 * sldhv: drives the simulated hypervisors (tests/fixtures/hvsim.h) the
 * way a VMM drives its vCPU threads. DEV is a name under /dev.
 *
 *   sldhv oncpu CPU CMD...        pin to CPU, exec CMD
 *   sldhv run DEV SPIN_US SLEEP_US LOOPS [GUEST_AC [SPLIT_LOCKS]]
 *                                 one RUN ioctl (SPLIT_LOCKS kernel-mode
 *                                 split locks per loop); prints "rc=R
 *                                 handled=H cpu=C sigbus=S us=T"
 *   sldhv nop DEV [ro|PATH]       a management ioctl; prints OK. ro: on a
 *                                 file opened read-only; PATH (absolute):
 *                                 through that node instead of /dev/DEV
 *   sldhv runread DEV SPIN_US FILE
 *                                 RUN, then (still the same, now protected
 *                                 task, running) print FILE
 *   sldhv pair DEV MS             two vCPU threads pinned to CPU 0 and 1;
 *                                 CPU 1's runs MS ms, CPU 0's runs 20 ms
 *                                 then prints the account five times
 *                                 (each followed by "--") while the other
 *                                 is still in its run
 *   sldhv forkrun DEV N           N children in turn: RUN once, exit;
 *                                 prints "children=N failed=F"
 *   sldhv swarm DEV N STOPFILE    keep N tasks alive until STOPFILE exists:
 *                                 each RUNs (protected while sld_compat is
 *                                 loaded), forks a child that RUNs and
 *                                 exits, then exits; prints
 *                                 "tasks=T runs=R failed=F"
 *   sldhv loop DEV STOPFILE [SPLIT_LOCKS [PAUSE_US]]
 *                                 RUN (1 ms, SPLIT_LOCKS kernel-mode split
 *                                 locks) again and again until STOPFILE
 *                                 exists, PAUSE_US asleep after each (a
 *                                 guest that idles at times, and leaves a
 *                                 single-threaded TCG's time to the rest):
 *                                 a vCPU thread that lives until
 *                                 told, protected again as soon as
 *                                 sld_compat is (re)loaded or enabled;
 *                                 prints "runs=N failed=F"
 *   sldhv migrate DEV N           N runs, moving between CPU 0 and 1;
 *                                 prints "runs=N on0=A on1=B"
 *   sldhv ioctlcost N             mean ns of N FIONREAD ioctls on a pipe
 *                                 (a device no hypervisor owns)
 *   sldhv acuser DEV N            RUN once (now protected), then N user
 *                                 split-lock #ACs through /dev/fx_actest;
 *                                 prints "handled=H sigbus=S mean_us=M
 *                                 real=0" (real=1: real split locks, as
 *                                 sldtest ac user, with mean_ns)
 *   sldhv acgate DEV GATE1 GATE2  RUN once (now protected), print "ran",
 *                                 wait for GATE1, then one user split-lock
 *                                 #AC through /dev/fx_actest (a real split
 *                                 lock where IBT sealed the handler);
 *                                 print "ac=1 sigbus=0" and wait for GATE2
 *                                 (the test reads its record in between)
 *   sldhv runs DEV SPIN_US STOPFILE
 *                                 RUN ioctls, each SPIN_US then one guest
 *                                 split lock, until STOPFILE exists; prints
 *                                 one letter per RUN: H handled, B SIGBUS,
 *                                 E another error (one task throughout)
 *   sldhv svmrun N [intercept] [switch] [park=STOPFILE]
 *                                 one FX_SVM_RUN of /dev/fx_svmhv: a real
 *                                 SVM guest doing N split locks at CPL 3
 *                                 (intercept: the hypervisor intercepts
 *                                 #DB; switch: it clears DEBUGCTL around
 *                                 VMRUN; park: then waits for STOPFILE,
 *                                 a vCPU thread between runs); prints
 *                                 "rc=R exits=E db_exits=X
 *                                 db_delivered=D guest_db=G counter=C
 *                                 dr6=0x.. debugctl=0x.. cpu=C exit=0x.."
 *   sldhv cat FILE                print FILE (as this task, e.g. when
 *                                 started under an exempt name)
 *   sldhv pingpong N [DEV [one]]  two threads on CPU 0 pass a byte N times
 *                                 through pipes (2 context switches per
 *                                 round); with DEV both first RUN once, so
 *                                 both are protected (with "one" only the
 *                                 first thread). Prints
 *                                 "switches=S ns_per_switch=X csw=C"
 *                                 (C: the threads' own switches)
 *   sldhv park DEV N STOPFILE     N threads each RUN once (protected), then
 *                                 block until STOPFILE exists; prints
 *                                 "parked=N failed=F" once all have run
 *                                 (threads are started in batches of 32
 *                                 with a pause, so the pool can grow)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../fixtures/fx_actest.h"
#include "../../fixtures/fx_hv.h"
#include "realsplit.h"

static volatile sig_atomic_t sigbus_seen;

static void on_sigbus(int sig)
{
	(void)sig;
	sigbus_seen++;
}

static int usage(void)
{
	fprintf(stderr, "usage: sldhv oncpu|run|runs|svmrun|nop|runread|pair|forkrun|swarm|loop|migrate|ioctlcost|pingpong|park ... (see source)\n");
	return 2;
}

static unsigned long num(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (!*s || *end) {
		fprintf(stderr, "sldhv: not a number: %s\n", s);
		exit(2);
	}
	return v;
}

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static int open_dev(const char *name)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/dev/%s", name);
	fd = open(path, O_RDWR);
	if (fd < 0) {
		printf("%s\n", strerrorname_np(errno));
		exit(1);
	}
	return fd;
}

static int run_sl(int fd, unsigned int spin, unsigned int sleep_us,
		  unsigned int loops, unsigned int guest_ac,
		  unsigned int split_locks, struct fx_run *r)
{
	memset(r, 0, sizeof(*r));
	r->spin_us = spin;
	r->sleep_us = sleep_us;
	r->loops = loops;
	r->guest_ac = guest_ac;
	r->split_locks = split_locks;
	return ioctl(fd, FX_HV_RUN, r) ? -errno : 0;
}

static int run(int fd, unsigned int spin, unsigned int sleep_us,
	       unsigned int loops, unsigned int guest_ac, struct fx_run *r)
{
	return run_sl(fd, spin, sleep_us, loops, guest_ac, 0, r);
}

static int cmd_run(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_sigbus };
	struct fx_run r;
	double t0;
	int fd, rc;

	if (argc < 6 || argc > 8)
		return usage();
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
	fd = open_dev(argv[2]);
	t0 = now_us();
	rc = run_sl(fd, num(argv[3]), num(argv[4]), num(argv[5]),
		    argc >= 7 ? num(argv[6]) : 0, argc == 8 ? num(argv[7]) : 0,
		    &r);
	printf("rc=%s handled=%d cpu=%u sigbus=%d us=%.0f\n",
	       rc ? strerrorname_np(-rc) : "0", r.handled, r.cpu,
	       (int)sigbus_seen, now_us() - t0);
	return 0;
}

static void wait_file(const char *path);

static int cmd_svmrun(int argc, char **argv)
{
	struct fx_svm_run r = { 0 };
	const char *park = NULL;
	int fd, i, rc;

	if (argc < 3 || argc > 6)
		return usage();
	r.split_locks = num(argv[2]);
	for (i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "intercept"))
			r.flags |= FX_SVM_INTERCEPT_DB;
		else if (!strcmp(argv[i], "switch"))
			r.flags |= FX_SVM_SWITCH_DEBUGCTL;
		else if (!strncmp(argv[i], "park=", 5) && argv[i][5])
			park = argv[i] + 5;
		else
			return usage();
	}
	fd = open_dev("fx_svmhv");
	rc = ioctl(fd, FX_SVM_RUN, &r) ? errno : 0;
	printf("rc=%s exits=%u db_exits=%u db_delivered=%u guest_db=%u counter=%u dr6=0x%llx debugctl=0x%llx cpu=%u exit=0x%x\n",
	       rc ? strerrorname_np(rc) : "0", r.exits, r.db_exits,
	       r.db_delivered, r.guest_db, r.counter,
	       (unsigned long long)r.dr6, (unsigned long long)r.debugctl,
	       r.cpu, r.exit_code);
	if (park) {
		fflush(stdout);
		wait_file(park);
	}
	return 0;
}

static void cat(const char *file)
{
	char buf[8192];
	int fd = open(file, O_RDONLY);
	ssize_t n;

	if (fd < 0) {
		printf("%s\n", strerrorname_np(errno));
		return;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, n, stdout);
	close(fd);
}

static int cmd_runread(int argc, char **argv)
{
	struct fx_run r;
	int fd;

	if (argc != 5)
		return usage();
	fd = open_dev(argv[2]);
	if (run(fd, num(argv[3]), 0, 1, 0, &r))
		return 1;
	cat(argv[4]);
	return 0;
}

static int cmd_nop(int argc, char **argv)
{
	int fd;

	if (argc != 3 && argc != 4)
		return usage();
	if (argc == 3) {
		fd = open_dev(argv[2]);
	} else {
		char path[64];
		int ro = !strcmp(argv[3], "ro");

		if (ro)
			snprintf(path, sizeof(path), "/dev/%s", argv[2]);
		else
			snprintf(path, sizeof(path), "%s", argv[3]);
		fd = open(path, ro ? O_RDONLY : O_RDWR);
		if (fd < 0) {
			printf("%s\n", strerrorname_np(errno));
			return 1;
		}
	}
	printf("%s\n", ioctl(fd, FX_HV_NOP) ? strerrorname_np(errno) : "OK");
	return 0;
}

struct vcpu {
	int fd, cpu;
	unsigned int ms;
	int rc;
};

static void *vcpu_thread(void *arg)
{
	struct vcpu *v = arg;
	struct fx_run r;

	v->rc = pin(v->cpu);
	if (!v->rc)
		v->rc = run(v->fd, v->ms * 1000, 0, 1, 0, &r);
	/* Five looks: the other CPU may be running a kworker at one. */
	for (int i = 0; !v->rc && v->cpu == 0 && i < 5; i++) {
		cat("/proc/sld_compat_account");
		printf("--\n");
		fflush(stdout);
		usleep(20000);
	}
	return NULL;
}

static int cmd_pair(int argc, char **argv)
{
	struct vcpu v[2];
	pthread_t t[2];
	int i;

	if (argc != 4)
		return usage();
	for (i = 0; i < 2; i++) {
		v[i].fd = open_dev(argv[2]);
		v[i].cpu = i;
		v[i].ms = i ? num(argv[3]) : 20;
	}
	/* The long run first, so it is inside its RUN when cpu0 reads. */
	pthread_create(&t[1], NULL, vcpu_thread, &v[1]);
	usleep(20000);
	pthread_create(&t[0], NULL, vcpu_thread, &v[0]);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("rc0=%d rc1=%d\n", v[0].rc, v[1].rc);
	return 0;
}

static int cmd_forkrun(int argc, char **argv)
{
	unsigned long n, i, failed = 0;
	int fd, status;

	if (argc != 4)
		return usage();
	fd = open_dev(argv[2]);
	n = num(argv[3]);
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			struct fx_run r;

			_exit(run(fd, 0, 0, 1, 0, &r) ? 1 : 0);
		}
		if (pid < 0 || waitpid(pid, &status, 0) < 0 ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			failed++;
	}
	printf("children=%lu failed=%lu\n", n, failed);
	return 0;
}

/* One swarm task: RUN, a child that RUNs, exit. 0 if every RUN worked. */
static int swarm_task(int fd)
{
	struct fx_run r;
	int status, bad;
	pid_t pid;

	bad = run(fd, 300, 300, 3, 0, &r) != 0;
	pid = fork();
	if (pid == 0)
		_exit(run(fd, 300, 300, 3, 0, &r) ? 1 : 0);
	if (pid < 0 || waitpid(pid, &status, 0) < 0 ||
	    !WIFEXITED(status) || WEXITSTATUS(status))
		bad = 1;
	return bad;
}

static int cmd_swarm(int argc, char **argv)
{
	unsigned long n, live = 0, tasks = 0, failed = 0;
	int fd, status;

	if (argc != 5)
		return usage();
	fd = open_dev(argv[2]);
	n = num(argv[3]);
	while (access(argv[4], F_OK) || live) {
		if (live < n && access(argv[4], F_OK)) {
			pid_t pid = fork();

			if (pid == 0)
				_exit(swarm_task(fd));
			if (pid < 0) {
				failed++;
				continue;
			}
			live++;
			tasks++;
			continue;
		}
		if (waitpid(-1, &status, 0) < 0)
			break;
		live--;
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			failed++;
	}
	printf("tasks=%lu runs=%lu failed=%lu\n", tasks, 2 * tasks, failed);
	return 0;
}

static int cmd_loop(int argc, char **argv)
{
	unsigned long runs = 0, failed = 0, sl, pause_us;
	struct fx_run r;
	int fd;

	if (argc < 4 || argc > 6)
		return usage();
	fd = open_dev(argv[2]);
	sl = argc >= 5 ? num(argv[4]) : 0;
	pause_us = argc == 6 ? num(argv[5]) : 0;
	while (access(argv[3], F_OK)) {
		if (run_sl(fd, 1000, 0, 1, 0, sl, &r))
			failed++;
		runs++;
		if (pause_us)
			usleep(pause_us);
	}
	printf("runs=%lu failed=%lu\n", runs, failed);
	return 0;
}

static int cmd_migrate(int argc, char **argv)
{
	unsigned long n, i, on[2] = { 0, 0 };
	struct fx_run r;
	int fd;

	if (argc != 4)
		return usage();
	fd = open_dev(argv[2]);
	n = num(argv[3]);
	for (i = 0; i < n; i++) {
		if (pin(i % 2) || run(fd, 2000, 0, 1, 0, &r))
			return 1;
		if (r.cpu < 2)
			on[r.cpu]++;
	}
	printf("runs=%lu on0=%lu on1=%lu\n", n, on[0], on[1]);
	return 0;
}

static int cmd_ioctlcost(int argc, char **argv)
{
	unsigned long n, i;
	int p[2], avail;
	double t0;

	if (argc != 3 || pipe(p))
		return usage();
	n = num(argv[2]);
	t0 = now_us();
	for (i = 0; i < n; i++)
		ioctl(p[0], FIONREAD, &avail);
	printf("mean_ns=%.0f\n", (now_us() - t0) * 1000 / n);
	return 0;
}

static int cmd_acuser(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_sigbus };
	unsigned long n, i, handled = 0;
	struct fx_run r;
	double t0;
	int fd, ac;

	if (argc != 4)
		return usage();
	fd = open_dev(argv[2]);
	ac = open_dev("fx_actest");
	n = num(argv[3]);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
	if (!n || run(fd, 0, 0, 1, 0, &r))
		return 1;
	t0 = now_us();
	for (i = 0; i < n; i++) {
		int rc = ioctl(ac, FX_AC_USER);

		/* The handler is sealed (IBT): real split locks, real #AC. */
		if (rc < 0 && !i && errno == EOPNOTSUPP)
			return real_split_report(n);
		handled += rc == 1;
	}
	printf("handled=%lu sigbus=%d mean_us=%.0f real=0\n", handled,
	       (int)sigbus_seen, (now_us() - t0) / n);
	return 0;
}

static void wait_file(const char *path)
{
	while (access(path, F_OK))
		usleep(20000);
}

static int cmd_acgate(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_sigbus };
	struct fx_run r;
	int fd, ac, rc;

	if (argc != 5)
		return usage();
	fd = open_dev(argv[2]);
	ac = open_dev("fx_actest");
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
	if (run(fd, 0, 0, 1, 0, &r))
		return 1;
	printf("ran\n");
	fflush(stdout);
	wait_file(argv[3]);
	rc = ioctl(ac, FX_AC_USER);
	if (rc < 0 && errno == EOPNOTSUPP) {
		/* The handler is sealed (IBT): one real split lock instead. */
		unsigned long done = 0;
		int sb = 0;

		real_split_locks(1, 0, &done, &sb);
		rc = done == 1 && !sb;
	}
	printf("ac=%d sigbus=%d\n", rc, (int)sigbus_seen);
	fflush(stdout);
	wait_file(argv[4]);
	return 0;
}

static int cmd_runs(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_sigbus };
	unsigned long spin;
	struct fx_run r;
	int fd, rc;

	if (argc != 5)
		return usage();
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
	fd = open_dev(argv[2]);
	spin = num(argv[3]);
	while (access(argv[4], F_OK)) {
		sigbus_seen = 0;
		rc = run(fd, spin, 0, 1, 1, &r);
		putchar(!rc && r.handled == 1 && !sigbus_seen ? 'H' :
			rc == -EINTR && sigbus_seen ? 'B' : 'E');
		fflush(stdout);
	}
	putchar('\n');
	return 0;
}

struct pong {
	int in, out, dev;
	unsigned long n;
	long csw;		/* this thread's context switches, getrusage */
};

static long thread_csw(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

static void *pong_thread(void *arg)
{
	struct pong *p = arg;
	struct fx_run r;
	unsigned long i;
	char c = 0;

	if (pin(0) || (p->dev >= 0 && run(p->dev, 0, 0, 1, 0, &r)))
		exit(1);
	p->csw = -thread_csw();
	for (i = 0; i < p->n; i++)
		if (read(p->in, &c, 1) != 1 || write(p->out, &c, 1) != 1)
			exit(1);
	p->csw += thread_csw();
	return NULL;
}

static int cmd_pingpong(int argc, char **argv)
{
	int a[2], b[2], dev = -1;
	struct pong p;
	unsigned long n, i;
	struct fx_run r;
	pthread_t t;
	double t0, t1;
	long csw;
	char c = 0;

	if (argc < 3 || argc > 5 || pipe(a) || pipe(b))
		return usage();
	if (argc == 5 && strcmp(argv[4], "one"))
		return usage();
	n = num(argv[2]);
	if (argc >= 4)
		dev = open_dev(argv[3]);
	if (!n || pin(0) || (dev >= 0 && run(dev, 0, 0, 1, 0, &r)))
		return 1;
	p = (struct pong){ .in = a[0], .out = b[1], .n = n,
			   .dev = argc == 5 ? -1 : dev };
	pthread_create(&t, NULL, pong_thread, &p);
	usleep(10000);
	csw = -thread_csw();
	t0 = now_us();
	for (i = 0; i < n; i++)
		if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
			return 1;
	t1 = now_us();
	csw += thread_csw();
	pthread_join(t, NULL);
	printf("switches=%lu ns_per_switch=%.0f csw=%ld\n", 2 * n,
	       (t1 - t0) * 1000 / (2 * n), csw + p.csw);
	return 0;
}

struct park {
	int fd, stop;		/* stop: a pipe's read end, EOF = go */
	atomic_ulong done, failed;
};

static void *park_thread(void *arg)
{
	struct park *p = arg;
	struct fx_run r;
	char c;

	if (run(p->fd, 0, 0, 1, 0, &r))
		atomic_fetch_add(&p->failed, 1);
	atomic_fetch_add(&p->done, 1);
	while (read(p->stop, &c, 1) > 0)
		;
	return NULL;
}

static int cmd_park(int argc, char **argv)
{
	struct park p = { 0 };
	pthread_attr_t attr;
	unsigned long n, i;
	pthread_t *t;
	int go[2];

	if (argc != 5 || pipe(go))
		return usage();
	p.fd = open_dev(argv[2]);
	p.stop = go[0];
	n = num(argv[3]);
	t = calloc(n, sizeof(*t));
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (i = 0; t && i < n; i++) {
		if (pthread_create(&t[i], &attr, park_thread, &p)) {
			printf("parked=%lu failed=create\n", i);
			return 1;
		}
		if (i % 32 == 31)
			while (atomic_load(&p.done) < i + 1)
				usleep(1000);
	}
	while (atomic_load(&p.done) < n)
		usleep(1000);
	printf("parked=%lu failed=%lu\n", n, atomic_load(&p.failed));
	fflush(stdout);
	wait_file(argv[4]);
	close(go[1]);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "oncpu") && argc > 3) {
		if (pin(num(argv[2]))) {
			perror("sldhv: sched_setaffinity");
			return 1;
		}
		execvp(argv[3], argv + 3);
		perror("sldhv: exec");
		return 127;
	}
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc, argv);
	if (!strcmp(argv[1], "runread"))
		return cmd_runread(argc, argv);
	if (!strcmp(argv[1], "nop"))
		return cmd_nop(argc, argv);
	if (!strcmp(argv[1], "pair"))
		return cmd_pair(argc, argv);
	if (!strcmp(argv[1], "forkrun"))
		return cmd_forkrun(argc, argv);
	if (!strcmp(argv[1], "swarm"))
		return cmd_swarm(argc, argv);
	if (!strcmp(argv[1], "loop"))
		return cmd_loop(argc, argv);
	if (!strcmp(argv[1], "migrate"))
		return cmd_migrate(argc, argv);
	if (!strcmp(argv[1], "pingpong"))
		return cmd_pingpong(argc, argv);
	if (!strcmp(argv[1], "park"))
		return cmd_park(argc, argv);
	if (!strcmp(argv[1], "runs"))
		return cmd_runs(argc, argv);
	if (!strcmp(argv[1], "acgate"))
		return cmd_acgate(argc, argv);
	if (!strcmp(argv[1], "acuser"))
		return cmd_acuser(argc, argv);
	if (!strcmp(argv[1], "cat") && argc == 3) {
		cat(argv[2]);
		return 0;
	}
	if (!strcmp(argv[1], "svmrun"))
		return cmd_svmrun(argc, argv);
	if (!strcmp(argv[1], "ioctlcost"))
		return cmd_ioctlcost(argc, argv);
	return usage();
}
