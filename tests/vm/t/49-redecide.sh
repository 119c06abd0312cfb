# A knob change re-decides the modules already loaded (issue #17):
# on_hypervisor, safe_modules, hypervisor_modules and enabled move each
# live record between policies, watch and unwatch it, take and give back
# its disable hold, release the tasks protected on its behalf, and flag
# what cannot be refused any more. Each transition checks the verdict,
# the watch, the holds and what a guest split lock gets, before and after.
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

M=/proc/sld_compat_modules
rec() { grep "^$1 " $M; }
# state MOD: verdict, reason, the record's policy flags, listed in
# hypervisors (watched by hvwatch) or not, and the disable count.
state() {
	_r=$(rec "$1")
	_f=",$(echo "$_r" | sed 's/.* flags=//'),"
	_s="$(echo "$_r" | cut -d' ' -f2,3)"
	for _x in watched sld-disabled refuse-too-late; do
		case $_f in *",$_x,"*) _s="$_s $_x=1" ;; *) _s="$_s $_x=0" ;; esac
	done
	echo "$_s listed=$(hv "$1" | grep -c .) disable_count $(cat $S/disable_count)"
}
# gac: one RUN of fx_hv with one simulated guest split lock, and whose
# it was (sld_compat's ac_guest_handled grew or not). The kernel's own
# guest path sends SIGBUS with its mode off (stock TCG); in warn mode (a
# CPU with SLD) it warns, penalises and says handled (lib.sh kguest_out).
gac() {
	_h=$(ac ac_guest_handled)
	_o=$(sldhv run fx_hv 1000 0 1 1 | sed 's/ cpu=[0-9]*//; s/ us=.*//')
	if [ "$(ac ac_guest_handled)" -gt "$_h" ]; then echo "$_o by=sld_compat"; else
		echo "$_o by=kernel"; fi
}
HANDLED="rc=0 handled=1 sigbus=0 by=sld_compat"
if [ $KMODE = warn ]; then KERNEL="rc=0 $(kguest_out 1) by=kernel"; else
	KERNEL="rc=EINTR $(kguest_out 1) by=kernel"; fi
# then_kernel DESCRIPTION: /tmp/ac.out, a RUN of 60 guest split locks
# begun at ac_guest_passed $p0 and ac_guest_handled $g0, its task
# released during it: handled while protected, then the kernel's path,
# which ends the RUN with SIGBUS (mode off) or handles the rest itself
# (warn: sld_compat's and the kernel's shares make the 60).
then_kernel() {
	if [ $KMODE = warn ]; then
		_ours=$(($(ac ac_guest_handled) - g0)) _kern=$(($(ac ac_guest_passed) - p0))
		like "$(cat /tmp/ac.out) ours=$_ours kernel=$_kern total=$((_ours + _kern))" \
			'^rc=0 handled=60 cpu=1 sigbus=0 .* ours=[1-9][0-9]* kernel=[1-9][0-9]* total=60$' "$1"
	else
		like "$(cat /tmp/ac.out)" '^rc=EINTR handled=[1-9][0-9]* cpu=1 sigbus=1 ' "$1"
	fi
}
# cpu1 as cpu0 sees it: "hold=H task=T".
cpu1() { sldhv oncpu 0 sldhv cat $ACCT | sed -n 's/^cpu1 .* \(hold=[0-9]* task=[0-9]*\) .*/\1/p'; }
# long_run: a vCPU thread on cpu1 inside one 3 s RUN, in the background.
long_run() {
	sldhv oncpu 1 sldhv run fx_hv 3000000 0 1 > /tmp/long.out &
	# shellcheck disable=SC2016 # wait_for evaluates it at each try
	wait_for 50 '[ "$(cpu1)" = "hold=1 task=1" ]'
}
HV="hypervisor vmx-text"

ensure_unloaded
run "load sld_compat" load

# ---- log -> protect --------------------------------------------------------------
is "$(knob_w on_hypervisor log)" OK "on_hypervisor=log"
run "log: insmod fx_hv" insmod /mod/fx_hv.ko
is "$(state fx_hv)" "$HV watched=0 sld-disabled=0 refuse-too-late=0 listed=0 disable_count 0" \
	"log: fx_hv recorded, not watched, no hold"
is "$(gac)" "$KERNEL" "log: a guest split lock gets the kernel's path"
is "$(ac key_held)" 0 "log: nothing to protect, no notifier key"
mark_dmesg
is "$(knob_w on_hypervisor protect)" OK "log -> protect"
is "$(state fx_hv)" "$HV watched=1 sld-disabled=0 refuse-too-late=0 listed=1 disable_count 0" \
	"log -> protect: fx_hv watched now, no hold"
