// SPDX-License-Identifier: GPL-2.0
/*
 * Split-lock offenders (offenders.h): read the kernel log, resolve the
 * tasks that still run, classify them and pick the exemption rule.
 *
 * /dev/kmsg is read non-blocking from its first record to the last; when
 * its first sequence number is not 0 the ring has wrapped and this boot's
 * oldest lines are gone, so journalctl -k -b is asked instead, if it is
 * there. Any TIME other than "boot" needs journalctl.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "schema/entries.h"
#include "schema/escape.h"
#include "offenders.h"
#include "path_trust.h"
#include "util.h"

#define LOG_MAX		(32u << 20)	/* bytes of log read at most */
#define CHUNK		8192		/* > one /dev/kmsg record */
#define WALK_MAX	8		/* parents looked at for a VMM */

static const char *const class_names[] = {
	[OFF_KVM_VCPU] = "kvm-vcpu", [OFF_VBOX_EMT] = "virtualbox-emt",
	[OFF_WINE] = "wine-proton", [OFF_OTHER] = "other",
};

const char *off_class_name(enum off_class c)
{
	return class_names[c];
}

struct buf {
	char *p;
	size_t n, cap;
};

static int buf_grow(struct buf *b, size_t more)
{
	char *p;

	if (b->n + more <= b->cap)
		return 0;
	if (b->n + more > LOG_MAX)
		return -EFBIG;
	p = realloc(b->p, b->cap + more + CHUNK * 8);
	if (!p)
		return -ENOMEM;
	b->p = p;
	b->cap += more + CHUNK * 8;
	return 0;
}

/* All of fd until EOF or EAGAIN; EPIPE (a record overwritten) goes on. */
static int read_fd(int fd, struct buf *b)
{
	ssize_t r;
	int err;

	for (;;) {
		err = buf_grow(b, CHUNK);
		if (err == -EFBIG)
			return 0;	/* enough to judge by */
		if (err)
			return err;
		r = read(fd, b->p + b->n, CHUNK);
		if (r > 0)
			b->n += r;
		else if (!r || errno == EAGAIN)
			return 0;
		else if (errno != EPIPE && errno != EINTR)
			return -errno;
	}
}

static int read_kmsg(struct buf *b)
{
	char path[PATH_MAX];
	int fd, err;

	err = sldctl_path(path, sizeof(path), "/dev/kmsg");
	if (err)
		return err;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = read_fd(fd, b);
	close(fd);
	return err;
}

/* journalctl, from $SLDCTL_JOURNALCTL (tests) or $PATH; NULL if none. */
static const char *journalctl(char *path, size_t n)
{
	const char *env = getenv("SLDCTL_JOURNALCTL"), *p;
	const char *dirs = getenv("PATH");
	size_t len;

	if (env && *env)
		return access(env, X_OK) ? NULL : env;
	for (p = dirs ? dirs : "/usr/bin:/bin"; p && *p; p = strchr(p, ':') ? strchr(p, ':') + 1 : NULL) {
		len = strcspn(p, ":");
		if (len && (size_t)snprintf(path, n, "%.*s/journalctl", (int)len, p) < n &&
		    !access(path, X_OK))
			return path;
	}
	return NULL;
}

static void run_child(const char *prog, const char *since, int out)
{
	const char *argv[12] = { prog, "-k", "-q", "--no-pager", "-o" };
	int i = 5;

	if (since) {
		argv[i++] = "short-iso";
		argv[i++] = "--since";
		argv[i++] = since;
	} else {
		argv[i++] = "short-monotonic";
		argv[i++] = "-b";
	}
	argv[i] = NULL;
	if (dup2(out, STDOUT_FILENO) < 0)
		_exit(127);
	execv(prog, (char **)argv);
	_exit(127);
}

