# Who can obtain protection (issue #12 item 2): trust_sld_safe, the
# learned ioctl path narrowed to trusted files (the run path where a
# profile exists), exempt_path bound to the file and not to a recycled
# inode number; and (item 3) a reload of the hypervisor module right
# after its first ioctl never fails because of sld_compat.
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

M=/proc/sld_compat_modules
rec() { grep "^$1 " $M; }

ensure_loaded actest

# ---- first ioctl, then rmmod at once ------------------------------------------
# The learned entry is hooked by the caller itself before its ioctl
# returns (while its open file holds fx_hv), not by a work item that may
# still hold fx_hv's module reference (register_kprobe takes one) when
# rmmod comes. Before the fix 13 of 20 rmmods failed with EAGAIN on 6.1.
fail=0
i=0
while [ $i -lt 20 ]; do
	insmod /mod/fx_hv.ko || fail=$((fail + 100))
	sldhv oncpu $((i % 2)) sldhv nop fx_hv > /dev/null
	rmmod fx_hv 2> /tmp/rmmod.err || { fail=$((fail + 1)); sleep 1; rmmod fx_hv; }
	i=$((i + 1))
done
is "$fail" 0 "first ioctl then rmmod at once, 20 times: every rmmod succeeded"
[ "$fail" = 0 ] || diag "$(cat /tmp/rmmod.err)"
run "insmod fx_hv" insmod /mod/fx_hv.ko
is "$(sldhv nop fx_hv)" OK "a first ioctl"
like "$(hv fx_hv)" '^fx_hv state=hooked via=learned entry=fx_hv_ioctl ' \
	"the learned entry is hooked when the first ioctl returns (no wait)"
run "rmmod fx_hv" rmmod fx_hv

# ---- the learned path protects trusted files only ------------------------------
# fx_hv's node is root's, mode 0666. A second node for the same device,
# owned by a user, stands for one a user made or was given.
mknode() {	# mknode PATH: a node of /dev/fx_hv's device, owned by 65534
	rm -f "$1"
	mknod "$1" c "$(cut -d: -f1 /sys/class/misc/fx_hv/dev)" "$(cut -d: -f2 /sys/class/misc/fx_hv/dev)"
	chown 65534 "$1"; chmod 666 "$1"
}
# check HOW: the three kinds of file, and a user through root's 0666 node;
# HOW generic: each ioctl is the module's first (fx_hv loaded afresh), so
# the generic probe decides; learned: the entry is hooked first.
tasks_of() { field "$(hv fx_hv)" tasks; }
fresh() {
	lsmod | grep -q '^fx_hv ' && rmmod fx_hv
	insmod /mod/fx_hv.ko
	mknode /tmp/fx_user
	[ "$1" = learned ] || return 0
	# Only a trusted file teaches the entry: a read-only open must not
	# fix it to a handler that never runs a guest.
	sldhv nop fx_hv ro > /dev/null
	like "$(hv fx_hv)" '^fx_hv state=learning ' "learned: a read-only open teaches nothing"
	sldhv nop fx_hv > /dev/null
}
check() {	# check HOW EXPECTED-DELTA DESCRIPTION SLDHV-ARGS...
	_how=$1 _d=$2 _what=$3; shift 3
	[ "$_how" = generic ] && fresh generic
	_tp=$(ac tasks_protected) _t=$(tasks_of)
	_out=$("$@")
	is "$_out $(($(ac tasks_protected) - _tp)) $(($(tasks_of) - _t))" "OK $_d $_d" "$_how: $_what"
}
for how in generic learned; do
	fresh $how
	if [ $how = learned ]; then
		like "$(hv fx_hv)" '^fx_hv state=hooked via=learned ' "learned: entry hooked"
	else
		like "$(hv fx_hv)" '^fx_hv state=learning ' "generic: entry not known yet"
	fi
	check $how 0 "read-only open: caller not protected" sldhv nop fx_hv ro
	check $how 0 "node owned by a user: caller not protected" sldhv nop fx_hv /tmp/fx_user
	check $how 1 "root's node, opened for writing: caller protected" sldhv nop fx_hv
	check $how 1 "a user through root's 0666 node: protected (the node's mode decides)" \
		sldtest asuser 65534 sldhv nop fx_hv
	rm -f /tmp/fx_user
	rmmod fx_hv
done