like "$(hv fx_hv)" '^fx_hv state=learning ' "log -> protect: hypervisors lists it, learning its entry"
like "$(new_dmesg)" 'sld_compat: on_hypervisor: fx_hv: hypervisor \(vmx-text\), policy protect: watched$' \
	"log -> protect: dmesg names the module and the change"
like "$(new_dmesg)" 'sld_compat: on_hypervisor: 1 of [0-9]+ loaded module\(s\) changed$' \
	"log -> protect: dmesg sums it up"
is "$(ac key_held)" 1 "log -> protect: notifier key taken"
is "$(gac)" "$HANDLED" "log -> protect: its next guest split lock is handled by sld_compat"
sleep 0.2
like "$(hv fx_hv)" '^fx_hv state=hooked via=learned ' "log -> protect: entry learned and hooked"
mark_dmesg
is "$(knob_w on_hypervisor protect)" OK "protect again"
is "$(new_dmesg | grep -c 'fx_hv')" 0 "same value: nothing re-decided, nothing said"

# ---- protect -> log, with a protected task on a CPU -----------------------------
long_run
# Each sample is taken while the RUN is on cpu1: on PREEMPT_RT a per-CPU
# kernel thread can preempt it for a moment, and its hold rightly goes
# with it (a sample then would see hold=0 running=0).
# shellcheck disable=SC2016 # wait_for evaluates it at each try
wait_for 10 '_c=$(cpu1); [ "$_c" = "hold=1 task=1" ]'
is "$_c" "hold=1 task=1" "protect: the RUN holds cpu1's core off"
# shellcheck disable=SC2016 # wait_for evaluates it at each try
wait_for 10 '_t=$(sldhv oncpu 0 sldhv cat $S/tasks); echo "$_t" | grep -q " running=1 "'
like "$_t" ' sldhv why=hypervisor hv=fx_hv cpu=1 running=1 ' "protect: tasks lists it"
mark_dmesg
is "$(knob_w on_hypervisor log)" OK "protect -> log while it runs"
is "$(cpu1)" "hold=0 task=0" "protect -> log: its hold given back at once, while it still runs"
like "$(cat $S/tasks)" ' sldhv why=released hv=fx_hv cpu=1 running=0 ' "protect -> log: its record says released"
is "$(state fx_hv)" "$HV watched=0 sld-disabled=0 refuse-too-late=0 listed=0 disable_count 0" \
	"protect -> log: fx_hv no longer watched"
like "$(new_dmesg)" 'sld_compat: fx_hv: no longer watched: 1 protected task\(s\) released' \
	"protect -> log: dmesg says one task released"
like "$(new_dmesg)" 'sld_compat: on_hypervisor: fx_hv: hypervisor \(vmx-text\), policy log: no longer watched$' \
	"protect -> log: dmesg names the change"
wait
like "$(cat /tmp/long.out)" '^rc=0 ' "protect -> log: the task finished its run unharmed"
is "$(ac tasks_live)" 0 "protect -> log: the released record went at exit"
# The same in one task: guest split locks handled, then the kernel's path.
is "$(knob_w on_hypervisor protect)" OK "on_hypervisor=protect"
p0=$(ac ac_guest_passed) g0=$(ac ac_guest_handled)
sldhv oncpu 1 sldhv run fx_hv 100000 0 60 1 > /tmp/ac.out &
# shellcheck disable=SC2016 # wait_for evaluates it at each try
wait_for 100 'grep -q "why=hypervisor hv=fx_hv .* ac_guest=[1-9]" $S/tasks'
is "$(knob_w on_hypervisor log)" OK "protect -> log during guest split locks"
wait
then_kernel "protect -> log: handled while protected, then the kernel's path"
is "$(gac)" "$KERNEL" "log: a new RUN's guest split lock gets the kernel's path"
balanced "after protect -> log"

