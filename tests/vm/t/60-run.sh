# Relief for `sldctl run` scopes (run.c, issue #30): who the run_allow knob
# lets in and where the scope must be; a run's process, its forked child
# and a thread it starts later relieved from their start; nothing left
# once they exit; names users chose escaped in runs and dmesg. The
# busybox VM has no systemd: the tests make the cgroups systemd would
# make (user@UID.service is the user's, delegated) and put the tree there
# as root, which is what the user manager does.
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

ensure_loaded
echo 1 > /proc/sys/kernel/split_lock_mitigate
mkdir -p /sys/fs/cgroup
mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null
CG=/sys/fs/cgroup
app() { echo "$CG/user.slice/user-$1.slice/user@$1.service/app.slice"; }
mkdir -p "$(app 1000)/sld-run-t1.scope/inner" "$(app 1001)/sld-run-t2.scope" \
	"$CG/system.slice/sld-run-root.scope" "$CG/user.slice/sld-run-t3.scope" \
	"$CG/sld-run-t4.scope"

# tree OUT: "main|child|thread mean_us" of `sldrun tree` output OUT.
means() { echo "$1" | sed -n 's/^\([a-z]*\) done=10 sigbus=0 mean_us=\([0-9]*\)$/\1 \2/p' | sort; }
# relieved OUT: every line of the tree says under 1 ms per split lock
# (< 1000 us) on a CPU with SLD; all three done without SIGBUS anywhere.
relieved() {
	_m=$(means "$1")
	[ "$(echo "$_m" | wc -l)" = 3 ] || return 1
	[ $CPU_SLD = 1 ] || return 0
	echo "$_m" | awk '$2 >= 1000 { bad = 1 } END { exit bad }'
}
# relieved_after_trap OUT: as relieved, for tasks whose first split lock
# traps into sld_compat (a rule that is not proactive): that #AC costs
# time but no penalty, so the bound is half the kernel's 10 ms, not a
# timing (each penalised lock of ten would add 1000 us to the mean).
relieved_after_trap() {
	_m=$(means "$1")
	[ "$(echo "$_m" | wc -l)" = 3 ] || return 1
	[ $CPU_SLD = 1 ] || return 0
	echo "$_m" | awk '$2 >= 5000 { bad = 1 } END { exit bad }'
}
# penalised OUT: on a CPU with SLD every one pays the kernel's 10 ms.
penalised() {
	_m=$(means "$1")
	[ "$(echo "$_m" | wc -l)" = 3 ] || return 1
	[ $CPU_SLD = 1 ] || return 0
	echo "$_m" | awk '$2 < 5000 { bad = 1 } END { exit bad }'
}
check() {	# check relieved|penalised DESCRIPTION OUT
	if $1 "$3"; then ok "$2"; else nok "$2"; fi
	diag "  $(echo "$3" | tr '\n' ';')"
}

# ---- the knob --------------------------------------------------------------
is "$(cat $P/run_allow)" - "run_allow empty by default"
is "$(cat $S/runs)" none "runs: none"
knob_rejects run_allow "alice" "@" "@games" "01" "@01" "4294967295" "99999999999" \
	"1 000" "1000,alice" "+alice" ","
is "$(sldtest asuser 65534 sldtest write $P/run_allow 65534)" EACCES "run_allow: unprivileged write refused"
is "$(cat $P/run_allow)" - "run_allow unchanged by refused writes"
is "$(ac key_held)" 0 "run_allow empty: key not held"

# ---- not allowed while empty -----------------------------------------------
out=$(in_cg "$(app 1000)/sld-run-t1.scope" sldrun as 1000 1000 - sldrun tree 10 200)
check penalised "run_allow empty: a task in a run scope pays the kernel's penalty" "$out"
is "$(ac key_held) $(grep -c '^task-clone .* idle$' $S/hooks)" "0 1" \
	"run_allow empty: a user's run scope arms nothing (no key, task-clone idle)"

is "$(knob_w run_allow 1000,@2000)" OK "run_allow 1000,@2000"
is "$(cat $P/run_allow)" "1000,@2000" "run_allow reads back as written"
is "$(ac key_held)" 1 "run_allow set: key held"
is "$(cat $S/hooks | grep -E '^task-(clone|rename) ' | grep -c ' armed')" 2 \
	"run_allow set: clone and rename probes armed, exempt_proactive N"
like "$(grep '^task-start ' $S/hooks)" ' idle$' \
	"run_allow set: the start probe stays idle beside the clone probe"

