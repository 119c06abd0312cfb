# SMT: two threads of one core share MSR_TEST_CTRL. Booted with
# -smp 2,sockets=1,cores=1,threads=2. A sibling must never turn SLD back on
# under a protected task on the other thread: not by our own switching,
# not by the kernel's re-enable work, not by its CPU-offline callback.
. /tests/lib.sh

core() { sed -n "s/^$1 core=\([0-9.]*\) .*/\1/p" $S/account; }
snap() { sldhv oncpu $1 sldhv cat $S/account; }
# seen CPU REGEX: one of 6 looks from CPU (each as one line) matches; the
# watched CPU may be running a kworker at any single look.
seen() {
	for i in 1 2 3 4 5 6; do
		snap $1 | tr '\n' ' ' | grep -qE -- "$2" && return 0
		sleep 0.1
	done
	return 1
}

load
insmod /mod/fx_hv.ko
insmod /mod/actest.ko
echo 0 > /proc/sys/kernel/split_lock_mitigate
is "$(core cpu0)" "$(core cpu1)" "cpu0 and cpu1 are threads of one core ($(core cpu0))"
like "$(sldhv run fx_hv 1000 0 1)" '^rc=0 ' "a first RUN (learns the entry)"

# ---- a protected task on cpu1 holds the whole core -----------------------------
o0=$(acf cpu0 toggles_off) o1=$(acf cpu1 toggles_off) r0=$(acf cpu0 reasserts)
sldhv oncpu 1 sldhv run fx_hv 2500000 0 1 > /tmp/run.out &
sleep 0.6
run "sibling cpu0 runs an unprotected task: core still held off for cpu1's" \
	seen 0 'cpu0 [^ ]+ hold=1 task=0 .*cpu1 [^ ]+ hold=1 task=1 '

# An unprotected split lock on cpu0: the kernel's warn path turns SLD off
# there and queues its re-enable work on cpu0 2 jiffies later. That work
# would turn the shared MSR on under cpu1's protected task.
like "$(sldhv oncpu 0 sldtest ac user 1)" '^handled=1 sigbus=0 ' "unprotected split lock on cpu0 (kernel path)"
sleep 0.3
if [ "$(acf cpu0 reasserts)" -gt "$r0" ]; then ok "kernel re-enable work on cpu0: SLD put back off at once (reasserts $(acf cpu0 reasserts))"
else nok "kernel re-enable work on cpu0: SLD put back off at once"; fi
run "core still held off after the kernel's re-enable" seen 0 '^cpu0 [^ ]+ hold=1 '

wait
like "$(cat /tmp/run.out)" '^rc=0 .* cpu=1 ' "the protected run completed on cpu1"
balanced "after the re-enable work"

# ---- CPU hotplug under a protected task -------------------------------------------
# The protected task runs on cpu1; cpu1 goes offline (the kernel moves the
# task to cpu0), comes back; the account must stay consistent throughout.
o1=$(acf cpu1 toggles_off)
sldhv oncpu 1 sldhv run fx_hv 3000000 0 1 > /tmp/run.out &
sleep 0.6
echo 0 > /sys/devices/system/cpu/cpu1/online
is "$(cat /sys/devices/system/cpu/cpu1/online)" 0 "cpu1 offline under its protected task"
like "$(cat $S/tasks)" '^[0-9]+ sldhv why=hypervisor hv=fx_hv cpu=0 ' "the task moved to cpu0, still protected"
echo 1 > /sys/devices/system/cpu/cpu1/online
is "$(cat /sys/devices/system/cpu/cpu1/online)" 1 "cpu1 online again"
# Read from cpu1 so that cpu0 keeps running the protected task.
run "cpu1 back: its core is held off for the task on cpu0" seen 1 'cpu1 [^ ]+ hold=1 task=0 '

wait
like "$(cat /tmp/run.out)" '^rc=0 ' "the protected run survived the hotplug"
balanced "after hotplug"

# ---- the kernel's CPU-offline callback -------------------------------------------
# splitlock_cpu_offline() turns SLD back on for the CPU going down, i.e. for
# the whole core, under a protected task on the sibling. The kernel
# registers it only where the CPU has SLD, so fx_actest calls it on cpu0
# as the hotplug thread would.
r0=$(acf cpu0 reasserts)
sldhv oncpu 1 sldhv run fx_hv 2500000 0 1 > /tmp/run.out &
sleep 0.6
run "protected task on cpu1 holds the core" seen 0 'cpu1 [^ ]+ hold=1 task=1 '
is "$(sldhv oncpu 0 sldtest ac offline)" OK "the kernel's splitlock_cpu_offline() ran on cpu0"
if [ "$(acf cpu0 reasserts)" -gt "$r0" ]; then ok "cpu-offline callback on cpu0: SLD put back off at once (reasserts $r0 -> $(acf cpu0 reasserts))"
else nok "cpu-offline callback on cpu0: SLD put back off at once (reasserts $r0 -> $(acf cpu0 reasserts))"; fi
run "core still held off for cpu1's task after the callback" seen 0 'cpu0 [^ ]+ hold=1 .*cpu1 [^ ]+ hold=1 task=1 '
wait
like "$(cat /tmp/run.out)" '^rc=0 .* cpu=1 ' "the protected run completed on cpu1"
balanced "after the cpu-offline callback"
# The core's state is shared: one thread may turn it off, the other on.
is "$(acct_sum toggles_off)" "$(acct_sum toggles_on)" "at the end: the core's toggles are balanced"
diag "$(cat $S/account)"
rmmod actest
rmmod fx_hv
unload
