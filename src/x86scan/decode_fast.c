// SPDX-License-Identifier: GPL-2.0
/*
 * The x86-64 decoder's fast path (x86_decode_fast, x86_decode_run): the
 * length of plain instructions from a few table lookups, in two lanes.
 * Everything it cannot decide is left to x86_decode() (decode.c), whose
 * tables it shares (decode.h).
 */
#include "x86scan/decode.h"
#include "x86scan/x86scan.h"

/*
 * Nearly all of module text is plain instructions: no prefix (53% of the
 * 16.3M instructions of 6.1.0-57-amd64's modules) or a lone REX (43%),
 * one- or 0f-map opcodes, valid, and no finder instruction. The careful
 * decoder (decode.c) walks those through prefixes(), decode_op(),
 * decode_legacy() and leg_class() filling a struct x86_insn: some 35 ns
 * each on the benchmark machine, 106 MB/s. x86_decode_fast() decides them
 * with a handful of table lookups instead, from the very same tables
 * (shape, leg_*; x86_leg_bad0 is x86_leg_pat without prefix, one bit per slot)
 * plus precomputed ModRM and immediate sizes, and hands everything else to
 * x86_decode(): fwait, a REX followed by a prefix, more than 3 legacy
 * prefixes, 0f 0f/38/3a, VEX/EVEX/XOP, every opcode the finder looks at,
 * MOV CR/DR, opcodes objdump names by ModRM.rm, anything objdump shows as
 * "(bad)" and anything longer than 15 bytes. Deferring is always safe; what
 * it does decide must be what x86_decode says, which the differential tests
 * check at every offset of every module and on random bytes
 * (tests/unit/test_x86diff.c, tests/fuzz/fuzz_decdiff.c).
 */

/* Legacy prefix bytes, REX and fwait, as the fast path sorts them. */
#define PK_66	0x01
#define PK_67	0x02
#define PK_F3	0x04
#define PK_F2	0x08
#define PK_SEG	0x10	/* segment overrides and lock: no effect on length */
#define PK_LEG	0x1f
#define PK_REX	0x20
#define PK_FWAIT 0x40

static const uint8_t pfx_kind[256] = {
	[0x26] = PK_SEG, [0x2e] = PK_SEG, [0x36] = PK_SEG, [0x3e] = PK_SEG,
	[0x40 ... 0x4f] = PK_REX,
	[0x64] = PK_SEG, [0x65] = PK_SEG, [0x66] = PK_66, [0x67] = PK_67,
	[0x9b] = PK_FWAIT, [0xf0] = PK_SEG, [0xf2] = PK_F2, [0xf3] = PK_F3,
};

/*
 * modrm_info[ModRM | (next byte & 7) << 8]: bits 0-3 the ModRM + SIB +
 * displacement bytes as modrm_len() counts them (the next byte is the SIB
 * where ModRM.rm is 4, and its base 5 under mod 0 means disp32); bits 4-7
 * the slot leg_class() looks at, reg * 2 + (mod == 3). Indexed by 11 bits
 * straight from the instruction word, so no compare is needed for the SIB.
 */
#define MRM(m, s)	(((m) >= 0xc0 ? 1 : 1 + (((m) & 7) == 4) +	\
			  ((m) >> 6 == 1 ? 1 : (m) >> 6 == 2 ? 4 :	\
			   ((m) & 7) == 5 ? 4 : 0) +			\
			  ((s) == 5 && ((m) & 0xc7) == 0x04 ? 4 : 0)) |	\
			 ((((m) >> 3) & 7) * 2 + ((m) >= 0xc0)) << 4)
#define MRM4(m, s)	MRM(m, s), MRM((m) + 1, s), MRM((m) + 2, s), MRM((m) + 3, s)
#define MRM16(m, s)	MRM4(m, s), MRM4((m) + 4, s), MRM4((m) + 8, s), MRM4((m) + 12, s)
#define MRM64(m, s)	MRM16(m, s), MRM16((m) + 16, s), MRM16((m) + 32, s), \
			MRM16((m) + 48, s)