# ---- an allowed user's run: process, forked child, later thread ---------------
byr=$(ac tasks_protected_run) pro=$(ac tasks_proactive) pass=$(ac ac_user_passed)
mark_dmesg
in_cg "$(app 1000)/sld-run-t1.scope" sldrun as 1000 1000 - sldrun tree 10 1500 > /tmp/run.out &
runpid=$!
# shellcheck disable=SC2016 # wait_for evaluates it at each try
wait_for 50 'grep -q "^1000 sldrun scope=sld-run-t1.scope " $S/runs'
like "$(cat $S/runs)" '^1000 sldrun scope=sld-run-t1\.scope since=[0-9]+ tasks=[12] ac=0$' \
	"runs: user, command, scope, since, tasks, traps"
like "$(grep ' why=run ' $S/tasks | head -1)" '^[0-9]+ sldrun why=run hv=- ' "tasks: why=run"
like "$(sldctl status 2>&1)" '^sldctl runs \(uid, command, scope, .*\): 1000 sldrun scope=sld-run-t1\.scope ' \
	"sldctl status: the run, while it lives"
wait $runpid
out=$(cat /tmp/run.out)
check relieved "allowed uid: main, forked child and a thread started 1.5 s later under 1 ms per split lock" "$out"
is "$(ac tasks_protected_run)" $((byr + 3)) "tasks_protected_run +3: process at exec, child and thread at clone"
is "$(ac tasks_proactive)" $((pro + 3)) "all three ahead of any split lock"
is "$(ac ac_user_passed)" "$pass" "none of their split locks reached the kernel's penalty"
like "$(new_dmesg)" 'protecting sldrun\[[0-9]+\]: sldctl run sld-run-t1\.scope' "dmesg names the run's scope"
# shellcheck disable=SC2016 # wait_for evaluates it at each try
wait_for 50 '[ "$(ac tasks_live)" = 0 ]'
is "$(cat $S/runs) $(ac tasks_live)" "none 0" "after exit: no run, no record"

out=$(in_cg "$(app 1000)/sld-run-t1.scope/inner" sldrun as 1000 1000 - sldrun tree 10 200)
check relieved "a cgroup below the scope (the game's own) is the run's" "$out"
out=$(sldrun tree 10 200)
check penalised "the same program outside any run pays the kernel's penalty" "$out"

# ---- who and where -------------------------------------------------------------
byr=$(ac tasks_protected_run)
out=$(in_cg "$(app 1001)/sld-run-t2.scope" sldrun as 1001 1001 - sldrun tree 10 200)
check penalised "uid 1001, not listed, in its own run scope: penalised" "$out"
out=$(in_cg "$(app 1001)/sld-run-t2.scope" sldrun as 1000 1000 - sldrun tree 10 200)
check penalised "uid 1000 in uid 1001's scope: penalised (the path's uid must be the task's)" "$out"
out=$(in_cg "$CG/user.slice/sld-run-t3.scope" sldrun as 1000 1000 - sldrun tree 10 200)
check penalised "a run scope outside user@UID.service: penalised" "$out"
out=$(in_cg "$CG/sld-run-t4.scope" sldrun as 1000 1000 - sldrun tree 10 200)
check penalised "a run scope at the root: penalised" "$out"
out=$(in_cg "$(app 1000)" sldrun as 1000 1000 - sldrun tree 10 200)
check penalised "uid 1000 outside a run scope: penalised" "$out"
is "$(ac tasks_protected_run)" "$byr" "none of these protected"
out=$(in_cg "$(app 1001)/sld-run-t2.scope" sldrun as 1001 1001 2000 sldrun tree 10 200)
check relieved "uid 1001 with supplementary group 2000 (@2000): relieved" "$out"
out=$(in_cg "$(app 1001)/sld-run-t2.scope" sldrun as 1001 2000 - sldrun tree 10 200)
check relieved "uid 1001 with real gid 2000: relieved" "$out"
cp /tests/bin/sldrun /tmp/sgid-sldrun
chown 0:2000 /tmp/sgid-sldrun
chmod 2755 /tmp/sgid-sldrun
out=$(in_cg "$(app 1001)/sld-run-t2.scope" sldrun as 1001 1001 - /tmp/sgid-sldrun tree 10 200)
check penalised "uid 1001 running a setgid-2000 program (egid 2000 only): penalised" "$out"
out=$(in_cg "$CG/system.slice/sld-run-root.scope" sldrun tree 10 200)
check relieved "root in the system manager's run scope: relieved" "$out"
out=$(in_cg "$(app 1000)/sld-run-t1.scope" sldrun tree 10 200)
check penalised "root in uid 1000's scope: penalised (not its user@ path)" "$out"

