// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for sldctl's configuration parser: the input is split
 * at the first 0xff 0xfe pair into two files (main file and a drop-in) so
 * override across files is exercised too. Every entry that comes out
 * must satisfy the format's promises.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/config.h"

static void check(const struct conf *c)
{
	size_t i, j, n;

	for (i = 0; i < c->nent; i++) {
		const struct conf_entry *e = &c->ent[i];

		n = strlen(e->key);
		if (n < 1 || n > CONF_KEY_MAX)
			abort();
		for (j = 0; j < n; j++)
			if (!((e->key[j] >= 'a' && e->key[j] <= 'z') || e->key[j] == '_'))
				abort();
		n = strlen(e->value);
		if (n < 1 || n > CONF_VAL_MAX)
			abort();
		for (j = 0; j < n; j++)
			if (e->value[j] < 0x20 || e->value[j] > 0x7e)
				abort();
		if (e->value[0] == ' ' || e->value[n - 1] == ' ' || !e->line)
			abort();
		for (j = 0; j < i; j++)
			if (!strcmp(c->ent[j].key, e->key))
				abort();
	}
	for (i = 0; i < c->nerr; i++)
		if (!c->err[i].line || !c->err[i].msg[0])
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	size_t split = size;
	struct conf c;
	size_t i;

	for (i = 0; i + 1 < size; i++)
		if (data[i] == 0xff && data[i + 1] == 0xfe) {
			split = i;
			break;
		}
	conf_init(&c);
	if (conf_parse(&c, "sld-compat.conf", buf, split))
		goto out;
	if (split < size &&
	    conf_parse(&c, "conf.d/10.conf", buf + split + 2, size - split - 2))
		goto out;
	check(&c);
out:
	conf_free(&c);
	return 0;
}
