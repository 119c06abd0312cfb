# A real SVM guest under the host's bus-lock bit (issue #29), without
# sld_compat: fx_svmhv VMRUNs a 32-bit guest whose CPL 3 code does N
# split locked adds (tests/fixtures/fx_svmhv.c). AMD's VMRUN leaves
# DEBUGCTL alone without LBR virtualization, and so does the test CPU
# (tests/qemu/0005): with the host's bit 2 set, every one of the guest's
# bus locks raises a #DB in the guest, which its hypervisor never asked
# for. It shows:
#  - delivered: the guest's own #DB handler sees N, DR6 bit 11 clear;
#  - intercepted: the hypervisor gets N #DB exits instead;
#  - a hypervisor that clears DEBUGCTL around VMRUN (KVM since 6.14)
#    and a host with bit 2 clear: no #DB at all;
#  - the host kernel never sees them (no "took a bus_lock trap");
#  - cpu1 keeps what its kernel set (7.x on AMD: on, so an unprepared
#    hypervisor's guests take #DBs there; 6.12: off).
# On the Intel model (TCG's max offers SVM there too, no Intel part does)
# the fixture refuses: ENODEV.
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

DEBUGCTL=0x1d9
BLD=0x4
N=20
insmod /kmod/msr.ko allow_writes=on
insmod /mod/fx_svmhv.ko

# svm CPU ARGS...: one guest run pinned to CPU.
svm() { c=$1; shift; sldhv oncpu "$c" sldhv svmrun "$@"; }

# amd_guest: the guest runs of the header, on the AMD model.
amd_guest() {
	like "$(svm 0 0)" '^rc=EINVAL ' "fx_svmhv: 0 split locks refused (EINVAL)"
	like "$(svm 0 10001)" '^rc=EINVAL ' "fx_svmhv: more than 10000 refused (EINVAL)"

	kernel_bit=$(sldcpu msr 1 $DEBUGCTL)
	saved=$(sldcpu msr 0 $DEBUGCTL)
	sldcpu msr 0 $DEBUGCTL $BLD > /dev/null
	mark_dmesg

	out=$(svm 0 $N)
	diag "delivered: $out"
	like "$out" "^rc=0 exits=$((N + 1)) db_exits=0 db_delivered=$N guest_db=$N counter=$N " \
		"host bit 2 on: each of the guest's $N CPL 3 split locks raises a #DB in the guest"
	like "$out" ' dr6=0xffff07f0 debugctl=0x4 cpu=0 ' \
		"the guest's DR6 at its #DB: bit 11 (bus lock) clear; VMRUN left DEBUGCTL bit 2 on"

	out=$(svm 0 $N intercept)
	diag "intercepted: $out"
	like "$out" "^rc=0 exits=$((N + 1)) db_exits=$N db_delivered=0 guest_db=0 counter=$N dr6=0xffff07f0 " \
		"a hypervisor intercepting #DB gets $N #DB exits, DR6 bit 11 clear"

	out=$(svm 0 $N switch)
	diag "DEBUGCTL switched: $out"
	like "$out" "^rc=0 exits=1 db_exits=0 db_delivered=0 guest_db=0 counter=$N " \
		"a hypervisor clearing DEBUGCTL around VMRUN (KVM's fix): no #DB in the guest"
	out=$(svm 0 $N intercept switch)
	like "$out" "^rc=0 exits=1 db_exits=0 " "... and no #DB exit when it intercepts #DB"
	is "$(sldcpu msr 0 $DEBUGCTL)" $BLD "... and it restored the host's DEBUGCTL"

	sldcpu msr 0 $DEBUGCTL 0 > /dev/null
	out=$(svm 0 $N intercept)
	like "$out" "^rc=0 exits=1 db_exits=0 db_delivered=0 guest_db=0 counter=$N " \
		"host bit 2 off: the guest's split locks raise nothing"

	# shellcheck disable=SC2016 # $1: sh -c's argument
	fails "the host kernel saw none of the guest's bus locks (no bus_lock line)" \
		sh -c 'echo "$1" | grep -q bus_lock' _ "$(new_dmesg)"

	# cpu1, DEBUGCTL as its kernel set it.
	out=$(svm 1 $N)
	diag "cpu1 (DEBUGCTL $kernel_bit, as the kernel set it): $out"
	if [ "$kernel_bit" = $BLD ]; then
		like "$out" "^rc=0 exits=$((N + 1)) db_exits=0 db_delivered=$N .* cpu=1 " \
			"cpu1, bit 2 as the kernel set it: an unprepared hypervisor's guest takes $N #DBs"
	else
		like "$out" "^rc=0 exits=1 db_exits=0 db_delivered=0 .* cpu=1 " \
			"cpu1, bit 2 left off by the kernel: the guest takes no #DB"
	fi

	sldcpu msr 0 $DEBUGCTL "$saved" > /dev/null
}

