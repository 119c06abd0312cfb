# shellcheck disable=SC2016 # wait_for evaluates its condition at each try
# Issue #38, item 1: the admin's own rules are bounded by memory, not by
# max_tasks or tasks_per_uid; the bounds stay for rules a user can satisfy
# alone, whose tasks never take relief from the admin's. A rule only root
# can satisfy: an exempt_cgroup whose cgroup and those above it are root's
# directories (how libvirt and Proxmox VE start guests: root's scopes,
# the guest running as libvirt-qemu or root), an exempt_path of a file
# only root may execute. A user's cgroup (one root delegated to them, as
# systemd's Delegate= does, and those they make in it, named like root's)
# is bounded per uid, as is a cgroup root made below a user's, a root's
# cgroup anyone may write, and any below /user.slice (logind puts login
# sessions there, in root's scopes). The bounds here are tiny (max_tasks 16, so an
# exempt share of 12, tasks_per_uid 2) so that VM-like processes cross
# them: sldcpu vm starts idle workers, then a split-locking "vCPU". A
# refused task asks again at each split lock, so refusals are counted as
# events and protections (tasks_protected_*) say how many were protected.
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

QEMU=64055	# libvirt-qemu, Debian's fixed uid
USR=1000
CG=/sys/fs/cgroup
mkdir -p $CG
mount -t cgroup2 none $CG 2>/dev/null
V=$CG/sldvm.slice
for d in $V/deleg.scope/vm-9.scope $V/deleg.scope/rootmade.scope $V/deleg.scope \
	"$V"/vm-*.scope $V/open.scope $V $CG/user.slice/sldfake.scope; do
	[ -d "$d" ] && rmdir "$d"
done

ensure_unloaded
load
echo 1 > /proc/sys/kernel/split_lock_mitigate
is "$(knob_w max_tasks 16)" OK "max_tasks 16: an exempt share of 12"
is "$(knob_w tasks_per_uid 2)" OK "tasks_per_uid 2"
is "$(knob_w exempt_cgroup /sldvm.slice)" OK "exempt_cgroup /sldvm.slice"
is "$(knob_w exempt_proactive Y)" OK "exempt_proactive Y"
run "the owner of a cgroup directory is known on this kernel" \
	sh -c "! grep -q '^cgroup-owner' $S/degraded"
for i in 1 2 3 4 5 6; do mkdir -p $V/vm-$i.scope; done

# vms N UID THREADS: N VM-like processes of THREADS threads as UID, one
# per root's scope vm-I, alive until /tmp/vms.stop; their output in
# /tmp/vm-I.out. vms_end: stop them.
vms() {
	rm -f /tmp/vms.stop
	for _i in $(seq "$1"); do
		in_cg "$CG/sldvm.slice/vm-$_i.scope" sldtest asuser "$2" \
			sldcpu vm "$3" 20 2000 @/tmp/vms.stop > "/tmp/vm-$_i.out" &
	done
}
vms_end() { touch /tmp/vms.stop; wait; }
# user_vm UID DIR WANT: a VM-like process of 8 tasks as UID, started
# outside and moved into cgroup DIR by root (as systemd starts a unit),
# where it execs; prints how many of its tasks hold records (sldcpu lines
# of the tasks file) once all 8 run and WANT do (or 10 s), and again
# after 0.5 s more, then ends it. /tmp/user.out: its output.
held() { grep -c ' sldcpu why=exempt-cgroup ' $S/tasks; }
user_vm() {
	rm -f /tmp/vms.stop
	sldtest asuser "$1" sh -c "_n=0; until grep -q '${2#"$CG"}\$' /proc/\$\$/cgroup || [ \$_n -ge 500 ]; do usleep 10000; _n=\$((_n + 1)); done
		exec sldcpu vm 8 20 2000 @/tmp/vms.stop" > /tmp/user.out &
	_p=$!
	echo $_p > "$2/cgroup.procs"
	_want=$3
	wait_for 100 '[ "$(ls /proc/$_p/task 2> /dev/null | wc -l)" = 8 ] && [ "$(held)" -ge $_want ]'
	sleep 0.5
	held
	vms_end
}
# vms_ok N THREADS: how many did not run all their tasks and locks. A
# lock's time ("slow", shown) is no proof here: six spinning vCPUs on two
# CPUs preempt each other; the #ACs passed on to the kernel are.
vms_ok() {
	_bad=0
	for _i in $(seq "$1"); do
		grep -qx "threads=$2 locks=20 slow=[0-9]* counter=20" "/tmp/vm-$_i.out" ||
			_bad=$((_bad + 1))
	done
	echo $_bad
}
vms_show() { for _i in $(seq "$1"); do diag "vm-$_i: $(cat "/tmp/vm-$_i.out")"; done; }
# traps: the kernel's trap lines for sldcpu since mark_dmesg.
traps() { new_dmesg | grep -c 'sldcpu/[0-9]* took a split_lock trap'; }