# ---- a task released from a hypervisor, then exempt ------------------------------
# Its record must forget the hypervisor: that slot can be another module's
# by now, and an owner left there would keep it from becoming a watched
# hypervisor's task again (no pin, so sld_compat could unload under it).
ensure_loaded actest
is "$(knob_w on_hypervisor protect)" OK "released, then exempt: on_hypervisor=protect"
rm -f /tmp/g1 /tmp/g2
sldhv acgate fx_hv /tmp/g1 /tmp/g2 > /tmp/acgate.out &
wait_for 10 'grep -q "^ran" /tmp/acgate.out'
like "$(cat $S/tasks)" ' sldhv why=hypervisor hv=fx_hv ' "released, then exempt: fx_hv's task"
is "$(knob_w on_hypervisor log)" OK "released, then exempt: on_hypervisor=log"
like "$(cat $S/tasks)" ' sldhv why=released hv=fx_hv ' "released, then exempt: released"
is "$(knob_w exempt_comm sldhv)" OK "released, then exempt: exempt_comm sldhv"
touch /tmp/g1
wait_for 10 'grep -q "^ac=" /tmp/acgate.out'
is "$(tail -n 1 /tmp/acgate.out)" "ac=1 sigbus=0" "released, then exempt: its split lock handled"
like "$(cat $S/tasks)" ' sldhv why=exempt-comm hv=- ' \
	"released, then exempt: exempt by comm, no hypervisor owner left"
touch /tmp/g2
wait
is "$(knob_w exempt_comm -)" OK "released, then exempt: exempt_comm cleared"
is "$(ac tasks_live)" 0 "released, then exempt: the record went at exit"

# ---- protect -> disable -> protect -----------------------------------------------
is "$(knob_w on_hypervisor protect)" OK "on_hypervisor=protect"
is "$(gac)" "$HANDLED" "protect: guest split lock handled"
long_run
mark_dmesg
is "$(knob_w on_hypervisor disable)" OK "protect -> disable while a task runs"
is "$(state fx_hv)" "$HV watched=0 sld-disabled=1 refuse-too-late=0 listed=0 disable_count 1" \
	"protect -> disable: not watched, holds a disable"
is "$(acf cpu0 hold) $(acf cpu1 hold)" "1 1" "protect -> disable: every core held off"
is "$(acf cpu1 task)" 0 "protect -> disable: the task's own hold given back"
like "$(cat $S/tasks)" ' why=released hv=fx_hv ' "protect -> disable: its record says released"
like "$(new_dmesg)" 'fx_hv: hypervisor \(vmx-text\), policy disable: no longer watched, SLD disable hold taken$' \
	"protect -> disable: dmesg names both changes"
wait
like "$(cat /tmp/long.out)" '^rc=0 ' "protect -> disable: the task finished its run"
# With SLD held off no split lock traps on real hardware; here fx_hv calls
# the guest handler anyway, and the kernel's path (not sld_compat) answers.
is "$(gac)" "$KERNEL" "disable: a guest split lock reaches the kernel's path"
mark_dmesg
is "$(knob_w on_hypervisor protect)" OK "disable -> protect"
is "$(state fx_hv)" "$HV watched=1 sld-disabled=0 refuse-too-late=0 listed=1 disable_count 0" \
	"disable -> protect: watched, disable hold given back"
is "$(acct_sum hold)" 0 "disable -> protect: no core held off"
like "$(new_dmesg)" 'fx_hv: hypervisor \(vmx-text\), policy protect: watched, SLD disable hold released$' \
	"disable -> protect: dmesg names both changes"
is "$(gac)" "$HANDLED" "disable -> protect: guest split lock handled again"
balanced "after disable -> protect"

# ---- hypervisor -> safe -> hypervisor by the admin ---------------------------------
p0=$(ac ac_guest_passed) g0=$(ac ac_guest_handled)
sldhv oncpu 1 sldhv run fx_hv 100000 0 60 1 > /tmp/ac.out &
# shellcheck disable=SC2016 # wait_for evaluates it at each try
wait_for 100 'grep -q "why=hypervisor hv=fx_hv .* ac_guest=[1-9]" $S/tasks'
mark_dmesg
is "$(knob_w safe_modules +fx_hv)" OK "safe_modules +fx_hv during guest split locks"
is "$(state fx_hv)" "sld_safe admin-safe watched=0 sld-disabled=0 refuse-too-late=0 listed=0 disable_count 0" \
	"hypervisor -> safe: verdict admin-safe, no longer watched"
like "$(new_dmesg)" 'sld_compat: safe_modules: fx_hv: hypervisor \(vmx-text\) -> sld_safe \(admin-safe\), policy protect: no longer watched$' \
	"hypervisor -> safe: dmesg names old and new verdict"
