// SPDX-License-Identifier: GPL-2.0
/* HAVE_LINUX_HEX_H: hex_byte_pack() lives in <linux/hex.h> (7.x), not kernel.h. */
#include <linux/hex.h>

char *conftest_hex_byte_pack(char *buf, u8 byte);
char *conftest_hex_byte_pack(char *buf, u8 byte)
{
	return hex_byte_pack(buf, byte);
}
