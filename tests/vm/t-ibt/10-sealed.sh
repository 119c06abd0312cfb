# Issue #12 on the enforcing CPU (a boot of its own: the kernel must die).
# ibtcall.ko calls kallsyms_lookup_name, whose ENDBR 6.12 sealed, through a
# pointer: #CP, "Missing ENDBR", BUG, panic. tests/qemu/crash.sh reads
# the console; a line below means the kernel survived it.
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

insmod /mod/ibtcall.ko
nok "the kernel survived a call through a pointer to a sealed function"