# ---- root's scopes, the guests as libvirt-qemu: 48 threads, no bound -----
mark_dmesg
r0=$(ac tasks_refused) a0=$(ac tasks_admin) p0=$(passed)
vms 6 $QEMU 8
wait_for 100 '[ "$(ac tasks_admin)" -ge $((a0 + 48)) ]'
is "$(ac tasks_admin)" $((a0 + 48)) "6 VMs of 8 tasks as uid $QEMU in root's scopes: 48 admin records at once"
vms_end
vms_show 6
is "$(vms_ok 6 8)" 0 "the 6 VMs ran all their tasks and locks"
is "$(passed)" "$p0" "every vCPU relieved from its start: none of its #ACs went to the kernel"
is "$(traps)" 0 "no kernel trap line for them"
is "$(ac tasks_refused)" "$r0" "nothing refused: neither max_tasks (16) nor tasks_per_uid (2) bounds them"
like "$(new_dmesg)" 'protecting sldcpu\[[0-9]+\]: exempt_cgroup rule /sldvm\.slice' "the log names the rule"
wait_for 100 '[ "$(ac tasks_live)" = 0 ]'
is "$(ac tasks_admin)" 0 "their records went with them"

# ---- a user's delegated cgroup below the rule: bounded per uid ------------
# Root delegates deleg.scope to $USR as systemd's Delegate= does (chown of
# the directory and its control files) and starts the user there; the
# user makes vm-9.scope, named like root's, and runs a VM-like process.
# The user's shell starts outside, root moves it in (as systemd starts a
# delegated unit), it makes its cgroup and moves there, then execs.
mkdir -p $V/deleg.scope
chown $USR $V/deleg.scope $V/deleg.scope/cgroup.procs \
	$V/deleg.scope/cgroup.threads $V/deleg.scope/cgroup.subtree_control
mark_dmesg
rc=$(ac tasks_refused_cap) ra=$(ac tasks_refused_admin)
sldtest asuser $USR sh -c "until grep -q deleg.scope /proc/\$\$/cgroup; do usleep 10000; done
	mkdir $V/deleg.scope/vm-9.scope && echo \$\$ > $V/deleg.scope/vm-9.scope/cgroup.procs &&
	exec sldcpu vm 8 20 2000 2000" > /tmp/user.out &
echo $! > $V/deleg.scope/cgroup.procs
wait_for 100 '[ $(($(ac tasks_refused_cap) - rc)) -ge 6 ]'
sleep 0.3
n=$(grep -c ' sldcpu why=exempt-cgroup ' $S/tasks)
wait
diag "the user's VM: $(cat /tmp/user.out)"
like "$(cat /tmp/user.out)" '^threads=8 ' "uid $USR's VM in its own vm-9.scope ran 8 tasks"
is "$n" 2 "its uid's cap: 2 of them protected"
run "the other 6 refused, over tasks_per_uid ($(($(ac tasks_refused_cap) - rc)) refusals)" \
	[ $(($(ac tasks_refused_cap) - rc)) -ge 6 ]
is "$(ac tasks_refused_admin)" "$ra" "none of them counted as the admin's"
is "$(new_dmesg | grep -c "not protecting sldcpu\[[0-9]*\] (uid $USR): its uid's tasks_per_uid reached, under exempt_cgroup rule /sldvm.slice\$")" 1 \
	"the refusal logged once, with the uid, the rule and the reason"
