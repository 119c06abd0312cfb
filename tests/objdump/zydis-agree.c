// SPDX-License-Identifier: GPL-2.0
/*
 * zydis-agree: x86scan against Zydis 4 (Debian's libzydis-dev), a decoder
 * that shares no code and no tables with x86scan, its frozen copy
 * (tests/x86ref) or objdump, whose tables x86scan's were generated from.
 *
 *   zydis-agree [-m MODDIR -l LIST] [-r DIR]...
 *   zydis-agree -c < CASES
 *
 * -m/-l: the executable sections of the modules of LIST (paths relative
 * to MODDIR, "#" comments; "-" for every .ko under MODDIR); -r: every
 * file of DIR as one buffer (the fuzz corpus). Each buffer is walked as
 * the scanner walks it (x86_decode_fast, else x86_decode; "(bad)" bytes
 * and a cut-off tail skipped as scan.c skips them), and at every
 * instruction start of that walk Zydis decodes too. They must agree on
 * the status (an instruction, invalid bytes, the buffer ending inside an
 * instruction), an instruction's length and which finder instruction it
 * is (enum x86_find, from Zydis's mnemonic and, for MOV to CR/DR, its
 * destination register). The walk's counts must equal x86scan_run's, so
 * the starts compared are the scanner's. Known differences of the two
 * decoders are in one table, exceptions[] of zydis-except.c. Output is
 * TAP: a line per module and per corpus directory, the first
 * disagreements of each as comments, a summary. Exit status 1 if any
 * line is "not ok". -c: see cases().
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/kofile.h"
#include "zydis-agree.h"

/* Disagreements printed per TAP line; all are counted. */
#ifndef SHOW_MAX
#define SHOW_MAX	5
#endif

/* The counts of one TAP line (a module or a corpus directory). */
struct tally {
	unsigned long long insns, bad, trunc, excepted, differ;
	unsigned long long bytes, secs;
	unsigned long files;
	unsigned long hits[X86_F_COUNT];
	bool walk_differs;
};

static ZydisDecoder zdec;
static int tap_n, tap_fails;
static struct tally total;
static unsigned long n_mods;

/* ---- Zydis's side ----------------------------------------------------- */

/* The finder instructions Zydis names by mnemonic alone. */
static const ZydisMnemonic find_mnemonic[X86_F_INVLPGA + 1] = {
	[X86_F_VMXON] = ZYDIS_MNEMONIC_VMXON,
	[X86_F_VMXOFF] = ZYDIS_MNEMONIC_VMXOFF,
	[X86_F_VMLAUNCH] = ZYDIS_MNEMONIC_VMLAUNCH,
	[X86_F_VMRESUME] = ZYDIS_MNEMONIC_VMRESUME,
	[X86_F_VMPTRLD] = ZYDIS_MNEMONIC_VMPTRLD,
	[X86_F_VMPTRST] = ZYDIS_MNEMONIC_VMPTRST,
	[X86_F_VMCLEAR] = ZYDIS_MNEMONIC_VMCLEAR,
	[X86_F_VMREAD] = ZYDIS_MNEMONIC_VMREAD,
	[X86_F_VMWRITE] = ZYDIS_MNEMONIC_VMWRITE,
	[X86_F_VMCALL] = ZYDIS_MNEMONIC_VMCALL,
	[X86_F_VMFUNC] = ZYDIS_MNEMONIC_VMFUNC,
	[X86_F_INVEPT] = ZYDIS_MNEMONIC_INVEPT,
	[X86_F_INVVPID] = ZYDIS_MNEMONIC_INVVPID,
	[X86_F_VMRUN] = ZYDIS_MNEMONIC_VMRUN,
	[X86_F_VMLOAD] = ZYDIS_MNEMONIC_VMLOAD,
	[X86_F_VMSAVE] = ZYDIS_MNEMONIC_VMSAVE,
	[X86_F_VMMCALL] = ZYDIS_MNEMONIC_VMMCALL,
	[X86_F_STGI] = ZYDIS_MNEMONIC_STGI,
	[X86_F_CLGI] = ZYDIS_MNEMONIC_CLGI,
	[X86_F_SKINIT] = ZYDIS_MNEMONIC_SKINIT,
	[X86_F_INVLPGA] = ZYDIS_MNEMONIC_INVLPGA,
};

