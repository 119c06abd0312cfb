/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of test_sldctl_run: run the real sldctl binary against a fake
 * /sys, /proc, /etc, /lib/modules tree (SLDCTL_ROOT) and capture its exit
 * code, stdout and stderr; build and fingerprint that tree.
 */
#ifndef RUN_UTIL_H
#define RUN_UTIL_H

#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

struct run {
	int rc;
	char out[1 << 16];
	char err[1 << 14];
};

static char test_dir[] = "/tmp/sldctl-run-XXXXXX";
static char root[256];

static void slurp_fd(int fd, char *buf, size_t n)
{
	ssize_t k = pread(fd, buf, n - 1, 0);

	buf[k > 0 ? k : 0] = '\0';
	close(fd);
}

/* Run sldctl with argv[0..] (NULL-terminated) under SLDCTL_ROOT=root. */
static void run_argv(struct run *r, char *const *args)
{
	char *argv[80], op[300], ep[300];
	int i, of, ef, st;
	pid_t pid;

	argv[0] = SLDCTL_BIN;
	for (i = 0; args[i] && i < 78; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;
	snprintf(op, sizeof(op), "%s/out.XXXXXX", test_dir);
	snprintf(ep, sizeof(ep), "%s/err.XXXXXX", test_dir);
	of = mkstemp(op);
	ef = mkstemp(ep);
	unlink(op);
	unlink(ep);
	fflush(NULL);
	pid = fork();
	if (!pid) {
		dup2(of, 1);
		dup2(ef, 2);
		setenv("SLDCTL_ROOT", root, 1);
		unsetenv("SLDCTL_CONFIG");
		execv(SLDCTL_BIN, argv);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	r->rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	slurp_fd(of, r->out, sizeof(r->out));
	slurp_fd(ef, r->err, sizeof(r->err));
}

#define RUN(r, ...) do {						\
		char *const __a[] = { __VA_ARGS__, NULL };		\
		run_argv((r), __a);					\
	} while (0)

/* Write root/rel (directories created). */
static void put(const char *rel, const char *text)
{
	char path[512], cmd[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	if (system(cmd))
		abort();
	f = fopen(path, "w");
	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
}

static void sh(const char *fmt, const char *arg)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), fmt, arg, arg, arg);
	if (system(cmd))
		abort();
}

#define KVER	"6.1.0-test"
#define P	"sys/module/sld_compat/parameters/"
#define S	"sys/kernel/sld_compat/"

/* A host with SLD, the kernel in warn mode, vmmon installed offline. */
static void make_host(void)
{
	sh("rm -rf '%s'", root);
	put("proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu split_lock_detect\n");
	put("proc/sys/kernel/split_lock_mitigate", "1\n");
	put("proc/cmdline", "BOOT_IMAGE=/vmlinuz ro quiet\n");
	put("dev/kmsg", "6,100,200,-;x86/split lock detection: #AC: crashing the kernel on kernel split_locks and warning on user-space split_locks\n");
	put("etc/sld-compat/sld-compat.conf", "# sld-compat test\n#verbose = 1\n");
	put("usr/bin/game", "#!/bin/sh\n");
	sh("mkdir -p '%s/sys/fs/cgroup/sld.slice/game' '%s/lib/modules/" KVER "/updates/dkms'", root);
	sh("cp " SLDCTL_DATA_DIR "/sld_vmx.ko '%s/lib/modules/" KVER "/updates/dkms/vmmon.ko'", root);
	sh("cp " SLDCTL_DATA_DIR "/sld_clean.ko '%s/lib/modules/" KVER "/updates/dkms/sld_compat.ko'", root);
}

/* ... and sld_compat loaded with its knobs and status files. */
static void make_loaded(void)
{
	make_host();
	put(P "enabled", "Y\n");
	put(P "verbose", "1\n");
	put(P "on_hypervisor", "protect\n");
	put(P "safe_modules", "kvm_amd\n");
	put(P "hypervisor_modules", "vmmon\n");
	put(P "exempt_comm", "game\n");
	put(P "exempt_path", "-\n");
	put(P "exempt_cgroup", "-\n");
	put(P "exempt_proactive", "N\n");
	put(P "trust_sld_safe", "Y\n");
	put(S "version", "0.1.0\n");
	put(S "sld_mode", "warn\n");
	put(S "degraded", "none\n");
	put(S "disable_count", "0\n");
	put(S "support", "full\n");
	put(S "ac", "ac_user_handled 2\nac_guest_handled 0\ntasks_live 1\ntasks_exempt 0\n");
	put(S "tasks", "1234 vmware-vmx why=hypervisor hv=vmmon cpu=1 running=1 switches=9 ac_user=2 ac_guest=0\n");
	put(S "runs", "1000 game scope=sld-run-game-42.scope since=120 tasks=3 ac=0\n");
	put(S "hypervisors", "vmmon state=hooked via=profile entry=Vmx86_RunVM tasks=1 ac_user=2 ac_guest=0\n");
	put("proc/sld_compat_account", "cpu0 core=0.0 hold=0 task=0 bracket=0 sld=on toggles_off=0 toggles_on=0 msr_writes=0 msr_skipped=3 reasserts=0 brackets=0\ncpu1 core=0.1 hold=1 task=1 bracket=0 sld=off toggles_off=1 toggles_on=0 msr_writes=1 msr_skipped=0 reasserts=0 brackets=0\n");
	put("proc/sld_compat_modules", "vmmon hypervisor known-hypervisor vmx=3 svm=0 cr=2 dr=0 first=vmxon@.text+0x10 guest_calls=0 scan_us=40 atomic_ns=900 flags=sections,init-scanned,modinfo,watched,loaded\n");
}

/* A fingerprint of every file of the tree (names and contents). */
static char *tree_sum(void)
{
	static char sum[128];
	char cmd[600];
	FILE *p;

	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && { find . -printf '%%p %%s %%T@ %%m\\n' | LC_ALL=C sort; find . -type f -exec cat {} +; } | md5sum",
		 root);
	p = popen(cmd, "r");
	if (!p || !fgets(sum, sizeof(sum), p))
		abort();
	pclose(p);
	return sum;
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

#endif /* RUN_UTIL_H */
