/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Finding unexported kernel symbols without calling anything through a
 * pointer. One copy of the rule for symbols.c (the module's only user)
 * and for the test fixtures (tests/fixtures/fx_lookup.h).
 *
 * Why not call kallsyms_lookup_name() through a pointer, as out-of-tree
 * modules commonly do: with CONFIG_X86_KERNEL_IBT (Debian's 6.12) every
 * function whose address the kernel never takes is sealed at boot (its
 * ENDBR64 becomes a NOP), kallsyms_lookup_name among them, and on a CPU
 * with IBT an indirect call to it raises #CP: the kernel BUG()s in our
 * init. Clearing ENDBR_EN in IA32_S_CET around the call (what the kernel
 * does for EFI) would work but means writing a security MSR; here nothing
 * is called at all.
 *
 * register_kprobe() resolves .symbol_name with the kernel's own
 * kallsyms_lookup_name() and stores the address in kp.addr before it
 * decides whether that address may be probed (still so in 6.18): data is
 * then refused, functions are accepted, and either way kp.addr holds the
 * answer. KPROBE_FLAG_DISABLED: an accepted probe is never armed, so no
 * text is patched. sprint_symbol() (exported: a direct call) confirms the
 * name and gives the offset kprobes added (4 past an ENDBR64), so what we
 * return is the symbol's own start, or 0 if anything disagrees.
 */
#ifndef SLD_KSYM_H
#define SLD_KSYM_H

#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <asm/cpufeature.h>

/* "name+0xOFF/0xSIZE" or "name+0xOFF/0xSIZE [mod]": OFF, or -1. */
static inline long sld_ksym_offset(const char *shown, const char *name)
{
	const char *sym = strnchr(name, MODULE_NAME_LEN, ':');
	const char *mod = sym ? name : NULL;
	size_t n, m = sym ? sym - name : 0;
	unsigned long off, size;
	const char *br;

	sym = sym ? sym + 1 : name;
	n = strlen(sym);
	if (strncmp(shown, sym, n) || shown[n] != '+' ||
	    sscanf(shown + n + 1, "%lx/%lx", &off, &size) != 2)
		return -1;
	if (mod) {
		br = strchr(shown + n, '[');
		if (!br || strncmp(br + 1, mod, m) || br[m + 1] != ']')
			return -1;
	}
	return off <= 4 ? (long)off : -1;	/* at most an ENDBR64 in */
}

static inline unsigned long sld_ksym_resolve(const char *name)
{
	struct kprobe kp = {
		.symbol_name = name, .flags = KPROBE_FLAG_DISABLED,
	};
	char shown[KSYM_SYMBOL_LEN];
	long off;

	if (!register_kprobe(&kp))
		unregister_kprobe(&kp);
	if (!kp.addr)
		return 0;
	sprint_symbol(shown, (unsigned long)kp.addr);
	off = sld_ksym_offset(shown, name);
	return off < 0 ? 0 : (unsigned long)kp.addr - off;
}

/*
 * Whether a kernel function may be called through a pointer on this
 * machine: always without IBT enforcement, and with it only if the
 * function still begins with ENDBR64 (it was not sealed).
 */
static inline bool sld_ksym_callable(unsigned long addr)
{
	if (!addr)
		return false;
#if defined(CONFIG_X86_KERNEL_IBT) && defined(X86_FEATURE_IBT)
	u32 insn;

	if (!cpu_feature_enabled(X86_FEATURE_IBT))
		return true;
	return !copy_from_kernel_nofault(&insn, (void *)addr, sizeof(insn)) &&
	       insn == 0xfa1e0ff3;	/* endbr64 */
#else
	return true;
#endif
}

/*
 * Every kernel function a .ko calls through a pointer is named in its
 * non-allocated .comment.sld_icalls section (modpost allows .comment*).
 * The VM suite (tests/vm/t/12-ibt.sh) fails if one of them is sealed on
 * a suite kernel.
 */
#define SLD_ICALL(sym)							\
	asm(".pushsection .comment.sld_icalls,\"\",@progbits\n\t"		\
	    ".asciz \"" #sym "\"\n\t.popsection")

#endif /* SLD_KSYM_H */
