/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every part of sld_compat shares: the version, the core switches
 * and the log helpers. What one file offers the others is in its own
 * header (task_sld.h, hooks.h, ...), so that each dependency shows at
 * its #include.
 */
#ifndef SLD_COMPAT_INTERNAL_H
#define SLD_COMPAT_INTERNAL_H

#include <linux/types.h>

struct module;

#define SLD_COMPAT_VERSION "0.1.0"

/*
 * The core switches every part reads: knobs.c holds them (verbose is its
 * knob), main.c switches `enabled`.
 */
struct sld_knobs {
	bool enabled;
	int verbose;		/* 0 quiet .. 3 debug */
};

extern struct sld_knobs sld_knobs;

/* ---- registry.c: built-in, admin and vendor entries ------------------ */

bool sld_registry_builtin_safe(const char *name, const char **why);
int sld_registry_admin(const char *name);	/* 0 or SLD_R_ADMIN_* */
int sld_registry_vendor(const char *name);	/* 0 or SLD_R_VENDOR_* */
int sld_registry_vendor_set(const char *name, int reason);
void sld_registry_vendor_drop(const char *name);

/* ---- vendor.c: the exported API ---------------------------------------- */

int sld_vendor_show(char *buf, size_t size);

/* ---- modscan.c: scan, classify and police loading modules ------------- */

int sld_modscan_setup(void);		/* before sld_hooks_init() */
int sld_modscan_init(void);		/* after sld_hooks_init() */
void sld_modscan_exit(void);
void sld_modscan_free(void);		/* after sld_hooks_exit() */
void sld_modscan_reclassify(const char *name);	/* a vendor declared */
void sld_modscan_redecide(const char *knob);	/* a knob changed */

#define sld_info(fmt, ...) do {						\
	if (READ_ONCE(sld_knobs.verbose) >= 2)				\
		pr_info(fmt, ##__VA_ARGS__);				\
} while (0)
#define sld_dbg(fmt, ...) do {						\
	if (READ_ONCE(sld_knobs.verbose) >= 3)				\
		pr_info(fmt, ##__VA_ARGS__);				\
} while (0)

#endif /* SLD_COMPAT_INTERNAL_H */
