# Exemptions by comm, executable path and cgroup; proactive protection
# from exec; exec re-decides an exemption; only root changes them.
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh


ensure_loaded actest
echo 1 > /proc/sys/kernel/split_lock_mitigate
for k in exempt_path exempt_cgroup; do is "$(cat $P/$k)" - "$k empty by default"; done
is "$(cat $P/exempt_proactive)" N "exempt_proactive N by default"

# ---- by path -----------------------------------------------------------------
cp /tests/bin/sldtest /tmp/legacy
ln -sf /tmp/legacy /tmp/legacy-link
is "$(knob_w exempt_path /tmp/legacy-link)" OK "exempt_path: set through a symlink"
is "$(cat $P/exempt_path)" /tmp/legacy-link "exempt_path reads back as written"
is "$(ac key_held)" 1 "an exemption takes the preempt notifier key"
mark_dmesg
protected_user 20 "path: the binary (by inode) is exempt" /tmp/legacy ac user 20
like "$(new_dmesg)" 'split lock by exempt-path task legacy\[' "path: dmesg names the rule"
cp /tests/bin/sldtest /tmp/other
kguest 1 "path: a copy of it is not exempt" /tmp/other ac guest 1
knob_rejects exempt_path "tmp/legacy" "/tmp/../tmp/legacy" "/tmp/./legacy" "/tmp//legacy" \
	"/tmp/legacy/" "/nonexistent" "/tmp" "/tmp/legacy,/tmp/legacy" "-/tmp/absent" \
	"+/tmp/other,/tmp/legacy" "/tmp/le gacy" ","
is "$(sldtest asuser 65534 sldtest write $P/exempt_path /tmp/other)" EACCES "exempt_path: unprivileged write refused"
is "$(knob_w exempt_path -)" OK "exempt_path cleared"

# ---- by cgroup (v2) -------------------------------------------------------------------
mkdir -p /sys/fs/cgroup
mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null
mkdir -p /sys/fs/cgroup/sldvm/inner
is "$(knob_w exempt_cgroup /sldvm)" OK "exempt_cgroup: /sldvm"
mark_dmesg
protected_user 20 "cgroup: a task below /sldvm is exempt" \
	sh -c 'echo $$ > /sys/fs/cgroup/sldvm/inner/cgroup.procs && exec sldtest ac user 20'
like "$(new_dmesg)" 'split lock by exempt-cgroup task sldtest\[' "cgroup: dmesg names the rule"
kguest 1 "cgroup: a task outside is not" sldtest ac guest 1
knob_rejects exempt_cgroup "/" "sldvm" "/sldvm/../sldvm" "/sldvm,/sldvm" "/sld vm"
is "$(sldtest asuser 65534 sldtest write $P/exempt_cgroup -)" EACCES "exempt_cgroup: unprivileged write refused"
is "$(knob_w exempt_cgroup -)" OK "exempt_cgroup cleared"

# ---- proactive: protected from exec ------------------------------------------------
ln -sf /tests/bin/sldhv /tmp/sldgame
is "$(knob_w exempt_comm sldgame)" OK "exempt_comm sldgame"
like "$(/tmp/sldgame cat $S/tasks)" '^none$' "proactive N: not protected before a split lock"
is "$(knob_w exempt_proactive Y)" OK "exempt_proactive Y"
like "$(/tmp/sldgame cat $S/tasks)" '^[0-9]+ sldgame why=exempt-comm hv=- cpu=[01] running=1 ' \
	"proactive Y: protected from exec, running"
xd=$(ac tasks_exec_dropped)
like "$(/tmp/sldgame oncpu 0 /tests/bin/sldhv cat $S/tasks)" '^none$' \
	"exec into a program no rule matches drops the protection"
is "$(ac tasks_exec_dropped)" $((xd + 1)) "tasks_exec_dropped +1"
# The key outlives its rules while a record does, and goes with the last.
mkfifo /tmp/keep
/tmp/sldgame cat /tmp/keep > /dev/null &
# shellcheck disable=SC2016 # wait_for evaluates it at each try
wait_for 50 '[ "$(ac tasks_live)" = 1 ]'
is "$(ac tasks_live)" 1 "key: a protected sldgame waits on a fifo"
is "$(knob_w exempt_comm -)" OK "key: exempt_comm cleared while it lives"
is "$(ac key_held)" 1 "key: no rule left, a record alive: key kept"
echo > /tmp/keep
wait
# shellcheck disable=SC2016 # wait_for evaluates it at each try
wait_for 50 '[ "$(ac key_held)" = 0 ]'
is "$(ac tasks_live) $(ac key_held)" "0 0" "key: dropped when the last record went"
is "$(knob_w exempt_comm sldgame)" OK "exempt_comm sldgame again"
is "$(ac key_held)" 1 "key: taken again by the rule"
rm -f /tmp/keep
knob_rejects exempt_proactive "yes" "2" "-1" "\\n" " Y" "YY"
is "$(sldtest asuser 65534 sldtest write $P/exempt_proactive N)" EACCES "exempt_proactive: unprivileged write refused"
is "$(knob_w exempt_proactive N)" OK "exempt_proactive N"
is "$(knob_w exempt_comm -)" OK "exempt_comm cleared"
is "$(ac tasks_live)" 0 "no record left"
is "$(ac key_held)" 0 "no rule, no hypervisor, no record: key not held"
is "$(acct_sum hold)" 0 "no core held off"

