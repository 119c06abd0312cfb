// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for `sldctl status --format prometheus`'s readers of
 * the status files (tools/sldctl/status_prom.c): any bytes, cut at 0xff
 * into ac, hypervisors, tasks, the account, the module list and
 * disable_count. Whatever they hold, every line written must be a
 * # HELP/# TYPE line or an sld_compat_* sample: a newline in a label
 * value that escaped the escaping would break this. The kernel log is
 * not read here (offenders_read() is stubbed; offlog has its own harness).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/offenders.h"
#include "status_prom.h"

int offenders_read(struct offenders *o, const char *since, char *why,
		   size_t whylen)
{
	(void)o;
	(void)since;
	snprintf(why, whylen, "not read by the fuzzer");
	return -ENOENT;
}

void offenders_free(struct offenders *o)
{
	(void)o;
}

const char *off_class_name(enum off_class c)
{
	(void)c;
	return "x";
}

const char *off_kind_name(enum off_kind k)
{
	(void)k;
	return "x";
}

static void check(const char *out, size_t len)
{
	const char *l = out;

	if (!len || out[len - 1] != '\n')
		abort();
	while (l < out + len) {
		if (strncmp(l, "# HELP sld_compat_", 18) &&
		    strncmp(l, "# TYPE sld_compat_", 18) &&
		    strncmp(l, "sld_compat_", 11))
			abort();
		l = strchr(l, '\n') + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *p, *f[6] = { NULL };
	struct prom_in in = { .loaded = true, .version = "v", .sld_mode = "m" };
	FILE *saved = stdout;
	char *out = NULL;
	size_t olen = 0;
	int i;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	for (i = 0, p = buf; i < 6 && p; i++) {
		f[i] = p;
		p = strchr(p, '\xff');
		if (p)
			*p++ = '\0';
	}
	in.ac = f[0];
	in.hypervisors = f[1];
	in.tasks = f[2];
	in.account = f[3];
	in.modules = f[4];
	in.disable_count = f[5];
	stdout = open_memstream(&out, &olen);
	if (stdout) {
		status_prom(&in);
		fclose(stdout);
		check(out, olen);
	}
	stdout = saved;
	free(out);
	free(buf);
	return 0;
}
