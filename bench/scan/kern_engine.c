// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's own x86 instruction decoder (insn_decode), compiled from the
 * linux-source-6.1 package's tools/ copy at bench time (see Makefile): walk
 * the buffer linearly, skipping one byte where it finds no instruction.
 */
#include <asm/insn.h>
#include "engines.h"

uint64_t kern_pass(const uint8_t *buf, size_t len, uint64_t *bad)
{
	uint64_t n = 0;
	size_t pos = 0;

	while (pos < len) {
		struct insn insn;
		size_t rem = len - pos;

		if (!insn_decode(&insn, buf + pos, rem > 64 ? 64 : (int)rem,
				 INSN_MODE_64) && insn.length) {
			pos += insn.length;
			n++;
		} else {
			pos++;
			(*bad)++;
		}
	}
	return n;
}
