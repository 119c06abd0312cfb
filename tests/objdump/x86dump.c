// SPDX-License-Identifier: GPL-2.0
/*
 * x86dump: decode a raw binary (an extracted text section) linearly with
 * x86scan as the scanner does (x86_decode_fast, else x86_decode) and print
 * one line per instruction, "offset length [finding]",
 * offsets in hex like objdump. "(bad)" stretches print as "offset length
 * (bad)", bytes at the end that do not form an instruction as ".byte".
 * With -c, read hex cases on stdin instead and print "case | length".
 */
#include <stdio.h>
#include <stdlib.h>
#include "x86scan/x86scan.h"

static int dump(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;
	size_t pos = 0;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0) {
		perror(path);
		return 1;
	}
	rewind(f);
	buf = malloc(n ? n : 1);
	if (!buf || fread(buf, 1, n, f) != (size_t)n) {
		perror(path);
		return 1;
	}
	fclose(f);
	while (pos < (size_t)n) {
		struct x86_insn in;
		int r = x86_decode_fast(buf + pos, n - pos);

		if (r > 0) {		/* plain: valid, no finding */
			printf("%zx %d\n", pos, r);
			pos += r;
			continue;
		}
		r = x86_decode(buf + pos, n - pos, &in);
		if (r > 0) {
			if (in.find != X86_F_NONE)
				printf("%zx %d %s\n", pos, r, x86_find_name(in.find));
			else
				printf("%zx %d\n", pos, r);
			pos += r;
		} else if (r == X86_INVALID) {
			printf("%zx %d (bad)\n", pos, in.len);
			pos += in.len;
		} else {
			printf("%zx 1 .byte\n", pos);
			pos++;
		}
	}
	free(buf);
	return 0;
}

static int cases(void)
{
	char line[256];

	while (fgets(line, sizeof(line), stdin)) {
		uint8_t b[64];
		size_t n = 0, i;
		char *p = line, *e;
		struct x86_insn in;
		int r;

		for (;;) {
			unsigned long v = strtoul(p, &e, 16);

			if (e == p || n == 44)
				break;
			b[n++] = v;
			p = e;
		}
		for (i = 0; i < 20; i++)
			b[n + i] = 0x90;	/* the oracle's padding */
		r = x86_decode_fast(b, n + 20);
		line[strcspn(line, "\n")] = 0;
		if (r > 0) {
			printf("%s | %d | %s\n", line, r, x86_find_name(X86_F_NONE));
			continue;
		}
		r = x86_decode(b, n + 20, &in);
		printf("%s | %d | %s\n", line, r > 0 ? r : in.len,
		       r > 0 ? x86_find_name(in.find) : "(bad)");
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "-c"))
		return cases();
	if (argc != 2) {
		fprintf(stderr, "usage: x86dump FILE | x86dump -c < cases\n");
		return 2;
	}
	return dump(argv[1]);
}
