/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The body of `sldctl scan`, split from option parsing so the fuzzer and
 * the unit tests drive exactly the code the command runs.
 */
#ifndef SLDCTL_SCAN_H
#define SLDCTL_SCAN_H

#include <stdio.h>

#include "lib/json.h"
#include "lib/kofile.h"
#include "modlib/verdict.h"

/* Enough for any real module (kvm-intel has a few hundred hits). */
#define SCAN_MAX_HITS	100000

struct scan_hit {
	unsigned int sec;	/* index for kofile_exec() */
	enum x86_find find;
	uint64_t off;		/* from the start of the section */
};

struct scan_report {
	const char *file;
	const char *module;		/* .modinfo name=, or NULL */
	char fallback[64];		/* name from the file name, if no name= */
	bool sld_safe;
	bool imports_handler;
	enum sld_verdict verdict;
	enum sld_reason reason;
	struct x86scan_stats st;	/* summed over counted sections */
	int first_sec[X86_F_COUNT];	/* exec index of first hit, -1 none */
	/* Findings in init sections: reported, not counted (verdict.h). */
	struct x86scan_stats init_st;
	int init_first_sec[X86_F_COUNT];
	struct scan_hit *hits;
	size_t nhits;
	bool hits_truncated;
};

/* Gather facts, scan every exec section, classify. 0 or -ENOMEM. */
int scan_kofile(const struct kofile *ko, const char *file,
		struct scan_report *r);
void scan_report_free(struct scan_report *r);

/* Exit status for one report: SLDCTL_EXIT_FOUND for a hypervisor. */
int scan_exit_code(const struct scan_report *r);

void scan_print_human(FILE *f, const struct kofile *ko,
		      const struct scan_report *r);
void scan_print_json(struct json *j, const struct kofile *ko,
		     const struct scan_report *r);
void scan_print_json_error(struct json *j, const char *file, const char *msg);

#endif /* SLDCTL_SCAN_H */
