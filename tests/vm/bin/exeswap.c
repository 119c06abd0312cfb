// SPDX-License-Identifier: GPL-2.0
/*
 * exeswap: issue #37 item 1's race from user space. A process swaps its
 * own executable (/proc/self/exe, mm->exe_file) while its threads rename
 * themselves, which runs sld_compat's exempt_path matcher on every rename
 * (exempt_proactive=Y), and while other opens reuse the freed files.
 *
 *   exeswap SECS LINK A B
 *       LINK: a hard link to this program's own file (same inode, another
 *       name); A, B: two executable files. First the process maps itself
 *       from LINK instead of its own name (the kernel refuses to change
 *       the exe of a process that still maps it), then for SECS seconds:
 *       one thread makes A and B the exe in turn (PR_SET_MM_EXE_FILE, as
 *       root; a user gets the same through PR_SET_MM_MAP in a user
 *       namespace of their own), each old exe file freed as it goes; one
 *       renames itself (PR_SET_NAME) on CPU 0; one opens and closes files.
 *       The swapper and the opener run on CPU 1 where there is one: a
 *       file freed and allocated again there while the renamer's matcher
 *       reads it on CPU 0. Prints "swaps=S renames=R opens=O".
 *
 * The remapping: every mapping of the program's file is mapped again from
 * LINK at the same address (MAP_FIXED, private). Text is the same bytes,
 * so execution goes on through the switch. A written private mapping
 * (data, the relocated GOT of a static binary) is saved first and copied
 * back by hand, with no call in between: its relocated words are the
 * file's until then.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>

#define MAPS_MAX 32

struct map {
	uintptr_t start, end;
	unsigned long off;
	int prot;
};

static volatile int stop;
static unsigned long swaps, renames, opens;

static int prot_of(const char *perms)
{
	return (perms[0] == 'r' ? PROT_READ : 0) |
	       (perms[1] == 'w' ? PROT_WRITE : 0) |
	       (perms[2] == 'x' ? PROT_EXEC : 0);
}

/* The mappings of file SELF, from /proc/self/maps. */
static int self_maps(const char *self, struct map *m)
{
	char line[512], perms[8], path[256];
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0;

	if (!f)
		return -1;
	while (n < MAPS_MAX && fgets(line, sizeof(line), f)) {
		path[0] = '\0';
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %255s", &m[n].start,
			   &m[n].end, perms, &m[n].off, path) < 4)
			continue;
		if (strcmp(path, self))
			continue;
		m[n].prot = prot_of(perms);
		n++;
	}
	fclose(f);
	return n;
}

/* Copy by hand: no call while the GOT may hold the file's words. */
static void copy_words(volatile unsigned long *to, const unsigned long *from,
		       size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		to[i] = from[i];
}

/* Map m again from fd; 0 or -1. Contents kept (see the head comment). */
static int remap(const struct map *m, int fd)
{
	size_t len = m->end - m->start;
	unsigned long *save = malloc(len);
	void *p;

	if (!save)
		return -1;
	memcpy(save, (void *)m->start, len);
	p = mmap((void *)m->start, len, m->prot | PROT_WRITE,
		 MAP_PRIVATE | MAP_FIXED, fd, m->off);
	if (p == MAP_FAILED)
		return -1;	/* the old mapping is gone: dies here anyway */
	copy_words(p, save, len / sizeof(long));
	if (mprotect(p, len, m->prot))
		return -1;
	free(save);
	return 0;
}

static int map_from(const char *link)
{
	char self[256];
	struct map m[MAPS_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int fd, i, n;

	if (len <= 0)
		return -1;
	self[len] = '\0';
	n = self_maps(self, m);
	fd = open(link, O_RDONLY);
	if (n <= 0 || fd < 0)
		return -1;
	for (i = 0; i < n; i++)
		if (remap(&m[i], fd))
			return -1;
	close(fd);
	return 0;
}

/* Pin the calling thread to cpu, where the machine has it. */
static void pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *swapper(void *arg)
{
	char **files = arg;
	int fd;

	pin_to(1);

	while (!stop) {
		fd = open(files[swaps & 1], O_RDONLY);
		if (fd < 0)
			break;
		if (prctl(PR_SET_MM, PR_SET_MM_EXE_FILE, fd, 0, 0)) {
			fprintf(stderr, "exeswap: PR_SET_MM_EXE_FILE: %s\n", strerror(errno));
			close(fd);
			exit(1);
		}
		close(fd);
		swaps++;
	}
	return NULL;
}

static void *renamer(void *arg)
{
	(void)arg;
	pin_to(0);
	while (!stop) {
		prctl(PR_SET_NAME, renames & 1 ? "exeswap-a" : "exeswap-b");
		renames++;
	}
	return NULL;
}

static void *opener(void *arg)
{
	int fd;

	(void)arg;
	pin_to(1);
	while (!stop) {
		fd = open("/proc/self/stat", O_RDONLY);
		if (fd >= 0)
			close(fd);
		opens++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[3];
	char *files[2];
	int i;

	if (argc != 5) {
		fprintf(stderr, "usage: exeswap SECS LINK A B\n");
		return 2;
	}
	if (map_from(argv[2])) {
		fprintf(stderr, "exeswap: cannot map myself from %s: %s\n", argv[2],
			strerror(errno));
		return 1;
	}
	files[0] = argv[3];
	files[1] = argv[4];
	if (pthread_create(&t[0], NULL, swapper, files) ||
	    pthread_create(&t[1], NULL, renamer, NULL) ||
	    pthread_create(&t[2], NULL, opener, NULL))
		return 1;
	sleep(atoi(argv[1]));
	stop = 1;
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("swaps=%lu renames=%lu opens=%lu\n", swaps, renames, opens);
	return 0;
}
