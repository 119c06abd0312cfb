// SPDX-License-Identifier: GPL-2.0
/*
 * sldctl scan [--json] FILE...
 *
 * Classify module files with the same facts and the same rule
 * (sld_classify) the kernel module uses, so an admin can check a module
 * before loading it.
 *
 * Human output: "FILE: MODULE: VERDICT (REASON)", then one indented
 * "INSN: COUNT (first SECTION+0xOFF)" line per instruction kind found.
 * Control bytes in names are shown as \xNN. MODULE is "?" without name=.
 *
 * --json: an array with one object per file, in argument order:
 *   file, module (.modinfo name=, or null), sld_safe (the modinfo tag),
 *   imports_guest_handler, verdict, reason, insns, invalid, counts
 *   {insn: n}, init_counts {insn: n}, findings [{section, offset
 *   (decimal, from the section start), insn}] (at most SCAN_MAX_HITS,
 *   then findings_truncated). Findings in init sections (.init*) are
 *   listed but counted in init_counts only, and never decide the verdict,
 *   as in the kernel (modlib's sld_section_counts()); the human output
 *   marks them "init, not counted".
 *   A file that cannot be read gives {file, error} instead.
 *
 * Without name= the kernel would still know the module's name; we use the
 * file name ("kvm-intel.ko.xz" -> "kvm_intel") for the built-in table, but
 * report module as unknown rather than pretend it came from the file.
 *
 * Exit: 0 clean/safe/svm-only, 1 some hypervisor, 2 any error; the worst
 * over all files, and an error on one file does not stop the others.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "schema/modname.h"
#include "modlib/modinfo.h"
#include "scan.h"
#include "sldctl.h"

#define GUEST_HANDLER	"handle_guest_split_lock"

/* Walk this many instructions per x86scan_run() call. */
#define SCAN_CHUNK	65536

struct scan_ctx {
	struct scan_report *r;
	unsigned int sec;
	bool counts;		/* sld_section_counts() */
	int err;
};

static int record_hit(void *arg, enum x86_find f, size_t off)
{
	struct scan_ctx *c = arg;
	struct scan_report *r = c->r;
	struct scan_hit *h;
	int *first;

	if (f < 0 || f >= X86_F_COUNT)
		return 0;
	first = c->counts ? r->first_sec : r->init_first_sec;
	if (first[f] < 0)
		first[f] = c->sec;
	if (r->nhits >= SCAN_MAX_HITS) {
		r->hits_truncated = true;
		return 0;
	}
	/* Grow in powers of two: nhits hitting one is the trigger. */
	if ((r->nhits & (r->nhits - 1)) == 0) {
		size_t n = r->nhits ? r->nhits * 2 : 16;

		h = realloc(r->hits, n * sizeof(*h));
		if (!h) {
			c->err = -ENOMEM;
			return 1;
		}
		r->hits = h;
	}
	h = &r->hits[r->nhits++];
	h->sec = c->sec;
	h->find = f;
	h->off = off;
	return 0;
}

/*
 * Add one section's counters to the file's (init sections': to init_st);
 * first[] keeps the earliest section. Instructions are counted in st
 * for every section.
 */
static void add_stats(struct scan_report *r, const struct x86scan_stats *s,
		      unsigned int sec, bool counts)
{
	struct x86scan_stats *to = counts ? &r->st : &r->init_st;
	const int *first = counts ? r->first_sec : r->init_first_sec;
	int f;

	r->st.insns += s->insns;
	r->st.invalid += s->invalid;
	r->st.truncated += s->truncated;
	for (f = 0; f < X86_F_COUNT; f++) {
		if (!s->count[f])
			continue;
		if (first[f] == (int)sec && !to->count[f])
			to->first[f] = s->first[f];
		to->count[f] += s->count[f];
	}
}

