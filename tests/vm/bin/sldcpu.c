// SPDX-License-Identifier: GPL-2.0
/*
 * sldcpu: what a task sees of the CPU's split-lock detection, without
 * sld_compat (tests/vm/t-cpu). A split lock is a locked access whose
 * operand crosses a 64-byte cache line: here 4 bytes at a line minus 2.
 *
 *   sldcpu time N split|aligned GAP_US
 *       N locked adds of 1, each after GAP_US of sleep (time for the
 *       kernel to re-enable detection; 0: no sleep at all); prints
 *       "locks=N per_lock_us=U per_lock_ns=NS max_us=M slow=S counter=C"
 *       (S: the locks that took 5 ms or more, the kernel's penalty; C
 *       must be N: the #AC comes before memory changes and the add is
 *       then redone once)
 *   sldcpu spin N split|aligned GAP_US
 *       the same, but GAP_US of busy waiting between the locks: the task
 *       stays on its CPU (a protected vCPU that runs its guest)
 *   sldcpu forced N [@GOFILE]
 *       N times: set bit 29 of this CPU's MSR_TEST_CTRL through
 *       /dev/cpu/CPU/msr (behind the kernel's back), then one split lock
 *       at once, with no switch in between; prints "locks=N counter=C".
 *       With GOFILE, started early and waiting until that file's first
 *       byte is there and not "0" (a flag file holding 1, or a fixture's
 *       parameter that reads 1 while a window is open): the lock comes within a millisecond
 *       of the window's start, not an exec's or a shell's poll later;
 *       after 30 s of waiting it prints "go=timeout" and fails
 *   sldcpu op KIND split|aligned
 *       one locked op of KIND (add inc not neg xadd cmpxchg cmpxchg8b xchg
 *       bts), timed; prints "us=U"
 *   sldcpu msr CPU REG [VALUE]
 *       read (or write, then read back) an MSR through /dev/cpu/CPU/msr;
 *       prints "0x..." (numbers in any strtoull base)
 *   sldcpu wrmsrs CPU
 *       the WRMSRs to MSR_TEST_CTRL that CPU has executed, as the test
 *       QEMU counts them (tests/qemu/0004: MSR 0x40000333, bit 63 set);
 *       prints the count, or exits 3 on a TCG CPU that does not count
 *       (1 where the read faults). The count restarts at the vCPU's INIT
 *       (CPU hotplug), so callers take differences within a scenario.
 *   sldcpu wrmsrs CPU debugctl
 *       the same for IA32_DEBUGCTL (tests/qemu/0006: MSR 0x400001d9),
 *       counted where the CPU offers bus-lock detection
 *   sldcpu vm THREADS N GAP_US HOLD_MS|@STOPFILE
 *       a VM's QEMU as a host runs it, THREADS tasks in all: the main
 *       thread starts THREADS - 2 idle workers (blocked), then a "vCPU"
 *       thread doing N split locks GAP_US apart on its CPU (spin); all
 *       stay HOLD_MS more (or until STOPFILE exists), then end; prints
 *       "threads=T locks=N slow=S counter=C" (T: tasks that ran, the
 *       main thread's included; S as for time). SLDCPU_VCPU_COMM=NAME:
 *       the "vCPU" thread names itself NAME first (prctl), as QEMU's
 *       "CPU 0/KVM"
 *   sldcpu churn N
 *       N threads started and joined one after another, as QEMU's worker
 *       pool makes and ends them; prints "threads=N ns_per_thread=T"
 *   sldcpu step single|block LOOPS
 *       ptrace a child on this CPU through LOOPS rounds of a loop of 9
 *       instructions (7 nops, dec, a taken jnz but the last) with
 *       PTRACE_SINGLESTEP or PTRACE_SINGLEBLOCK (TF, and DEBUGCTL's BTF
 *       for block: tests/qemu/0007); prints "mode=M loops=L stops=S":
 *       9 L + 3 stops single-stepped, L - 1 block-stepped. The child
 *       names itself blxstep (a test can exempt it by exempt_comm)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

static unsigned char buf[256] __attribute__((aligned(64)));

static int usage(void)
{
	fprintf(stderr, "usage: sldcpu time|spin N split|aligned GAP_US | forced N [@GOFILE] | op KIND split|aligned | msr CPU REG [VALUE] | wrmsrs CPU [debugctl] | step single|block LOOPS\n");
	return 2;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* 4 bytes across the line at buf+64 (split), or inside it (aligned). */