# A profiled module protects through its run path only, also while the
# generic probe is armed for another module.
run "insmod fx_hv (keeps the generic probe armed)" insmod /mod/fx_hv.ko
run "insmod vmmon" insmod /mod/vmmon.ko
like "$(hv vmmon)" '^vmmon state=hooked via=profile entry=Vmx86_RunVM ' "vmmon: profile entry hooked"
like "$(grep '^ioctl-learn ' $S/hooks)" ' armed$' "ioctl-learn armed (fx_hv still learning)"
tp=$(ac tasks_protected)
is "$(sldhv nop vmmon)" OK "vmmon: a management ioctl, generic probe armed"
is "$(ac tasks_protected)" "$tp" "vmmon: not protected by the generic probe"
like "$(sldhv run vmmon 1000 0 1)" '^rc=0 ' "vmmon: RUN"
is "$(ac tasks_protected)" $((tp + 1)) "vmmon: RUN protects its caller"
run "rmmod vmmon" rmmod vmmon
run "rmmod fx_hv" rmmod fx_hv

# ---- trust_sld_safe -------------------------------------------------------------
# The suite's fixtures are unsigned: Debian's kernels trust Debian's key
# and, on a real host, an enrolled machine-owner key; neither can sign a
# module built here for this VM, so sig_ok is false for fx_safe and only
# the unsigned side of `signed` can be tested.
is "$(cat $P/trust_sld_safe)" Y "trust_sld_safe: Y by default"
# Its malformed values: 25-badinput.sh's table.
run "insmod fx_safe (VMX text, MODULE_INFO(sld_safe, Y))" insmod /mod/fx_safe.ko
like "$(rec fx_safe)" '^fx_safe sld_safe modinfo-sld-safe .*,sld_safe-unsigned,loaded$' \
	"Y: fx_safe sld_safe, its tag honoured, unsigned"
is "$(hv fx_safe)" "" "Y: fx_safe not watched"
mark_dmesg
is "$(knob_w trust_sld_safe signed)" OK "trust_sld_safe=signed"
like "$(rec fx_safe)" '^fx_safe hypervisor vmx-text .*,sld_safe-ignored-unsigned,watched,loaded$' \
	"signed: unsigned fx_safe re-decided: hypervisor, tag ignored"
like "$(new_dmesg)" 'sld_compat: trust_sld_safe: fx_safe: sld_safe \(modinfo-sld-safe, unsigned, trust_sld_safe=Y\) -> hypervisor \(vmx-text; sld_safe ignored: unsigned, trust_sld_safe=signed\), policy protect: watched$' \
	"signed: dmesg says which rule decided"
like "$(hv fx_safe)" '^fx_safe state=' "signed: fx_safe watched"
mark_dmesg
is "$(knob_w trust_sld_safe N)" OK "trust_sld_safe=N"
like "$(rec fx_safe)" '^fx_safe hypervisor vmx-text .*,sld_safe-ignored,watched,loaded$' "N: hypervisor, tag ignored"
# Same verdict and reason: no dmesg line for it, /proc says why.
mark_dmesg
is "$(knob_w trust_sld_safe Y)" OK "trust_sld_safe=Y again"
like "$(rec fx_safe)" '^fx_safe sld_safe modinfo-sld-safe .*,sld_safe-unsigned,loaded$' "Y again: sld_safe"
is "$(hv fx_safe)" "" "Y again: no longer watched"
like "$(new_dmesg)" 'sld_compat: trust_sld_safe: fx_safe: hypervisor \(vmx-text; sld_safe ignored: trust_sld_safe=N\) -> sld_safe \(modinfo-sld-safe, unsigned, trust_sld_safe=Y\), policy protect: no longer watched' \
	"Y again: dmesg"
run "rmmod fx_safe" rmmod fx_safe
for t in signed N; do
	knob_w trust_sld_safe $t > /dev/null
	mark_dmesg
	run "$t: insmod fx_safe" insmod /mod/fx_safe.ko
	like "$(rec fx_safe)" '^fx_safe hypervisor vmx-text .*,watched,loaded$' "$t: loads as hypervisor"
	like "$(new_dmesg)" 'sld_compat: fx_safe: hypervisor \(vmx-text; sld_safe ignored: .*trust_sld_safe='$t'\), first vmlaunch' \
		"$t: the load's dmesg line says the tag was ignored"
	run "$t: rmmod fx_safe" rmmod fx_safe
