// SPDX-License-Identifier: GPL-2.0
/*
 * .modinfo is a run of NUL-terminated "key=value" strings. The blob comes
 * from a module file we have not validated yet, so every access is bounded
 * by len and a last string without its NUL is ignored: its value would not
 * be a C string inside the blob.
 */
#ifdef __KERNEL__
#include <linux/string.h>
#else
#include <string.h>
#endif

#include "modlib/modinfo.h"

const char *sld_modinfo_get(const char *blob, size_t len, const char *key)
{
	size_t klen = strlen(key), i = 0;

	if (!blob || !klen)
		return NULL;
	while (i < len) {
		const char *s = blob + i;
		const char *nul = memchr(s, 0, len - i);

		if (!nul)
			return NULL;	/* unterminated tail */
		if ((size_t)(nul - s) > klen && !strncmp(s, key, klen) &&
		    s[klen] == '=')
			return s + klen + 1;
		i = (size_t)(nul - blob) + 1;
	}
	return NULL;
}

bool sld_modinfo_sld_safe(const char *blob, size_t len)
{
	const char *v = sld_modinfo_get(blob, len, "sld_safe");

	if (!v)
		return false;
	return !strcmp(v, "Y") || !strcmp(v, "y") || !strcmp(v, "1");
}