static void *target(const char *how)
{
	if (!strcmp(how, "split"))
		return buf + 62;
	if (!strcmp(how, "aligned"))
		return buf + 64;
	return NULL;
}

/* One locked op of KIND on P (4 bytes; 8 for cmpxchg8b); 0 if known. */
static int op(const char *kind, void *p)
{
	uint32_t *u = p, v = 1, old = 0;
	uint64_t *q = p;
	uint32_t lo = 0, hi = 0;

	if (!strcmp(kind, "add"))
		asm volatile("lock addl %1, %0" : "+m"(*u) : "r"(v));
	else if (!strcmp(kind, "inc"))
		asm volatile("lock incl %0" : "+m"(*u));
	else if (!strcmp(kind, "not"))
		asm volatile("lock notl %0" : "+m"(*u));
	else if (!strcmp(kind, "neg"))
		asm volatile("lock negl %0" : "+m"(*u));
	else if (!strcmp(kind, "xadd"))
		asm volatile("lock xaddl %1, %0" : "+m"(*u), "+r"(v));
	else if (!strcmp(kind, "cmpxchg"))
		asm volatile("lock cmpxchgl %2, %0" : "+m"(*u), "+a"(old) : "r"(v));
	else if (!strcmp(kind, "cmpxchg8b"))
		asm volatile("lock cmpxchg8b %0" : "+m"(*q), "+a"(lo), "+d"(hi)
			     : "b"(0), "c"(0));
	else if (!strcmp(kind, "xchg"))	/* no prefix: xchg always locks */
		asm volatile("xchgl %1, %0" : "+m"(*u), "+r"(v));
	else if (!strcmp(kind, "bts"))
		asm volatile("lock btsl $20, %0" : "+m"(*u));
	else
		return -1;
	return 0;
}

/* GAP_US on the CPU: no sleep, no yield. */
static void spin_us(long gap_us)
{
	uint64_t end = now_ns() + (uint64_t)gap_us * 1000;

	while (now_ns() < end)
		;
}

/* A lock this slow paid the kernel's penalty (its 10 ms sleep). */
#define SLOW_NS		(5 * 1000 * 1000ull)

static int do_time(int n, const char *how, long gap_us, int busy)
{
	uint32_t *p = target(how);
	uint64_t sum = 0, max = 0, t;
	int i, slow = 0;

	if (!p || n <= 0)
		return usage();
	*p = 0;
	for (i = 0; i < n; i++) {
		if (gap_us && busy)
			spin_us(gap_us);
		else if (gap_us)	/* 0: a tight loop, never off the CPU */
			usleep(gap_us);
		t = now_ns();
		asm volatile("lock addl $1, %0" : "+m"(*p));
		t = now_ns() - t;
		sum += t;
		if (t > max)
			max = t;
		if (t >= SLOW_NS)
			slow++;
	}
	printf("locks=%d per_lock_us=%llu per_lock_ns=%llu max_us=%llu slow=%d counter=%u\n",
	       n, (unsigned long long)(sum / n / 1000),
	       (unsigned long long)(sum / n),
	       (unsigned long long)(max / 1000), slow, *p);
	return 0;
}

struct vcpu_run {
	int n;
	long gap_us, hold_ms;
	const char *stop_file;	/* or NULL: hold_ms */
	int slow;
	uint32_t counter;
};

static void *vcpu_thread(void *arg)
{
	struct vcpu_run *r = arg;
	uint32_t *p = target("split");
	const char *comm = getenv("SLDCPU_VCPU_COMM");
	uint64_t t;
	int i;

	if (comm)
		prctl(PR_SET_NAME, comm);
	*p = 0;
	for (i = 0; i < r->n; i++) {
		spin_us(r->gap_us);
		t = now_ns();
		asm volatile("lock addl $1, %0" : "+m"(*p));
		if (now_ns() - t >= SLOW_NS)
			r->slow++;
	}
	r->counter = *p;
	/* Alive beside the workers. */
	if (!r->stop_file)
		usleep(r->hold_ms * 1000);
	while (r->stop_file && access(r->stop_file, F_OK))
		usleep(50 * 1000);
	return NULL;
}

static int stop_fd = -1;	/* the workers block reading it */

static void *idle_thread(void *arg)
{
	char c;

	(void)arg;
	return read(stop_fd, &c, 1) < 0 ? arg : NULL;
}

