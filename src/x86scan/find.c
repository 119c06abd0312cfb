// SPDX-License-Identifier: GPL-2.0
/*
 * Which decoded instruction is a finding: the instructions that only a
 * hypervisor (VMX, SVM) or code that reprograms the CPU (MOV to CR/DR)
 * executes, and their names. Which encoding is which instruction follows
 * objdump 2.40, so "objdump -d" and the scanner name the same
 * instructions (tests/objdump/agree.sh checks this on real modules).
 * The decoder (decode.c) fills x86_insn.find from here; the finder
 * (scan.c) walks text with the decoder: this file calls neither.
 */
#include "x86scan/x86scan.h"

static const char *const find_names[X86_F_COUNT] = {
	[X86_F_VMXON] = "vmxon",	[X86_F_VMXOFF] = "vmxoff",
	[X86_F_VMLAUNCH] = "vmlaunch",	[X86_F_VMRESUME] = "vmresume",
	[X86_F_VMPTRLD] = "vmptrld",	[X86_F_VMPTRST] = "vmptrst",
	[X86_F_VMCLEAR] = "vmclear",	[X86_F_VMREAD] = "vmread",
	[X86_F_VMWRITE] = "vmwrite",	[X86_F_VMCALL] = "vmcall",
	[X86_F_VMFUNC] = "vmfunc",	[X86_F_INVEPT] = "invept",
	[X86_F_INVVPID] = "invvpid",
	[X86_F_VMRUN] = "vmrun",	[X86_F_VMLOAD] = "vmload",
	[X86_F_VMSAVE] = "vmsave",	[X86_F_VMMCALL] = "vmmcall",
	[X86_F_STGI] = "stgi",		[X86_F_CLGI] = "clgi",
	[X86_F_SKINIT] = "skinit",	[X86_F_INVLPGA] = "invlpga",
	[X86_F_MOV_CR0] = "mov-cr0",	[X86_F_MOV_CR2] = "mov-cr2",
	[X86_F_MOV_CR3] = "mov-cr3",	[X86_F_MOV_CR4] = "mov-cr4",
	[X86_F_MOV_CR8] = "mov-cr8",
	[X86_F_MOV_DR0] = "mov-dr0",	[X86_F_MOV_DR1] = "mov-dr1",
	[X86_F_MOV_DR2] = "mov-dr2",	[X86_F_MOV_DR3] = "mov-dr3",
	[X86_F_MOV_DR4] = "mov-dr4",	[X86_F_MOV_DR5] = "mov-dr5",
	[X86_F_MOV_DR6] = "mov-dr6",	[X86_F_MOV_DR7] = "mov-dr7",
};

const char *x86_find_name(enum x86_find f)
{
	if (f < 0 || f >= X86_F_COUNT)
		return "none";
	return find_names[f];
}

enum x86_find_class x86_find_class(enum x86_find f)
{
	if (f < 0 || f >= X86_F_COUNT)
		return X86_C_NONE;
	if (f <= X86_F_INVVPID)
		return X86_C_VMX;
	if (f <= X86_F_INVLPGA)
		return X86_C_SVM;
	if (f <= X86_F_MOV_CR8)
		return X86_C_CR;
	return X86_C_DR;
}

/* 0f 01 with a register ModRM: one byte names the instruction. */
static enum x86_find find_0f01(const struct x86_insn *in)
{
	switch (in->modrm) {
	case 0xc1: return X86_F_VMCALL;
	case 0xc2: return X86_F_VMLAUNCH;
	case 0xc3: return X86_F_VMRESUME;
	case 0xc4: return X86_F_VMXOFF;
	case 0xd4: return X86_F_VMFUNC;
	case 0xd8: return X86_F_VMRUN;
	/* f2/f3 0f 01 d9 is vmgexit (SEV-ES guest), not vmmcall */
	case 0xd9:
		return in->mandatory ? X86_F_NONE : X86_F_VMMCALL;
	case 0xda: return X86_F_VMLOAD;
	case 0xdb: return X86_F_VMSAVE;
	case 0xdc: return X86_F_STGI;
	case 0xdd: return X86_F_CLGI;
	case 0xde: return X86_F_SKINIT;
	case 0xdf: return X86_F_INVLPGA;
	}
	return X86_F_NONE;
}

/*
 * 0f c7 with a memory operand: /6 is vmptrld, 66 /6 vmclear, f3 /6 vmxon
 * (f3 wins over 66, f2 /6 does not exist), /7 vmptrst with any prefix.
 * The register forms are rdrand, rdseed, rdpid, senduipi: not ours.
 */
static enum x86_find find_0fc7(const struct x86_insn *in)
{
	switch ((in->modrm >> 3) & 7) {
	case 6:
		if (in->mandatory == 0xf3)
			return X86_F_VMXON;
		if (in->mandatory == 0x66)
			return X86_F_VMCLEAR;
		return in->mandatory ? X86_F_NONE : X86_F_VMPTRLD;
	case 7:
		return X86_F_VMPTRST;
	}
	return X86_F_NONE;
}

/*
 * 0f 22: MOV to CRn, n = ModRM.reg + 8 * REX.R. AMD's alternative encoding
 * "lock mov cr0" writes CR8 (the TPR) from outside 64-bit mode's REX; we
 * report it as mov-cr8 because that is what the CPU does (objdump prints
 * "lock mov %rax,%cr0", agree.sh maps that). Other CRs #UD: not reported.
 */
static enum x86_find find_mov_cr(const struct x86_insn *in)
{
	int n = ((in->modrm >> 3) & 7) + ((in->rex & 4) ? 8 : 0);

	if ((in->prefixes & X86_P_F0) && n == 0)
		n = 8;
	switch (n) {
	case 0: return X86_F_MOV_CR0;
	case 2: return X86_F_MOV_CR2;
	case 3: return X86_F_MOV_CR3;
	case 4: return X86_F_MOV_CR4;
	case 8: return X86_F_MOV_CR8;
	}
	return X86_F_NONE;
}

enum x86_find x86_find_of(const struct x86_insn *in)
{
	bool mem = in->has_modrm && (in->modrm >> 6) != 3;

	if (in->map == X86_MAP_0F38 && in->mandatory == 0x66 && mem) {
		if (in->opcode == 0x80)
			return X86_F_INVEPT;
		if (in->opcode == 0x81)
			return X86_F_INVVPID;
	}
	if (in->map != X86_MAP_0F || !in->has_modrm)
		return X86_F_NONE;
	switch (in->opcode) {
	case 0x01:
		return mem ? X86_F_NONE : find_0f01(in);
	case 0xc7:
		return mem ? find_0fc7(in) : X86_F_NONE;
	/* with 66 or f2 these are SSE4a extrq/insertq */
	case 0x78:
		return in->mandatory ? X86_F_NONE : X86_F_VMREAD;
	case 0x79:
		return in->mandatory ? X86_F_NONE : X86_F_VMWRITE;
	case 0x22:
		return find_mov_cr(in);
	case 0x23:
		/* DR8-15 do not exist (#UD) */
		if (in->rex & 4)
			return X86_F_NONE;
		return X86_F_MOV_DR0 + ((in->modrm >> 3) & 7);
	}
	return X86_F_NONE;
}
