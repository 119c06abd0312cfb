// SPDX-License-Identifier: GPL-2.0
/* HAVE_RDMSRQ: the MSR accessors are named rdmsrq/wrmsrq (6.16+). */
#include <asm/msr.h>

int conftest_rdmsrq(u64 *v);
int conftest_rdmsrq(u64 *v)
{
	return rdmsrq_safe(0x33, v) ?: wrmsrq_safe(0x33, *v);
}
