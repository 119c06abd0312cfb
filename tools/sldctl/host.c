// SPDX-License-Identifier: GPL-2.0
/*
 * Host facts for status and doctor (host.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host.h"
#include "lib/knob.h"
#include "lib/util.h"

#define LOG_TAG	"split lock detection: "

void host_cpu_flags_text(char *text, int *sld, int *bld)
{
	char *line, *p, *tok, *save;

	*sld = *bld = -1;
	for (line = text; line && *line; line = p ? p + 1 : NULL) {
		p = strchr(line, '\n');
		if (p)
			*p = '\0';
		if (strncmp(line, "flags", 5) || !strchr(line, ':'))
			continue;
		line = strchr(line, ':') + 1;
		*sld = *bld = 0;
		for (tok = strtok_r(line, " \t", &save); tok;
		     tok = strtok_r(NULL, " \t", &save)) {
			if (!strcmp(tok, "split_lock_detect"))
				*sld = 1;
			else if (!strcmp(tok, "bus_lock_detect"))
				*bld = 1;
		}
		return;
	}
}

int host_mode_from_cmdline(const char *cmdline, char *mode, size_t n)
{
	static const char *const modes[] = { "off", "warn", "fatal", "ratelimit" };
	const char *p = cmdline, *v;
	size_t i, len;

	while ((p = strstr(p, "split_lock_detect="))) {
		if (p != cmdline && p[-1] != ' ') {
			p++;
			continue;
		}
		v = p + strlen("split_lock_detect=");
		len = strcspn(v, " \n:");
		for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
			if (len == strlen(modes[i]) && !strncmp(v, modes[i], len)) {
				snprintf(mode, n, "%s", modes[i]);
				return 0;
			}
		}
		p = v;
	}
	return -1;
}

/* The kernel's sld_state_show() lines (arch/x86/kernel/cpu/intel.c). */
int host_mode_from_log_line(const char *line, char *mode, size_t n)
{
	const char *m = strstr(line, LOG_TAG), *r = NULL;

	if (!m)
		return -1;
	m += strlen(LOG_TAG);
	if (!strncmp(m, "disabled", 8))
		r = "off";
	else if (strstr(m, "rate limit"))
		r = "ratelimit";
	else if (strstr(m, "sending SIGBUS"))
		r = "fatal";
	else if (strstr(m, "warning on user-space"))
		r = "warn";
	if (!r)
		return -1;
	snprintf(mode, n, "%s", r);
	return 0;
}

static void cpu_flags(struct host *h)
{
	char path[PATH_MAX], *buf;
	size_t len;

	h->cpu_sld = h->cpu_bld = -1;
	if (sldctl_path(path, sizeof(path), "/proc/cpuinfo"))
		return;
	h->cpuinfo_err = sldctl_read_all(path, 64u << 20, &buf, &len);
	if (h->cpuinfo_err)
		return;
	host_cpu_flags_text(buf, &h->cpu_sld, &h->cpu_bld);
	free(buf);
}

/* Scan a buffer of log lines for the kernel's SLD line; the last wins. */
static int scan_log(char *text, char *mode, size_t n)
{
	char *line, *save;
	int found = -1;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (!host_mode_from_log_line(line, mode, n))
			found = 0;
	return found;
}

/* /dev/kmsg gives one record per read; a fake tree's file is plain text. */
static int mode_from_log(char *mode, size_t n)
{
	char path[PATH_MAX], buf[8192];
	int fd, found = -1;
	struct stat st;
	ssize_t k;

	if (sldctl_path(path, sizeof(path), "/dev/kmsg"))
		return -1;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode)) {
		char *text;
		size_t len;

		close(fd);
		if (sldctl_read_all(path, 16u << 20, &text, &len))
			return -1;
		found = scan_log(text, mode, n);
		free(text);
		return found;
	}
	while ((k = read(fd, buf, sizeof(buf) - 1)) > 0 || (k < 0 && errno == EPIPE)) {
		if (k <= 0)
			continue;	/* EPIPE: records overwritten, go on */
		buf[k] = '\0';
		if (!scan_log(buf, mode, n))
			found = 0;
	}
	close(fd);
	return found;
}

