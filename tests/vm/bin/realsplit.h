/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Real user-space split locks, for "sldtest ac user" and "sldhv acuser"
 * where the fixture cannot call the kernel's handle_user_split_lock():
 * under kernel IBT it is sealed (nothing takes its address), and
 * fx_actest answers EOPNOTSUPP. On a CPU that enforces split-lock
 * detection the lock itself raises #AC, and the kernel runs that handler,
 * with sld_compat's probe on it, as for any task.
 */
#ifndef REALSPLIT_H
#define REALSPLIT_H

#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static sigjmp_buf realsplit_jmp;
static volatile sig_atomic_t realsplit_sigbus;

/* The kernel's fatal mode: SIGBUS; skip that lock rather than redo it. */
static void realsplit_on_sigbus(int sig)
{
	(void)sig;
	realsplit_sigbus++;
	siglongjmp(realsplit_jmp, 1);
}

/* Four bytes at any alignment: the lock's operand, without C's UB. */
struct realsplit_word {
	unsigned char b[4];
};

/* One locked add at P: 1 if it completed, 0 if SIGBUS skipped it. */
static __attribute__((noinline)) int one_split_lock(struct realsplit_word *p)
{
	if (sigsetjmp(realsplit_jmp, 1))
		return 0;
	asm volatile("lock addl $1, %0" : "+m"(*p) : : "memory");
	return 1;
}

/*
 * N locked adds of 4 bytes across a 64-byte line, each GAP_US after the
 * last: the kernel re-enables detection 2 jiffies after an unprotected
 * task's trap, so each of them traps again. *done counts the locks that
 * completed, *sigbus the SIGBUSes; returns the mean ns of the lock alone.
 */
static double real_split_locks(unsigned long n, unsigned long gap_us,
			       unsigned long *done, int *sigbus)
{
	static unsigned char buf[128] __attribute__((aligned(64)));
	struct sigaction sa = { .sa_handler = realsplit_on_sigbus }, old;
	struct realsplit_word *p = (struct realsplit_word *)(buf + 62);
	struct timespec t0, t1;
	double ns = 0;
	unsigned long i;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &old);
	*done = 0;
	for (i = 0; i < n; i++) {
		usleep(gap_us);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		*done += one_split_lock(p);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ns += (t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec);
	}
	sigaction(SIGBUS, &old, NULL);
	*sigbus = realsplit_sigbus;
	return ns / n;
}

/* Between two real locks: the kernel's re-enable (2 jiffies) has run. */
#define REALSPLIT_GAP_US 20000

/*
 * N real split locks in place of N handler calls, reported as the
 * fixture's calls are: "handled=H sigbus=S mean_us=M mean_ns=M real=1"
 * (H: the locks that completed; M: the lock alone).
 */
static inline int real_split_report(unsigned long n)
{
	unsigned long done;
	int sigbus;
	double ns = real_split_locks(n, REALSPLIT_GAP_US, &done, &sigbus);

	printf("handled=%lu sigbus=%d mean_us=%.0f mean_ns=%.0f real=1\n", done,
	       sigbus, ns / 1e3, ns);
	return 0;
}

#endif
