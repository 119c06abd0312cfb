// SPDX-License-Identifier: GPL-2.0
/* Who besides root decides what a path runs (see path_trust.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "path_trust.h"
#include "util.h"

/* "uid 1000 (mallory)", or "uid 1000" when it has no name here. */
static void user_name(unsigned int uid, char *out, size_t n)
{
	struct passwd *pw = getpwuid(uid);

	if (pw && pw->pw_name)
		snprintf(out, n, "uid %u (%s)", uid, sldctl_q(pw->pw_name));
	else
		snprintf(out, n, "uid %u", uid);
}

static void group_name(unsigned int gid, char *out, size_t n)
{
	struct group *gr = getgrgid(gid);

	if (gr && gr->gr_name)
		snprintf(out, n, "group %u (%s)", gid, sldctl_q(gr->gr_name));
	else
		snprintf(out, n, "group %u", gid);
}

/* One file or directory: 0 if root's alone, else 1 and who[]. */
static int one(const char *full, const char *shown, char *who, size_t n)
{
	char name[128];
	struct stat st;

	if (stat(full, &st))
		return snprintf(who, n, "%s: %s", sldctl_q(shown), strerror(errno)), -errno;
	if (st.st_uid) {
		user_name(st.st_uid, name, sizeof(name));
		snprintf(who, n, "%s owns %s", name, sldctl_q(shown));
		return 1;
	}
	if (st.st_mode & S_IWOTH) {
		snprintf(who, n, "every user may write %s", sldctl_q(shown));
		return 1;
	}
	if (st.st_mode & S_IWGRP) {
		group_name(st.st_gid, name, sizeof(name));
		snprintf(who, n, "%s may write %s", name, sldctl_q(shown));
		return 1;
	}
	return 0;
}

int path_trust(const char *path, char *who, size_t n)
{
	char full[PATH_MAX], real[PATH_MAX];
	const char *root = sldctl_root();
	size_t rl = strlen(root), i;
	int r;

	if (sldctl_path(full, sizeof(full), "%s", path))
		return snprintf(who, n, "path too long"), -ENAMETOOLONG;
	if (!realpath(full, real))
		return snprintf(who, n, "%s: %s", sldctl_q(path), strerror(errno)), -errno;
	/* A fake tree (tests): its own top stands for /, nothing above it. */
	if (strncmp(real, root, rl) || (real[rl] && real[rl] != '/'))
		return snprintf(who, n, "%s leads out of %s", sldctl_q(path),
				sldctl_q(root)), -EXDEV;
	r = one(rl ? root : "/", "/", who, n);
	for (i = rl + 1; !r && real[i - 1]; i++) {
		if (real[i] != '/' && real[i])
			continue;
		full[0] = real[i];
		real[i] = '\0';
		r = one(real, real + rl, who, n);
		real[i] = full[0];
	}
	return r;
}