static int read_file_value(const char *rel, char **v)
{
	char path[PATH_MAX];

	if (sldctl_path(path, sizeof(path), "%s", rel))
		return -ENAMETOOLONG;
	return sldctl_read_value(path, v);
}

static int mode_from_cmdline(char *mode, size_t n)
{
	char *v;
	int r;

	if (read_file_value("/proc/cmdline", &v))
		return -1;
	r = host_mode_from_cmdline(v, mode, n);
	free(v);
	return r;
}

static int mode_from_module(char *mode, size_t n)
{
	char *v;
	int r = -1;

	if (read_file_value(STATUS_DIR "/sld_mode", &v))
		return -1;
	if (strcmp(v, "unknown")) {
		snprintf(mode, n, "%s", v);
		r = 0;
	}
	free(v);
	return r;
}

/* The module knows best; then what the kernel logged, asked for, default. */
static void kernel_mode(struct host *h)
{
	size_t n = sizeof(h->mode);

	if (h->loaded && !mode_from_module(h->mode, n)) {
		h->mode_source = "sld_compat";
	} else if (h->cpu_sld == 0 && h->cpu_bld == 0) {
		strcpy(h->mode, "off");
		h->mode_source = "cpu";
	} else if (!mode_from_log(h->mode, n)) {
		h->mode_source = "kernel-log";
	} else if (!mode_from_cmdline(h->mode, n)) {
		h->mode_source = "cmdline";
	} else {
		strcpy(h->mode, "warn");
		h->mode_source = "default";
	}
}

void host_read(struct host *h)
{
	char *v;

	memset(h, 0, sizeof(*h));
	cpu_flags(h);
	h->loaded = knob_module_loaded();
	kernel_mode(h);
	h->mitigate = -1;
	if (!read_file_value("/proc/sys/kernel/split_lock_mitigate", &v)) {
		if (v[0] >= '0' && v[0] <= '9')
			h->mitigate = atoi(v);
		free(v);
	}
}

/*
 * in_use lines are "MODULE tasks=N" (or "none"): the hypervisor tasks
 * whose references keep sld_compat loaded.
 */
static void in_use_tasks(char *text, struct in_use *u)
{
	char *line, *save = NULL, name[64];
	unsigned int k;
	size_t len;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%63s tasks=%u", name, &k) != 2)
			continue;
		u->tasks += k;
		len = strlen(u->hv);
		snprintf(u->hv + len, sizeof(u->hv) - len, "%s%s (%u task%s)",
			 len ? ", " : "", name, k, k == 1 ? "" : "s");
	}
}

int host_in_use(struct in_use *u)
{
	char *v;
	int r;

	memset(u, 0, sizeof(*u));
	r = read_file_value("/sys/module/sld_compat/refcnt", &v);
	if (r)
		return r;
	u->refcnt = atoi(v);
	free(v);
	if (!read_file_value(STATUS_DIR "/in_use", &v)) {
		in_use_tasks(v, u);
		free(v);
	}
	/* Read one after the other: a task may come or go in between. */
	u->others = u->refcnt > u->tasks ? u->refcnt - u->tasks : 0;
	return 0;
}

void host_in_use_text(const struct in_use *u, char *buf, size_t n)
{
	size_t len;

	if (!u->refcnt && !u->tasks) {
		snprintf(buf, n, "no: rmmod sld_compat is allowed");
		return;
	}
	snprintf(buf, n, "yes, %d reference%s", u->refcnt, u->refcnt == 1 ? "" : "s");
	len = strlen(buf);
	if (u->tasks)
		snprintf(buf + len, n - len,
			 ": protected tasks of hypervisor %s keep it loaded until they exit, so that their guests get no split-lock #AC",
			 u->hv);
	len = strlen(buf);
	if (u->others)
		snprintf(buf + len, n - len, "%s%d held by other modules (vendor API users or modules linked against it)",
			 u->tasks ? "; " : ": ", u->others);
	len = strlen(buf);
	snprintf(buf + len, n - len, "; rmmod sld_compat is refused");
}