static int do_vm(int threads, int n, long gap_us, const char *hold)
{
	struct vcpu_run r = { .n = n, .gap_us = gap_us, .hold_ms = atol(hold),
			      .stop_file = hold[0] == '@' ? hold + 1 : NULL };
	pthread_t *tid = calloc(threads > 1 ? threads : 1, sizeof(*tid));
	int pipefd[2], started = 0, idle, i;
	pthread_attr_t small;

	if (threads < 2 || n < 1 || !tid || pipe(pipefd))
		return usage();
	stop_fd = pipefd[0];
	/* Hundreds of these at once in a small VM: small stacks. */
	pthread_attr_init(&small);
	pthread_attr_setstacksize(&small, 64 * 1024);
	for (i = 0; i < threads - 2; i++)
		if (!pthread_create(&tid[started], &small, idle_thread, NULL))
			started++;
	idle = started;
	if (!pthread_create(&tid[started], &small, vcpu_thread, &r)) {
		started++;
		pthread_join(tid[idle], NULL);
	}
	close(pipefd[1]);	/* every worker's read returns 0 */
	for (i = 0; i < idle; i++)
		pthread_join(tid[i], NULL);
	printf("threads=%d locks=%d slow=%d counter=%u\n", started + 1, n, r.slow,
	       r.counter);
	free(tid);
	return 0;
}

static void *nothing(void *arg)
{
	return arg;
}

static int do_churn(int n)
{
	uint64_t t0 = now_ns();
	pthread_t t;
	int i;

	if (n < 1)
		return usage();
	for (i = 0; i < n; i++) {
		if (pthread_create(&t, NULL, nothing, NULL))
			return perror("sldcpu: pthread_create"), 1;
		pthread_join(t, NULL);
	}
	printf("threads=%d ns_per_thread=%llu\n", n,
	       (unsigned long long)((now_ns() - t0) / n));
	return 0;
}

static int do_op(const char *kind, const char *how)
{
	void *p = target(how);
	uint64_t t;

	if (!p)
		return usage();
	t = now_ns();
	if (op(kind, p))
		return usage();
	t = now_ns() - t;
	/* The pid names the task in the kernel's trap line. */
	printf("pid=%d us=%llu\n", (int)getpid(), (unsigned long long)(t / 1000));
	return 0;
}

static int do_msr(const char *cpu, const char *reg, const char *val)
{
	char path[64];
	uint64_t v;
	off_t r = strtoull(reg, NULL, 0);
	int fd;

	snprintf(path, sizeof(path), "/dev/cpu/%s/msr", cpu);
	fd = open(path, val ? O_RDWR : O_RDONLY);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	if (val) {
		v = strtoull(val, NULL, 0);
		if (pwrite(fd, &v, 8, r) != 8) {
			perror("wrmsr");
			return 1;
		}
	}
	if (pread(fd, &v, 8, r) != 8) {
		perror("rdmsr");
		return 1;
	}
	printf("0x%llx\n", (unsigned long long)v);
	close(fd);
	return 0;
}

/* The enforcing test QEMU's count of real WRMSRs to MSR_TEST_CTRL. */
#define MSR_TEST_CTRL_WRITES	0x40000333
#define MSR_DEBUGCTL_WRITES	0x400001d9
#define WRITES_VALID		(1ull << 63)

static int do_wrmsrs(const char *cpu, off_t counter)
{
	char path[64];
	uint64_t v;
	int fd;

	snprintf(path, sizeof(path), "/dev/cpu/%s/msr", cpu);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	if (pread(fd, &v, 8, counter) != 8) {
		perror("rdmsr");	/* #GP: a CPU that is not TCG's */
		close(fd);
		return 1;
	}
	close(fd);
	if (!(v & WRITES_VALID)) {
		fprintf(stderr, "sldcpu: this CPU does not count WRMSRs\n");
		return 3;
	}
	printf("%llu\n", (unsigned long long)(v & ~WRITES_VALID));
	return 0;
}

static int set_sld(int fd)
{
	uint64_t v;

	if (pread(fd, &v, 8, 0x33) != 8) {
		perror("rdmsr MSR_TEST_CTRL");
		return -1;
	}
	v |= 1ull << 29;
	if (pwrite(fd, &v, 8, 0x33) != 8) {
		perror("wrmsr MSR_TEST_CTRL");
		return -1;
	}
	return 0;
}

#define GO_WAIT_MS 30000

/* GOFILE's first byte is there and not "0". */
static int go_given(const char *go)
{
	char c = 0;
	int fd = open(go, O_RDONLY);

	if (fd < 0)
		return 0;
	if (read(fd, &c, 1) != 1)
		c = 0;
	close(fd);
	return c && c != '0';
}

