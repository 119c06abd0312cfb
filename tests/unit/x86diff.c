// SPDX-License-Identifier: GPL-2.0
/*
 * x86diff: the scanner's decoder against the frozen reference decoder
 * (tests/x86ref) over every executable section of every module under a
 * directory (make check: all 4023 modules of 6.1.0-57-amd64).
 *
 *   x86diff MODDIR
 *
 * At every byte offset of every section, not only at instruction starts
 * (so odd byte sequences count too):
 *  - where x86_decode_fast decides, ref_x86_decode gives the same length
 *    and no finding;
 *  - x86_decode gives what ref_x86_decode gives: status, length (also the
 *    resync length of "(bad)") and every field, finding included.
 * Per section: x86_decode_run, from wherever the old scan loop stands and
 * with budgets from 1 to 4096 instructions, stops where the old loop
 * stands too, after exactly the instructions the old loop decoded in
 * between; x86scan_run in one call and in chunks of 7 instructions gives
 * the statistics and the hits (finding, offset, order) of the scan loop
 * as it was before the fast path (ref_scan). Built without
 * sanitizers for speed; the fuzz target fuzz_decdiff covers the same
 * comparison under ASan. Prints "N passed, N failed" (modules).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/kofile.h"
#include "ref.h"

static unsigned long long n_off, n_fast, n_insns, n_hits, n_secs, n_bytes;
static unsigned long long n_runs;
static unsigned long n_mods, n_fail;

/*
 * x86_decode_run from every place the old scan loop stands, with budgets
 * from 1 to 4096 instructions (small ones stop it mid-run, large ones let
 * its second lane run and resynchronise): it must stop where the old loop
 * stands too, having walked exactly the instructions the old loop
 * decoded in between.
 */
static int check_runs(const char *mod, const char *sec, const uint8_t *b,
		      size_t len)
{
	static const size_t budget[] = { 1, 7, 50, 300, 4096, (size_t)-1 };
	uint32_t *cum = malloc((len + 1) * sizeof(*cum));
	uint8_t *at = calloc(len + 1, 1);
	size_t pos = 0, i = 0;
	uint32_t n = 0;
	int ret = 0;

	if (!cum || !at) {
		perror("x86diff");
		exit(1);
	}
	/* cum[o]: valid instructions the old loop decoded before offset o */
	while (pos < len) {
		struct x86_insn in;
		int r = ref_x86_decode(b + pos, len - pos, &in);
		size_t step = r > 0 ? (size_t)r :
			      r == X86_INVALID && in.len ? in.len : 1;
		size_t k;

		at[pos] = 1;
		for (k = 0; k < step && pos + k < len; k++)
			cum[pos + k] = n;
		n += r > 0;
		pos += step;
	}
	cum[len] = n;
	at[len] = 1;
	for (pos = 0; pos < len; i++) {
		size_t cnt, adv = x86_decode_run(b + pos, len - pos,
						 budget[i % 6], &cnt);

		if (!at[pos + adv] || cnt != cum[pos + adv] - cum[pos] ||
		    cnt > budget[i % 6]) {
			printf("# %s %s+%#zx: x86_decode_run(max %zu) went %zu bytes, %zu insns\n",
			       mod, sec, pos, budget[i % 6], adv, cnt);
			ret = -1;
			break;
		}
		n_runs++;
		if (adv) {
			pos += adv;
			continue;
		}
		/* the fast path stopped at once: one step of the old loop */
		do
			pos++;
		while (pos < len && !at[pos]);
	}
	free(cum);
	free(at);
	return ret;
}

