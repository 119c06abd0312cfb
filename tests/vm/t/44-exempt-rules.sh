# Exemption rules as a booted system meets them (issue 26 b, c, h):
# a cgroup rule that waits for its cgroup (pending) and matches the
# cgroups created below it later; a rule of patterns that names libvirt's
# VM scopes and not the containers beside them in machine.slice (issue 37
# item 6); a path rule that survives a dpkg-style
# upgrade of its binary while root owns it, and only then; the kernel log
# line naming each task's first protection and its rule or hypervisor
# module, rate-limited.
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

ensure_loaded actest
echo 1 > /proc/sys/kernel/split_lock_mitigate
CG=/sys/fs/cgroup
mkdir -p $CG
mount -t cgroup2 none $CG 2>/dev/null
# libvirt's scope as systemd-machined names it (machine "qemu-1-vm", a
# '-' written \x2d), rootful podman's and systemd-nspawn's beside it.
LV_SCOPE='machine-qemu\x2d1\x2dvm.scope'
LV_RULE='/machine.slice/machine-qemu\x2d*.scope'
LV_RULE_W='/machine.slice/machine-qemu\\x2d*.scope'	# sldtest write decodes \\ and \xNN
for d in $CG/sldpend.slice/vm-2.scope $CG/sldpend.slice/vm-1.scope \
	$CG/sldpend.slice $CG/sldpend.slicex \
	"$CG/machine.slice/$LV_SCOPE/libvirt/vcpu0" "$CG/machine.slice/$LV_SCOPE/libvirt" \
	"$CG/machine.slice/$LV_SCOPE" $CG/machine.slice/machine-qemux2d1x2dvm.scope \
	$CG/machine.slice/libpod-x.scope $CG/machine.slice/machine-debian.scope \
	$CG/machine.slice "$CG/sldusr.slice/$LV_SCOPE" $CG/sldusr.slice; do
	[ -d "$d" ] && rmdir "$d"
done
knob_w exempt_cgroup - > /dev/null
knob_w exempt_path - > /dev/null
knob_w exempt_comm - > /dev/null
knob_w exempt_proactive N > /dev/null

# ---- a cgroup rule waits for its cgroup ----------------------------------------
is "$(cat $S/exempt_pending)" - "exempt_pending: nothing pending without rules"
is "$(knob_w exempt_cgroup /sldpend.slice)" OK "exempt_cgroup: a cgroup that does not exist yet is accepted"
is "$(cat $P/exempt_cgroup)" /sldpend.slice "exempt_cgroup reads back as written"
is "$(cat $S/exempt_pending)" "exempt_cgroup /sldpend.slice" "exempt_pending: the rule waits for its cgroup"
like "$(cat $S/status)" "exempt_pending: exempt_cgroup /sldpend.slice" "status shows it as pending"
like "$(/tests/bin/sldctl status)" "exempt rules pending \\(cgroup does not exist yet\\): exempt_cgroup /sldpend.slice" \
	"sldctl status shows it as pending"
is "$(knob_w exempt_cgroup +/sldpend.slice/inner,+/other.slice)" OK "exempt_cgroup: more pending rules added (+)"
is "$(wc -l < $S/exempt_pending)" 3 "exempt_pending: three rules pending"
is "$(knob_w exempt_cgroup /sldpend.slice)" OK "exempt_cgroup: back to one rule"
# Bad input is still refused, in the checker's words (src/schema/entries.c).
knob_rejects exempt_cgroup "/" "sldpend.slice" "/a/../b" "/a//b" "/a/" "/a b" "/a,/a" \
	"$(printf '/a\001b')"
mark_dmesg
knob_w exempt_cgroup machine.slice > /dev/null
like "$(new_dmesg)" "exempt_cgroup: rejected.*not absolute \\(must start with /\\)" \
	"dmesg: the shared checker's words"

mkdir $CG/sldpend.slice
is "$(cat $S/exempt_pending)" - "exempt_pending: empty once the cgroup exists"
mkdir $CG/sldpend.slice/vm-1.scope
protected_user 20 "cgroup created after the rule: a task in a scope below it is exempt" \
	in_cg $CG/sldpend.slice/vm-1.scope sldtest ac user 20
