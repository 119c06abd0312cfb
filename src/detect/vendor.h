/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vendor.c: the API exported to hypervisor modules
 * (include/sld_compat_api.h); what status shows of it.
 */
#ifndef SLD_VENDOR_H
#define SLD_VENDOR_H

#include <linux/types.h>

int sld_vendor_show(char *buf, size_t size);	/* bracket counters */

#endif /* SLD_VENDOR_H */