wait
then_kernel "hypervisor -> safe: handled while protected, then the kernel's path"
is "$(gac)" "$KERNEL" "safe: a guest split lock is the kernel's to handle"
mark_dmesg
is "$(knob_w safe_modules -fx_hv)" OK "safe_modules -fx_hv"
is "$(state fx_hv)" "$HV watched=1 sld-disabled=0 refuse-too-late=0 listed=1 disable_count 0" \
	"safe -> hypervisor: its VMX text decides again, watched"
like "$(new_dmesg)" 'safe_modules: fx_hv: sld_safe \(admin-safe\) -> hypervisor \(vmx-text\), policy protect: watched$' \
	"safe -> hypervisor: dmesg names old and new verdict"
is "$(gac)" "$HANDLED" "safe -> hypervisor: guest split lock handled"
run "insmod fx_safe" insmod /mod/fx_safe.ko
is "$(state fx_safe)" "sld_safe modinfo-sld-safe watched=0 sld-disabled=0 refuse-too-late=0 listed=0 disable_count 0" \
	"fx_safe loads split-lock safe (its modinfo)"
is "$(knob_w hypervisor_modules +fx_safe)" OK "hypervisor_modules +fx_safe"
is "$(state fx_safe)" "hypervisor admin-hypervisor watched=1 sld-disabled=0 refuse-too-late=0 listed=1 disable_count 0" \
	"safe -> hypervisor by the admin: watched"
is "$(knob_w on_hypervisor disable)" OK "on_hypervisor=disable"
is "disable_count $(cat $S/disable_count)" "disable_count 2" "disable: fx_hv and fx_safe hold it"
is "$(knob_w hypervisor_modules -fx_safe)" OK "hypervisor_modules -fx_safe"
is "$(state fx_safe)" "sld_safe modinfo-sld-safe watched=0 sld-disabled=0 refuse-too-late=0 listed=0 disable_count 1" \
	"hypervisor -> safe: fx_safe's disable hold given back"
is "$(knob_w on_hypervisor protect)" OK "on_hypervisor=protect"
run "rmmod fx_safe" rmmod fx_safe

# ---- refuse: a loaded module cannot be refused ----------------------------------
mark_dmesg
is "$(knob_w on_hypervisor refuse)" OK "protect -> refuse"
is "$(state fx_hv)" "$HV watched=1 sld-disabled=0 refuse-too-late=1 listed=1 disable_count 0" \
	"refuse: fx_hv stays loaded and keeps its protection, flagged"
like "$(new_dmesg)" 'sld_compat: on_hypervisor: fx_hv: hypervisor \(vmx-text\), policy refuse: not refused \(loaded already, or sld_compat disabled\): it stays, flagged refuse-too-late, until it unloads$' \
	"refuse: dmesg says it cannot be refused retroactively"
like "$(dmesg -r | grep 'on_hypervisor: fx_hv: .*policy refuse' | tail -n1)" '^<4>' \
	"refuse: said as a warning"
is "$(gac)" "$HANDLED" "refuse: its guest split locks still handled"
expect_dmesg 'sld_compat: refusing fx_vmxon: vmxon at \.text\+0x[0-9a-f]+$'
fails "refuse: a new hypervisor is refused" insmod /mod/fx_vmxon.ko
is "$(knob_w on_hypervisor log)" OK "refuse -> log"
is "$(state fx_hv)" "$HV watched=0 sld-disabled=0 refuse-too-late=0 listed=0 disable_count 0" \
	"refuse -> log: flag gone, no longer watched"

# ---- enabled=N gives the disable holds back and refuses nothing -----------------
is "$(knob_w on_hypervisor disable)" OK "on_hypervisor=disable"
is "disable_count $(cat $S/disable_count)" "disable_count 1" "disable: fx_hv holds it"
mark_dmesg
is "$(knob_w enabled N)" OK "enabled=N"
is "$(state fx_hv)" "$HV watched=0 sld-disabled=0 refuse-too-late=0 listed=0 disable_count 0" \
	"enabled=N: the disable hold given back"
is "$(acct_sum hold) $(acct_sum task)" "0 0" "enabled=N: no core held off: the account is the kernel's setting"
like "$(new_dmesg)" 'enabled: fx_hv: hypervisor \(vmx-text\), policy disable: SLD disable hold released$' \
	"enabled=N: dmesg says the hold went"
is "$(knob_w on_hypervisor refuse)" OK "on_hypervisor=refuse while disabled"
run "enabled=N: fx_vmxon is not refused" insmod /mod/fx_vmxon.ko
is "$(state fx_vmxon)" "hypervisor vmx-text watched=0 sld-disabled=0 refuse-too-late=1 listed=0 disable_count 0" \
	"enabled=N: fx_vmxon loaded, flagged refuse-too-late"