kguest 1 "a task outside it is not" sldtest ac guest 1
mkdir $CG/sldpend.slicex
kguest 1 "a cgroup whose name only starts the same is not below it" \
	in_cg $CG/sldpend.slicex sldtest ac guest 1
is "$(knob_w exempt_proactive Y)" OK "exempt_proactive Y"
mkdir $CG/sldpend.slice/vm-2.scope
like "$(in_cg $CG/sldpend.slice/vm-2.scope /tests/bin/sldhv cat $S/tasks)" \
	'^[0-9]+ sldhv why=exempt-cgroup hv=- cpu=[01] running=1 ' \
	"proactive: a new scope below the slice is protected from exec"
# The cgroups go (the VM stopped, the slice with it) and come again: the
# rule is a path, it waits again and matches the new ones.
rmdir $CG/sldpend.slice/vm-2.scope $CG/sldpend.slice/vm-1.scope $CG/sldpend.slice
is "$(cat $S/exempt_pending)" "exempt_cgroup /sldpend.slice" "exempt_pending: pending again when the cgroup went"
mkdir -p $CG/sldpend.slice/vm-3.scope
like "$(in_cg $CG/sldpend.slice/vm-3.scope /tests/bin/sldhv cat $S/tasks)" \
	'^[0-9]+ sldhv why=exempt-cgroup ' "a cgroup made again after a removal matches again"
is "$(knob_w exempt_cgroup /sldpend.slice/deeper)" OK "a rule two levels deep, not there yet"
like "$(in_cg $CG/sldpend.slice/vm-3.scope /tests/bin/sldhv cat $S/tasks)" '^none$' \
	"its parent's tasks are not exempt by it"
mkdir $CG/sldpend.slice/deeper
like "$(in_cg $CG/sldpend.slice/deeper /tests/bin/sldhv cat $S/tasks)" \
	'^[0-9]+ sldhv why=exempt-cgroup ' "the deeper cgroup, once made, is"
is "$(knob_w exempt_proactive N)" OK "exempt_proactive N"
is "$(knob_w exempt_cgroup -)" OK "exempt_cgroup cleared"
echo $$ > $CG/cgroup.procs
rmdir $CG/sldpend.slice/deeper $CG/sldpend.slice/vm-3.scope $CG/sldpend.slice $CG/sldpend.slicex

# ---- a rule of patterns: libvirt's VMs, not machine.slice's containers ---------
is "$(knob_w exempt_cgroup "$LV_RULE_W")" OK "exempt_cgroup: libvirt's scopes ($LV_RULE)"
is "$(cat $P/exempt_cgroup)" "$LV_RULE" "exempt_cgroup: the pattern reads back as written, backslash and all"
is "$(cat $S/exempt_pending)" "exempt_cgroup $LV_RULE" "exempt_pending: no cgroup it names yet"
mkdir -p $CG/machine.slice/libpod-x.scope $CG/machine.slice/machine-debian.scope
is "$(cat $S/exempt_pending)" "exempt_cgroup $LV_RULE" \
	"exempt_pending: a podman and an nspawn scope in the slice are not what it names"
mkdir -p "$CG/machine.slice/$LV_SCOPE/libvirt/vcpu0"
is "$(cat $S/exempt_pending)" - "exempt_pending: empty once a libvirt-named scope exists"
protected_user 20 "pattern: a task in a libvirt VM's vCPU cgroup is exempt" \
	in_cg "$CG/machine.slice/$LV_SCOPE/libvirt/vcpu0" sldtest ac user 20
protected_user 20 "pattern: ... and one in the VM's scope itself" \
	in_cg "$CG/machine.slice/$LV_SCOPE" sldtest ac user 20
kguest 1 "pattern: a rootful podman container's scope (libpod-x.scope) in the same slice is not" \
	in_cg $CG/machine.slice/libpod-x.scope sldtest ac guest 1
kguest 1 "pattern: an nspawn container's scope (machine-debian.scope) is not" \
	in_cg $CG/machine.slice/machine-debian.scope sldtest ac guest 1
kguest 1 "pattern: a task in machine.slice itself is not" \
	in_cg $CG/machine.slice sldtest ac guest 1
