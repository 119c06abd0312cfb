/* SPDX-License-Identifier: GPL-2.0 */
/* status.c: the read-only view in /sys/kernel/sld_compat. */
#ifndef SLD_STATUS_H
#define SLD_STATUS_H

int sld_status_init(void);
void sld_status_exit(void);

#endif /* SLD_STATUS_H */