like "$(sldctl doctor 2>&1)" "0 refusal\\(s\\) of protection since load for max_tasks and [0-9]+ for tasks_per_uid" \
	"sldctl doctor warns of the bounded refusals"

# ---- a task root starts in the user's cgroup, dropping to the user -------
# As a root service's worker, su or the user's own VM started by root a
# moment before it drops (the race the section above once lost): root's
# sh enters vm-9.scope and execs sldtest, protected there as root's (no
# uid counted), which drops to $USR and execs the VM. From that exec on
# its record counts for $USR, as its threads' do: 2 in all, not 3.
rc=$(ac tasks_refused_cap)
in_cg -p $V/deleg.scope/vm-9.scope sldtest asuser $USR sldcpu vm 8 20 2000 2000 > /tmp/user.out &
wait_for 100 '[ $(($(ac tasks_refused_cap) - rc)) -ge 6 ]'
sleep 0.3
p=$(head -n 1 /tmp/user.out)
n=$(held) mine=$(grep -c "^$p sldcpu why=exempt-cgroup " $S/tasks)
wait
like "$(sed -n 2p /tmp/user.out)" '^threads=8 ' "root's task dropped to uid $USR in vm-9.scope: its VM ran 8 tasks"
is "$n" 2 "counted for uid $USR from its exec: 2 of them protected, the cap"
is "$mine" 1 "the main thread kept its record across the drop and the exec"
# Over the cap at that exec: the record goes, as a new task's would be
# refused. A VM started the same way holds the uid's 2 records meanwhile;
# its vCPU, refused, makes one split lock, and its refusals (at its
# clone, at its lock) are counted before the exec's are (under load they
# once came in between: 3 and 4 for 2).
rm -f /tmp/vms.stop
rc=$(ac tasks_refused_cap)
in_cg $V/deleg.scope/vm-9.scope sldtest asuser $USR sldcpu vm 3 1 2000 @/tmp/vms.stop > /tmp/user2.out &
wait_for 100 '[ "$(held)" = 2 ] && [ $(($(ac tasks_refused_cap) - rc)) -ge $((1 + CPU_SLD)) ]'
rc=$(ac tasks_refused_cap) xd=$(ac tasks_exec_dropped)
in_cg $V/deleg.scope/vm-9.scope sldtest asuser $USR sldcpu time 1 split 100 > /dev/null
is "$(($(ac tasks_exec_dropped) - xd))" 1 "at the cap, the record root's task took is dropped at its exec as uid $USR"
# Once at the exec, not again by the exec's own proactive ask; once more
# at its one split lock where the CPU traps it.
is "$(($(ac tasks_refused_cap) - rc))" $((1 + CPU_SLD)) \
	"counted as a refusal over tasks_per_uid at the exec, and at its split lock"
touch /tmp/vms.stop
wait
rmdir $V/deleg.scope/vm-9.scope

# ---- more cgroups that are not root's alone: bounded per uid too -----------
mkdir $V/deleg.scope/rootmade.scope
is "$(user_vm $QEMU $V/deleg.scope/rootmade.scope 2)" 2 \
	"a cgroup root made below a user's: uid $QEMU's VM gets 2 records (its cap)"
rmdir $V/deleg.scope/rootmade.scope $V/deleg.scope
mkdir $V/open.scope
chmod 0777 $V/open.scope
is "$(user_vm $QEMU $V/open.scope 2)" 2 "a root's cgroup anyone may write (0777): 2 records"
rmdir $V/open.scope
mkdir -p $CG/user.slice/sldfake.scope
is "$(knob_w exempt_cgroup /sldvm.slice,/user.slice/sldfake.scope)" OK "a rule naming a root's scope below /user.slice"
is "$(user_vm $QEMU $CG/user.slice/sldfake.scope 2)" 2 "below /user.slice (login sessions): 2 records"
is "$(knob_w exempt_cgroup /sldvm.slice)" OK "exempt_cgroup /sldvm.slice again"
rmdir $CG/user.slice/sldfake.scope
rmdir $CG/user.slice 2>/dev/null
mkdir $V/ctl.scope
is "$(user_vm $QEMU $V/ctl.scope 8)" 8 "the control: root's own scope, the same VM gets all 8"
# An exempt_comm rule anyone can satisfy matches the same tasks: the
# match only root can make still wins (else: 2, the uid's cap).
is "$(knob_w exempt_comm sldcpu)" OK "exempt_comm sldcpu beside the cgroup rule"
is "$(user_vm $QEMU $V/ctl.scope 8)" 8 "root's scope and a comm rule: still all 8 (the admin's match wins)"
is "$(knob_w exempt_comm -)" OK "exempt_comm cleared"
rmdir $V/ctl.scope

