// SPDX-License-Identifier: GPL-2.0
/*
 * sldkvm: the smallest VMM, for the reference of a prepared hypervisor
 * (issue #29): the kernel's own KVM (kvm_amd on the AMD test CPU) runs a
 * guest in 32-bit protected mode without paging whose CPL 3 code does N
 * locked adds that cross a cache line (the same guest as
 * tests/fixtures/fx_svmhv.c, with OUT where that one has CPUID, since
 * KVM handles CPUID itself). The guest's #DB handler (same privilege, no
 * TSS) reports each #DB through OUT to port 0xdb; OUT to 0x5e ends it.
 *
 *   sldkvm N [step]
 *                with step the guest first single-steps one instruction;
 *                prints "rc=R exits=E db_delivered=D guest_db=G counter=C
 *                dr6=0x.. reason=X cpl=P" (dr6: KVM's view of the
 *                guest's DR6 at the last reported #DB, 0 if none; X: the
 *                last KVM_EXIT_*, 2 = IO; P: the guest's CPL at that exit,
 *                KVM's SS.DPL, which SVM keeps as the VMCB's CPL)
 *
 * Since 6.14 (and stable) kvm_amd clears the host's DEBUGCTL around
 * VMRUN when LBR virtualization is off: the guest then takes no bus-lock
 * #DB whatever the host's bit 2.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define MEM_SIZE	0x10000
#define G_BASE		0x1000	/* the guest's page: code first */
#define G_GDT		0x400
#define G_IDT		0x500
#define G_SPLIT		0x83e	/* a u32 across the line at 0x840 */
#define G_DBCOUNT	0x880
#define G_STACK		0xff0
#define PORT_DB		0xdb
#define PORT_DONE	0x5e

/*
 * The guest (32-bit, CPL 3, IOPL 3 for its OUTs): EBX = its page, ECX =
 * EAX = the number of locked adds; with EDX != 0 it first single-steps
 * one instruction (EFLAGS.TF): one #DB, the control that its #DB handler
 * works under KVM. (ICEBP is no #DB under TCG: QEMU's own debug stop.)
 */
asm(".pushsection .rodata\n"
	".code32\n"
	"kvm_guest:\n"
	"	movl %esp, %ebx\n"
	"	andl $0xfffff000, %ebx\n"
	"	movl %eax, %ecx\n"
	"	testl %edx, %edx\n"
	"	jz 1f\n"
	"	pushfl\n"		/* TF on: a single-step #DB after the nop */
	"	orl $0x100, (%esp)\n"
	"	popfl\n"
	"	nop\n"
	"1:	lock addl $1, 0x83e(%ebx)\n"
	"	decl %ecx\n"
	"	jnz 1b\n"
	"	outb %al, $0x5e\n"
	"	ud2\n"
	"kvm_guest_db:\n"
	"	incl 0x880(%ebx)\n"
	"	outb %al, $0xdb\n"
	"	andl $0xfffffeff, 8(%esp)\n"	/* TF off in the EFLAGS it returns to */
	"	iret\n"
	"kvm_guest_end:\n"
	".code64\n"
	".popsection\n");
extern const uint8_t kvm_guest[], kvm_guest_db[], kvm_guest_end[];

static void die(const char *what)
{
	printf("rc=%s exits=0 db_delivered=0 guest_db=0 counter=0 dr6=0x0 (%s)\n",
	       strerrorname_np(errno), what);
	exit(1);
}

/* The guest's GDT (null, code, data: DPL 3) and its #DB gate. */
static void guest_tables(uint8_t *g)
{
	uint32_t h = G_BASE + (uint32_t)(kvm_guest_db - kvm_guest);
	uint64_t gdt[3] = { 0, 0x00cffb000000ffffULL, 0x00cff3000000ffffULL };
	uint32_t gate[2] = { (0x0b << 16) | (h & 0xffff),
			     (h & 0xffff0000) | 0xee00 };

	memcpy(g, kvm_guest, kvm_guest_end - kvm_guest);
	memcpy(g + G_GDT, gdt, sizeof(gdt));
	memcpy(g + G_IDT + 8, gate, sizeof(gate));
}

static void flat(struct kvm_segment *s, uint16_t sel, uint8_t type)
{
	*s = (struct kvm_segment){ .base = 0, .limit = 0xffffffff,
		.selector = sel, .type = type, .present = 1, .dpl = 3,
		.db = 1, .s = 1, .g = 1 };
}

