// SPDX-License-Identifier: GPL-2.0
/*
 * scanbench: decoding throughput over module text extracted by `extract`.
 *
 *   scanbench CACHE REP ENGINE...
 *
 * Runs one pass of each ENGINE over every section of CACHE (CACHE.idx
 * says where sections start), in the given order, and prints one TSV line
 * per engine: rep engine bytes wall_ns cpu_ns insns invalid. Engines:
 *   x86scan      our decoder + finder (x86scan_run), as the module runs it
 *   kernel       the kernel's insn_decode (tools/ copy of linux-source-6.1)
 *   zydis        Zydis 4, no operands, ZYDIS_DECODER_MODE_MINIMAL
 *   zydis-full   Zydis 4, no operands, default mode
 *   objdump      objdump -d -z on the same sections of the same module
 *                files (a child process per module, output to /dev/null;
 *                cpu_ns is the children's user + system time)
 * The caller interleaves passes and repetitions (bench/scan/run.sh).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "x86scan/x86scan.h"
#include "engines.h"

struct sec {
	size_t off, len;
	char *mod, *name;
};

static uint8_t *text;
static size_t text_len;
static struct sec *secs;
static size_t nsecs;

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void load(const char *path)
{
	char idx[4200], line[8192];
	struct stat st;
	FILE *f;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st))
		die(path);
	text_len = st.st_size;
	text = malloc(text_len ? text_len : 1);
	if (!text)
		die("malloc");
	for (size_t got = 0; got < text_len;) {
		ssize_t r = read(fd, text + got, text_len - got);

		if (r <= 0)
			die(path);
		got += r;
	}
	close(fd);
	snprintf(idx, sizeof(idx), "%s.idx", path);
	f = fopen(idx, "r");
	if (!f)
		die(idx);
	while (fgets(line, sizeof(line), f)) {
		char mod[4096], name[256];
		size_t off, len;

		if (sscanf(line, "%zu %zu %4095s %255s", &off, &len, mod, name) != 4 ||
		    off + len > text_len) {
			fprintf(stderr, "scanbench: bad index line: %s", line);
			exit(1);
		}
		secs = realloc(secs, (nsecs + 1) * sizeof(*secs));
		if (!secs)
			die("realloc");
		secs[nsecs++] = (struct sec){ off, len, strdup(mod), strdup(name) };
	}
	fclose(f);
}

static uint64_t ns(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return (uint64_t)t.tv_sec * 1000000000u + t.tv_nsec;
}

static uint64_t children_cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_CHILDREN, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ull +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ull;
}

static uint64_t hits;

static int count_hit(void *ctx, enum x86_find f, size_t off)
{
	(void)ctx;
	(void)f;
	(void)off;
	hits++;
	return 0;
}

static uint64_t x86scan_pass(const uint8_t *buf, size_t len, uint64_t *bad)
{
	struct x86scan s;

	x86scan_init(&s, buf, len);
	x86scan_run(&s, 0, count_hit, NULL);
	*bad += s.st.invalid + s.st.truncated;
	return s.st.insns;
}

/* objdump over sections [i, j) which all belong to one module. */
static void objdump_module(size_t i, size_t j)
{
	char **argv = calloc(2 * (j - i) + 6, sizeof(*argv));
	size_t a = 0;
	pid_t pid;
	int st;

	if (!argv)
		die("calloc");
	argv[a++] = "objdump";
	argv[a++] = "-d";
	argv[a++] = "-z";
	argv[a++] = "--no-show-raw-insn";
	for (; i < j; i++) {
		argv[a++] = "-j";
		argv[a++] = secs[i].name;
	}
	argv[a++] = secs[j - 1].mod;
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		int fd = open("/dev/null", O_WRONLY);

		dup2(fd, 1);
		dup2(fd, 2);
		execvp("objdump", argv);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "scanbench: objdump failed on %s\n", secs[j - 1].mod);
		exit(1);
	}
	free(argv);
}

static void run(int rep, const char *engine)
{
	uint64_t (*pass)(const uint8_t *, size_t, uint64_t *) = NULL;
	uint64_t w0, c0, insns = 0, bad = 0, bytes = 0;
	bool objdump = !strcmp(engine, "objdump");

	if (!strcmp(engine, "x86scan")) {
		pass = x86scan_pass;
	} else if (!strcmp(engine, "kernel")) {
		pass = kern_pass;
	} else if (!strcmp(engine, "zydis")) {
		zydis_setup(1);
		pass = zydis_pass;
	} else if (!strcmp(engine, "zydis-full")) {
		zydis_setup(0);
		pass = zydis_pass;
	} else if (!objdump) {
		fprintf(stderr, "scanbench: unknown engine %s\n", engine);
		exit(2);
	}
	w0 = ns(CLOCK_MONOTONIC);
	c0 = objdump ? children_cpu_ns() : ns(CLOCK_PROCESS_CPUTIME_ID);
	if (objdump) {
		size_t i = 0;

		while (i < nsecs) {
			size_t j = i + 1;

			while (j < nsecs && !strcmp(secs[j].mod, secs[i].mod))
				j++;
			objdump_module(i, j);
			for (size_t k = i; k < j; k++)
				bytes += secs[k].len;
			i = j;
		}
	} else {
		for (size_t i = 0; i < nsecs; i++) {
			insns += pass(text + secs[i].off, secs[i].len, &bad);
			bytes += secs[i].len;
		}
	}
	printf("%d\t%s\t%llu\t%llu\t%llu\t%llu\t%llu\n", rep, engine,
	       (unsigned long long)bytes,
	       (unsigned long long)(ns(CLOCK_MONOTONIC) - w0),
	       (unsigned long long)((objdump ? children_cpu_ns() :
				     ns(CLOCK_PROCESS_CPUTIME_ID)) - c0),
	       (unsigned long long)insns, (unsigned long long)bad);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: scanbench CACHE REP ENGINE...\n");
		return 2;
	}
	load(argv[1]);
	for (int i = 3; i < argc; i++)
		run(atoi(argv[2]), argv[i]);
	return 0;
}