/* journalctl's output in b; its own message on stderr if it fails. */
static int read_journal(const char *prog, const char *since, struct buf *b,
			char *why, size_t whylen)
{
	int fd[2], st, err;
	pid_t pid;

	if (pipe2(fd, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(fd[0]);
		close(fd[1]);
		return err;
	}
	if (!pid)
		run_child(prog, since, fd[1]);
	close(fd[1]);
	err = read_fd(fd[0], b);
	close(fd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!err && (!WIFEXITED(st) || WEXITSTATUS(st))) {
		snprintf(why, whylen, "%s failed (exit %d)", prog,
			 WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
		return -EIO;
	}
	return err;
}

/* kmsg for this boot; journalctl for a TIME or when the ring wrapped. */
static int read_log(struct offenders *o, const char *since, char *why,
		    size_t whylen)
{
	struct buf b = { 0 };
	char jpath[PATH_MAX];
	const char *j = journalctl(jpath, sizeof(jpath));
	struct off_log jl;
	int err;

	if (since && !j)
		return snprintf(why, whylen, "--since %s needs journalctl, which is not installed",
				sldctl_q(since)), -ENOEXEC;
	o->source = since ? "journalctl" : "/dev/kmsg";
	err = since ? read_journal(j, since, &b, why, whylen) : read_kmsg(&b);
	if (!err)
		err = off_log_parse(&o->log, b.p ? b.p : "", b.n);
	if (err && !*why)
		snprintf(why, whylen, "cannot read %s: %s", o->source, strerror(-err));
	if (err || since || !o->log.first_seq || !j)
		return free(b.p), err;
	/* The ring wrapped: this boot's first lines are in the journal only. */
	b.n = 0;
	off_log_init(&jl);
	if (!read_journal(j, NULL, &b, why, whylen) &&
	    !off_log_parse(&jl, b.p ? b.p : "", b.n) && jl.records) {
		off_log_free(&o->log);
		o->log = jl;
		o->source = "journalctl";
	} else {
		off_log_free(&jl);
	}
	*why = '\0';
	free(b.p);
	return 0;
}

/* ---- the live task ------------------------------------------------------ */

static int read_proc(int pid, const char *what, char **v)
{
	char path[PATH_MAX];

	if (sldctl_path(path, sizeof(path), "/proc/%d/%s", pid, what))
		return -ENAMETOOLONG;
	return sldctl_read_value(path, v);
}

static int status_field(int pid, const char *key)
{
	char *s, *p;
	int v = -1;

	if (read_proc(pid, "status", &s))
		return -1;
	for (p = s; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, key, strlen(key)) && p[strlen(key)] == ':') {
			v = atoi(p + strlen(key) + 1);
			break;
		}
	free(s);
	return v;
}

static void read_exe(int pid, char *exe, size_t n)
{
	char path[PATH_MAX];
	ssize_t r = -1;

	if (!sldctl_path(path, sizeof(path), "/proc/%d/exe", pid))
		r = readlink(path, exe, n - 1);
	exe[r > 0 ? r : 0] = '\0';
}

static void read_cgroup(int pid, char *cg, size_t n)
{
	char *s, *p;

	*cg = '\0';
	if (read_proc(pid, "cgroup", &s))
		return;
	for (p = s; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, "0::", 3)) {
			snprintf(cg, n, "%.*s", (int)strcspn(p + 3, "\n"), p + 3);
			break;
		}
	free(s);
}

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static bool is_vmm(const char *exe)
{
	static const char *const names[] = {
		"qemu-kvm", "VirtualBoxVM", "VBoxHeadless", "VirtualBox",
		"VBoxSDL", "lkvm", "crosvm", "firecracker", "cloud-hypervisor",
	};
	const char *b = base(exe);
	size_t i;

	if (!strncmp(b, "qemu-system-", 12))
		return true;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(b, names[i]))
			return true;
	return false;
}

/* The VMM process: the task's own process or an ancestor of it. */
static void find_vmm(struct offender *f, int tgid)
{
	char exe[PATH_MAX];
	int pid = tgid, i;

	for (i = 0; i < WALK_MAX && pid > 1; i++) {
		read_exe(pid, exe, sizeof(exe));
		if (*exe && is_vmm(exe)) {
			snprintf(f->vmm, sizeof(f->vmm), "%.63s", base(exe));
			f->vmm_pid = pid;
			return;
		}
		pid = status_field(pid, "PPid");
	}
}

static void resolve(struct offender *f, int *tgid)
{
	char *comm;

	*tgid = -1;
	if (read_proc(f->t->pid, "comm", &comm))
		return;
	f->alive = !strcmp(comm, f->t->comm);
	free(comm);
	if (!f->alive)
		return;
	*tgid = status_field(f->t->pid, "Tgid");
	read_exe(f->t->pid, f->exe, sizeof(f->exe));
	read_cgroup(f->t->pid, f->cgroup, sizeof(f->cgroup));
	if (*tgid > 0)
		find_vmm(f, *tgid);
}

/* ---- class and rule ----------------------------------------------------- */

