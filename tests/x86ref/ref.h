/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The frozen reference decoder (ref_decode.c) and the scan loop as it was
 * before the fast path, for the differential tests: the library must give
 * the same length, status and finding at every offset, and x86scan_run the
 * same statistics and hits, as these.
 */
#ifndef X86REF_H
#define X86REF_H

#include <string.h>
#include "x86scan/x86scan.h"

int ref_x86_decode(const uint8_t *buf, size_t len, struct x86_insn *insn);

#define REF_MAX_HITS	64

struct ref_hits {
	size_t n;			/* all hits; the first REF_MAX_HITS kept */
	enum x86_find f[REF_MAX_HITS];
	size_t off[REF_MAX_HITS];
};

static inline void ref_hit(struct ref_hits *h, enum x86_find f, size_t off)
{
	if (h->n < REF_MAX_HITS) {
		h->f[h->n] = f;
		h->off[h->n] = off;
	}
	h->n++;
}

/* x86scan_run(s, 0, cb, ctx) of main at 8697c94, on ref_x86_decode. */
static inline void ref_scan(const uint8_t *buf, size_t len,
			    struct x86scan_stats *st, struct ref_hits *h)
{
	size_t pos = 0;

	memset(st, 0, sizeof(*st));
	while (pos < len) {
		struct x86_insn in;
		int r = ref_x86_decode(buf + pos, len - pos, &in);

		if (r == X86_TRUNCATED) {
			st->truncated = 1;
			pos++;
			continue;
		}
		if (r < 0) {
			st->invalid++;
			pos += in.len ? in.len : 1;
			continue;
		}
		st->insns++;
		if (in.find != X86_F_NONE) {
			if (!st->count[in.find]++)
				st->first[in.find] = pos;
			ref_hit(h, in.find, pos);
		}
		pos += (size_t)r;
	}
}

/* Callback for x86scan_run that fills a struct ref_hits. */
static inline int ref_hit_cb(void *ctx, enum x86_find f, size_t off)
{
	ref_hit(ctx, f, off);
	return 0;
}

static inline bool ref_hits_equal(const struct ref_hits *a,
				  const struct ref_hits *b)
{
	size_t k = a->n < REF_MAX_HITS ? a->n : REF_MAX_HITS;

	return a->n == b->n && !memcmp(a->f, b->f, k * sizeof(a->f[0])) &&
	       !memcmp(a->off, b->off, k * sizeof(a->off[0]));
}

/* Everything x86_decode reports, field by field (no padding compared). */
static inline bool ref_insn_equal(int r1, const struct x86_insn *a,
				  int r2, const struct x86_insn *b)
{
	if (r1 != r2)
		return false;
	if (r1 == X86_TRUNCATED)
		return true;
	if (r1 == X86_INVALID)
		return a->len == b->len;
	return a->len == b->len && a->map == b->map &&
	       a->opcode == b->opcode && a->has_modrm == b->has_modrm &&
	       (!a->has_modrm || a->modrm == b->modrm) && a->find == b->find &&
	       a->prefixes == b->prefixes && a->rex == b->rex &&
	       a->mandatory == b->mandatory;
}

#endif