#define MRM256(s)	MRM64(0x00, s), MRM64(0x40, s), MRM64(0x80, s), \
			MRM64(0xc0, s)

static const uint8_t modrm_info[8 * 256] = {
	MRM256(0), MRM256(1), MRM256(2), MRM256(3),
	MRM256(4), MRM256(5), MRM256(6), MRM256(7),
};

/* The same for every context, for prefixed instructions. */
#define IMM4(c, i)	IMM(c, i), IMM(c, (i) + 1), IMM(c, (i) + 2), IMM(c, (i) + 3)
#define IMM16(c, i)	IMM4(c, i), IMM4(c, (i) + 4), IMM4(c, (i) + 8), IMM4(c, (i) + 12)
#define IMM64(c)	{ IMM16(c, 0), IMM16(c, 16), IMM16(c, 32), IMM16(c, 48) }

static const uint8_t imm_size[8][64] = {
	IMM64(0), IMM64(1), IMM64(2), IMM64(3),
	IMM64(4), IMM64(5), IMM64(6), IMM64(7),
};

#define X86_FAST_PFX	3	/* legacy prefixes the fast path takes */

/* The legacy-map verdict of leg_class() where no ModRM.rm rule applies. */
static inline unsigned int fast_class(unsigned int map, unsigned int op,
				      unsigned int p, unsigned int m)
{
	return (x86_leg_pat[x86_leg_idx[map][op]][p] >>
		(((m >> 3) & 7) * 4 + (m >= 0xc0) * 2)) & 3;
}

/*
 * fast_len() for an instruction with legacy prefixes (4% of module text):
 * byte by byte, like prefixes() and decode_legacy().
 */
static __attribute__((__noinline__)) unsigned int
fast_len_pfx(const uint8_t *b)
{
	unsigned int i = 0, seen = 0, rep = 0, rex_w = 0, map = X86_MAP_1BYTE;
	unsigned int ctx, p, m = 0, l;
	uint8_t c = b[0], k = pfx_kind[c];
	uint32_t t;

	while (k & PK_LEG) {
		seen |= k;
		if (k & (PK_F2 | PK_F3))
			rep = k;		/* the last of f2/f3 counts */
		if (++i > X86_FAST_PFX)
			return 0;
		c = b[i];
		k = pfx_kind[c];
	}
	if (k == PK_REX) {
		rex_w = (c >> 3) & 1;
		c = b[++i];
		/* REX then a prefix: objdump shows them alone */
		if (pfx_kind[c])
			return 0;
	} else if (k) {
		return 0;			/* fwait */
	}
	/* as pfx_index(): f3, f2, then 66 picks the opcode variant */
	p = rep == PK_F3 ? 2 : rep == PK_F2 ? 3 : (seen & PK_66) ? 1 : 0;
	ctx = ((seen & PK_66) ? 1 : 0) | (rex_w << 1) | ((seen & PK_67) ? 4 : 0);

	t = x86_shape[X86_MAP_1BYTE][c];
	if (t & X_ESC) {
		c = b[++i];
		t = x86_shape[X86_MAP_0F][c];
		map = X86_MAP_0F;
	}
	if (t & (S_BAD | X_SLOW))
		return 0;
	l = ++i;
	if (t & S_M) {
		m = b[i];
		if (((t & X_F8) && m >= 0xf8) || ((t & X_M3) && m >= 0xc0))
			return 0;
		l += modrm_info[m | (b[i + 1] & 7) << 8] & 0xf;
		if ((t & X_GRP3) && !(m & 0x30))
			l += imm_size[ctx][((c & 1) ? S_IZ : S_I8) >> 1];
	}
	l += imm_size[ctx][(SHAPE(t) >> 1) & 0x3f];
	if (fast_class(map, c, p, m) != K_OK || l > X86_MAX_LEN)
		return 0;
	return l;
}

