# Issue #18: while a task is protected on behalf of a hypervisor module,
# sld_compat is in use, as kvm_intel is while a VM exists: rmmod is
# refused (the kernel's EAGAIN, "in use"), the reference count counts the
# tasks, status and doctor say which hypervisor; the task's exit releases
# it. A vendor's guest bracket holds it through the vendor's symbol
# reference. Exempt-only tasks do not pin. enabled=N and a forced unload
# (rmmod -f) detach hypervisor tasks on the admin's word, drop their
# references and say in dmesg that their guests may now receive #AC.
#
# The first vCPU does kernel-mode split locks all along: on a CPU that
# enforces split-lock detection each one would be fatal ("Split lock
# detected") if the refused rmmod had detached it; under TCG the test
# checks the bookkeeping.
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

REF=/sys/module/sld_compat/refcnt
# vcpu [SPLIT_LOCKS]: a vCPU thread on cpu1 that RUNs fx_hv (1 ms and
# SPLIT_LOCKS kernel-mode split locks each) again and again until
# vcpu_stop, output in /tmp/run.out; returns once a task pins sld_compat
# and fx_hv's ioctl entry is hooked: the task that learns it holds one
# more reference on sld_compat until its first ioctl returns (hvwatch.c,
# learn_queue).
# Split locks only where it stays protected throughout: once detached
# (enabled=N, rmmod -f) they would be fatal on an enforcing CPU.
vcpu() {
	rm -f /tmp/vcpu.stop
	sldhv oncpu 1 sldhv loop fx_hv /tmp/vcpu.stop "${1:-0}" > /tmp/run.out &
	# shellcheck disable=SC2016 # wait_for evaluates it at each try
	wait_for 50 '[ "$(ac tasks_pinning)" -ge 1 ]'
	# shellcheck disable=SC2016 # wait_for evaluates it at each try
	wait_for 50 '[ "$(hv fx_hv | cut -d" " -f2)" = state=hooked ]'
}
vcpu_stop() { touch /tmp/vcpu.stop; wait; }
RUNS_OK='^runs=[1-9][0-9]* failed=0$'

ensure_loaded fx_hv
echo protect > $P/on_hypervisor
is "$(cat $REF) $(ac tasks_pinning)" "0 0" "no protected task: refcount 0"
is "$(cat $S/in_use)" none "in_use: none"
like "$(sldctl status)" 'sld_compat in use: no: rmmod sld_compat is allowed' "sldctl status: not in use"

# ---- a hypervisor task keeps sld_compat loaded --------------------------------------
vcpu 100
is "$(ac tasks_pinning)" 1 "the vCPU task pins sld_compat"
is "$(cat $REF)" 1 "refcount 1"
like "$(lsmod | grep '^sld_compat ')" '^sld_compat +[0-9]+ +1( |$)' "lsmod shows the use count"
is "$(cat $S/in_use)" "fx_hv tasks=1" "in_use names the hypervisor and counts its task"
mark_dmesg
is "$(sldtest rmmod sld_compat)" EAGAIN "rmmod refused while the vCPU lives (EAGAIN: in use)"
fails "busybox rmmod refused too" unload
like "$(sldhv oncpu 0 sldhv cat $S/tasks)" '^[0-9]+ sldhv why=hypervisor hv=fx_hv cpu=1 ' "the vCPU is still protected"
is "$(new_dmesg | grep -c 'detached')" 0 "the refused rmmod detached nothing"
like "$(sldctl status)" 'sld_compat in use: yes, 1 reference: protected tasks of hypervisor fx_hv \(1 task\) keep it loaded' \
	"sldctl status says why it is in use"
like "$(sldctl status --json | grep -A4 '"in_use"' | tr -d ' \n')" '"in_use":\{"refcnt":1,"hypervisor_tasks":1,"others":0\}' \
	"sldctl status --json: in_use"
like "$(sldctl doctor)" '\[info\] sld-compat-in-use: sld_compat is in use \(1 reference: protected tasks of hypervisor fx_hv \(1 task\)' \
	"sldctl doctor says why it is in use"
vcpu_stop
if [ $CPU_SLD = 1 ]; then
	like "$(cat /tmp/run.out)" "$RUNS_OK" "every RUN of the vCPU, with its kernel-mode split locks, succeeded"
else
	like "$(cat /tmp/run.out)" "$RUNS_OK" \
		"every RUN of the vCPU succeeded (stock CPU: its kernel-mode split locks cannot trap here)"
fi
# The pin goes in do_exit, before the parent's wait returns.
is "$(cat $REF) $(ac tasks_pinning)" "0 0" "the task's exit dropped the reference"
is "$(cat $S/in_use)" none "in_use: none again"
is "$(sldtest rmmod sld_compat)" OK "rmmod succeeds once the task exited"
load

# ---- two hypervisor tasks: two references -----------------------------------------
rm -f /tmp/vcpu.stop
sldhv oncpu 0 sldhv loop fx_hv /tmp/vcpu.stop > /tmp/run0.out &
vcpu
# shellcheck disable=SC2016 # wait_for evaluates it at each try
wait_for 50 '[ "$(ac tasks_pinning)" = 2 ]'
is "$(cat $REF) $(cat $S/in_use)" "2 fx_hv tasks=2" "two vCPUs: refcount 2, in_use counts both"
is "$(sldtest rmmod sld_compat)" EAGAIN "rmmod refused"
vcpu_stop
is "$(cat $REF)" 0 "both exited: refcount 0"