static void vcpu_setup(int vcpu, unsigned int n, int step)
{
	struct kvm_sregs sr;
	struct kvm_regs r = { .rip = G_BASE, .rsp = G_BASE + G_STACK,
			      .rax = n, .rdx = step,
			      .rflags = 0x3002 };	/* IOPL 3 */

	if (ioctl(vcpu, KVM_GET_SREGS, &sr))
		die("KVM_GET_SREGS");
	flat(&sr.cs, 0x0b, 11);
	flat(&sr.ss, 0x13, 3);	/* SS's DPL is the CPL */
	flat(&sr.ds, 0x13, 3);
	flat(&sr.es, 0x13, 3);
	flat(&sr.fs, 0x13, 3);
	flat(&sr.gs, 0x13, 3);
	sr.gdt.base = G_BASE + G_GDT;
	sr.gdt.limit = 3 * 8 - 1;
	sr.idt.base = G_BASE + G_IDT;
	sr.idt.limit = 32 * 8 - 1;
	sr.cr0 = 0x11;		/* PE, ET: no paging */
	sr.cr4 = 0;
	sr.efer = 0;
	if (ioctl(vcpu, KVM_SET_SREGS, &sr))
		die("KVM_SET_SREGS");
	if (ioctl(vcpu, KVM_SET_REGS, &r))
		die("KVM_SET_REGS");
}

/* KVM's DR6 of the guest, then DR6 as after reset for the next #DB. */
static uint64_t took_db(int vcpu)
{
	struct kvm_debugregs d;
	uint64_t dr6;

	if (ioctl(vcpu, KVM_GET_DEBUGREGS, &d))
		die("KVM_GET_DEBUGREGS");
	dr6 = d.dr6;
	d.dr6 = 0xffff0ff0;
	if (ioctl(vcpu, KVM_SET_DEBUGREGS, &d))
		die("KVM_SET_DEBUGREGS");
	return dr6;
}

int main(int argc, char **argv)
{
	struct kvm_userspace_memory_region mr = { .memory_size = MEM_SIZE };
	unsigned int n, exits = 0, db = 0;
	struct kvm_sregs sr;
	struct kvm_run *run;
	uint64_t dr6 = 0;
	int kvm, vm, vcpu;
	uint8_t *mem;

	n = argc > 1 ? strtoul(argv[1], NULL, 10) : 0;
	if (argc > 3 || n == 0 || n > 10000 ||
	    (argc == 3 && strcmp(argv[2], "step"))) {
		fprintf(stderr, "usage: sldkvm N [step] (1..10000 split locks)\n");
		return 2;
	}
	kvm = open("/dev/kvm", O_RDWR);
	if (kvm < 0)
		die("/dev/kvm");
	vm = ioctl(kvm, KVM_CREATE_VM, 0);
	if (vm < 0)
		die("KVM_CREATE_VM");
	mem = mmap(NULL, MEM_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		die("mmap");
	mr.userspace_addr = (uintptr_t)mem;
	if (ioctl(vm, KVM_SET_USER_MEMORY_REGION, &mr))
		die("KVM_SET_USER_MEMORY_REGION");
	guest_tables(mem + G_BASE);
	vcpu = ioctl(vm, KVM_CREATE_VCPU, 0);
	if (vcpu < 0)
		die("KVM_CREATE_VCPU");
	run = mmap(NULL, ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0),
		   PROT_READ | PROT_WRITE, MAP_SHARED, vcpu, 0);
	if (run == MAP_FAILED)
		die("mmap kvm_run");
	vcpu_setup(vcpu, n, argc == 3);
	while (exits < 4 * 10000) {
		if (ioctl(vcpu, KVM_RUN, 0) && errno != EINTR)
			die("KVM_RUN");
		exits++;
		if (run->exit_reason == KVM_EXIT_INTR)
			continue;
		if (run->exit_reason != KVM_EXIT_IO)
			break;
		if (run->io.port == PORT_DONE)
			break;
		if (run->io.port == PORT_DB) {
			db++;
			dr6 = took_db(vcpu);
		}
	}
	if (ioctl(vcpu, KVM_GET_SREGS, &sr))
		die("KVM_GET_SREGS");
	printf("rc=%s exits=%u db_delivered=%u guest_db=%u counter=%u dr6=0x%llx reason=%u cpl=%u\n",
	       run->exit_reason == KVM_EXIT_IO && run->io.port == PORT_DONE ?
	       "0" : "EXIT", exits, db,
	       *(uint32_t *)(mem + G_BASE + G_DBCOUNT),
	       *(uint32_t *)(mem + G_BASE + G_SPLIT), (unsigned long long)dr6,
	       run->exit_reason, sr.ss.dpl);
	return 0;
}