/* Bytes b[0..7], b[0] in the low byte, whatever the host's byte order. */
static inline uint64_t load_le64(const uint8_t *b)
{
	uint64_t w;

	memcpy(&w, b, sizeof(w));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	return w;
}

/*
 * The rest of fast_len() once REX and 0f are known: w holds the bytes from
 * the opcode on, n bytes came before it, rex_w is REX.W, slow nonzero if
 * fast_len_pfx() must decide (for the rare special cases it handles,
 * test /0 /1 here) or x86_decode. map is a constant in each caller.
 *
 * No length check: without legacy prefixes a plain instruction has at
 * most REX + opcode + 6 (ModRM, SIB, disp32) + 4 = 12 bytes, or 10 with
 * imm64/moffs (no ModRM); 0f-map ones at most 2 + 1 + 6 + 1.
 */
static inline __attribute__((__always_inline__)) unsigned int
fast_tail(const uint8_t *b, uint64_t w, unsigned int n, unsigned int map,
	  unsigned int rex_w, unsigned int slow)
{
	unsigned int op = w & 0xff, t = x86_shape[map][op], m = (w >> 8) & 0xff;
	unsigned int mi = modrm_info[(w >> 8) & 0x7ff];
	unsigned int hm = E_MMASK(t), l;

	/* two fields of t, each one shift and mask from the sum */
	l = n + 1 + E_IMM(t, rex_w) + (mi & 0xf & hm);
	/* no ModRM: leg_class() looks at slot 0 */
	mi &= hm;
	m &= hm;
	slow |= (t & (S_BAD | X_SLOW | X_GRP3)) | ((m + E_TOPM(t)) >> 8) |
		((x86_leg_bad0[map][op] >> (mi >> 4)) & 1);
	if (slow)
		return fast_len_pfx(b);
	return l;
}

/*
 * The length of the instruction at b if it is a plain one (valid, not a
 * finder instruction), else 0. b must have X86_FAST_MIN readable bytes:
 * every byte looked at lies in the first 10, and a plain instruction has
 * at most 15, so neither truncation nor the 20-byte fetch limit applies.
 *
 * This runs once per instruction of every module, and the next one starts
 * where this one ends, so it is written for a short dependency chain from
 * b to the length, few instructions and no branch the CPU cannot predict
 * (REX or not, ModRM or not are coin flips in compiled code; 0f is 1 in
 * 10): without legacy prefixes the first 8 bytes are loaded once and
 * picked apart by shifts, REX is folded in arithmetically, the opcode's
 * shape entry and the ModRM's info entry carry everything else
 * precomputed (both loads issue at once), and every reason to look closer
 * is ORed into one rarely taken branch.
 */
static inline __attribute__((__always_inline__)) unsigned int
fast_len(const uint8_t *b)
{
	uint64_t w = load_le64(b);
	unsigned int b0 = w & 0xff, rex, rex_w, slow;

	if (pfx_kind[b0] & (PK_LEG | PK_FWAIT))
		return fast_len_pfx(b);
	rex = (b0 - 0x40) < 0x10;		/* unsigned: 40..4f */
	rex_w = rex & (b0 >> 3);
	w >>= rex * 8;
	/*
	 * A REX then a prefix is left to x86_decode (objdump shows it
	 * alone); without REX this byte is b0, no prefix at all.
	 */
	slow = pfx_kind[w & 0xff];
	if ((w & 0xff) == 0x0f)
		return fast_tail(b, w >> 8, rex + 1, X86_MAP_0F, rex_w, slow);
	return fast_tail(b, w, rex, X86_MAP_1BYTE, rex_w, slow);
}

int x86_decode_fast(const uint8_t *buf, size_t len)
{
	return len >= X86_FAST_MIN ? (int)fast_len(buf) : 0;
}

