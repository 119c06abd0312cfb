# make demo: what an admin would see on a host with the module.
. /tests/lib.sh
say() { echo; echo "\$ $*"; sh -c "$*"; }
say insmod /mod/sld_compat.ko
say "dmesg | grep sld_compat"
say cat /sys/kernel/sld_compat/status
say "grep . /sys/module/sld_compat/parameters/*"
say "echo 9 > /sys/module/sld_compat/parameters/verbose"
say "dmesg | tail -n 1"
say rmmod sld_compat