# ---- users' tasks fill their share: the admin's guests keep theirs ---------
is "$(knob_w exempt_comm sldpark)" OK "exempt_comm sldpark (a name anyone can take)"
ln -sf /tests/bin/sldhv /tmp/sldpark
mkfifo -m 644 /tmp/keep
r0=$(ac tasks_refused)
for u in 65531 65532 65533 65534 65530 65529 65528; do
	sldtest asuser $u sh -c '/tmp/sldpark cat /tmp/keep > /dev/null & /tmp/sldpark cat /tmp/keep > /dev/null & wait' &
done
wait_for 300 '[ $(($(ac tasks_live) + $(ac tasks_refused) - r0)) -ge 14 ]'
is "$(ac tasks_exempt) $(ac tasks_admin)" "12 0" "7 users' 14 exempt tasks: the exempt share (12) is full"
mark_dmesg
a0=$(ac tasks_admin) ra=$(ac tasks_refused_admin) p0=$(passed)
vms 6 $QEMU 8
wait_for 100 '[ "$(ac tasks_admin)" -ge $((a0 + 48)) ]'
is "$(ac tasks_admin)" $((a0 + 48)) "the admin's 6 VMs still get all 48 records beside them"
echo > /tmp/keep
vms_end
vms_show 6
is "$(vms_ok 6 8)" 0 "the 6 VMs ran all their tasks and locks"
is "$(passed)" "$p0" "none of their #ACs went to the kernel"
is "$(ac tasks_refused_admin)" "$ra" "no admin-rule task refused"
rm -f /tmp/keep /tmp/sldpark
is "$(knob_w exempt_comm -)" OK "exempt_comm cleared"
is "$(knob_w exempt_cgroup -)" OK "exempt_cgroup cleared"
wait_for 100 '[ "$(ac tasks_live)" = 0 ]'

# ---- exempt_path: a file only root may execute, and one anyone may ---------
cp "$(command -v sldcpu)" /tmp/vmroot
chmod 0700 /tmp/vmroot
is "$(knob_w exempt_path /tmp/vmroot)" OK "exempt_path /tmp/vmroot (root's, mode 0700)"
pp=$(ac tasks_protected_path) r0=$(ac tasks_refused)
p0=$(passed)
out=$(/tmp/vmroot vm 24 20 2000 300)
like "$out" "^threads=24 locks=20 slow=[0-9]+ counter=20\$" "a 24-task process of a root-only file ran"
is "$(passed)" "$p0" "relieved: none of its #ACs went to the kernel"
is "$(ac tasks_protected_path)" $((pp + 24)) "all 24 tasks protected"
is "$(ac tasks_refused)" "$r0" "none refused past max_tasks (16): admin records"
chmod 0755 /tmp/vmroot
is "$(knob_w exempt_path /tmp/vmroot)" OK "the same file, mode 0755 (anyone may run it), named again"
rf=$(ac tasks_refused_full) pp=$(ac tasks_protected_path)
out=$(/tmp/vmroot vm 24 20 2000 300)
like "$out" '^threads=24 ' "the 24-thread process again"
is "$(ac tasks_protected_path)" $((pp + 12)) "now bounded: 12 protected, the exempt share of max_tasks"
run "the other 12 refused ($(($(ac tasks_refused_full) - rf)) refusals)" [ $(($(ac tasks_refused_full) - rf)) -ge 12 ]
is "$(knob_w exempt_path -)" OK "exempt_path cleared"
rm -f /tmp/vmroot
for i in 1 2 3 4 5 6; do rmdir $V/vm-$i.scope; done
rmdir $V
is "$(knob_w exempt_proactive N)" OK "exempt_proactive N"
balanced "after the admin pool"
unload
