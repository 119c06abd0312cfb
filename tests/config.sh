# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
# The test suite's settings, in one place: sourced by the shell scripts
# (. tests/config.sh; POSIX sh, so busybox and dash read it too) and read by
# make through tests/config.mk, which takes each value from here. A value
# already in the environment (or on make's command line) wins.

# The download cache: kernel images, the enforcing test QEMU, debootstrapped
# roots, checkpatch.pl. Never installed, safe to delete.
: "${SLD_CACHE:=/var/cache/sld-compat-test}"

# The Debian 12 kernels the suite builds for and boots: 6.1 (plain and
# PREEMPT_RT) and 6.12 (kernel IBT). A new ABI is one edit here.
: "${KVER_61:=6.1.0-57-amd64}"
: "${KVER_61RT:=6.1.0-57-rt-amd64}"
: "${KVER_612:=6.12.107+deb12-amd64}"
: "${KVERS:=$KVER_61 $KVER_61RT $KVER_612}"