# with_sld_compat: the same guest with sld_compat loaded. Where the
# kernel set bit 2 (7.x on AMD) fx_svmhv's SVM text makes it a hypervisor
# (svm-text), its vCPU task is protected at its first run ioctl, and bit 2
# is off on its CPU while it runs: the guest's bus locks raise no #DB,
# delivered or intercepted. Without the kernel's bit (6.12) nothing
# raises a #DB, and SVM text stays svm-only.
with_sld_compat() {
	load
	if [ "$kernel_bit" != $BLD ]; then
		like "$(grep '^fx_svmhv ' /proc/sld_compat_modules)" '^fx_svmhv svm-only svm-text ' \
			"sld_compat, kernel bit 2 clear: fx_svmhv is svm-only"
		unload
		return
	fi
	like "$(grep '^fx_svmhv ' /proc/sld_compat_modules)" '^fx_svmhv hypervisor svm-text ' \
		"sld_compat, kernel bit 2 set on AMD: fx_svmhv is a hypervisor (svm-text)"
	p=$(ac tasks_protected_hypervisor)
	out=$(svm 0 $N)
	diag "with sld_compat, delivered: $out"
	like "$out" "^rc=0 exits=1 db_exits=0 db_delivered=0 guest_db=0 counter=$N .* debugctl=0x0 cpu=0 " \
		"sld_compat: the guest's $N split locks raise no #DB; DEBUGCTL bit 2 off under the vCPU"
	is "$(($(ac tasks_protected_hypervisor) - p))" 1 "its vCPU task was protected as a hypervisor's"
	out=$(svm 1 $N intercept)
	like "$out" "^rc=0 exits=1 db_exits=0 db_delivered=0 guest_db=0 counter=$N .* cpu=1 " \
		"sld_compat, cpu1, intercepting #DB: no #DB exit either"
	is "$(sldcpu msr 0 $DEBUGCTL) $(sldcpu msr 1 $DEBUGCTL)" "$BLD $BLD" \
		"DEBUGCTL bit 2 back on both CPUs after the guest runs"
	like "$(grep '^fx_svmhv ' $S/hypervisors)" '^fx_svmhv state=' "hypervisors lists fx_svmhv"
	# A vCPU thread between guest runs keeps sld_compat loaded, as one
	# of a VMX hypervisor does (t/87-inuse.sh).
	rm -f /tmp/svmstop
	svm 0 $N park=/tmp/svmstop > /tmp/svmpark.out &
	wait_for 300 'grep -qs "^rc=0 " /tmp/svmpark.out'
	like "$(cat /tmp/svmpark.out)" "^rc=0 exits=1 db_exits=0 db_delivered=0 " \
		"a parked vCPU thread ran its guest without a #DB"
	is "$(sldtest rmmod sld_compat)" EAGAIN "rmmod refused while the SVM vCPU thread lives (EAGAIN: in use)"
	like "$(cat $S/in_use)" '^fx_svmhv tasks=1$' "in_use: fx_svmhv tasks=1"
	touch /tmp/svmstop
	wait
	# shellcheck disable=SC2016 # wait_for evaluates it at each try
	wait_for 100 '[ "$(ac tasks_live)" = 0 ]'
	unload
	out=$(svm 0 $N)
	like "$out" "^rc=0 exits=$((N + 1)) db_exits=0 db_delivered=$N " \
		"sld_compat unloaded: the guest takes its $N #DBs again"
}

if grep -q '^vendor_id.*AuthenticAMD' /proc/cpuinfo; then
	amd_guest
	with_sld_compat
else
	like "$(svm 0 $N)" '^rc=ENODEV ' "not an AMD model: fx_svmhv refuses (ENODEV)"
fi
rmmod fx_svmhv
rmmod msr
