// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: bytes in memory go through the same path as a file
 * given to `sldctl scan` (magic -> decompress -> libelf checks -> scan of
 * every executable section -> verdict -> JSON and human output).
 */
#include <stdint.h>
#include <stdio.h>

#include "lib/json.h"
#include "lib/kofile.h"
#include "scan.h"

static FILE *sink;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* A 16 MiB cap keeps decompression bombs from dominating the run. */
	kofile_size_cap = 16u << 20;
	sink = fopen("/dev/null", "w");
	return sink ? 0 : 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scan_report r;
	struct kofile *ko;
	struct json j;
	char err[256];

	if (kofile_open_mem(data, size, &ko, err, sizeof(err)) != KO_OK)
		return 0;
	if (scan_kofile(ko, "fuzz.ko", &r) == 0) {
		json_init(&j, sink, true);
		scan_print_json(&j, ko, &r);
		scan_print_human(sink, ko, &r);
	}
	scan_report_free(&r);
	kofile_close(ko);
	return 0;
}
