# Reproduction, not part of any suite: a PREEMPT_RT guest (6.1-rt) under
# QEMU TCG stops for good after 100-200 KB written to an 8250 serial port
# (the console's or another one); 6.1 writes all of it. No sld_compat is
# loaded. This is why tests/vm/init sends the results and the kernel log
# through QEMU's debugcon port instead.
#   VM_T=tests/vm/repro VM_ONLY=rt-serial VM_TIMEOUT=300 \
#       tests/vm/vm.sh 6.1.0-57-rt-amd64 check     # the VM does not finish
#   VM_T=tests/vm/repro VM_ONLY=rt-serial tests/vm/vm.sh 6.1.0-57-amd64 check
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh
i=0
while [ $i -lt 5000 ]; do
	echo "serial flood line $i: the quick brown fox jumps over the lazy dog, 0123456789"
	i=$((i + 1))
done > /dev/ttyS0
ok "5000 lines (430 KB) written to the serial console"
