/* SPDX-License-Identifier: GPL-2.0 */
/*
 * modscan.c: scan, classify and police loading modules (with
 * modcapture.c, modrecords.c and modwalk.c), and re-decide the loaded
 * ones when a knob or a vendor changes what they are.
 */
#ifndef SLD_MODSCAN_H
#define SLD_MODSCAN_H

int sld_modscan_setup(void);		/* before sld_hooks_init() */
int sld_modscan_init(void);		/* after sld_hooks_init() */
void sld_modscan_exit(void);
void sld_modscan_free(void);		/* after sld_hooks_exit() */
void sld_modscan_reclassify(const char *name);	/* a vendor declared */
void sld_modscan_redecide(const char *knob);	/* a knob changed */

#endif /* SLD_MODSCAN_H */
