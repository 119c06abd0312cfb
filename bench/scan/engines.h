/* SPDX-License-Identifier: GPL-2.0 */
/* One decoding pass over a buffer, per engine: returns instructions. */
#ifndef BENCH_ENGINES_H
#define BENCH_ENGINES_H
#include <stddef.h>
#include <stdint.h>

uint64_t kern_pass(const uint8_t *buf, size_t len, uint64_t *bad);
void zydis_setup(int minimal);
uint64_t zydis_pass(const uint8_t *buf, size_t len, uint64_t *bad);
#endif