/*
 * A MOV whose destination is CR0, 2, 3, 4, 8 or DR0-7: the writes the
 * scanner reports (reads are not findings; the other CRs and DR8-15 do
 * not exist). The operands are decoded only for MOVs of the 0f map, the
 * one map with CR/DR moves, as the rest of the walk needs none.
 */
static enum x86_find zydis_mov_find(const ZydisDecoderContext *ctx,
				    const ZydisDecodedInstruction *zi)
{
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
	ZydisRegister r;

	if (zi->opcode_map != ZYDIS_OPCODE_MAP_0F ||
	    !ZYAN_SUCCESS(ZydisDecoderDecodeOperands(&zdec, ctx, zi, op,
						     ZYDIS_MAX_OPERAND_COUNT)) ||
	    op[0].type != ZYDIS_OPERAND_TYPE_REGISTER ||
	    !(op[0].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
		return X86_F_NONE;
	r = op[0].reg.value;
	switch (r) {
	case ZYDIS_REGISTER_CR0: return X86_F_MOV_CR0;
	case ZYDIS_REGISTER_CR2: return X86_F_MOV_CR2;
	case ZYDIS_REGISTER_CR3: return X86_F_MOV_CR3;
	case ZYDIS_REGISTER_CR4: return X86_F_MOV_CR4;
	case ZYDIS_REGISTER_CR8: return X86_F_MOV_CR8;
	default: break;
	}
	if (r >= ZYDIS_REGISTER_DR0 && r <= ZYDIS_REGISTER_DR7)
		return X86_F_MOV_DR0 + (r - ZYDIS_REGISTER_DR0);
	return X86_F_NONE;
}

static enum x86_find zydis_find(const ZydisDecoderContext *ctx,
				const ZydisDecodedInstruction *zi)
{
	int f;

	if (zi->mnemonic == ZYDIS_MNEMONIC_MOV)
		return zydis_mov_find(ctx, zi);
	for (f = 0; f <= X86_F_INVLPGA; f++)
		if (find_mnemonic[f] == zi->mnemonic)
			return f;
	return X86_F_NONE;
}

struct verdict zydis_decode(const uint8_t *b, size_t n)
{
	struct verdict v = { .st = ST_INSN, .find = X86_F_NONE };
	ZydisDecoderContext ctx;
	ZydisDecodedInstruction zi;
	ZyanStatus s = ZydisDecoderDecodeInstruction(&zdec, &ctx, b, n, &zi);

	v.mn = ZYDIS_MNEMONIC_INVALID;
	v.zst = s;
	if (s == ZYDIS_STATUS_NO_MORE_DATA) {
		v.st = ST_TRUNC;
	} else if (!ZYAN_SUCCESS(s)) {
		v.st = ST_BAD;
	} else {
		v.len = zi.length;
		v.mn = zi.mnemonic;
		v.enc = zi.encoding;
		v.isa = zi.meta.isa_ext;
		v.find = zydis_find(&ctx, &zi);
	}
	return v;
}

/* ---- x86scan's side --------------------------------------------------- */

struct verdict scan_decode(const uint8_t *b, size_t n)
{
	struct verdict v = { .st = ST_INSN, .find = X86_F_NONE };
	struct x86_insn in;
	int r = x86_decode_fast(b, n);

	if (r > 0) {
		v.len = r;
		return v;
	}
	r = x86_decode(b, n, &in);
	if (r > 0) {
		v.len = r;
		v.find = in.find;
	} else if (r == X86_INVALID) {
		v.st = ST_BAD;
		v.len = in.len ? in.len : 1;
	} else {
		v.st = ST_TRUNC;
		v.len = 1;
	}
	return v;
}

/* ---- the walk --------------------------------------------------------- */

bool same(const struct verdict *s, const struct verdict *z)
{
	if (s->st != z->st)
		return false;
	return s->st != ST_INSN || (s->len == z->len && s->find == z->find);
}

/* Zydis's reasons for an invalid instruction (Zydis/Status.h). */
static const char *const zydis_why[] = {
	"no more data", "decoding error", "too long", "bad register",
	"illegal lock", "illegal legacy prefix", "illegal rex", "invalid map",
	"malformed evex", "malformed mvex", "invalid mask", "skip token",
	"impossible instruction",
};

static const char *describe(const struct verdict *v, bool zydis,
			    char *buf, size_t len)
{
	unsigned int code = ZYAN_STATUS_CODE(v->zst);

	if (v->st == ST_BAD && zydis) {
		snprintf(buf, len, "invalid (%s)",
			 code < sizeof(zydis_why) / sizeof(zydis_why[0]) ?
			 zydis_why[code] : "?");
		return buf;
	}
	if (v->st == ST_BAD)
		return "invalid";
	if (v->st == ST_TRUNC)
		return "truncated";
	snprintf(buf, len, "len %d %s%s%s%s", v->len, x86_find_name(v->find),
		 zydis ? " [" : "", zydis ? ZydisMnemonicGetString(v->mn) : "",
		 zydis ? "]" : "");
	return buf;
}

/*
 * The comments of the coming TAP line, printed after it (TAP's order):
 * the first SHOW_MAX disagreements and what else went wrong.
 */
static char notes[SHOW_MAX + 4][512];
static int n_notes;

static void __attribute__((format(printf, 1, 2))) note(const char *fmt, ...)
{
	va_list ap;

	if (n_notes == SHOW_MAX + 4)
		return;
	va_start(ap, fmt);
	vsnprintf(notes[n_notes++], sizeof(notes[0]), fmt, ap);
	va_end(ap);
}

static void show(const char *where, size_t off, const uint8_t *b, size_t n,
		 const struct verdict *s, const struct verdict *z)
{
	char hex[3 * 15 + 1] = "", d1[64], d2[64];
	size_t i;

	for (i = 0; i < n && i < 15; i++)
		snprintf(hex + 3 * i, 4, "%02x ", b[i]);
	note("%s+%#zx: %s: x86scan %s, zydis %s", where, off, hex,
	     describe(s, false, d1, sizeof(d1)),
	     describe(z, true, d2, sizeof(d2)));
}

/* The walk's counts against x86scan_run's on the same buffer. */
static bool walk_is_scan(const uint8_t *b, size_t n, const struct tally *t,
			 const struct tally *before)
{
	struct x86scan s;
	int f;

	x86scan_init(&s, b, n);
	x86scan_run(&s, 0, NULL, NULL);
	if (s.st.insns != t->insns - before->insns ||
	    s.st.invalid != t->bad - before->bad ||
	    s.st.truncated != (t->trunc > before->trunc))
		return false;
	for (f = 0; f < X86_F_COUNT; f++)
		if (s.st.count[f] != t->hits[f] - before->hits[f])
			return false;
	return true;
}

static void count(struct tally *t, const struct verdict *s)
{
	if (s->st == ST_INSN) {
		t->insns++;
		if (s->find != X86_F_NONE)
			t->hits[s->find]++;
	} else if (s->st == ST_BAD) {
		t->bad++;
	} else {
		t->trunc++;
	}
}

/* Walk one buffer (a section, a corpus file); where names it. */
static void walk(const char *where, const uint8_t *b, size_t n,
		 struct tally *t)
{
	struct tally before = *t;
	size_t pos = 0;

	while (pos < n) {
		struct verdict s = scan_decode(b + pos, n - pos);
		struct verdict z = zydis_decode(b + pos, n - pos);
		struct exception *e;

		count(t, &s);
		if (!same(&s, &z)) {
			e = excepted(b + pos, n - pos, &s, &z);
			if (e) {
				e->seen++;
				t->excepted++;
			} else if (t->differ++ < SHOW_MAX) {
				show(where, pos, b + pos, n - pos, &s, &z);
			}
		}
		pos += s.len;
	}
	t->bytes += n;
	t->secs++;
	if (!walk_is_scan(b, n, t, &before)) {
		note("%s: the walk's counts are not x86scan_run's", where);
		t->walk_differs = true;
	}
}

/* ---- TAP -------------------------------------------------------------- */

static void add(struct tally *sum, const struct tally *t)
{
	int f;

	sum->insns += t->insns;
	sum->bad += t->bad;
	sum->trunc += t->trunc;
	sum->excepted += t->excepted;
	sum->differ += t->differ;
	sum->bytes += t->bytes;
	sum->secs += t->secs;
	sum->files += t->files;
	for (f = 0; f < X86_F_COUNT; f++)
		sum->hits[f] += t->hits[f];
}

static void result(bool ok, const char *name, const struct tally *t)
{
	char found[512] = "";
	size_t at = 0;
	int f;

	for (f = 0; f < X86_F_COUNT && at < sizeof(found) - 32; f++)
		if (t->hits[f])
			at += snprintf(found + at, sizeof(found) - at, ", %s=%lu",
				       x86_find_name(f), t->hits[f]);
	printf("%s %d - %s (%llu insns%s", ok ? "ok" : "not ok", ++tap_n, name,
	       t->insns, found);
	if (t->bad)
		printf(", %llu invalid", t->bad);
	if (t->excepted)
		printf(", %llu excepted", t->excepted);
	if (t->differ)
		printf(", %llu differ", t->differ);
	printf(")\n");
	for (f = 0; f < n_notes; f++)
		printf("#   %s\n", notes[f]);
	n_notes = 0;
	tap_fails += !ok;
	add(&total, t);
}

/* ---- inputs ----------------------------------------------------------- */

static void check_module(const char *moddir, const char *rel)
{
	struct tally t = { 0 };
	struct kofile *ko;
	char path[4096], where[4352], err[256];
	size_t i;

	snprintf(path, sizeof(path), "%s/%s", moddir, rel);
	if (kofile_open(path, &ko, err, sizeof(err)) != KO_OK) {
		note("%s: %s", path, err);
		result(false, rel, &t);
		return;
	}
	for (i = 0; i < kofile_exec_count(ko); i++) {
		const struct ko_section *s = kofile_exec(ko, i);

		snprintf(where, sizeof(where), "%s %s", rel, s->name);
		if (s->size)
			walk(where, s->data, s->size, &t);
	}
	kofile_close(ko);
	n_mods++;
	result(!t.differ && !t.walk_differs, rel, &t);
}

/* .ko, .ko.xz, .ko.zst: kofile unpacks them */
static bool is_module(const char *name)
{
	return strstr(name, ".ko") != NULL;
}

/* Every module under moddir/rel, in sorted order (LIST "-"). */
static void check_tree(const char *moddir, const char *rel)
{
	struct dirent **ents;
	char dir[4096], sub[4096], path[8192];
	int n, i;

	snprintf(dir, sizeof(dir), "%s%s%s", moddir, *rel ? "/" : "", rel);
	n = scandir(dir, &ents, NULL, alphasort);
	if (n < 0) {
		perror(dir);
		tap_fails++;
		return;
	}
	for (i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		struct stat st;

		snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", name);
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		if (name[0] != '.' && !lstat(path, &st)) {
			if (S_ISDIR(st.st_mode))
				check_tree(moddir, sub);
			else if (S_ISREG(st.st_mode) && is_module(name))
				check_module(moddir, sub);
		}
		free(ents[i]);
	}
	free(ents);
}

static void check_list(const char *moddir, const char *list)
{
	char line[4096];
	FILE *f;

	if (!strcmp(list, "-")) {
		check_tree(moddir, "");
		return;
	}
	f = fopen(list, "r");
	if (!f) {
		perror(list);
		tap_fails++;
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (line[0] && line[0] != '#')
			check_module(moddir, line);
	}
	fclose(f);
}

/* A whole file in an exactly sized buffer, so ASan sees a read past it. */
static uint8_t *read_file(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b = NULL;
	long len;

	if (f && !fseek(f, 0, SEEK_END) && (len = ftell(f)) >= 0) {
		rewind(f);
		b = malloc(len ? len : 1);
		if (b && fread(b, 1, len, f) != (size_t)len) {
			free(b);
			b = NULL;
		}
		*n = len;
	}
	if (f)
		fclose(f);
	return b;
}

/* Every regular file of dir as one buffer: a TAP line for the directory. */
static void check_corpus(const char *dir)
{
	struct tally t = { 0 };
	struct dirent **ents;
	char path[4096];
	bool ok = true;
	int n, i;

	n = scandir(dir, &ents, NULL, alphasort);
	for (i = 0; i < n; i++) {
		struct stat st;
		uint8_t *b;
		size_t len;

		snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
		free(ents[i]);
		if (path[strlen(dir) + 1] == '.' || stat(path, &st) ||
		    !S_ISREG(st.st_mode))
			continue;
		b = read_file(path, &len);
		if (!b) {
			perror(path);
			ok = false;
			continue;
		}
		walk(path + strlen(dir) + 1, b, len, &t);
		t.files++;
		free(b);
	}
	if (n >= 0)
		free(ents);
	if (!t.files)
		note("%s: no corpus files", dir);
	snprintf(path, sizeof(path), "corpus %s, %lu files", dir, t.files);
	result(ok && t.files && !t.differ && !t.walk_differs, path, &t);
}

/* The hex bytes of line into b; how many. */
static size_t parse_hex(const char *line, uint8_t *b, size_t max)
{
	const char *p = line;
	size_t n = 0;
	char *end;

	while (n < max) {
		unsigned long v = strtoul(p, &end, 16);

		if (end == p)
			break;
		b[n++] = v;
		p = end;
	}
	return n;
}

/*
 * -c: hex byte strings on stdin, one a line, each decoded at its start
 * only: "bytes | x86scan | zydis | ok, the exception's why, or DIFFER".
 * For probing an encoding (the exceptions were found so); exit status 1
 * if a line says DIFFER.
 */
static int cases(void)
{
	char line[512], d1[64], d2[64];
	int differ = 0;

	while (fgets(line, sizeof(line), stdin)) {
		struct exception *e = NULL;
		struct verdict sv, zv;
		uint8_t b[160];
		size_t n = parse_hex(line, b, sizeof(b));

		line[strcspn(line, "\n")] = 0;
		sv = scan_decode(b, n);
		zv = zydis_decode(b, n);
		if (!same(&sv, &zv))
			e = excepted(b, n, &sv, &zv);
		differ += !same(&sv, &zv) && !e;
		printf("%s | %s | %s | %s\n", line,
		       describe(&sv, false, d1, sizeof(d1)),
		       describe(&zv, true, d2, sizeof(d2)),
		       same(&sv, &zv) ? "ok" : e ? e->why : "DIFFER");
	}
	return differ ? 1 : 0;
}

/* ---- main ------------------------------------------------------------- */

static void summary(double secs)
{
	unsigned long long hits = 0;
	size_t i;
	int f;

	for (f = 0; f < X86_F_COUNT; f++)
		hits += total.hits[f];
	for (i = 0; i < n_exceptions; i++)
		if (exceptions[i].seen)
			printf("# excepted %llu times: %s\n", exceptions[i].seen,
			       exceptions[i].why);
	printf("# summary: %lu modules, %lu corpus files, %llu buffers, %llu bytes; ",
	       n_mods, total.files, total.secs, total.bytes);
	printf("%llu instructions compared (%llu findings, %llu invalid); ",
	       total.insns, hits, total.bad);
	printf("%llu disagree, %llu excepted\n", total.differ, total.excepted);
	printf("# time: %.1f s\n", secs);
	printf("1..%d\n", tap_n);
}

static void setup_zydis(void)
{
	ZydisDecoderInit(&zdec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	/*
	 * A 66 prefix on a near branch: AMD64 takes a rel16, Intel 64 ignores
	 * it. objdump (so x86scan) decodes as AMD64 by default; Zydis as
	 * Intel unless told. A vendor's choice, not a bug of either.
	 */
	ZydisDecoderEnableMode(&zdec, ZYDIS_DECODER_MODE_AMD_BRANCHES, ZYAN_TRUE);
}

int main(int argc, char **argv)
{
	const char *moddir = NULL, *list = NULL, *corpus[16];
	struct timespec t0, t1;
	int c, n_corpus = 0, i;

	setup_zydis();
	if (argc == 2 && !strcmp(argv[1], "-c"))
		return cases();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((c = getopt(argc, argv, "m:l:r:")) != -1) {
		if (c == 'm')
			moddir = optarg;
		else if (c == 'l')
			list = optarg;
		else if (c == 'r' && n_corpus < 16)
			corpus[n_corpus++] = optarg;
		else
			goto usage;
	}
	if (optind != argc || !moddir != !list)
		goto usage;
	if (moddir)
		check_list(moddir, list);
	for (i = 0; i < n_corpus; i++)
		check_corpus(corpus[i]);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	summary(t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	return tap_fails || !tap_n ? 1 : 0;
usage:
	fprintf(stderr, "usage: zydis-agree [-m MODDIR -l LIST] [-r DIR]...\n"
		"       zydis-agree -c < CASES\n");
	return 2;
}
