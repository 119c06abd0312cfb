// SPDX-License-Identifier: GPL-2.0
/*
 * The list of features that are off on this kernel and why. Filled once at
 * load from one thread, read by status files afterwards; a spinlock keeps
 * readers safe should a feature degrade later (a hook failing on re-arm).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "kernel/degraded.h"
#include "knobs/switches.h"

#define MAX_DEGRADED 16

struct degraded {
	char feature[24];
	char reason[72];
};

static struct degraded degraded[MAX_DEGRADED];
static unsigned int ndegraded;
static DEFINE_SPINLOCK(degraded_lock);

static struct degraded *find(const char *feature)
{
	unsigned int i;

	for (i = 0; i < ndegraded; i++)
		if (!strcmp(degraded[i].feature, feature))
			return &degraded[i];
	return NULL;
}

/* First reason wins: it is the root cause, later ones are consequences. */
void sld_degrade(const char *feature, const char *reason)
{
	bool added = false;

	spin_lock(&degraded_lock);
	if (!find(feature) && ndegraded < MAX_DEGRADED) {
		strscpy(degraded[ndegraded].feature, feature,
			sizeof(degraded[0].feature));
		strscpy(degraded[ndegraded].reason, reason,
			sizeof(degraded[0].reason));
		ndegraded++;
		added = true;
	}
	spin_unlock(&degraded_lock);
	if (added)
		pr_notice("degraded: %s off: %s\n", feature, reason);
}

bool sld_is_degraded(const char *feature)
{
	bool ret;

	spin_lock(&degraded_lock);
	ret = find(feature);
	spin_unlock(&degraded_lock);
	return ret;
}

int sld_degraded_show(char *buf, size_t size)
{
	unsigned int i;
	int n = 0;

	spin_lock(&degraded_lock);
	for (i = 0; i < ndegraded; i++)
		n += scnprintf(buf + n, size - n, "%s: %s\n",
			       degraded[i].feature, degraded[i].reason);
	spin_unlock(&degraded_lock);
	if (!n)
		n = scnprintf(buf, size, "none\n");
	return n;
}

void sld_degraded_reset(void)
{
	spin_lock(&degraded_lock);
	ndegraded = 0;
	spin_unlock(&degraded_lock);
}