# ---- names a user chose: one line in runs, every odd byte as \xNN ------------
# A scope (any user names their own) whose ESC, quote and spaces would
# colour a terminal and forge the line's fields, and a program name with
# a newline that would forge a line: runs and dmesg show them escaped
# (src/schema/escape.h). The kernel refuses a newline in a cgroup name.
esc=$(printf '\033')
odd_scope="$CG/system.slice/sld-run-x${esc}[31m\"q since=1 tasks=99 ac=7.scope"
odd_prog=$(printf '/tmp/r\nx\033"q')
is "$(mkdir "$CG/system.slice/$(printf 'sld-run-n\nl.scope')" 2> /dev/null && echo made || echo refused)" refused \
	"the kernel refuses a newline in a cgroup name"
mkdir "$odd_scope"
cp /tests/bin/sldrun "$odd_prog"
byr=$(ac tasks_protected_run) pass=$(ac ac_user_passed)
mark_dmesg
in_cg "$odd_scope" "$odd_prog" tree 10 1500 > /tmp/run.out &
runpid=$!
# shellcheck disable=SC2016 # wait_for evaluates it at each try
wait_for 50 'grep -q "^0 r" $S/runs'
runs=$(cat $S/runs)
like "$runs" '^0 r\\x0ax\\x1b"q scope=sld-run-x\\x1b\[31m"q\\x20since=1\\x20tasks=99\\x20ac=7\.scope since=[0-9]+ tasks=[123] ac=0$' \
	"runs: the program's newline and ESC, the scope's ESC and spaces as \\xNN, quotes as they are"
is "$(echo "$runs" | wc -l) $(echo "$runs" | grep -c "$esc")" "1 0" "runs: one line, no raw ESC"
is "$(sldctl status 2>&1 | grep -c "$esc")" 0 "sldctl status: no raw ESC"
like "$(sldctl status 2>&1)" 'sldctl runs \(uid, command, scope, .*\): 0 r\\x0ax\\x1b"q scope=sld-run-x\\x1b\[31m"q\\x20since=1' \
	"sldctl status: the run shown as the module escaped it"
like "$(sldctl status --json 2>&1)" '"runs": "0 r\\\\x0ax\\\\x1b\\"q scope=sld-run-x\\\\x1b\[31m\\"q\\\\x20since=1' \
	"sldctl status --json: the same line, a JSON string"
like "$(sldctl status --format prometheus 2>&1)" '^sld_compat_runs 1$' "prometheus: one run"
wait $runpid
# The counters, not the times: the sldctl calls above ran beside it.
is "$(ac tasks_protected_run) $(ac ac_user_passed)" "$((byr + 3)) $pass" \
	"the oddly named program in the oddly named scope: its three tasks relieved, no lock penalised"
like "$(new_dmesg)" 'protecting r\\x0ax\\x1b"q\[[0-9]+\]: sldctl run sld-run-x\\x1b\[31m"q since=1 tasks=99 ac=7\.scope$' \
	"dmesg: the program and the scope escaped"
is "$(new_dmesg | grep -c "$esc")" 0 "dmesg: no raw ESC"
rmdir "$odd_scope"
rm -f "$odd_prog"

# ---- sldctl run here: the module's list decides who; no systemd, no scope ------
mkdir -p /tmp/runu
chmod 777 /tmp/runu
sldctl_run() {	# sldctl_run UID ARGS...: "rc=N started=yes|no" and the message
	rm -f /tmp/runu/started
	_u=$1
	shift
	sldtest asuser "$_u" sh -c 'sldctl run "$@"; echo "rc=$?"' - "$@" 2> /tmp/runu/err |
		tr '\n' ' '
	[ -e /tmp/runu/started ] && echo started=yes || echo started=no
}
is "$(sldctl_run 1001 touch /tmp/runu/started)" "rc=2 started=no" "sldctl run as uid 1001 (not listed): exit 2, nothing started"
like "$(cat /tmp/runu/err)" "uid 1001 is not allowed relief \(run_allow = 1000,@2000;" "sldctl run: the refusal names uid and list"
is "$(sldctl_run 1001 --anyway touch /tmp/runu/started)" "rc=2 started=no" "not listed, --anyway: still refused"
is "$(sldctl_run 1000 touch /tmp/runu/started)" "rc=2 started=no" "uid 1000 (listed), no systemd-run: exit 2, nothing started"
like "$(cat /tmp/runu/err)" "no systemd-run on PATH" "sldctl run: says why relief cannot be set up"
is "$(sldctl_run 1000 --anyway touch /tmp/runu/started)" "rc=0 started=yes" "uid 1000, --anyway: started without relief"
like "$(cat /tmp/runu/err)" "warning: .* without relief \(--anyway\)" "--anyway: warned"
is "$(sldctl_run 1000 /nonexistent)" "rc=2 started=no" "sldctl run: a command that does not exist: exit 2"
is "$(cat $S/runs) $(ac tasks_live)" "none 0" "sldctl run refusals relieved nothing"

