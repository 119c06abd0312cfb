// SPDX-License-Identifier: GPL-2.0
/*
 * The process tree of a game, for `sldctl run` tests (t/60-run.sh):
 *
 *   sldrun tree N MS      N real split locks 30 ms apart in this process,
 *                         in a child it forks first, and in a thread it
 *                         starts MS ms later; prints one line each,
 *                         "main|child|thread done=D sigbus=S mean_us=M"
 *                         (M: the lock alone, the kernel's penalty
 *                         included), the child's and the thread's once
 *                         they are done
 *   sldrun as UID GID G1[,G2..]|- CMD...
 *                         become UID with real and effective GID and
 *                         these supplementary groups, exec CMD
 */
#define _GNU_SOURCE
#include <grp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "realsplit.h"

#define GAP_US	30000

static unsigned long nlocks;
static unsigned long delay_ms;

static void locks(const char *who)
{
	unsigned long done;
	int sigbus;
	double ns = real_split_locks(nlocks, GAP_US, &done, &sigbus);

	printf("%s done=%lu sigbus=%d mean_us=%.0f\n", who, done, sigbus,
	       ns / 1e3);
	fflush(stdout);
}

static void *thread_fn(void *arg)
{
	(void)arg;
	locks("thread");
	return NULL;
}

static int cmd_tree(char **argv)
{
	pthread_t th;
	pid_t child;
	int st;

	nlocks = strtoul(argv[2], NULL, 10);
	delay_ms = strtoul(argv[3], NULL, 10);
	fflush(stdout);
	child = fork();
	if (child < 0)
		return 1;
	if (!child) {
		locks("child");
		_exit(0);
	}
	locks("main");
	usleep(delay_ms * 1000);
	if (pthread_create(&th, NULL, thread_fn, NULL))
		return 1;
	pthread_join(th, NULL);
	waitpid(child, &st, 0);
	return 0;
}

static int cmd_as(char **argv)
{
	gid_t groups[32];
	size_t n = 0;
	char *g, *save = NULL;

	if (strcmp(argv[4], "-"))
		for (g = strtok_r(argv[4], ",", &save); g && n < 32;
		     g = strtok_r(NULL, ",", &save))
			groups[n++] = (gid_t)strtoul(g, NULL, 10);
	if (setgroups(n, groups) || setgid((gid_t)strtoul(argv[3], NULL, 10)) ||
	    setuid((uid_t)strtoul(argv[2], NULL, 10))) {
		perror("sldrun: as");
		return 1;
	}
	execvp(argv[5], argv + 5);
	perror("sldrun: exec");
	return 127;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "tree"))
		return cmd_tree(argv);
	if (argc >= 6 && !strcmp(argv[1], "as"))
		return cmd_as(argv);
	fprintf(stderr, "usage: sldrun tree N MS | as UID GID G1,G2|- CMD...\n");
	return 2;
}
