# MSR_TEST_CTRL (0x33) and IA32_CORE_CAPABILITIES (0xcf) of the enforcing
# CPU, read and written through /dev/cpu/N/msr: bit 29 belongs to the core,
# so SMT siblings (the smt boot) share it and separate cores (check) do not.
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

insmod /kmod/msr.ko allow_writes=on
SLD=0x20000000
is "$(sldcpu msr 0 0xcf)" 0x20 "IA32_CORE_CAPABILITIES: split-lock detection (bit 5)"
sleep 0.1	# no re-enable work of an earlier trap pending
is "$(sldcpu msr 0 0x33) $(sldcpu msr 1 0x33)" "$SLD $SLD" "MSR_TEST_CTRL: the kernel set bit 29 on cpu0 and cpu1"

if [ "$(cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list)" = 0-1 ]; then
	smt=1 cpu1=0x80000000 what="its SMT sibling cpu1 sees it"
else
	smt=0 cpu1=$SLD what="cpu1, another core, keeps bit 29"
fi
is "$(sldcpu msr 0 0x33 0x80000000)" 0x80000000 "MSR_TEST_CTRL: other bits read back as written"
is "$(sldcpu msr 1 0x33)" $cpu1 "bit 29 cleared on cpu0: $what"
u0=$(field "$(sldhv oncpu 0 sldcpu op add split)" us)
u1=$(field "$(sldhv oncpu 1 sldcpu op add split)" us)
run "no trap on cpu0 with bit 29 clear (${u0} us)" [ "${u0:-99999}" -lt 9000 ]
if [ $smt = 1 ]; then
	run "no trap on its sibling cpu1 either (${u1} us)" [ "${u1:-99999}" -lt 9000 ]
else
	run "a trap on cpu1, whose core still detects (${u1} us)" [ "${u1:-0}" -ge 9000 ]
fi
sleep 0.1
is "$(sldcpu msr 0 0x33 $SLD)" $SLD "MSR_TEST_CTRL: bit 29 set again on cpu0"
is "$(sldcpu msr 1 0x33)" $SLD "cpu1 has bit 29 too"
rmmod msr