# ---- a vendor's guest bracket: its symbol reference keeps sld_compat -------------
run "insmod fx_vendor" insmod /mod/fx_vendor.ko
echo 1500 > /sys/module/fx_vendor/parameters/hold_ms
# The bracket keeps cpu1 non-preemptible: this shell watches from cpu0.
taskset -p 1 $$ > /dev/null
sldhv oncpu 1 sldtest write /sys/module/fx_vendor/parameters/bracket 1 > /tmp/bracket.out &
# shellcheck disable=SC2016 # wait_for evaluates it at each try
wait_for 50 '[ "$(acf cpu1 bracket)" = 1 ]'
is "$(acf cpu1 bracket)" 1 "a vendor bracket is open on cpu1"
is "$(sldtest rmmod sld_compat)" EAGAIN "rmmod refused inside the bracket"
wait
is "$(cat /tmp/bracket.out) $(cat /sys/module/fx_vendor/parameters/bracket_result)" "OK cpu=1 ok=1" \
	"the bracket closed normally"
is "$(cat $REF)" 0 "bracket closed: no reference left"
run "rmmod fx_vendor" rmmod fx_vendor
taskset -p 3 $$ > /dev/null

# ---- exempt-only tasks do not pin ---------------------------------------------------
cp /tests/bin/sldhv /tmp/sldgame
is "$(knob_w exempt_comm sldgame)" OK "exempt_comm sldgame"
is "$(knob_w exempt_proactive Y)" OK "exempt_proactive Y"
rm -f /tmp/keep
mkfifo /tmp/keep
/tmp/sldgame cat /tmp/keep > /dev/null &
# shellcheck disable=SC2016 # wait_for evaluates it at each try
wait_for 50 '[ "$(ac tasks_live)" = 1 ]'
like "$(cat $S/tasks)" ' sldgame why=exempt-comm hv=- ' "an exempt task is protected"
is "$(cat $REF) $(cat $S/in_use)" "0 none" "it does not pin sld_compat"
mark_dmesg
is "$(sldtest rmmod sld_compat)" OK "rmmod succeeds with a live exempt task"
like "$(new_dmesg)" 'sld_compat: unloading: 1 protected task\(s\) detached' "unload detached the exempt task"
like "$(new_dmesg)" 'sld_compat:   detached sldgame\[[0-9]+\]$' "dmesg names it"
is "$(new_dmesg | grep -c 'lost protection')" 0 "no hypervisor task lost protection"
echo > /tmp/keep
wait
rm -f /tmp/keep /tmp/sldgame
load

# ---- enabled=N: the admin detaches hypervisor tasks, their pins go ----------------
vcpu
mark_dmesg
is "$(knob_w enabled N)" OK "enabled=N with a live vCPU"
is "$(cat $REF) $(ac tasks_pinning) $(ac tasks_live)" "0 0 0" "enabled=N: record and reference gone"
like "$(new_dmesg)" 'sld_compat:   detached sldhv\[[0-9]+\], a task of hypervisor fx_hv: its guest may now receive split-lock #AC' \
	"enabled=N: dmesg names the hypervisor task"
like "$(new_dmesg)" 'sld_compat: disabled: 1 hypervisor task\(s\) lost protection: their guests may now receive split-lock #AC' \
	"enabled=N: dmesg warns that its guest may now get #AC"
is "$(knob_w enabled Y)" OK "enabled=Y"
# shellcheck disable=SC2016 # wait_for evaluates it at each try
wait_for 50 '[ "$(cat $REF)" = 1 ]'
is "$(cat $REF)" 1 "enabled again: the vCPU's next RUN pins again"
vcpu_stop
like "$(cat /tmp/run.out)" "$RUNS_OK" "enabled=N: every RUN of the vCPU succeeded"
is "$(cat $REF)" 0 "and its exit releases"

# ---- rmmod -f: forced, on the admin's word ----------------------------------------
vcpu
mark_dmesg
is "$(sldtest rmmod sld_compat force)" OK "rmmod -f with a protected vCPU (CONFIG_MODULE_FORCE_UNLOAD)"
fails "forced: module gone" test -e /sys/module/sld_compat
like "$(new_dmesg)" 'sld_compat: unloading \(forced\): 1 protected task\(s\) detached' "forced: dmesg says so"
like "$(new_dmesg)" 'sld_compat:   detached sldhv\[[0-9]+\], a task of hypervisor fx_hv: its guest may now receive split-lock #AC' \
	"forced: dmesg names the hypervisor task"
like "$(new_dmesg)" 'sld_compat: unloading \(forced\): 1 hypervisor task\(s\) lost protection' "forced: dmesg warns"
vcpu_stop
like "$(cat /tmp/run.out)" "$RUNS_OK" "forced: every RUN of the vCPU succeeded"
run "load again after the forced unload" load
is "$(cat $REF)" 0 "reloaded: refcount 0"
run "rmmod fx_hv" rmmod fx_hv
run "rmmod sld_compat" unload