mkdir $CG/machine.slice/machine-qemux2d1x2dvm.scope
kguest 1 "pattern: its backslash is text, not an escape: machine-qemux2d1x2dvm.scope is not" \
	in_cg $CG/machine.slice/machine-qemux2d1x2dvm.scope sldtest ac guest 1
mkdir -p "$CG/sldusr.slice/$LV_SCOPE"
kguest 1 "pattern: the same scope name outside machine.slice is not" \
	in_cg "$CG/sldusr.slice/$LV_SCOPE" sldtest ac guest 1
is "$(knob_w exempt_proactive Y)" OK "pattern: exempt_proactive Y"
like "$(in_cg "$CG/machine.slice/$LV_SCOPE/libvirt/vcpu0" /tests/bin/sldhv cat $S/tasks)" \
	'^[0-9]+ sldhv why=exempt-cgroup hv=- cpu=[01] running=1 ' \
	"pattern: proactive: protected from exec in the libvirt VM's scope"
like "$(in_cg $CG/machine.slice/libpod-x.scope /tests/bin/sldhv cat $S/tasks)" '^none$' \
	"pattern: proactive: not in the podman scope"
is "$(knob_w exempt_proactive N)" OK "pattern: exempt_proactive N"
knob_rejects exempt_cgroup '/*' '/machine.slice/*' '/machine.slice/?*/libvirt'
mark_dmesg
knob_w exempt_cgroup '/machine.slice/**' > /dev/null
like "$(new_dmesg)" "exempt_cgroup: rejected.*a component of only '\\*' and '\\?' matches every cgroup there" \
	"dmesg: a name that matches every cgroup is refused in the shared checker's words"
is "$(knob_w exempt_cgroup -)" OK "exempt_cgroup cleared"
echo $$ > $CG/cgroup.procs
rmdir "$CG/machine.slice/$LV_SCOPE/libvirt/vcpu0" "$CG/machine.slice/$LV_SCOPE/libvirt" \
	"$CG/machine.slice/$LV_SCOPE" $CG/machine.slice/machine-qemux2d1x2dvm.scope \
	$CG/machine.slice/libpod-x.scope $CG/machine.slice/machine-debian.scope \
	$CG/machine.slice "$CG/sldusr.slice/$LV_SCOPE" $CG/sldusr.slice

