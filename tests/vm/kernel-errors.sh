# shellcheck shell=sh
# What counts as a kernel error in a test VM's log, defined once: an
# extended regex that collect.sh (every TAP run) and vm.sh (the bench
# boot) match against the whole console log on the host, and lib.sh's
# KERNEL_ERRORS in the VM for the tests that check their own stretch of
# dmesg. Busybox sh, bash and grep -E all read it.
# shellcheck disable=SC2034 # used by the scripts that source this file
KERNEL_ERRORS='Kernel panic|Oops|BUG[: ]|WARNING:|general protection|lockdep|possible circular locking|INFO: task .* blocked|KASAN|UBSAN'
