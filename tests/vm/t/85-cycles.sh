# Load/unload cycles while 100 protected tasks fork, RUN the fixture
# hypervisor's ioctl and exit (issue #7's stress), under issue #18's rule:
# live hypervisor tasks keep sld_compat loaded. Every cycle finds them (a
# looping vCPU is always one of them) and its rmmod must be refused; then
# enabled=N detaches them all and drops their references while they keep
# forking and exiting, the rmmod must succeed, and the load protects the
# next ones. After the swarm, cycles without hypervisor tasks must all
# succeed. make check: 20 cycles; make check-stress: 500.
# No kernel error (vm.sh checks dmesg), no record or reference left, the
# account consistent at the end.
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

REF=/sys/module/sld_compat/refcnt
cycles=20
[ -e /tests/stress_full ] && cycles=500
ensure_loaded fx_hv
echo protect > $P/on_hypervisor
mark_dmesg
rm -f /tmp/swarm.stop
sldhv swarm fx_hv 100 /tmp/swarm.stop > /tmp/swarm.out &
sldhv loop fx_hv /tmp/swarm.stop > /tmp/loop.out &
sleep 2
protected=0 refused=0 fails=0 i=0
while [ $i -lt $cycles ]; do
	# The looping vCPU's next RUN after a load pins sld_compat again.
	# shellcheck disable=SC2016 # wait_for evaluates it at each try
	wait_for 50 '[ "$(ac tasks_pinning)" -gt 0 ]'
	p=$(ac tasks_protected)
	[ "${p:-0}" -gt 0 ] && protected=$((protected + 1))
	[ "$(sldtest rmmod sld_compat)" = EAGAIN ] && refused=$((refused + 1))
	[ "$(knob_w enabled N)" = OK ] || fails=$((fails + 1))
	[ "$(sldtest rmmod sld_compat)" = OK ] || fails=$((fails + 1))
	load || fails=$((fails + 1))
	# Let the swarm run under the fresh module for a moment.
	sleep 0.3
	i=$((i + 1))
	[ $((i % 50)) -eq 0 ] && diag "cycle $i of $cycles at $(cut -d' ' -f1 /proc/uptime) s"
done
touch /tmp/swarm.stop
wait
out=$(cat /tmp/swarm.out)
diag "swarm: $out; loop: $(cat /tmp/loop.out); cycles that protected tasks: $protected"
is "$refused" "$cycles" "$cycles rmmods under live hypervisor tasks refused"
is "$fails" 0 "$cycles enabled=N, rmmod, load under the swarm"
like "$out" '^tasks=[1-9][0-9]* runs=[0-9]+ failed=0$' "every swarm task's RUNs succeeded, no task killed"
like "$(cat /tmp/loop.out)" '^runs=[1-9][0-9]* failed=0$' "every RUN of the looping vCPU succeeded"
is "$protected" "$cycles" "every cycle's load protected tasks (tasks_protected > 0)"
like "$(new_dmesg)" 'sld_compat: disabled: [0-9]+ hypervisor task\(s\) lost protection' "enabled=N detached live hypervisor tasks"
is "$(new_dmesg | grep -c 'sld_compat: unloading')" 0 "no unload ever found a protected task"
is "$(ac tasks_live) $(ac tasks_pinning) $(cat $REF)" "0 0 0" "no record, no reference left after the swarm"
is "$(cat $S/disable_count)" 0 "no SLD disable hold left"
balanced "after the cycles (last load's account)"
for c in cpu0 cpu1; do
	is "$(acf $c toggles_off)" "$(acf $c toggles_on)" "$c: as many toggles off as on"
done
# Without hypervisor tasks every cycle succeeds.
fails=0 i=0
while [ $i -lt 10 ]; do
	unload && load || fails=$((fails + 1))
	i=$((i + 1))
done
is "$fails" 0 "10 unload/load cycles without hypervisor tasks"
rmmod fx_hv