static int do_forced(int n, const char *go)
{
	uint32_t *p = target("split");
	char path[64];
	int fd, i;

	if (n <= 0 || (go && go[0] != '@'))
		return usage();
	snprintf(path, sizeof(path), "/dev/cpu/%d/msr", sched_getcpu());
	fd = open(path, O_RDWR);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	*p = 0;
	for (i = 0; go && !go_given(go + 1); i++) {
		/* A window that never opens is the test's failure, not a hang. */
		if (i == GO_WAIT_MS) {
			printf("go=timeout locks=0 counter=0\n");
			return 1;
		}
		usleep(1000);
	}
	for (i = 0; i < n; i++) {
		if (set_sld(fd))
			return 1;
		asm volatile("lock addl $1, %0" : "+m"(*p));
	}
	close(fd);
	printf("locks=%d counter=%u\n", n, *p);
	return 0;
}

/*
 * The tracee: stops at the int3, then runs the loop and leaves by
 * exit_group(2) from the same asm, so nothing of libc's is stepped.
 */
static void step_child(int loops)
{
	prctl(PR_SET_NAME, "blxstep");
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
		_exit(1);
	raise(SIGSTOP);
	asm volatile("int3\n\t"
		     "mov %0, %%ecx\n"
		     "1:\n\t"
		     "nop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\t"
		     "dec %%ecx\n\t"
		     "jnz 1b\n\t"
		     "mov $231, %%eax\n\t"
		     "xor %%edi, %%edi\n\t"
		     "syscall"
		     : : "r"(loops) : "rax", "rcx", "rdi", "r11", "memory");
	_exit(3);
}

static int do_step(const char *mode, int loops)
{
	long req;
	int st, stops = 0;
	pid_t pid;

	if (!strcmp(mode, "single"))
		req = PTRACE_SINGLESTEP;
	else if (!strcmp(mode, "block"))
		req = PTRACE_SINGLEBLOCK;
	else
		return usage();
	if (loops < 1)
		return usage();
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid)
		step_child(loops);
	/* The SIGSTOP, then the int3's SIGTRAP: the loop is next. */
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st) ||
	    ptrace(PTRACE_CONT, pid, NULL, NULL) ||
	    waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st) ||
	    WSTOPSIG(st) != SIGTRAP) {
		fprintf(stderr, "sldcpu step: the tracee did not reach its int3\n");
		kill(pid, SIGKILL);
		return 1;
	}
	for (;;) {
		if (ptrace(req, pid, NULL, NULL)) {
			perror("sldcpu step: ptrace");
			kill(pid, SIGKILL);
			return 1;
		}
		if (waitpid(pid, &st, 0) != pid)
			return 1;
		if (!WIFSTOPPED(st))
			break;
		if (WSTOPSIG(st) != SIGTRAP) {
			fprintf(stderr, "sldcpu step: signal %d\n", WSTOPSIG(st));
			kill(pid, SIGKILL);
			return 1;
		}
		stops++;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "sldcpu step: the tracee ended with status 0x%x\n", st);
		return 1;
	}
	printf("mode=%s loops=%d stops=%d\n", mode, loops, stops);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "time"))
		return do_time(atoi(argv[2]), argv[3], atol(argv[4]), 0);
	if (argc == 5 && !strcmp(argv[1], "spin"))
		return do_time(atoi(argv[2]), argv[3], atol(argv[4]), 1);
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "forced"))
		return do_forced(atoi(argv[2]), argc == 4 ? argv[3] : NULL);
	if (argc == 4 && !strcmp(argv[1], "op"))
		return do_op(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "wrmsrs"))
		return do_wrmsrs(argv[2], MSR_TEST_CTRL_WRITES);
	if (argc == 4 && !strcmp(argv[1], "wrmsrs") && !strcmp(argv[3], "debugctl"))
		return do_wrmsrs(argv[2], MSR_DEBUGCTL_WRITES);
	if (argc == 6 && !strcmp(argv[1], "vm"))
		return do_vm(atoi(argv[2]), atoi(argv[3]), atol(argv[4]),
			     argv[5]);
	if (argc == 3 && !strcmp(argv[1], "churn"))
		return do_churn(atoi(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "step"))
		return do_step(argv[2], atoi(argv[3]));
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "msr"))
		return do_msr(argv[2], argv[3], argc == 5 ? argv[4] : NULL);
	return usage();
}