static bool kvm_vcpu_comm(const char *c)
{
	unsigned int n;
	int end = 0;

	return sscanf(c, "CPU %u/KVM%n", &n, &end) == 1 && end && !c[end];
}

static bool wine_hint(const char *comm, const char *exe)
{
	size_t n = strlen(comm);

	return (n > 4 && !strcasecmp(comm + n - 4, ".exe")) ||
	       !strncasecmp(comm, "wine", 4) ||
	       !strncasecmp(base(exe), "wine", 4) || strcasestr(exe, "proton");
}

static enum off_class classify(const struct offender *f)
{
	const char *vmm = f->vmm;

	if (kvm_vcpu_comm(f->t->comm) || !strncmp(vmm, "qemu", 4) ||
	    !strncmp(f->t->comm, "qemu-system-", 12) ||
	    !strcmp(vmm, "lkvm") || !strcmp(vmm, "crosvm") ||
	    !strcmp(vmm, "firecracker") || !strcmp(vmm, "cloud-hypervisor"))
		return OFF_KVM_VCPU;
	if (!strncmp(f->t->comm, "EMT", 3) || !strncmp(vmm, "VBox", 4) ||
	    !strncmp(vmm, "VirtualBox", 10))
		return OFF_VBOX_EMT;
	if (wine_hint(f->t->comm, f->exe))
		return OFF_WINE;
	return OFF_OTHER;
}

#define SHELL_BARE \
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:+=@%-"

/* '...' around s, each ' as '\''; false if it does not fit. */
static bool single_quoted(char *out, size_t n, const char *s)
{
	size_t o = 0;

	out[o++] = '\'';
	for (; *s; s++) {
		if (o + 6 >= n)
			return false;
		if (*s == '\'') {
			memcpy(out + o, "'\\''", 4);
			o += 4;
		} else {
			out[o++] = *s;
		}
	}
	out[o++] = '\'';
	out[o] = '\0';
	return true;
}

/*
 * s as one shell word, in printable ASCII only: bare, '...', or, when s
 * holds a byte a terminal must not get (a newline, ESC, any byte outside
 * printable ASCII), $'...' (bash, zsh, ksh; not dash) with those bytes,
 * the backslash and quotes as \xNN: the escape the module and every name
 * sldctl shows use (src/schema/escape.h). False if it does not fit.
 */
static bool shell_word(char *out, size_t n, const char *s)
{
	size_t i, took;

	if (n < 8)
		return false;
	if (*s && strspn(s, SHELL_BARE) == strlen(s))
		return (size_t)snprintf(out, n, "%s", s) < n;
	for (i = 0; s[i] >= 0x20 && s[i] < 0x7f; i++)
		;
	if (!s[i])
		return single_quoted(out, n, s);
	memcpy(out, "$'", 2);
	took = sld_esc(out + 2, n - 3, s, strlen(s), SLD_ESC_QUOTES);
	strcat(out, "'");
	return !s[took];
}

/* The command for one rule; none, and a note, if it does not fit. */
static void fix_with(struct offender *f, const char *opt, const char *val)
{
	char w[SLD_ESC_SIZE(PATH_MAX) + 4];

	if (shell_word(w, sizeof(w), val) &&
	    (size_t)snprintf(f->fix, sizeof(f->fix), "sldctl exempt add --%s %s --persist",
			     opt, w) < sizeof(f->fix))
		return;
	f->fix[0] = '\0';
	f->note = "its name is too long for a command here: see sldctl(8), exempt";
}

/*
 * A path rule only for a file only root decides (path_trust.h): one the
 * user owns, or may replace, would relieve whatever that user puts there.
 * Then no command: the two rules that bound what the user obtains need
 * the admin's choice (who may, where the VM runs).
 */
static void fix_by_path(struct offender *f)
{
	char who[sizeof(f->advice) - 400];
	int r = path_trust(f->exe, who, sizeof(who));

	if (!r) {
		fix_with(f, "path", f->exe);
		return;
	}
	if (r < 0)
		snprintf(f->advice, sizeof(f->advice),
			 "no exempt_path rule offered: its executable could not be checked (%s)",
			 who);
	else
		snprintf(f->advice, sizeof(f->advice),
			 "no exempt_path rule offered: %s, and a rule for it would relieve whatever "
			 "that user puts there; let that user relieve their own programs instead "
			 "(run_allow in /etc/sld-compat, then `sldctl run`), or exempt a cgroup "
			 "only root controls that the VM runs in (exempt_cgroup); see sldctl(8), exempt",
			 who);
	f->note = f->advice;
}