# ---- a path rule survives a dpkg-style upgrade ---------------------------------
mkdir -p /opt/app
rm -f /opt/app/*
cp /tests/bin/sldtest /opt/app/game
chmod 755 /opt/app/game
is "$(knob_w exempt_path /opt/app/game)" OK "exempt_path /opt/app/game (root's, 0755)"
protected_user 20 "path: the binary is exempt" /opt/app/game ac user 20
ino0=$(stat -c %i /opt/app/game)
# dpkg: the new file beside the old one, renamed over it.
cp /tests/bin/sldtest /opt/app/game.dpkg-new
chmod 755 /opt/app/game.dpkg-new
mv -f /opt/app/game.dpkg-new /opt/app/game
ino1=$(stat -c %i /opt/app/game)
if [ "$ino0" != "$ino1" ]; then ok "upgrade: a new inode under the same name ($ino0 -> $ino1)"
else nok "upgrade: the inode did not change ($ino0)"; fi
protected_user 20 "upgrade: still exempt, without writing the knob again" /opt/app/game ac user 20
cp /tests/bin/sldtest /opt/app/other
kguest 1 "a copy under another name is not exempt" /opt/app/other ac guest 1
chmod 775 /opt/app/game
kguest 1 "group-writable: not exempt (others could change its code)" /opt/app/game ac guest 1
chmod 755 /opt/app/game
chown 65534 /opt/app/game
kguest 1 "owned by a user: not exempt" /opt/app/game ac guest 1
chown 0 /opt/app/game
protected_user 20 "root's again: exempt again" /opt/app/game ac user 20
# A user's own binary: exempt as the file it was when written, never by
# its name: the user's next version is not.
cp /tests/bin/sldtest /tmp/userbin
chown 65534 /tmp/userbin
is "$(knob_w exempt_path /tmp/userbin)" OK "exempt_path /tmp/userbin (a user's)"
protected_user 20 "a user's binary: exempt as it was when written" /tmp/userbin ac user 20
cp /tests/bin/sldtest /tmp/userbin.new
chown 65534 /tmp/userbin.new
mv -f /tmp/userbin.new /tmp/userbin
kguest 1 "a user's binary replaced: not exempt (no root-owned file at the name)" /tmp/userbin ac guest 1
knob_rejects exempt_path "opt/app/game" "/opt/app/../app/game" "/opt//app" "/" "/opt/app/absent" "/opt/app"
is "$(knob_w exempt_path -)" OK "exempt_path cleared"
rm -f /tmp/userbin /opt/app/other

# ---- the kernel log names each task's first protection --------------------------
is "$(knob_w exempt_proactive Y)" OK "log: exempt_proactive Y"
ln -sf /tests/bin/sldhv /tmp/sldlogx
is "$(knob_w exempt_comm 'sldlog*')" OK "log: exempt_comm sldlog*"
sleep 6	# a fresh rate-limit interval
mark_dmesg
pid=$(sh -c 'echo $$; exec /tmp/sldlogx cat /dev/null')
like "$(new_dmesg)" "sld_compat: protecting sldlogx\\[$pid\\]: exempt_comm rule sldlog\\*$" \
	"log: PID, comm and the exempt_comm rule"
knob_w exempt_comm - > /dev/null
is "$(knob_w exempt_path /opt/app/game)" OK "log: exempt_path /opt/app/game"
mark_dmesg
pid=$(sh -c 'echo $$; exec /opt/app/game ac user 5 > /dev/null')
dm=$(new_dmesg)
like "$dm" "sld_compat: protecting game\\[$pid\\]: exempt_path rule /opt/app/game$" \
	"log: the exempt_path rule"
is "$(echo "$dm" | grep -c "protecting game\\[$pid\\]")" 1 "log: once for a task, not per split lock or switch"
knob_w exempt_path - > /dev/null
knob_w exempt_cgroup /sldlog.slice > /dev/null
mkdir -p $CG/sldlog.slice/run-1.scope
mark_dmesg
pid=$(in_cg -p $CG/sldlog.slice/run-1.scope /tests/bin/sldhv cat /dev/null)
like "$(new_dmesg)" "sld_compat: protecting sldhv\\[$pid\\]: exempt_cgroup rule /sldlog.slice$" \
	"log: the exempt_cgroup rule"
knob_w exempt_cgroup - > /dev/null
rmdir $CG/sldlog.slice/run-1.scope $CG/sldlog.slice
ensure_loaded fx_hv
mark_dmesg
pid=$(sh -c 'echo $$; exec sldhv nop fx_hv > /dev/null')
like "$(new_dmesg)" "sld_compat: protecting sldhv\\[$pid\\]: hypervisor module fx_hv$" \
	"log: the hypervisor module"
rmmod fx_hv
# Rate-limited: 50 first protections in a row log at most 10 lines per 5 s.
is "$(knob_w exempt_comm 'sldlog*')" OK "log: exempt_comm sldlog* again"
sleep 6
mark_dmesg
t0=$(date +%s)
n=0
while [ $n -lt 50 ]; do /tmp/sldlogx cat /dev/null; n=$((n + 1)); done
t1=$(date +%s)
got=$(new_dmesg | grep -c "protecting sldlogx\\[")
max=$((10 * ((t1 - t0) / 5 + 1)))
if [ "$got" -ge 1 ] && [ "$got" -le $max ] && [ $max -lt 50 ]; then
	ok "log: rate-limited ($got lines for 50 tasks in $((t1 - t0)) s)"
else
	nok "log: rate-limited: $got lines for 50 tasks in $((t1 - t0)) s, want 1..$max (< 50)"
fi
knob_w exempt_comm - > /dev/null
is "$(knob_w exempt_proactive N)" OK "log: exempt_proactive N"
rm -f /tmp/sldlogx
rm -rf /opt/app
# shellcheck disable=SC2016 # wait_for evaluates it at each try
wait_for 50 '[ "$(ac tasks_live)" = 0 ]'
is "$(ac tasks_live)" 0 "no record left"
