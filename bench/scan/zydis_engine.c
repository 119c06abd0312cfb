// SPDX-License-Identifier: GPL-2.0
/*
 * Zydis 4 (libzydis-dev): ZydisDecoderDecodeInstruction without operand
 * decoding, linearly over the buffer, one byte skipped where it finds no
 * instruction. minimal=1 switches on ZYDIS_DECODER_MODE_MINIMAL, Zydis's
 * fastest setting (length and opcode only).
 */
#include <Zydis/Zydis.h>
#include "engines.h"

static ZydisDecoder dec;

void zydis_setup(int minimal)
{
	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	ZydisDecoderEnableMode(&dec, ZYDIS_DECODER_MODE_MINIMAL,
			       minimal ? ZYAN_TRUE : ZYAN_FALSE);
}

uint64_t zydis_pass(const uint8_t *buf, size_t len, uint64_t *bad)
{
	ZydisDecodedInstruction in;
	uint64_t n = 0;
	size_t pos = 0;

	while (pos < len) {
		if (ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&dec, NULL,
				buf + pos, len - pos, &in))) {
			pos += in.length;
			n++;
		} else {
			pos++;
			(*bad)++;
		}
	}
	return n;
}
