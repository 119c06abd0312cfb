# A split lock in kernel mode on the enforcing CPU (a boot of its own: the
# kernel must die). tests/qemu/crash.sh reads the console; a line below
# means the kernel survived it.
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

insmod /mod/slcrash.ko
nok "the kernel survived a split lock in kernel mode"
