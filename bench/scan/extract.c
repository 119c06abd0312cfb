// SPDX-License-Identifier: GPL-2.0
/*
 * extract: read every module named on stdin (one path a line: .ko, .ko.xz,
 * .ko.zst) with sldctl's kofile reader and write the bytes of each
 * executable section to one cache file, so the throughput benchmark
 * measures decoding, not decompression or ELF parsing.
 *
 *   extract OUT.bin < list      writes OUT.bin and OUT.bin.idx
 *
 * OUT.bin is the concatenation of the sections; OUT.bin.idx has one line
 * per section: "offset length module section".
 */
#include <stdio.h>
#include <string.h>

#include "lib/kofile.h"

int main(int argc, char **argv)
{
	char path[4096], idxname[4200], err[256];
	unsigned long mods = 0, secs = 0, bad = 0;
	unsigned long long off = 0;
	FILE *out, *idx;

	if (argc != 2) {
		fprintf(stderr, "usage: extract OUT.bin < list\n");
		return 2;
	}
	snprintf(idxname, sizeof(idxname), "%s.idx", argv[1]);
	out = fopen(argv[1], "wb");
	idx = fopen(idxname, "w");
	if (!out || !idx) {
		perror(argv[1]);
		return 1;
	}
	while (fgets(path, sizeof(path), stdin)) {
		struct kofile *ko;
		size_t i;

		path[strcspn(path, "\n")] = 0;
		if (!path[0])
			continue;
		if (kofile_open(path, &ko, err, sizeof(err)) != KO_OK) {
			fprintf(stderr, "extract: %s: %s\n", path, err);
			bad++;
			continue;
		}
		mods++;
		for (i = 0; i < kofile_exec_count(ko); i++) {
			const struct ko_section *s = kofile_exec(ko, i);

			if (!s->size)
				continue;
			if (fwrite(s->data, 1, s->size, out) != s->size) {
				perror(argv[1]);
				return 1;
			}
			fprintf(idx, "%llu %zu %s %s\n", off, s->size, path,
				s->name);
			off += s->size;
			secs++;
		}
		kofile_close(ko);
	}
	if (fclose(out) || fclose(idx)) {
		perror(argv[1]);
		return 1;
	}
	fprintf(stderr, "extract: %lu modules, %lu sections, %llu bytes, %lu unreadable\n",
		mods, secs, off, bad);
	return bad ? 1 : 0;
}