# ---- a changed rule applies to running tasks ---------------------------------
# Each task below is protected from exec (proactive), then waits at a gate
# while its rule changes; its guest split lock after the gate shows what
# the new rules decided.
# ours: sld_compat handles it (handled=1, ac_guest_handled +1); kernel:
# the kernel's own path (kguest_out 1, ac_guest_handled unchanged).
gated() {	# gated RULE-CHANGE ours|kernel NAME PROGRAM
	rm -f /tmp/gate
	SLDTEST_GATE=/tmp/gate $4 ac guest 1 > /tmp/gated.out &
	_p=$!
	wait_for 50 "grep -q '^$_p .* why=exempt-' $S/tasks"
	like "$(grep "^$_p " $S/tasks)" " why=exempt-" "$3: protected from exec, at the gate"
	mark_dmesg
	is "$(eval "$1")" OK "$3: the rule changes"
	like "$(grep "^$_p " $S/tasks)" " why=released " "$3: its record says released"
	like "$(new_dmesg)" "changed: 1 task\\(s\\) it exempted decide again at their next split lock" \
		"$3: dmesg says so"
	_h=$(ac ac_guest_handled)
	touch /tmp/gate
	wait $_p
	if [ "$2" = ours ]; then _want="handled=1 sigbus=0" _h=$((_h + 1)); else
		_want=$(kguest_out 1); fi
	is "$(cut -d' ' -f1-2 /tmp/gated.out) $(ac ac_guest_handled)" "$_want $_h" \
		"$3: its split lock after the change: $2 ($_want)"
}
is "$(knob_w exempt_proactive Y)" OK "recheck: exempt_proactive Y"
ln -sf /tests/bin/sldtest /tmp/slgate
is "$(knob_w exempt_comm slgate)" OK "recheck: exempt_comm slgate"
gated 'knob_w exempt_comm -' kernel "comm rule removed" /tmp/slgate
is "$(knob_w exempt_comm slgate)" OK "recheck: exempt_comm slgate again"
gated 'knob_w exempt_comm +other' ours \
	"comm rule still matching" /tmp/slgate
is "$(knob_w exempt_comm -)" OK "recheck: exempt_comm cleared"
is "$(knob_w exempt_path /tmp/legacy)" OK "recheck: exempt_path /tmp/legacy"
gated 'knob_w exempt_path -' kernel "path rule removed" /tmp/legacy
is "$(knob_w exempt_proactive N)" OK "recheck: exempt_proactive N"
# shellcheck disable=SC2016 # wait_for evaluates it at each try
wait_for 50 '[ "$(ac tasks_live)" = 0 ]'
is "$(ac tasks_live)" 0 "recheck: no record left"

# ---- patterns: threads as their VMM names them after exec -------------------
is "$(knob_w exempt_comm 'CPU */KVM,EMT-*,a\\*b')" OK "exempt_comm: patterns"
is "$(cat $P/exempt_comm)" 'CPU */KVM,EMT-*,a\*b' "exempt_comm patterns read back as written"
oguest 3 "CPU */KVM: a task renamed CPU 3/KVM after exec is exempt" env SLDTEST_COMM='CPU 3/KVM' sldtest ac guest 3
oguest 3 "EMT-*: EMT-12 is exempt" env SLDTEST_COMM='EMT-12' sldtest ac guest 3
oguest 1 'a\*b: the literal name a*b' env SLDTEST_COMM='a*b' sldtest ac guest 1
kguest 1 "CPU */KVM: CPU 3/KVMX is not" env SLDTEST_COMM='CPU 3/KVMX' sldtest ac guest 1
kguest 1 "EMT-*: EMT is not" env SLDTEST_COMM='EMT' sldtest ac guest 1
kguest 1 'a\*b: axb is not' env SLDTEST_COMM='axb' sldtest ac guest 1
knob_rejects exempt_comm "1234567890123456" "*1234567890123456" " CPU" "CPU *," "a\\\\" \
	"a2345678901234567890123456789012"
is "$(knob_w exempt_comm -)" OK "exempt_comm cleared"