# ---- a changed list releases a running run ---------------------------------------
in_cg "$(app 1000)/sld-run-t1.scope" sldrun as 1000 1000 - sldrun tree 10 3000 > /dev/null &
runpid=$!
# shellcheck disable=SC2016 # wait_for evaluates it at each try
wait_for 50 'grep -q " why=run " $S/tasks'
mark_dmesg
is "$(knob_w run_allow -)" OK "run_allow cleared while a run lives"
like "$(new_dmesg)" 'run_allow changed: [0-9]+ task\(s\) it exempted decide again' "dmesg: its tasks decide again"
is "$(grep -c ' why=run ' $S/tasks)" 0 "no task relieved as a run any more"
wait $runpid
# shellcheck disable=SC2016 # wait_for evaluates it at each try
wait_for 50 '[ "$(ac key_held)" = 0 ]'
is "$(ac tasks_live) $(ac key_held)" "0 0" "run_allow empty, the run gone: no record, key not held"
is "$(cat $S/hooks | grep -E '^task-(clone|start|rename) ' | grep -vc ' armed')" 3 \
	"run_allow empty: clone, start and rename probes disarmed"

# ---- root may always: run_allow empty ---------------------------------------------
# Root's runs need no entry (run.c). Nothing is armed for runs until root's
# first task in its run scope: its exec queues the arming, and `sldctl run`
# waits for it in the scope before it execs CMD. The whole way here: a
# stand-in systemd-run does what the system manager does for a scope
# (makes it below system.slice, moves the caller in, execs the command).
mkdir -p /tmp/sdbin
cat > /tmp/sdbin/systemd-run <<'STANDIN'
#!/bin/sh
unit=
while [ "$1" != -- ]; do
	case $1 in --unit=*) unit=${1#--unit=} ;; esac
	shift
done
shift
mkdir "/sys/fs/cgroup/system.slice/$unit.scope" &&
	echo $$ > "/sys/fs/cgroup/system.slice/$unit.scope/cgroup.procs" &&
	exec "$@"
STANDIN
chmod 755 /tmp/sdbin/systemd-run
is "$(cat $P/run_allow) $(ac key_held) $(grep -c '^task-clone .* idle$' $S/hooks)" "- 0 1" \
	"run_allow empty: nothing armed for runs"
byr=$(ac tasks_protected_run) pro=$(ac tasks_proactive) pass=$(ac ac_user_passed)
mark_dmesg
out=$(PATH=/tmp/sdbin:$PATH sldctl run sldrun tree 10 1500 2> /tmp/runu/err; echo "rc=$?")
like "$out" 'rc=0$' "sldctl run as root, run_allow empty: not refused, CMD's exit status"
is "$(cat /tmp/runu/err)" "" "sldctl run as root: no refusal, no warning"
check relieved "root's sldctl run, run_allow empty: main, forked child and a thread started 1.5 s later relieved" "$out"
is "$(ac tasks_protected_run)" $((byr + 3)) "tasks_protected_run +3: CMD at exec, child and thread at clone"
is "$(ac tasks_proactive)" $((pro + 3)) "all three ahead of any split lock (sldctl waited for the arming)"
is "$(ac ac_user_passed)" "$pass" "none of their split locks reached the kernel's penalty"
like "$(new_dmesg)" "root's first sldctl run: runs armed until unload" "dmesg: root's first run armed runs"
like "$(new_dmesg)" 'protecting sldrun\[[0-9]+\]: sldctl run sld-run-sldrun-[0-9]+\.scope' "dmesg names root's scope"
is "$(ac key_held) $(grep -E '^task-(clone|rename) ' $S/hooks | grep -c ' armed$')" "1 2" \
	"runs stay armed after root's run (key, clone and rename probes)"
out=$(in_cg "$CG/system.slice/sld-run-root.scope" sldrun tree 10 200)
check relieved "root in /system.slice/sld-run-root.scope, run_allow empty: relieved" "$out"
out=$(in_cg "$(app 1000)/sld-run-t1.scope" sldrun as 1000 1000 - sldrun tree 10 200)
check penalised "armed by root, run_allow empty: uid 1000 in its own run scope still penalised" "$out"
out=$(in_cg "$CG/system.slice/sld-run-root.scope" sldrun as 1000 1000 - sldrun tree 10 200)
check penalised "uid 1000 placed in root's run scope: penalised (root's runs are root's tasks)" "$out"
out=$(sldrun tree 10 200)
check penalised "root outside any run scope: penalised" "$out"
is "$(sldctl_run 1000 touch /tmp/runu/started)" "rc=2 started=no" "sldctl run as uid 1000, run_allow empty: exit 2, nothing started"
like "$(cat /tmp/runu/err)" "uid 1000 is not allowed relief \(run_allow = -;" "sldctl run: uid 1000 refused by the empty list"
# Armed until unload: a new load starts with nothing armed.
# shellcheck disable=SC2016 # wait_for evaluates it at each try
wait_for 50 '[ "$(ac tasks_live)" = 0 ]'
unload
ensure_loaded
is "$(ac key_held) $(grep -c '^task-clone .* idle$' $S/hooks)" "0 1" "reloaded: nothing armed for runs"
# Another rule matching root's run first (not proactive) still lets it
# arm runs: sldctl's exec in the scope is exempt by that rule.
is "$(knob_w exempt_cgroup /system.slice)" OK "exempt_cgroup /system.slice, exempt_proactive N"
mark_dmesg
out=$(PATH=/tmp/sdbin:$PATH sldctl run sldrun tree 10 200 2> /tmp/runu/err; echo "rc=$?")
like "$out" 'rc=0$' "root's sldctl run under an exempt_cgroup rule that matches first: runs armed, CMD run"
is "$(cat /tmp/runu/err)" "" "... no refusal, no warning"
check relieved_after_trap "... its split locks relieved (each task's first one trapped, no penalty)" "$out"
is "$(new_dmesg | grep -c 'sldrun/[0-9]* took a split_lock trap')" 0 "... no kernel trap line for them"
is "$(knob_w exempt_cgroup -)" OK "exempt_cgroup cleared"

# ---- a reader of runs beside a record being made ---------------------------
# Anyone may read runs (0444). A new record must be whole once it counts
# as used: its task pointer was set only after tk_pool_get() dropped the
# pool's lock, and sld_task_list() took a reference on it under that lock
# (NULL: an oops with the raw lock held, irqs off). In a fresh pool the
# first record queues the pool's growth (queue_work_on) inside that
# window; slowstart.ko stalls it for the run's task while a reader on
# the other CPU reads runs.
# shellcheck disable=SC2016 # wait_for evaluates it at each try
wait_for 50 '[ "$(ac tasks_live)" = 0 ]'
unload
ensure_loaded
is "$(knob_w run_allow 1000)" OK "run_allow 1000 (a fresh pool)"
run "insmod slowstart (queue_work_on() stalls 100 ms for sldrun*)" \
	insmod /mod/slowstart.ko func=queue_work_on comm=sldrun ms=100
rm -f /tmp/rd.stop /tmp/rd.out
byr=$(ac tasks_protected_run) pass=$(ac ac_user_passed)
# shellcheck disable=SC2016 # the reader's own shell expands them
sh -c 'taskset -p 2 $$ > /dev/null; n=0 seen=0
	until [ -e /tmp/rd.stop ]; do
		grep -q "^1000 sldrun " /sys/kernel/sld_compat/runs && seen=$((seen + 1))
		n=$((n + 1))
	done
	echo "reads=$n seen=$seen" > /tmp/rd.out' &
rdpid=$!
taskset -p 1 $$ > /dev/null
out=$(in_cg "$(app 1000)/sld-run-t1.scope" sldrun as 1000 1000 - sldrun tree 10 200)
taskset -p 3 $$ > /dev/null
touch /tmp/rd.stop
wait $rdpid
diag "reader: $(cat /tmp/rd.out); stalls $(cat /sys/module/slowstart/parameters/delayed)"
run "the run's first record stalled in the window (queue_work_on)" \
	[ "$(cat /sys/module/slowstart/parameters/delayed)" -ge 1 ]
like "$(cat /tmp/rd.out)" '^reads=[1-9][0-9]* seen=[1-9]' "runs read beside it, the run listed, the kernel alive"
# The counters, not the times: the stalls fall inside the tasks' locks.
is "$(ac tasks_protected_run) $(ac ac_user_passed)" "$((byr + 3)) $pass" \
	"... and the run's three tasks relieved, no lock penalised"
diag "  $(echo "$out" | tr '\n' ';')"
rmmod slowstart
rm -f /tmp/rd.stop /tmp/rd.out
is "$(knob_w run_allow -)" OK "run_allow cleared"
rmdir "$CG"/system.slice/sld-run-sldrun-*.scope
rm -rf /tmp/run.out /tmp/sgid-sldrun /tmp/runu /tmp/sdbin