/*
 * Two lanes. Even at a few cycles per table lookup, one instruction's
 * length is a chain of ~20 cycles (load, REX, shape, sum) and the next
 * instruction cannot start before it: the core idles. So a second lane
 * decodes speculatively from X86_LANE_GAP bytes ahead, from a guess that
 * need not be an instruction start, and notes where it stood in a bitmap.
 * x86 code resynchronises within a few instructions: once the real lane
 * (A) stands where lane B stood, every later step of A would repeat B's
 * (fast_len() depends on nothing but the bytes there), so A jumps to
 * where B is and counts the starts B noted in between. If A passes B
 * without meeting it, B's work is dropped and B starts again ahead. The
 * result (bytes, count, where the run stops) is the one-lane result.
 */
#define X86_LANE_GAP	128
#define X86_LANE_BITS	256	/* B's notes: X86_LANE_BITS bytes from q0 */

/* Set bits in w (no libgcc/popcnt instruction needed in the kernel). */
static inline unsigned int bits64(uint64_t w)
{
	w -= (w >> 1) & 0x5555555555555555ull;
	w = (w & 0x3333333333333333ull) + ((w >> 2) & 0x3333333333333333ull);
	w = (w + (w >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (unsigned int)((w * 0x0101010101010101ull) >> 56);
}

/* Set bits [from, to) of a bitmap of X86_LANE_BITS, to <= X86_LANE_BITS. */
static size_t bits_between(const uint64_t *bm, size_t from, size_t to)
{
	size_t k = 0;

	while (from < to) {
		size_t i = from / 64, hi = to - i * 64 < 64 ? to - i * 64 : 64;
		uint64_t w = bm[i] >> (from % 64);

		if (hi < 64)
			w &= (1ull << (hi - from % 64)) - 1;
		k += bits64(w);
		from = i * 64 + hi;
	}
	return k;
}

size_t x86_decode_run(const uint8_t *buf, size_t len, size_t max,
		      size_t *count)
{
	const uint8_t *p = buf, *end, *q, *q0;
	uint64_t seen[X86_LANE_BITS / 64];
	size_t left = max, l, lb, off;
	bool lanes = true, bq;

	*count = 0;
	if (len < X86_FAST_MIN || !max)
		return 0;
	/* fast_len() needs X86_FAST_MIN bytes from where it starts */
	end = buf + len - (X86_FAST_MIN - 1);
restart:
	/* lane B from X86_LANE_GAP ahead; bq while it goes on */
	bq = lanes && (size_t)(end - p) > X86_LANE_GAP;
	if (bq) {
		q0 = q = p + X86_LANE_GAP;
		memset(seen, 0, sizeof(seen));
		seen[0] = 1;
	} else {
		q0 = q = end;		/* A stops before it gets there */
	}
	for (;;) {
		l = fast_len(p);
		if (bq) {
			lb = fast_len(q);
			q += lb;
			off = (size_t)(q - q0);
			if (!lb || q >= end || off >= X86_LANE_BITS)
				bq = false;
			else
				seen[off / 64] |= 1ull << (off % 64);
		}
		if (!l)
			break;
		p += l;
		if (!--left || p >= end)
			break;
		if (p < q0)
			continue;
		if (p > q)
			goto restart;		/* passed B: start it again */
		off = (size_t)(p - q0);
		if (off < X86_LANE_BITS && (seen[off / 64] >> (off % 64)) & 1) {
			/*
			 * A stands where B stood: take B's steps since. B
			 * may have stepped past its notes (then it stopped):
			 * each noted start is one step all the same.
			 */
			size_t to = (size_t)(q - q0), k;

			k = bits_between(seen, off, to < X86_LANE_BITS ?
					 to : X86_LANE_BITS);
			if (k > left) {
				/* not within max: go on alone */
				lanes = false;
				bq = false;
				continue;
			}
			left -= k;
			p = q;
			if (!left || p >= end)
				break;
			goto restart;
		}
	}
	*count = max - left;
	return (size_t)(p - buf);
}