static int scan_section(struct scan_report *r, const struct ko_section *sec,
			unsigned int idx)
{
	struct scan_ctx c = { .r = r, .sec = idx,
			      .counts = sld_section_counts(sec->name) };
	struct x86scan s;

	x86scan_init(&s, sec->data, sec->size);
	while (x86scan_run(&s, SCAN_CHUNK, record_hit, &c) && !s.stopped)
		;
	if (c.err)
		return c.err;
	add_stats(r, &s.st, idx, c.counts);
	return 0;
}

/* "kvm-intel.ko.xz" -> "kvm_intel", as the kernel would name it. */
static void name_from_file(char *out, size_t outlen, const char *file)
{
	static const char *const sfx[] = { ".ko.xz", ".ko.zst", ".ko.gz", ".ko" };
	const char *base = strrchr(file, '/');
	size_t len, i;

	base = base ? base + 1 : file;
	len = strlen(base);
	for (i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		size_t n = strlen(sfx[i]);

		if (len > n && !strcmp(base + len - n, sfx[i])) {
			len -= n;
			break;
		}
	}
	if (len >= outlen)
		len = outlen - 1;
	sld_modname_norm(out, base, len);
}

int scan_kofile(const struct kofile *ko, const char *file,
		struct scan_report *r)
{
	struct sld_facts facts = { 0 };
	const char *blob;
	size_t len, i;
	int f, err;

	memset(r, 0, sizeof(*r));
	r->file = file;
	for (f = 0; f < X86_F_COUNT; f++)
		r->first_sec[f] = r->init_first_sec[f] = -1;

	blob = kofile_modinfo(ko, &len);
	if (blob) {
		r->module = sld_modinfo_get(blob, len, "name");
		r->sld_safe = sld_modinfo_sld_safe(blob, len);
	}
	r->imports_handler = kofile_imports(ko, GUEST_HANDLER);

	for (i = 0; i < kofile_exec_count(ko); i++) {
		const struct ko_section *sec = kofile_exec(ko, i);

		if (!sec->size)
			continue;
		err = scan_section(r, sec, i);
		if (err)
			return err;
	}

	/* Without name= the built-in table can still match the file name. */
	name_from_file(r->fallback, sizeof(r->fallback), file);
	facts.name = r->module ? r->module : r->fallback;
	facts.modinfo_safe = r->sld_safe;
	facts.imports_guest_handler = r->imports_handler;
	facts.st = &r->st;
	r->verdict = sld_classify(&facts, &r->reason);
	return 0;
}

void scan_report_free(struct scan_report *r)
{
	free(r->hits);
	r->hits = NULL;
	r->nhits = 0;
}

int scan_exit_code(const struct scan_report *r)
{
	return r->verdict == SLD_V_HYPERVISOR ? SLDCTL_EXIT_FOUND : SLDCTL_EXIT_OK;
}

/* Names come from the file: keep control characters off the terminal. */
static void put_safe(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = *s;

		if (c < 0x20 || c == 0x7f || c == '\\')
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
}

static const char *sec_name(const struct kofile *ko, unsigned int idx)
{
	const struct ko_section *s = kofile_exec(ko, idx);

	return s ? s->name : "?";
}

void scan_print_human(FILE *f, const struct kofile *ko,
		      const struct scan_report *r)
{
	int k;

	put_safe(f, r->file);
	fputs(": ", f);
	put_safe(f, r->module ? r->module : "?");
	fprintf(f, ": %s (%s)\n", sld_verdict_name(r->verdict),
		sld_reason_name(r->reason));
	for (k = 0; k < X86_F_COUNT; k++) {
		if (!r->st.count[k])
			continue;
		fprintf(f, "    %s: %u (first ", x86_find_name(k), r->st.count[k]);
		put_safe(f, sec_name(ko, r->first_sec[k]));
		fprintf(f, "+0x%llx)\n", (unsigned long long)r->st.first[k]);
	}
	for (k = 0; k < X86_F_COUNT; k++) {
		if (!r->init_st.count[k])
			continue;
		fprintf(f, "    %s: %u in init, not counted (first ",
			x86_find_name(k), r->init_st.count[k]);
		put_safe(f, sec_name(ko, r->init_first_sec[k]));
		fprintf(f, "+0x%llx)\n", (unsigned long long)r->init_st.first[k]);
	}
}