#define CAVEAT_COMM \
	"exempt_comm is forgeable: any local user can give a task this name " \
	"(prctl PR_SET_NAME); see sldctl(8), exempt"

static bool emt_comm(const char *c)
{
	return !strncmp(c, "EMT-", 4) && c[4] && strspn(c + 4, "0123456789") == strlen(c + 4);
}

/*
 * One pattern for every vCPU thread of the kind (QEMU's "CPU N/KVM",
 * VirtualBox's "EMT-N"), else the name itself with the pattern
 * characters (star, '?', backslash) escaped.
 */
static void fix_by_comm(struct offender *f)
{
	const char *c = f->t->comm;
	char lit[2 * 16 + 1];
	size_t i, o = 0;

	for (i = 0; c[i]; i++)
		if (c[i] == ',' || c[i] < 0x20 || c[i] > 0x7e)
			break;
	if (!*c || c[i] || c[0] == ' ' || c[i - 1] == ' ' ||
	    c[0] == '+' || c[0] == '-') {
		f->note = "its name cannot be an exempt_comm entry (empty, a comma, a space at an end, a leading + or -, or a non-printable byte)";
		return;
	}
	if (kvm_vcpu_comm(c)) {
		fix_with(f, "comm", "CPU */KVM");
	} else if (emt_comm(c)) {
		fix_with(f, "comm", "EMT-*");
	} else {
		for (i = 0; c[i] && o + 2 < sizeof(lit); i++) {
			if (strchr("*?\\", c[i]))
				lit[o++] = '\\';
			lit[o++] = c[i];
		}
		lit[o] = '\0';
		fix_with(f, "comm", lit);
	}
	f->caveat = CAVEAT_COMM;
}

/*
 * A task of a libvirt VM: in its VM's scope below /machine.slice
 * ("/machine.slice/machine-qemu\x2d1\x2dvm.scope/libvirt/vcpu0"). The
 * scope carries the domain id and goes when the VM stops, so the rule
 * names every such scope (SLD_CGROUP_LIBVIRT_QEMU), which the module
 * accepts before one exists (the rule waits for it). Not the slice:
 * containers run there too.
 */
static bool in_libvirt_scope(const char *cg)
{
	return sld_cgroup_path_match(SLD_CGROUP_LIBVIRT_QEMU, cg);
}

static bool own_vmm_exe(const struct offender *f, int tgid)
{
	return f->vmm_pid > 0 && f->vmm_pid == tgid && f->exe[0] == '/' &&
	       !strstr(f->exe, " (deleted)");
}

bool offender_trapped(const struct offender *f)
{
	const unsigned long *n = f->t->n;

	return n[OFF_SPLIT_LOCK] || n[OFF_FATAL] || n[OFF_BOGUS] || n[OFF_BUS_LOCK];
}

static void pick_fix(struct offender *f, int tgid)
{
	if (!offender_trapped(f)) {
		f->note = "already handled by sld_compat";
		return;
	}
	if (f->cls == OFF_KVM_VCPU && in_libvirt_scope(f->cgroup)) {
		fix_with(f, "cgroup", SLD_CGROUP_LIBVIRT_QEMU);
		f->note = "every libvirt VM runs in its own scope below /machine.slice, named for the VM run; the rule names all of them, not the slice's containers";
	} else if ((f->cls == OFF_KVM_VCPU || f->cls == OFF_VBOX_EMT) &&
		   own_vmm_exe(f, tgid)) {
		fix_by_path(f);
	} else {
		fix_by_comm(f);
	}
}

int offenders_read(struct offenders *o, const char *since, char *why,
		   size_t whylen)
{
	struct offender *f;
	size_t i;
	int err, tgid;

	memset(o, 0, sizeof(*o));
	*why = '\0';
	off_log_init(&o->log);
	err = read_log(o, since, why, whylen);
	if (err)
		return err;
	o->v = calloc(o->log.n ? o->log.n : 1, sizeof(*o->v));
	if (!o->v)
		return snprintf(why, whylen, "out of memory"), -ENOMEM;
	for (i = 0; i < o->log.n; i++) {
		f = &o->v[o->n++];
		f->t = &o->log.v[i];
		resolve(f, &tgid);
		f->cls = classify(f);
		pick_fix(f, tgid);
	}
	return 0;
}

void offenders_free(struct offenders *o)
{
	off_log_free(&o->log);
	free(o->v);
	o->v = NULL;
	o->n = 0;
}
