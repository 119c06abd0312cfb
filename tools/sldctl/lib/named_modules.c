// SPDX-License-Identifier: GPL-2.0
/*
 * The modules whose load re-applies the configuration, kept as files for
 * the udev rule to test (named_modules.h says why).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "knob.h"
#include "named_modules.h"
#include "util.h"

#define CONF_DIR	"/etc/sld-compat"

bool named_modules_knob(const char *key)
{
	const struct sld_knob_schema *d = sld_knob_schema_find(key);

	return d && d->type == SLD_KT_LIST && d->entry == SLD_KE_MODULE;
}

bool named_modules_has(const struct conf *cf, const char *module)
{
	struct name_list l;
	char why[KNOB_WHY_MAX];
	size_t i;
	bool hit;

	for (i = 0; i < cf->nent; i++) {
		if (!named_modules_knob(cf->ent[i].key) ||
		    list_parse(cf->ent[i].value, &l, why, sizeof(why)))
			continue;
		hit = list_find(&l, module) >= 0;
		list_free(&l);
		if (hit)
			return true;
	}
	return false;
}

/* mkdir -p of the path after the root prefix (the root itself exists). */
static int make_dirs(char *path, size_t skip)
{
	char *p = path + skip;
	int err = 0;

	while (!err && (p = strchr(p + 1, '/'))) {
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			err = -errno;
		*p = '/';
	}
	if (!err && mkdir(path, 0755) && errno != EEXIST)
		err = -errno;
	return err;
}

/* One file per valid name of one module list: the kernel's spelling. */
static int mark_list(int dfd, const char *dir, const char *value, char *why,
		     size_t n)
{
	char name[64], kwhy[KNOB_WHY_MAX];
	struct name_list l;
	int i, fd, err = 0;
	char *c;

	if (list_parse(value, &l, kwhy, sizeof(kwhy)))
		return 0;	/* apply reports the line; nothing to mark */
	for (i = 0; i < l.n && !err; i++) {
		if (strlen(l.v[i]) >= sizeof(name) ||
		    knob_check_module(strcpy(name, l.v[i]), kwhy, sizeof(kwhy)))
			continue;
		for (c = name; *c; c++)
			if (*c == '-')
				*c = '_';
		fd = openat(dfd, name, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0 || close(fd)) {
			err = -errno;
			snprintf(why, n, "%s/%s: %s", dir, name, strerror(errno));
		}
	}
	list_free(&l);
	return err;
}

/* Remove the files of modules cf no longer names. */
static int unmark_stale(const struct conf *cf, int dfd, const char *dir,
			char *why, size_t n)
{
	struct dirent *de;
	int err = 0;
	DIR *d;

	dfd = dup(dfd);
	d = dfd < 0 ? NULL : fdopendir(dfd);
	if (!d) {
		err = -errno;
		snprintf(why, n, "%s: %s", dir, strerror(errno));
		if (dfd >= 0)
			close(dfd);
		return err;
	}
	while (!err && (de = readdir(d))) {
		if (de->d_name[0] == '.' || named_modules_has(cf, de->d_name))
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) && errno != ENOENT) {
			err = -errno;
			snprintf(why, n, "%s/%s: %s", dir, de->d_name, strerror(errno));
		}
	}
	closedir(d);
	return err;
}

int named_modules_sync(const struct conf *cf, char *why, size_t n)
{
	char dir[4096];
	int dfd, err;
	size_t i;

	if (sldctl_path(dir, sizeof(dir), "%s", NAMED_MODULES_DIR)) {
		snprintf(why, n, "SLDCTL_ROOT is too long");
		return -ENAMETOOLONG;
	}
	err = make_dirs(dir, strlen(sldctl_root()));
	if (err) {
		snprintf(why, n, "%s: %s", dir, strerror(-err));
		return err;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		snprintf(why, n, "%s: %s", dir, strerror(errno));
		return -errno;
	}
	/* New names first: a module named before and after never lacks its file. */
	for (i = 0; i < cf->nent && !err; i++)
		if (named_modules_knob(cf->ent[i].key))
			err = mark_list(dfd, dir, cf->ent[i].value, why, n);
	if (!err)
		err = unmark_stale(cf, dfd, dir, why, n);
	close(dfd);
	return err;
}

int named_modules_update(char *why, size_t n)
{
	char dir[4096];
	struct conf cf;
	int err;

	if (sldctl_path(dir, sizeof(dir), "%s", CONF_DIR)) {
		snprintf(why, n, "SLDCTL_ROOT is too long");
		return -ENAMETOOLONG;
	}
	conf_init(&cf);
	err = conf_load_dir(&cf, dir);
	if (err)
		snprintf(why, n, "reading %s: %s", dir, strerror(-err));
	else
		err = named_modules_sync(&cf, why, n);
	conf_free(&cf);
	return err;
}