done
knob_w trust_sld_safe Y > /dev/null
# Admin entries decide before the tag: no note, under any trust.
run "insmod fx_safe" insmod /mod/fx_safe.ko
X=/tests/bin/sldctl
out=$($X policy set trust_sld_safe N 2>&1); rc=$?
is "$rc" 0 "sldctl policy set trust_sld_safe N exits 0"
like "$out" 'fx_safe: sld_safe \(modinfo-sld-safe\) -> hypervisor \(vmx-text\)' "sldctl names the module the write changed"
is "$(cat $P/trust_sld_safe)" N "sldctl: knob written"
out=$($X policy set trust_sld_safe maybe 2>&1); rc=$?
is "$rc" 2 "sldctl policy set trust_sld_safe maybe: refused (exit 2)"
is "$(cat $P/trust_sld_safe)" N "sldctl: refused value changed nothing"
like "$($X policy get trust_sld_safe)" "^trust_sld_safe: N " "sldctl policy get trust_sld_safe"
knob_w trust_sld_safe Y > /dev/null
run "rmmod fx_safe" rmmod fx_safe
unload
run "insmod sld_compat trust_sld_safe=signed" load trust_sld_safe=signed
is "$(cat $P/trust_sld_safe)" signed "load-time trust_sld_safe applied"
unload
expect_dmesg "invalid for parameter .trust_sld_safe"
fails "insmod sld_compat trust_sld_safe=maybe fails" load trust_sld_safe=maybe
load

# ---- exempt_path: the file, not a recycled inode number ------------------------------
# tmpfs and ramfs never hand a deleted file's inode number out again (a
# counter); ext4 (here driving ext2, on a loop device) takes the lowest
# free one, so the next file usually gets it at once.
while read -r m; do
	grep -q "^$m " /proc/modules || insmod "/kmod/fs/$m.ko" || diag "insmod $m failed"
done < /kmod/fs/order
dd if=/dev/zero of=/tmp/ext.img bs=1M count=8 2>/dev/null
mke2fs -F -q /tmp/ext.img 8192 > /dev/null 2>&1
mkdir -p /mnt/ext
losetup /dev/loop0 /tmp/ext.img
run "an ext2 filesystem on a loop device" mount -t ext2 /dev/loop0 /mnt/ext
grep -q ext2 /proc/filesystems || diag "$(cat /proc/filesystems)"
cp /tests/bin/sldtest /mnt/ext/orig
ino=$(stat -c %i /mnt/ext/orig)
is "$(knob_w exempt_path /mnt/ext/orig)" OK "exempt_path: /mnt/ext/orig (inode $ino)"
oguest 1 "the original is exempt" /mnt/ext/orig ac guest 1
rm /mnt/ext/orig
i=0 got=
while [ $i -lt 20 ]; do
	cp /tests/bin/sldtest /mnt/ext/new$i
	if [ "$(stat -c %i /mnt/ext/new$i)" = "$ino" ]; then got=/mnt/ext/new$i; break; fi
	i=$((i + 1))
done
like "$got" "^/mnt/ext/new" "a new file got the deleted binary's inode number $ino"
kguest 1 "the file on the recycled inode is not exempt" $got ac guest 1
is "$(knob_w exempt_path $got)" OK "exempt_path written again, naming it"
oguest 1 "named, it is exempt" $got ac guest 1
# ctime has the filesystem's granularity, a second for ext2's 128-byte
# inodes: a change within the second the file was made keeps it.
sleep 1.1
chown 65534 $got
kguest 1 "after chown to a user (a new ctime) it is not: the file as it was when named" $got ac guest 1
# Root's file under the name it was named by stays exempt through a
# chmod that lets nobody else write it (exempt.c (b): package upgrades).
chown 0 $got
chmod 700 $got
oguest 1 "root's again, mode 0700: exempt by its name and owner" $got ac guest 1
is "$(knob_w exempt_path -)" OK "exempt_path cleared"
/tests/bin/sldctl exempt add --path $got > /dev/null 2> /tmp/sldctl.err
like "$(cat /tmp/sldctl.err)" "matches this file as it is now" "sldctl exempt add --path: says what it binds to"
is "$(knob_w exempt_path -)" OK "exempt_path cleared again"
umount /mnt/ext
losetup -d /dev/loop0
rm -f /tmp/ext.img