static int check_section(const char *mod, const char *sec,
			 const uint8_t *b, size_t len)
{
	struct x86scan_stats rst;
	struct ref_hits rh = { 0 }, h1 = { 0 }, h2 = { 0 };
	struct x86scan s1, s2;
	size_t off;

	for (off = 0; off < len; off++) {
		struct x86_insn a, r;
		int fl = x86_decode_fast(b + off, len - off);
		int ra = x86_decode(b + off, len - off, &a);
		int rr = ref_x86_decode(b + off, len - off, &r);

		n_off++;
		if (!ref_insn_equal(ra, &a, rr, &r)) {
			printf("# %s %s+%#zx: x86_decode %d len %u, reference %d len %u\n",
			       mod, sec, off, ra, a.len, rr, r.len);
			return -1;
		}
		if (fl) {
			n_fast++;
			if (fl != rr || r.find != X86_F_NONE) {
				printf("# %s %s+%#zx: fast path %d, reference %d (%s)\n",
				       mod, sec, off, fl, rr,
				       rr > 0 ? x86_find_name(r.find) : "-");
				return -1;
			}
		}
	}
	if (check_runs(mod, sec, b, len))
		return -1;
	ref_scan(b, len, &rst, &rh);
	x86scan_init(&s1, b, len);
	x86scan_run(&s1, 0, ref_hit_cb, &h1);
	x86scan_init(&s2, b, len);
	while (x86scan_run(&s2, 7, ref_hit_cb, &h2))
		;
	if (memcmp(&s1.st, &rst, sizeof(rst)) || memcmp(&s2.st, &rst, sizeof(rst)) ||
	    !ref_hits_equal(&h1, &rh) || !ref_hits_equal(&h2, &rh) ||
	    s1.pos != len || s2.pos != len) {
		printf("# %s %s: scan differs: insns %llu/%llu/%llu hits %zu/%zu/%zu\n",
		       mod, sec, (unsigned long long)s1.st.insns,
		       (unsigned long long)s2.st.insns,
		       (unsigned long long)rst.insns, h1.n, h2.n, rh.n);
		return -1;
	}
	n_insns += rst.insns;
	n_hits += rh.n;
	n_secs++;
	n_bytes += len;
	return 0;
}

static void check_module(const char *path)
{
	struct kofile *ko;
	char err[256];
	size_t i;

	if (kofile_open(path, &ko, err, sizeof(err)) != KO_OK) {
		printf("not ok - %s: %s\n", path, err);
		n_fail++;
		return;
	}
	for (i = 0; i < kofile_exec_count(ko); i++) {
		const struct ko_section *s = kofile_exec(ko, i);

		if (s->size && check_section(path, s->name, s->data, s->size)) {
			printf("not ok - %s\n", path);
			n_fail++;
			break;
		}
	}
	n_mods++;
	kofile_close(ko);
}

static int is_module(const char *name)
{
	return strstr(name, ".ko") != NULL;
}

static void walk(const char *dir)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, alphasort), i;

	if (n < 0) {
		perror(dir);
		n_fail++;
		return;
	}
	for (i = 0; i < n; i++) {
		char path[4096];
		struct stat st;

		if (ents[i]->d_name[0] == '.')
			goto next;
		snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
		if (lstat(path, &st))
			goto next;
		if (S_ISDIR(st.st_mode))
			walk(path);
		else if (S_ISREG(st.st_mode) && is_module(ents[i]->d_name))
			check_module(path);
next:
		free(ents[i]);
	}
	free(ents);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: x86diff MODDIR\n");
		return 2;
	}
	walk(argv[1]);
	printf("# %lu modules, %llu sections, %llu bytes, %llu instructions, %llu hits\n",
	       n_mods, n_secs, n_bytes, n_insns, n_hits);
	printf("# %llu offsets compared, fast path decided %llu (%.1f%%); %llu runs checked\n",
	       n_off, n_fast, n_off ? 100.0 * n_fast / n_off : 0.0, n_runs);
	if (!n_mods) {
		printf("# no modules under %s (run tests/vm/deps.sh)\n", argv[1]);
		n_fail++;
	}
	printf("x86diff: %lu passed, %lu failed\n", n_mods - (n_fail > n_mods ? n_mods : n_fail), n_fail);
	return n_fail ? 1 : 0;
}