# ---- threads made after exec, as a VMM makes its vCPUs ------------------------
# kvm_intel cannot run a guest under TCG: each "vCPU" thread of sldtest
# vcpus enters the kernel's guest handler through fx_actest instead, after
# naming itself as QEMU's do. before= is its record before any split lock.
vc() { "$@" | tee -a /tmp/vcpus.out; }
is "$(knob_w exempt_proactive Y)" OK "vcpus: exempt_proactive Y"
pro=$(ac tasks_proactive)
byp=$(ac tasks_protected_path) byg=$(ac tasks_protected_cgroup) byc=$(ac tasks_protected_comm)
# gh_grew N DESCRIPTION: sld_compat handled N more guest #ACs since the
# last gh_mark (in warn mode the kernel's path also says "handled").
gh_mark() { gh0=$(ac ac_guest_handled); }
gh_grew() { is "$(ac ac_guest_handled)" $((gh0 + $1)) "$2"; }
is "$(knob_w exempt_path /tmp/legacy)" OK "vcpus: exempt_path /tmp/legacy"
gh_mark
is "$(vc /tmp/legacy vcpus 2 'CPU %d/KVM' | grep -c 'before=exempt-path handled=3 sigbus=0')" 2 \
	"path: both threads protected from their start, no SIGBUS"
gh_grew 6 "path: their 6 guest #ACs were sld_compat's"
is "$(knob_w exempt_path -)" OK "vcpus: exempt_path cleared"
is "$(knob_w exempt_cgroup /sldvm)" OK "vcpus: exempt_cgroup /sldvm"
gh_mark
out=$(sh -c 'echo $$ > /sys/fs/cgroup/sldvm/inner/cgroup.procs && exec sldtest vcpus 2 "CPU %d/KVM"')
gh_grew 6 "cgroup: their 6 guest #ACs were sld_compat's"
diag "$(echo "$out" | tr '\n' ';')"
is "$(echo "$out" | grep -c 'before=exempt-cgroup handled=3 sigbus=0')" 2 \
	"cgroup: both threads protected from their start, no SIGBUS"
is "$(knob_w exempt_cgroup -)" OK "vcpus: exempt_cgroup cleared"
is "$(knob_w exempt_comm 'CPU */KVM')" OK "vcpus: exempt_comm 'CPU */KVM'"
gh_mark
is "$(vc sldtest vcpus 2 'CPU %d/KVM' | grep -c 'before=exempt-comm handled=3 sigbus=0')" 2 \
	"pattern: both threads protected once they name themselves, no SIGBUS"
gh_grew 6 "pattern: their 6 guest #ACs were sld_compat's"
h=$(ac ac_guest_handled)
is "$(vc sldtest vcpus 1 - | grep -c "before=none $(kguest_out 3)")" 1 \
	"pattern: a thread that keeps its process's name is not exempt"
is "$(ac ac_guest_handled)" "$h" "pattern: none of its #ACs was sld_compat's"
# Six threads at start or rename, and the two processes the path and the
# cgroup rule protected at exec.
is "$(ac tasks_proactive)" $((pro + 8)) "tasks_proactive counts the six threads and two execs"
is "$(ac tasks_protected_path) $(ac tasks_protected_cgroup) $(ac tasks_protected_comm)" \
	"$((byp + 3)) $((byg + 3)) $((byc + 2))" \
	"counters per rule: by path and by cgroup each process (at exec) and its 2 threads, by pattern the 2 threads"
is "$(knob_w exempt_proactive N)" OK "vcpus: exempt_proactive N"
is "$(cat $S/hooks | grep -E '^task-(clone|start|rename) ' | grep -vc ' armed')" 3 \
	"exempt_proactive N: the clone, start and rename probes disarmed"
gh_mark
is "$(vc sldtest vcpus 1 'CPU %d/KVM' | grep -c 'before=none handled=3 sigbus=0')" 1 \
	"proactive N: the thread protected at its first split lock"
gh_grew 3 "proactive N: its 3 guest #ACs were sld_compat's"
is "$(knob_w exempt_comm -)" OK "vcpus: exempt_comm cleared"
diag "$(tr '\n' ';' < /tmp/vcpus.out)"

# ---- load-time (modprobe.d options) --------------------------------------------------
unload
run "insmod with exempt_path and exempt_proactive" load exempt_path=/tmp/legacy exempt_proactive=Y
is "$(cat $P/exempt_path) $(cat $P/exempt_proactive)" "/tmp/legacy Y" "load-time exemptions applied"
protected_user -b 3 "load-time path exemption effective (proactive)" /tmp/legacy ac user 3
unload
rm -f /tmp/legacy /tmp/legacy-link /tmp/other /tmp/sldgame
