// SPDX-License-Identifier: GPL-2.0
/*
 * The finder: walk a text section with x86_decode_run() and x86_decode()
 * and report the instructions that only a hypervisor (VMX, SVM) or code
 * that reprograms the CPU (MOV to CR/DR) executes (which those are:
 * find.c).
 */
#include "x86scan/x86scan.h"

void x86scan_init(struct x86scan *s, const uint8_t *buf, size_t len)
{
	memset(s, 0, sizeof(*s));
	s->buf = buf;
	s->len = len;
}

/* One step: decode at s->pos, account, advance. Returns nonzero to stop. */
static int step(struct x86scan *s, x86scan_cb cb, void *ctx)
{
	struct x86_insn in;
	size_t off = s->pos;
	int r = x86_decode(s->buf + off, s->len - off, &in);

	if (r == X86_TRUNCATED) {
		/* objdump prints ".byte" and retries at the next byte */
		s->st.truncated = 1;
		s->pos++;
		return 0;
	}
	if (r < 0) {
		s->st.invalid++;
		s->pos += in.len ? in.len : 1;
		return 0;
	}
	s->st.insns++;
	s->pos += (size_t)r;
	if (in.find == X86_F_NONE)
		return 0;
	if (!s->st.count[in.find]++)
		s->st.first[in.find] = off;
	return cb ? cb(ctx, in.find, off) : 0;
}

/*
 * x86_decode_run() takes the plain instructions in bulk (most of them);
 * step() decodes the rest one by one with x86_decode. Either way each
 * instruction counts once against max_insns, as before the fast path.
 */
bool x86scan_run(struct x86scan *s, size_t max_insns, x86scan_cb cb,
		 void *ctx)
{
	size_t done = 0, n;

	while (s->pos < s->len && !s->stopped) {
		if (max_insns && done >= max_insns)
			break;
		s->pos += x86_decode_run(s->buf + s->pos, s->len - s->pos,
					 max_insns ? max_insns - done : (size_t)-1,
					 &n);
		s->st.insns += n;
		done += n;
		if (s->pos >= s->len || (max_insns && done >= max_insns))
			break;
		done++;
		if (step(s, cb, ctx))
			s->stopped = true;
	}
	return s->pos < s->len && !s->stopped;
}

/* The rel32 at buf[at], relative to the instruction ending at at + 4. */
static bool rel32_hits(const uint8_t *buf, size_t at, uint64_t base,
		       uint64_t lo, uint64_t hi)
{
	uint32_t d = (uint32_t)buf[at] | (uint32_t)buf[at + 1] << 8 |
		     (uint32_t)buf[at + 2] << 16 | (uint32_t)buf[at + 3] << 24;
	/* sign-extended: the 64-bit target, no wrap within 32 bits */
	uint64_t t = base + at + 4 + (uint64_t)(int64_t)(int32_t)d;

	return t >= lo && t <= hi;
}

/* A call/jmp rel32 whose last byte is at p, or a Jcc rel32: 0 to 2 hits. */
static size_t hits_ending_at(const uint8_t *buf, size_t p, uint64_t base,
			     uint64_t lo, uint64_t hi)
{
	size_t n = 0;

	if ((buf[p - 4] | 1) == 0xe9 && rel32_hits(buf, p - 3, base, lo, hi))
		n++;
	if (p >= 5 && buf[p - 5] == 0x0f && (buf[p - 4] & 0xf0) == 0x80 &&
	    rel32_hits(buf, p - 3, base, lo, hi))
		n++;
	return n;
}

#define REP8(b)		((uint64_t)(b) * 0x0101010101010101ull)
/* Nonzero iff some byte of v is zero. */
#define ZBYTES(v)	(((v) - REP8(1)) & ~(v) & REP8(0x80))

/*
 * Every displacement that can reach [lo, hi] from inside the buffer lies
 * in a window of len + (hi - lo) values; under 2^24 its top byte takes
 * one of two values, h0 and h1. So the walk looks for those bytes, eight
 * at a time, where the displacement's last byte would be, and checks the
 * rare candidates: about one instruction per byte where trying every
 * offset took eleven (amdgpu: 57 million more instructions per load).
 */
size_t x86_rel32_to(const uint8_t *buf, size_t len, uint64_t base,
		    uint64_t lo, uint64_t hi)
{
	uint32_t dmin, w = (uint32_t)(len + (hi - lo));
	uint64_t r0, r1, v;
	uint8_t h0, h1;
	size_t p, k, n = 0;

	if (len < 5 || hi < lo)
		return 0;
	if (len >= (1u << 23) || hi - lo >= (1u << 23)) {
		for (p = 4; p < len; p++)
			n += hits_ending_at(buf, p, base, lo, hi);
		return n;
	}
	dmin = (uint32_t)(lo - base - len);
	h0 = (uint8_t)(dmin >> 24);
	h1 = (uint8_t)((dmin + w) >> 24);
	r0 = REP8(h0);
	r1 = REP8(h1);
	for (p = 4; p + 8 <= len; p += 8) {
		memcpy(&v, buf + p, sizeof(v));
		if (!(ZBYTES(v ^ r0) | ZBYTES(v ^ r1)))
			continue;
		for (k = p; k < p + 8; k++)
			if (buf[k] == h0 || buf[k] == h1)
				n += hits_ending_at(buf, k, base, lo, hi);
	}
	for (; p < len; p++)
		if (buf[p] == h0 || buf[p] == h1)
			n += hits_ending_at(buf, p, base, lo, hi);
	return n;
}
