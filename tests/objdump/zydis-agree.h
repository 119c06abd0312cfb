/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zydis-agree: what the comparison (zydis-agree.c) and its table of the
 * known differences between x86scan and Zydis (zydis-except.c) share.
 */
#ifndef ZYDIS_AGREE_H
#define ZYDIS_AGREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <Zydis/Zydis.h>

#include "x86scan/x86scan.h"

enum status { ST_INSN, ST_BAD, ST_TRUNC };

/* One decoder's verdict on the bytes at an instruction start. */
struct verdict {
	enum status st;
	/*
	 * ST_INSN: the instruction's length. x86scan's ST_BAD, ST_TRUNC:
	 * the bytes its walk skips (objdump's "(bad)", or 1).
	 */
	int len;
	enum x86_find find;	/* ST_INSN: X86_F_NONE unless a finding */
	/* Zydis's only: */
	ZydisMnemonic mn;
	ZydisInstructionEncoding enc;
	ZydisISAExt isa;
	ZyanStatus zst;		/* why it failed */
};

/* The scanner's verdict at b (scan.c: the fast path, else x86_decode). */
struct verdict scan_decode(const uint8_t *b, size_t n);
/* Zydis's, configured as objdump decodes where Zydis has a setting. */
struct verdict zydis_decode(const uint8_t *b, size_t n);

/* The same status and, for an instruction, length and finding. */
bool same(const struct verdict *s, const struct verdict *z);

/* A known difference: why, and whether it is the one at b. */
struct exception {
	const char *why;
	bool (*match)(const uint8_t *b, size_t n, const struct verdict *s,
		      const struct verdict *z);
	unsigned long long seen;
};

extern struct exception exceptions[];
extern const size_t n_exceptions;

/* The entry of exceptions[] that excuses s against z at b, or NULL. */
struct exception *excepted(const uint8_t *b, size_t n,
			   const struct verdict *s, const struct verdict *z);
/* same(), or a difference exceptions[] excuses. */
bool agree(const uint8_t *b, size_t n, const struct verdict *s,
	   const struct verdict *z);

#endif /* ZYDIS_AGREE_H */