void scan_print_json(struct json *j, const struct kofile *ko,
		     const struct scan_report *r)
{
	size_t i;
	int k;

	json_begin_object(j);
	json_field_str(j, "file", r->file);
	json_field_str(j, "module", r->module);
	json_field_bool(j, "sld_safe", r->sld_safe);
	json_field_bool(j, "imports_guest_handler", r->imports_handler);
	json_field_str(j, "verdict", sld_verdict_name(r->verdict));
	json_field_str(j, "reason", sld_reason_name(r->reason));
	json_field_uint(j, "insns", r->st.insns);
	json_field_uint(j, "invalid", r->st.invalid);
	json_key(j, "counts");
	json_begin_object(j);
	for (k = 0; k < X86_F_COUNT; k++) {
		if (!r->st.count[k])
			continue;
		json_key(j, x86_find_name(k));
		json_uint(j, r->st.count[k]);
	}
	json_end_object(j);
	json_key(j, "init_counts");
	json_begin_object(j);
	for (k = 0; k < X86_F_COUNT; k++) {
		if (!r->init_st.count[k])
			continue;
		json_key(j, x86_find_name(k));
		json_uint(j, r->init_st.count[k]);
	}
	json_end_object(j);
	json_key(j, "findings");
	json_begin_array(j);
	for (i = 0; i < r->nhits; i++) {
		json_begin_object_flat(j);
		json_field_str(j, "section", sec_name(ko, r->hits[i].sec));
		json_field_uint(j, "offset", r->hits[i].off);
		json_field_str(j, "insn", x86_find_name(r->hits[i].find));
		json_end_object(j);
	}
	json_end_array(j);
	json_field_bool(j, "findings_truncated", r->hits_truncated);
	json_end_object(j);
}

void scan_print_json_error(struct json *j, const char *file, const char *msg)
{
	json_begin_object(j);
	json_field_str(j, "file", file);
	json_field_str(j, "error", msg);
	json_end_object(j);
}

/* Scan one file and print it; returns its exit code. */
static int scan_one(const char *file, struct json *j)
{
	struct scan_report r;
	struct kofile *ko;
	char err[256];
	int rc;

	if (kofile_open(file, &ko, err, sizeof(err)) != KO_OK) {
		fprintf(stderr, "sldctl: %s: %s\n", file, err);
		if (j)
			scan_print_json_error(j, file, err);
		return SLDCTL_EXIT_ERROR;
	}
	if (scan_kofile(ko, file, &r)) {
		fprintf(stderr, "sldctl: %s: out of memory\n", file);
		if (j)
			scan_print_json_error(j, file, "out of memory");
		rc = SLDCTL_EXIT_ERROR;
	} else {
		if (j)
			scan_print_json(j, ko, &r);
		else
			scan_print_human(stdout, ko, &r);
		rc = scan_exit_code(&r);
	}
	scan_report_free(&r);
	kofile_close(ko);
	return rc;
}

int cmd_scan(int argc, char **argv)
{
	struct cli c = { .cmd = "scan", .usage = "[--json] FILE...",
			 .min_args = 1, .max_args = -1, .missing = "no file given" };
	struct json j;
	int i, rc;

	rc = cli_parse(&c, argc, argv);
	if (rc != CLI_OK)
		return cli_exit(rc);
	rc = SLDCTL_EXIT_OK;
	if (c.json) {
		json_init(&j, stdout, true);
		json_begin_array(&j);
	}
	for (i = 0; i < c.nargs; i++) {
		int one = scan_one(c.args[i], c.json ? &j : NULL);

		if (one > rc)
			rc = one;
	}
	if (c.json) {
		json_end_array(&j);
		json_end(&j);
	}
	return rc;
}
