# A host with many CPUs (vm.sh KVER many: 64 vCPUs). The per-CPU account
# is a seq_file, /proc/sld_compat_account, complete however many CPUs
# there are: as a sysfs page it held about 30 of its lines and silently
# dropped the rest, and status dropped whatever followed.
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

n=$(grep -c '^processor' /proc/cpuinfo)
like "$n" '^(6[4-9]|[7-9][0-9]|[1-9][0-9][0-9])$' "this VM has many CPUs ($n)"
ensure_unloaded
run "sld_compat loads" load
is "$(grep -c '^cpu[0-9]* core=' $ACCT)" "$n" "account: one line per online CPU"
is "$(sed -n '$p' $ACCT | cut -d' ' -f1)" "cpu$((n - 1))" "account: the last line is the last CPU"
is "$(dd if=$ACCT bs=64 2>/dev/null | md5sum)" "$(md5sum < $ACCT)" \
	"account: read 64 bytes at a time, the same text"
is "$(sed -n '$p' $S/status)" "disable_count: 0" "status: complete, down to its last item"
is "$(cat $S/disable_count)" 0 "disable_count: its own file"
run "cpu$((n - 1)) offline" sh -c "echo 0 > /sys/devices/system/cpu/cpu$((n - 1))/online"
is "$(grep -c '^cpu[0-9]* core=' $ACCT)" "$((n - 1))" "account: an offline CPU has no line"
run "cpu$((n - 1)) online" sh -c "echo 1 > /sys/devices/system/cpu/cpu$((n - 1))/online"
is "$(grep -c '^cpu[0-9]* core=' $ACCT)" "$n" "account: back online, back in"
unload
