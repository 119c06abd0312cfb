// SPDX-License-Identifier: GPL-2.0
/* Module names, '-' equal to '_' (see modname.h). */
#include "schema/modname.h"

static char fold(char c)
{
	return c == '-' ? '_' : c;
}

bool sld_modname_eq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (fold(*a) != fold(*b))
			return false;
	return !*a && !*b;
}

void sld_modname_norm(char *dst, const char *src, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		dst[i] = fold(src[i]);
	dst[len] = '\0';
}

bool sld_modname_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '-';
}
