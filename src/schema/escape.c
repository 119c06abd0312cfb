// SPDX-License-Identifier: GPL-2.0
/* Names from users as they are shown (see escape.h). */
#include "schema/escape.h"

bool sld_esc_needed(unsigned char c, unsigned int flags)
{
	if (c < 0x20 || c >= 0x7f || c == '\\')
		return true;
	if (c == ' ')
		return flags & SLD_ESC_SPACE;
	return (c == '\'' || c == '"') && (flags & SLD_ESC_QUOTES);
}

size_t sld_esc(char *dst, size_t size, const char *src, size_t max,
	       unsigned int flags)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, o = 0;

	for (i = 0; i < max && src[i]; i++) {
		unsigned char c = src[i];

		if (!sld_esc_needed(c, flags)) {
			if (o + 1 >= size)
				break;
			dst[o++] = c;
			continue;
		}
		if (o + 4 >= size)
			break;
		dst[o++] = '\\';
		dst[o++] = 'x';
		dst[o++] = hex[c >> 4];
		dst[o++] = hex[c & 0xf];
	}
	dst[o] = '\0';
	return i;
}
