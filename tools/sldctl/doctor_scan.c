// SPDX-License-Identifier: GPL-2.0
/*
 * sldctl doctor: findings list and the offline inventory of installed
 * modules (doctor.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "doctor.h"
#include "schema/hypervisors.h"
#include "lib/kofile.h"
#include "scan.h"

void doc_add(struct findings *f, const char *id, enum doc_sev sev,
	     const char *fix, const char *fmt, ...)
{
	struct finding *nv;
	va_list ap;
	char *text;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (r < 0)
		return;
	nv = realloc(f->v, (f->n + 1) * sizeof(*nv));
	if (!nv) {
		free(text);
		return;
	}
	f->v = nv;
	f->v[f->n++] = (struct finding){ id, sev, text, fix ? strdup(fix) : NULL };
}

void doc_free(struct findings *f)
{
	size_t i;

	for (i = 0; i < f->n; i++) {
		free(f->v[i].text);
		free(f->v[i].fix);
	}
	free(f->v);
	f->v = NULL;
	f->n = 0;
}

const char *doc_sev_name(enum doc_sev s)
{
	static const char *const names[] = { "info", "warning", "action", "error" };

	return names[s];
}

/* The title of the table of known hypervisors (schema/hypervisors.c). */
const char *doc_module_title(const char *name, char *buf, size_t n)
{
	const struct sld_known_hv *hv = sld_known_hv_find(name);

	if (hv && hv->title)
		snprintf(buf, n, "%s", hv->title);
	else
		snprintf(buf, n, "module %s", name);
	return buf;
}

/* nftw has no user pointer: the walk's state lives here. */
static struct {
	struct inventory *inv;
	struct findings *f;
	size_t dirlen;
} walk;

/* "kvm-intel.ko.xz" -> "kvm_intel"; 0 if it is no module file. */
static int module_name(const char *path, char *out, size_t n)
{
	static const char *const sfx[] = { ".ko.xz", ".ko.zst", ".ko" };
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t len = strlen(base), i, k;

	for (i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		k = strlen(sfx[i]);
		if (len > k && !strcmp(base + len - k, sfx[i]) && len - k < n) {
			sld_modname_norm(out, base, len - k);
			return 1;
		}
	}
	return 0;
}

static void classify(struct installed *m, struct findings *f)
{
	struct scan_report r;
	struct kofile *ko;
	char err[256];
	int rc;

	if (kofile_open(m->path, &ko, err, sizeof(err)) != KO_OK) {
		m->error = true;
		doc_add(f, "module-unreadable", DOC_ERROR, NULL,
			"%s could not be checked: %s.", m->path, err);
		return;
	}
	rc = scan_kofile(ko, m->path, &r);
	if (rc) {
		m->error = true;
		doc_add(f, "module-unreadable", DOC_ERROR, NULL,
			"%s could not be checked: its text could not be scanned (%s).",
			m->path, strerror(rc < 0 ? -rc : rc));
	} else {
		m->verdict = r.verdict;
		m->reason = r.reason;
	}
	scan_report_free(&r);
	kofile_close(ko);
}

static int visit(const char *path, const struct stat *st, int type,
		 struct FTW *ftw)
{
	const char *rel = path + walk.dirlen;
	struct installed *nv, m = { 0 };

	(void)st;
	(void)ftw;
	if (type == FTW_DNR) {
		doc_add(walk.f, "modules-dir-unreadable", DOC_ERROR, NULL,
			"%s could not be read, so the modules in it could not be checked.",
			path);
		return 0;
	}
	if (type != FTW_F || !module_name(path, m.name, sizeof(m.name)))
		return 0;
	if (!strcmp(m.name, "sld_compat")) {
		if (!walk.inv->sld_compat)
			walk.inv->sld_compat = strdup(path);
		return 0;
	}
	if (!strncmp(rel, "/kernel/", 8) && !sld_known_hypervisor(m.name, NULL))
		return 0;
	m.path = strdup(path);
	nv = realloc(walk.inv->v, (walk.inv->n + 1) * sizeof(*nv));
	if (!m.path || !nv) {
		free(m.path);
		return 0;
	}
	walk.inv->v = nv;
	classify(&m, walk.f);
	walk.inv->v[walk.inv->n++] = m;
	return 0;
}

void inventory_scan(const char *dir, struct inventory *inv, struct findings *f)
{
	memset(inv, 0, sizeof(*inv));
	walk.inv = inv;
	walk.f = f;
	walk.dirlen = strlen(dir);
	if (access(dir, R_OK | X_OK))
		inv->dir_err = errno;
	else if (nftw(dir, visit, 16, FTW_PHYS))
		inv->dir_err = errno ? errno : EIO;
}

void inventory_free(struct inventory *inv)
{
	size_t i;

	for (i = 0; i < inv->n; i++)
		free(inv->v[i].path);
	free(inv->v);
	free(inv->sld_compat);
	memset(inv, 0, sizeof(*inv));
}