is "$(knob_w on_hypervisor disable)" OK "on_hypervisor=disable while disabled"
is "disable_count $(cat $S/disable_count)" "disable_count 0" "enabled=N: disable takes no hold"
mark_dmesg
is "$(knob_w enabled Y)" OK "enabled=Y"
is "$(state fx_hv)" "$HV watched=0 sld-disabled=1 refuse-too-late=0 listed=0 disable_count 2" \
	"enabled=Y: fx_hv's disable re-decided"
is "$(state fx_vmxon)" "hypervisor vmx-text watched=0 sld-disabled=1 refuse-too-late=0 listed=0 disable_count 2" \
	"enabled=Y: fx_vmxon holds it too"
is "$(acf cpu0 hold) $(acf cpu1 hold)" "1 1" "enabled=Y: every core held off again"
like "$(new_dmesg)" 'enabled: 2 of [0-9]+ loaded module\(s\) changed$' "enabled=Y: dmesg sums it up"
is "$(knob_w on_hypervisor protect)" OK "on_hypervisor=protect"
is "$(state fx_vmxon)" "hypervisor vmx-text watched=1 sld-disabled=0 refuse-too-late=0 listed=1 disable_count 0" \
	"protect: fx_vmxon watched, every hold given back"
run "rmmod fx_vmxon" rmmod fx_vmxon

# ---- bad values change nothing ----------------------------------------------------
before=$(state fx_hv)
knob_rejects on_hypervisor bogus "protect log"
knob_rejects safe_modules "+fx_hv,+fx_hv" "-fx_hv"
is "$(state fx_hv)" "$before" "after rejected writes: fx_hv as it was"

# ---- one task: protected, released, protected again ---------------------------------
# Its RUNs go on; each ends in a guest split lock: H handled, B SIGBUS
# (with the kernel's mode off; in warn mode its path says handled too, and
# ac_guest_passed tells).
rm -f /tmp/stop
sldhv oncpu 1 sldhv runs fx_hv 20000 /tmp/stop > /tmp/runs.out &
# shellcheck disable=SC2016 # wait_for evaluates it at each try
wait_for 100 'grep -q "why=hypervisor hv=fx_hv .* ac_guest=[1-9]" $S/tasks'
run "protect: the task's first guest #ACs were sld_compat's" \
	grep -q "why=hypervisor hv=fx_hv .* ac_guest=[1-9]" $S/tasks
pid=$(sed -n 's/^\([0-9]*\) sldhv why=hypervisor .*/\1/p' $S/tasks)
p0=$(ac ac_guest_passed)
is "$(knob_w on_hypervisor log)" OK "protect -> log under a task's RUNs"
# shellcheck disable=SC2016 # wait_for evaluates it at each try
wait_for 100 '[ "$(ac ac_guest_passed)" -gt "$p0" ]'
like "$(cat $S/tasks)" "^$pid sldhv why=released hv=fx_hv " "log: the task's record released"
p1=$(ac ac_guest_passed) h0=$(ac ac_guest_handled)
is "$(knob_w on_hypervisor protect)" OK "log -> protect under the same task"
# shellcheck disable=SC2016 # wait_for evaluates it at each try
wait_for 100 '[ "$(ac ac_guest_handled)" -gt "$h0" ]'
run "protect: sld_compat handles its guest #ACs again" [ "$(ac ac_guest_handled)" -gt "$h0" ]
like "$(cat $S/tasks)" "^$pid sldhv why=hypervisor hv=fx_hv " "protect: the same task's record protects again"
touch /tmp/stop
wait
if [ $KMODE = warn ]; then
	# Both paths print H here: the counters of each phase tell them
	# apart (protect: ac_guest= above; protect again: h0 above).
	like "$(cat /tmp/runs.out)" '^H+$' "one task, warn mode: every guest split lock handled, no SIGBUS"
	run "one task: released, the kernel's warn path took its #ACs (ac_guest_passed +$((p1 - p0)))" \
		[ "$p1" -gt "$p0" ]
else
	like "$(cat /tmp/runs.out)" '^H+B+H+$' "one task: handled, then SIGBUS, then handled again"
fi
diag "runs: $(tr -s HB < /tmp/runs.out)"
is "$(ac tasks_live)" 0 "its record went at exit"
run "rmmod fx_hv" rmmod fx_hv
is "$(cat $S/hypervisors)" none "no hypervisor watched"
balanced "at the end"
run "unload" unload
