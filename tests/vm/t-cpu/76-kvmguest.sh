# The reference of a prepared SVM hypervisor (issue #29), without
# sld_compat: the kernel's own kvm_amd runs sldkvm's guest, the same
# 32-bit CPL 3 guest as fx_svmhv's (75-svmguest.sh), N split locked adds,
# its #DB handler reporting each #DB by OUT. kvm_amd clears the host's
# DEBUGCTL around VMRUN when LBR virtualization is off ("KVM: SVM:
# Manually context switch DEBUGCTL if LBR virtualization is disabled",
# 6.14, in stable): with bit 2 set on the CPU its guest takes no #DB,
# where fx_svmhv's takes N; the host's bit is back after.
# Only on the AMD model (kvm_amd needs SVM on an AMD CPU); the Intel
# model's check is that kvm_amd refuses to load there.
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

DEBUGCTL=0x1d9
BLD=0x4
N=20
insmod /kmod/msr.ko allow_writes=on
insmod /kmod/irqbypass.ko 2>/dev/null
insmod /kmod/kvm.ko
insmod /kmod/ccp.ko 2>/dev/null

if grep -q '^vendor_id.*AuthenticAMD' /proc/cpuinfo; then
	run "kvm_amd loads on the AMD model" insmod /kmod/kvm-amd.ko
	saved=$(sldcpu msr 0 $DEBUGCTL)
	sldcpu msr 0 $DEBUGCTL $BLD > /dev/null
	mark_dmesg
	# The control: the guest's #DB handler works under KVM (one
	# single-step #DB, DR6.BS).
	out=$(sldhv oncpu 0 sldkvm $N step)
	diag "kvm_amd, host bit 2 on, one single step: $out"
	like "$out" "^rc=0 .* db_delivered=1 guest_db=1 counter=$N " \
		"kvm_amd's guest: its one single-step #DB reaches its handler, its split locks add none"
	out=$(sldhv oncpu 0 sldkvm $N)
	diag "kvm_amd, host bit 2 on: $out"
	like "$out" "^rc=0 .* db_delivered=0 guest_db=0 counter=$N .* cpl=3$" \
		"kvm_amd's guest: $N CPL 3 split locks under the host's bit 2, no #DB"
	is "$(sldcpu msr 0 $DEBUGCTL)" $BLD "kvm_amd restored the host's DEBUGCTL bit 2"
	# shellcheck disable=SC2016 # $1: sh -c's argument
	fails "the host kernel saw none of the guest's bus locks (no bus_lock line)" \
		sh -c 'echo "$1" | grep -q bus_lock' _ "$(new_dmesg)"
	sldcpu msr 0 $DEBUGCTL "$saved" > /dev/null
	# sld_compat's verdict on it: where the kernel sets the bus-lock
	# bit (7.x), the built-in table's switches-debugctl; elsewhere its
	# SVM text alone, svm-only. Neither protects its vCPU threads.
	load
	if [ "$saved" = $BLD ]; then
		like "$(grep '^kvm_amd ' /proc/sld_compat_modules)" '^kvm_amd sld_safe switches-debugctl ' \
			"sld_compat: kvm_amd is sld_safe (switches-debugctl, the built-in table)"
	else
		like "$(grep '^kvm_amd ' /proc/sld_compat_modules)" '^kvm_amd svm-only svm-text ' \
			"sld_compat, kernel bit 2 clear: kvm_amd is svm-only"
	fi
	p=$(ac tasks_protected)
	out=$(sldhv oncpu 0 sldkvm $N)
	like "$out" "^rc=0 .* db_delivered=0 guest_db=0 counter=$N " "with sld_compat: kvm_amd's guest as before"
	is "$(ac tasks_protected)" "$p" "... its vCPU thread not protected"
	unload
	rmmod kvm_amd
else
	# A missing file would make the insmod fail too: the file first.
	run "kvm-amd.ko is in the initramfs" test -f /kmod/kvm-amd.ko
	fails "kvm_amd does not load on the Intel model" insmod /kmod/kvm-amd.ko
fi
rmmod ccp 2>/dev/null
rmmod kvm
rmmod irqbypass 2>/dev/null
rmmod msr
